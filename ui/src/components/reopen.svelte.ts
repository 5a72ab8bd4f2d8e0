// Reopening an adjudicated row: the adjudicator's recorded step that lets the row's annotators
// change their labels again (while a row is adjudicated the core refuses their changes, so that
// agreement counts the labels as they were decided). The reason, the call and its refusal live
// here; ReopenRow.svelte renders them. The core checks the reason and the role.
import type { Reopening } from "../bindings/Reopening";
import { adjudicationReopen } from "../lib/ipc/adjudication";
import { IpcError } from "../lib/ipc/call";

export class ReopenForm {
  open = $state(false);
  reason = $state("");
  busy = $state(false);
  error = $state.raw<IpcError | null>(null);
  /** The reopening recorded last, as the core answered it. */
  done = $state.raw<Reopening | null>(null);

  constructor(private readonly reopen: typeof adjudicationReopen = adjudicationReopen) {}

  start = (): void => {
    this.open = true;
    this.reason = "";
    this.error = null;
  };

  cancel = (): void => {
    this.open = false;
    this.error = null;
  };

  /** Reopens row `id` as `adjudicator`; answers the reopening, or null when the core refused
   *  (its refusal is in `error`, and the form stays open). */
  submit = async (id: string, adjudicator: string): Promise<Reopening | null> => {
    if (this.busy) return null;
    this.busy = true;
    this.error = null;
    try {
      const r = await this.reopen(id, adjudicator, this.reason);
      this.done = r;
      this.open = false;
      return r;
    } catch (e) {
      this.error = IpcError.from(e);
      return null;
    } finally {
      this.busy = false;
    }
  };
}
