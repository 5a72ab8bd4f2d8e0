// A judge's provider profile as the run form holds it (the API style, the output cap's field, the
// deterministic setting, fixed extra fields), turned into what the `judge_run` command takes, and
// a stored profile (a run record, a panel file's model) put back into the form or into words.
// The checks are the core's: the shell refuses an unknown style or an extra line that is not
// KEY=JSON with `judge run`'s own message; nothing here restates them.
import type { SamplingParams } from "../bindings/SamplingParams";

/** How the run is made deterministic: a temperature sent (0 in the paper), or none sent (the
 *  provider's named mode, given as an extra field). */
export type Deterministic = "temperature" | "none";

export interface ProfileFields {
  api: string;
  /** Blank: the style's own field. */
  capField: string;
  deterministic: Deterministic;
  /** One KEY=JSON a line. */
  extra: string;
}

export const blankProfile = (): ProfileFields => ({ api: "chat", capField: "", deterministic: "temperature", extra: "" });

/** What each API style is, in a line (the endpoint path and cap field come from the core). */
const API_ABOUT: Record<string, string> = {
  chat: "OpenAI chat completions: the system and user prompts as messages. Also what vLLM, llama.cpp, Ollama and LM Studio serve.",
  responses: "OpenAI Responses: the system prompt goes as instructions, the user prompt as input.",
  anthropic: "Anthropic Messages: the system prompt at the top level, the key in x-api-key; an output cap is required.",
};

export function apiAbout(api: { name: string; path: string; cap_field: string }): string {
  const what = API_ABOUT[api.name] ?? `The ${api.name} API.`;
  return `${what} Sent to base URL + ${api.path}; the cap goes in ${api.cap_field}.`;
}

/** The profile's part of the `judge_run` parameters. */
export function profileParams(f: ProfileFields): { api: string; cap_field: string | null; no_temperature: boolean; extra: string[] } {
  return {
    api: f.api,
    cap_field: f.capField.trim() || null,
    no_temperature: f.deterministic === "none",
    extra: f.extra.split("\n").map((l) => l.trim()).filter((l) => l !== ""),
  };
}

/** A stored profile back in the form: the extra fields one KEY=JSON a line, in key order. */
export function profileFields(p: SamplingParams): ProfileFields {
  const extra = Object.entries(p.extra ?? {})
    .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
    .join("\n");
  return { api: p.api ?? "chat", capField: p.cap_field ?? "", deterministic: p.no_temperature ? "none" : "temperature", extra };
}

/** A stored profile in words: "responses · max_output_tokens 1024 · temperature 0 · key OPENAI_API_KEY". */
export function profileSummary(p: SamplingParams, apis: { name: string; cap_field: string }[]): string {
  const api = p.api ?? "chat";
  const parts: string[] = [api];
  // The style's own cap field is the core's (its catalog); "cap" when the catalog is not in.
  const field = p.cap_field || apis.find((a) => a.name === api)?.cap_field || "cap";
  parts.push(p.max_tokens === null ? "no output cap" : `${field} ${p.max_tokens}`);
  parts.push(p.no_temperature ? "no temperature sent" : `temperature ${p.temperature}`);
  if (p.seed !== null) parts.push(`seed ${p.seed}`);
  parts.push(p.api_key_env ? `key from ${p.api_key_env}` : "no key");
  for (const [k, v] of Object.entries(p.extra ?? {})) parts.push(`${k}=${JSON.stringify(v)}`);
  return parts.join(" · ");
}
