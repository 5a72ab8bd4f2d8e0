// The options of a judge run as the form holds them (text, as typed), checked the way
// `forcebench judge run` checks its flags, and turned into the numbers the `judge_run` command
// takes. A blank optional field sends nothing (the CLI's flag left out); the defaults shown in
// the form are the core's (`judge_templates`).
import type { RunDefaults } from "../bindings/shell/RunDefaults";

export interface OptionFields {
  concurrency: string;
  temperature: string;
  max_tokens: string;
  seed: string;
  limit: string;
  timeout: string;
  attempts: string;
  answer_attempts: string;
}

export interface OptionValues {
  concurrency: number;
  temperature: number;
  max_tokens: number | null;
  seed: number | null;
  limit: number | null;
  timeout: number;
  attempts: number;
  answer_attempts: number;
}

export type OptionErrors = Partial<Record<keyof OptionFields, string>>;

/** The largest u32, the type the shell reads max_tokens, limit and attempts into. */
const U32 = 4294967295;

/** The form's starting text: the core's defaults, optional fields blank. */
export function fieldsFrom(d: RunDefaults): OptionFields {
  return {
    concurrency: String(d.concurrency),
    temperature: String(d.temperature),
    // The paper's output cap (1,024) unless the lead clears it; 0 sends no cap.
    max_tokens: d.max_tokens === null ? "0" : String(d.max_tokens),
    seed: "",
    limit: "",
    timeout: String(d.timeout),
    attempts: String(d.attempts),
    answer_attempts: String(d.answer_attempts),
  };
}

/** A whole number in [min, max], or the words saying what is wanted (shown by the field). */
function whole(text: string, min: number, max: number): number | string {
  const t = text.trim();
  const n = /^\d+$/.test(t) ? Number(t) : NaN;
  if (Number.isSafeInteger(n) && n >= min && n <= max) return n;
  return max >= U32 ? `A whole number ≥ ${min}.` : `A whole number from ${min} to ${max}.`;
}

/**
 * Checks every field; `values` is null when any is wrong, and `errors` says why by field.
 * Bounds: concurrency 1-64 (the core runs at most 64 at once), temperature 0-2 (the core refuses
 * others), timeout and attempts at least 1 (the CLI raises 0 to 1), limit at least 1 when given,
 * max tokens 0 (no cap) or more, answer attempts at least 1, a seed any whole number.
 */
export function readOptions(f: OptionFields): { values: OptionValues | null; errors: OptionErrors } {
  const errors: OptionErrors = {};
  const take = <K extends keyof OptionFields>(key: K, r: number | string): number => {
    if (typeof r === "string") errors[key] = r;
    return typeof r === "number" ? r : 0;
  };
  const optional = <K extends keyof OptionFields>(key: K, read: (t: string) => number | string): number | null =>
    f[key].trim() === "" ? null : take(key, read(f[key]));

  const concurrency = take("concurrency", whole(f.concurrency, 1, 64));
  const t = f.temperature.trim();
  const temp = /^(\d+\.?\d*|\.\d+)$/.test(t) ? Number(t) : NaN;
  const temperature = take("temperature", temp >= 0 && temp <= 2 ? temp : "A number from 0 to 2.");
  const max_tokens = optional("max_tokens", (x) => whole(x, 0, U32));
  const seed = optional("seed", (x) => whole(x, 0, Number.MAX_SAFE_INTEGER));
  const limit = optional("limit", (x) => whole(x, 1, U32));
  const timeout = take("timeout", whole(f.timeout, 1, Number.MAX_SAFE_INTEGER));
  const attempts = take("attempts", whole(f.attempts, 1, U32));
  const answer_attempts = take("answer_attempts", whole(f.answer_attempts, 1, U32));
  if (Object.keys(errors).length) return { values: null, errors };
  return { values: { concurrency, temperature, max_tokens, seed, limit, timeout, attempts, answer_attempts }, errors };
}
