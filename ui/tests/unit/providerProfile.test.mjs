// A judge's provider profile as the run form holds it (lib/providerProfile.ts): what reaches the
// judge_run command, a stored profile put back in the form, and a panel model's profile in words.
import assert from "node:assert/strict";
import { test } from "node:test";
import { blankProfile, profileFields, profileParams, profileSummary } from "../../src/lib/providerProfile.ts";

const APIS = [
  { name: "chat", path: "/chat/completions", cap_field: "max_tokens", needs_cap: false },
  { name: "responses", path: "/responses", cap_field: "max_output_tokens", needs_cap: false },
];

test("a blank profile sends chat with the style's own cap field and a temperature", () => {
  assert.deepEqual(profileParams(blankProfile()), { api: "chat", cap_field: null, no_temperature: false, extra: [] });
});

test("extra lines are sent one a line as typed, blank lines dropped (the shell checks each)", () => {
  const f = { api: "anthropic", capField: "  ", deterministic: "none", extra: ' reasoning={"effort":"minimal"}\n\n  not json at all \n' };
  assert.deepEqual(profileParams(f), { api: "anthropic", cap_field: null, no_temperature: true, extra: ['reasoning={"effort":"minimal"}', "not json at all"] });
});

test("a stored profile comes back as it was sent, and goes out again unchanged", () => {
  const stored = { temperature: 0, max_tokens: 512, seed: 3, api_key_env: "K", api: "responses", cap_field: "max_completion_tokens", no_temperature: true, extra: { reasoning: { effort: "low" }, service_tier: "flex" } };
  const f = profileFields(stored);
  assert.deepEqual(f, { api: "responses", capField: "max_completion_tokens", deterministic: "none", extra: 'reasoning={"effort":"low"}\nservice_tier="flex"' });
  const back = profileParams(f);
  assert.deepEqual(Object.fromEntries(back.extra.map((l) => [l.slice(0, l.indexOf("=")), JSON.parse(l.slice(l.indexOf("=") + 1))])), stored.extra);
  // A run recorded before profiles were: chat, temperature.
  assert.deepEqual(profileFields({ temperature: 0, max_tokens: 1024, seed: null, api_key_env: null }), blankProfile());
});

test("a panel model's profile in words names the cap field the core sends and never a key", () => {
  const p = { temperature: 0, max_tokens: 1024, seed: null, api_key_env: "OPENAI_API_KEY", api: "responses", cap_field: null, no_temperature: true, extra: { reasoning: { effort: "minimal" } } };
  assert.equal(profileSummary(p, APIS), 'responses · max_output_tokens 1024 · no temperature sent · key from OPENAI_API_KEY · reasoning={"effort":"minimal"}');
  assert.equal(profileSummary({ ...p, api: "chat", max_tokens: null, no_temperature: false, api_key_env: null, extra: {} }, APIS), "chat · no output cap · temperature 0 · no key");
});
