// The state of the drafting runner in the contexts view (tested in node): a model asked to draft
// every kept context without a draft, through the judge runner's client, with the same provider
// settings as `forcebench draft run` (endpoint, model, API style, the environment variable that
// holds the key; the key itself never reaches the window), its progress, and a Cancel that keeps
// every answer received (running the same name again resumes). The core checks everything.
import type { DraftRunSummary } from "../bindings/DraftRunSummary";
import { IpcError } from "../lib/ipc/call";
import { draftCancel, draftRun, type DraftProgress, type DraftRunParams } from "../lib/ipc/drafting";

/** The API styles a drafting run speaks, as `draft run --api` names them. */
export const API_STYLES: { value: string; label: string }[] = [
  { value: "chat", label: "Chat completions (OpenAI-compatible)" },
  { value: "responses", label: "Responses (OpenAI)" },
  { value: "anthropic", label: "Messages (Anthropic)" },
];

export class DraftRunner {
  baseUrl = $state("http://127.0.0.1:8080/v1");
  model = $state("");
  name = $state("");
  api = $state("chat");
  keyVar = $state("");
  template = $state("");
  limit = $state("");
  running = $state(false);
  cancelling = $state(false);
  progress = $state.raw<DraftProgress | null>(null);
  summary = $state.raw<DraftRunSummary | null>(null);
  error = $state.raw<IpcError | null>(null);

  constructor(private readonly finished: () => void = () => {}) {}

  /** The limit as typed: none, a whole number above 0, or not one (the run waits for a fix). */
  get limitValue(): number | null | "bad" {
    if (this.limit.trim() === "") return null;
    const n = Number(this.limit);
    return Number.isInteger(n) && n > 0 ? n : "bad";
  }

  get ready(): boolean {
    return (
      !this.running && this.baseUrl.trim() !== "" && this.model.trim() !== "" && this.name.trim() !== "" && this.limitValue !== "bad"
    );
  }

  params(): DraftRunParams {
    const text = (s: string) => (s.trim() ? s.trim() : null);
    const limit = this.limitValue;
    return {
      name: this.name.trim(),
      base_url: this.baseUrl.trim(),
      model: this.model.trim(),
      api: this.api,
      api_key_env: text(this.keyVar),
      template: text(this.template),
      temperature: null,
      max_tokens: null,
      limit: limit === "bad" ? null : limit,
      timeout: null,
      attempts: null,
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
