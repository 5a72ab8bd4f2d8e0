// The state of the drafting runner in the contexts view (tested in node): a model asked to draft
// every kept context without a draft, through the judge runner's client, with the settings of
// `forcebench draft run` (endpoint, model, the provider profile the judge form offers: API style,
// cap field, a named deterministic mode, extra KEY=JSON fields; temperature, output cap, timeout
// and tries; the environment variable that holds the key, never the key), its progress, and a
// Cancel that keeps every answer received (running the same name again resumes, and the form
// keeps what was run, across views too). The core checks every value and refuses in its words
// before anything is sent; here a field is only read as a number.
import type { DraftRunSummary } from "../bindings/DraftRunSummary";
import type { DraftCatalog } from "../bindings/shell/DraftCatalog";
import { IpcError } from "../lib/ipc/call";
import { draftCancel, draftCatalog, draftRun, type DraftProgress, type DraftRunParams } from "../lib/ipc/drafting";
import { blankProfile, profileParams, type ProfileFields } from "../lib/providerProfile";

/** The numeric settings as typed; blank sends nothing (the core's default). */
export interface DraftNumbers {
  temperature: string;
  maxTokens: string;
  timeout: string;
  attempts: string;
  limit: string;
}

type Read = number | null | "bad";

/** A number as typed: blank is none; a whole number where `whole`, any decimal otherwise. Its
 *  range is the core's to check (a 0 or a temperature of 5 is sent and refused in its words). */
function readNumber(text: string, whole: boolean): Read {
  const t = text.trim();
  if (t === "") return null;
  const ok = whole ? /^\d+$/.test(t) : /^(\d+\.?\d*|\.\d+)$/.test(t);
  const n = Number(t);
  return ok && Number.isFinite(n) && (!whole || Number.isSafeInteger(n)) ? n : "bad";
}

export class DraftRunner {
  baseUrl = $state("http://127.0.0.1:8080/v1");
  model = $state("");
  name = $state("");
  keyVar = $state("");
  template = $state("");
  profile = $state<ProfileFields>(blankProfile());
  numbers = $state<DraftNumbers>({ temperature: "", maxTokens: "", timeout: "", attempts: "", limit: "" });
  /** The API styles and defaults, from the core (`draft_catalog`). */
  catalog = $state.raw<DraftCatalog | null>(null);
  running = $state(false);
  cancelling = $state(false);
  progress = $state.raw<DraftProgress | null>(null);
  summary = $state.raw<DraftRunSummary | null>(null);
  error = $state.raw<IpcError | null>(null);

  constructor(public finished: () => void = () => {}) {}

  /** Reads the core's styles and defaults once; the blank numeric fields take its defaults. */
  async load() {
    if (this.catalog) return;
    try {
      const c = await draftCatalog();
      this.catalog = c;
      const n = this.numbers;
      this.numbers = {
        temperature: n.temperature || String(c.temperature),
        maxTokens: n.maxTokens || String(c.max_tokens),
        timeout: n.timeout || String(c.timeout),
        attempts: n.attempts || String(c.attempts),
        limit: n.limit,
      };
    } catch (e) {
      this.error = IpcError.from(e);
    }
  }

  /** The API style (the profile's). */
  get api(): string {
    return this.profile.api;
  }
  set api(v: string) {
    this.profile = { ...this.profile, api: v };
  }

  /** The limit as typed: none, a whole number above 0, or not one (the run waits for a fix). */
  get limitValue(): number | null | "bad" {
    const n = readNumber(this.numbers.limit, true);
    return n === 0 ? "bad" : n;
  }

  /** Each numeric field that is not a number as typed (the run waits for a fix). */
  get badNumbers(): (keyof DraftNumbers)[] {
    const out: (keyof DraftNumbers)[] = [];
    if (readNumber(this.numbers.temperature, false) === "bad") out.push("temperature");
    for (const k of ["maxTokens", "timeout", "attempts"] as const) if (readNumber(this.numbers[k], true) === "bad") out.push(k);
    if (this.limitValue === "bad") out.push("limit");
    return out;
  }

  get ready(): boolean {
    return !this.running && this.baseUrl.trim() !== "" && this.model.trim() !== "" && this.name.trim() !== "" && this.badNumbers.length === 0;
  }

  params(): DraftRunParams {
    const text = (s: string) => (s.trim() ? s.trim() : null);
    const num = (s: string, whole: boolean) => {
      const n = readNumber(s, whole);
      return n === "bad" ? null : n;
    };
    const limit = this.limitValue;
    const { api, cap_field, no_temperature, extra } = profileParams(this.profile);
    return {
      name: this.name.trim(),
      base_url: this.baseUrl.trim(),
      model: this.model.trim(),
      api,
      api_key_env: text(this.keyVar),
      template: text(this.template),
      cap_field,
      no_temperature,
      extra,
      temperature: num(this.numbers.temperature, false),
      max_tokens: num(this.numbers.maxTokens, true),
      limit: limit === "bad" ? null : limit,
      timeout: num(this.numbers.timeout, true),
      attempts: num(this.numbers.attempts, true),
    };
  }

  async run() {
    if (!this.ready) return;
    this.running = true;
    this.cancelling = false;
    this.summary = null;
    this.error = null;
    this.progress = { done: 0, total: 0 };
    try {
      this.summary = await draftRun(this.params(), (p) => (this.progress = p));
    } catch (e) {
      this.error = IpcError.from(e);
    } finally {
      this.running = false;
      this.finished();
    }
  }

  async cancel() {
    if (!this.running) return;
    this.cancelling = true;
    try {
      await draftCancel();
    } catch (e) {
      this.error = IpcError.from(e);
    }
  }
}

let shared: DraftRunner | null = null;

/** The view's one runner: what was typed or run stays when the view is left and opened again,
 *  so a stopped run resumes with the settings it was sent with. */
export function draftRunner(finished: () => void): DraftRunner {
  shared ??= new DraftRunner(finished);
  shared.finished = finished;
  return shared;
}
