// A stored judge run put back in the run form (lib/judgeOptions.ts, the grid's Resume): every
// setting it was sent with, a template file kept as a file, and the order control without a map.
import assert from "node:assert/strict";
import { test } from "node:test";
import { storedRunForm } from "../../src/lib/judgeOptions.ts";

const SHIPPED = [{ name: "generic" }, { name: "force_aware" }, { name: "pairwise" }];
const record = (over = {}) => ({
  name: "gpt-r@force_aware", control: "none", split_version: 2, base_url: "https://api.example/v1", model: "gpt-r", template: "force_aware",
  template_sha256: "ab".repeat(32), label_map: "force", started_at: "2026-01-01T00:00:00Z", finished_at: null, requests: 66, answered: 20,
  template_source: "force_aware", parser_version: "3", answer_attempts: 2, transport_retries: 0, answer_retries: 0, unusable: 0, leaky: null,
  params: { temperature: 0.2, max_tokens: null, seed: 11, api_key_env: "OPENAI_API_KEY", api: "responses", cap_field: null, no_temperature: true, extra: { reasoning: { effort: "minimal" } } },
  ...over,
});

test("a stored run comes back with its endpoint, names, key variable, profile and numbers", () => {
  const f = storedRunForm(record(), SHIPPED);
  assert.deepEqual(
    [f.baseUrl, f.model, f.name, f.control, f.template, f.templateFile, f.keyVar, f.map],
    ["https://api.example/v1", "gpt-r", "gpt-r@force_aware", "none", "force_aware", "", "OPENAI_API_KEY", "force"],
  );
  assert.deepEqual(f.profile, { api: "responses", capField: "", deterministic: "none", extra: 'reasoning={"effort":"minimal"}' });
  // No cap was sent: 0 in the form sends none again; the seed and answer tries as recorded.
  assert.deepEqual(f.options, { temperature: "0.2", max_tokens: "0", seed: "11", answer_attempts: "2" });
});

test("a template file stays a file, a run recorded before its source was comes back by its name, and the order control reads no map", () => {
  assert.deepEqual(
    [storedRunForm(record({ template: "mine", template_source: "/labs/prompts/mine.txt" }), SHIPPED)].map((f) => [f.template, f.templateFile]),
    [["file", "/labs/prompts/mine.txt"]],
  );
  const old = storedRunForm(record({ template_source: null, answer_attempts: null, params: { temperature: 0, max_tokens: 1024, seed: null, api_key_env: null } }), SHIPPED);
  assert.deepEqual([old.template, old.keyVar, old.profile.api, old.options.seed, "answer_attempts" in old.options], ["force_aware", "", "chat", "", false]);
  const order = storedRunForm(record({ control: "order", template: "pairwise", template_source: "pairwise", label_map: "pairwise" }), SHIPPED);
  assert.deepEqual([order.control, order.template, order.map], ["order", "pairwise", ""]);
});
