// Reopening an adjudicated row (components/reopen.svelte.ts) in node: what it sends, and that a
// refusal shown is the core's own, with the form left open.
import assert from "node:assert/strict";
import { test } from "node:test";
import { ReopenForm } from "../../src/components/reopen.svelte.ts";

test("reopen sends the row, the adjudicator and the reason, and keeps the core's refusal", async () => {
  const sent = [];
  const refusal = { code: "reason_required", message: "reopening row `fb-0001` needs a reason (what the annotators should look at again)" };
  const f = new ReopenForm(async (id, adjudicator, reason) => {
    sent.push({ id, adjudicator, reason });
    if (!reason.trim()) throw refusal;
    return { id, adjudicator, reason, decision: "accept_force_gap", at: "2026-01-01T00:00:00Z" };
  });
  f.start();
  assert.equal(f.open, true);
  assert.equal(await f.submit("fb-0001", "Eve"), null);
  assert.deepEqual({ code: f.error.code, message: f.error.message }, refusal);
  assert.equal(f.open, true, "a refused reopening leaves the form open");
  f.reason = "Ana wants to look at the span again";
  const r = await f.submit("fb-0001", "Eve");
  assert.equal(r.decision, "accept_force_gap");
  assert.equal(f.open, false);
  assert.equal(f.error, null);
  assert.deepEqual(sent.at(-1), { id: "fb-0001", adjudicator: "Eve", reason: "Ana wants to look at the span again" });
});
