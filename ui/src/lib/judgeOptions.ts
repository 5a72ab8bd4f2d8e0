// The options of a judge run as the form holds them (text, as typed), checked the way
// `forcebench judge run` checks its flags, and turned into the numbers the `judge_run` command
// takes. A blank optional field sends nothing (the CLI's flag left out); the defaults shown in
// the form are the core's (`judge_templates`).
import type { RunDefaults } from "../bindings/shell/RunDefaults";
import type { Control } from "../bindings/Control";
import type { RunRecord } from "../bindings/RunRecord";
import { profileFields, type ProfileFields } from "./providerProfile";

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
 * others), timeout and attempts at least 1 (the core refuses 0), limit at least 1 when given,
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

/** The run form as a stored run was sent: what Resume puts back so Run sends its unanswered
 *  requests with the same settings (the core refuses a resumed run whose settings differ). */
export interface StoredRunForm {
  baseUrl: string;
  model: string;
  name: string;
  control: Control;
  /** A shipped template's name, or "file" with `templateFile` its path. */
  template: string;
  templateFile: string;
  keyVar: string;
  /** "" for the order control, which reads picks, not labels. */
  map: string;
  profile: ProfileFields;
  /** The numeric fields the record holds; the others keep what the form has. */
  options: Partial<OptionFields>;
}

export function storedRunForm(r: RunRecord, shipped: { name: string }[]): StoredRunForm {
  const source = r.template_source ?? r.template;
  const isShipped = shipped.some((t) => t.name === source);
  const options: Partial<OptionFields> = {
    temperature: String(r.params.temperature),
    max_tokens: r.params.max_tokens === null ? "0" : String(r.params.max_tokens),
    seed: r.params.seed === null ? "" : String(r.params.seed),
  };
  if (r.answer_attempts !== null) options.answer_attempts = String(r.answer_attempts);
  return {
    baseUrl: r.base_url,
    model: r.model,
    name: r.name,
    control: r.control,
    template: isShipped ? source : "file",
    templateFile: isShipped ? "" : source,
    keyVar: r.params.api_key_env ?? "",
    map: r.control === "order" ? "" : r.label_map,
    profile: profileFields(r.params),
    options,
  };
}
