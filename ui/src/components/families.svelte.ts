// The evaluate view's breakdown by construction family: every stored evaluator's MVR and FS per
// family and the core's shortcut audit of the lexical baselines, read whenever the evaluators
// change. FamilyTable.svelte renders it; the rule that flags a family is the core's.
import type { FamilyReport } from "../bindings/FamilyReport";
import { evaluationFamilies } from "../lib/ipc/evaluation";
import { IpcError } from "../lib/ipc/call";

export class FamiliesState {
  report = $state.raw<FamilyReport | null>(null);
  error = $state.raw<IpcError | null>(null);

  constructor(private readonly fetch: () => Promise<FamilyReport> = evaluationFamilies) {}

  /** The families in the table's order (as the core sorted them). */
  get families(): string[] {
    return Object.keys(this.report?.pairs ?? {});
  }

  /** Whether there is anything to break down: at least one evaluator and one named family. */
  get shown(): boolean {
    return this.families.some((f) => f !== "none") && Object.keys(this.report?.per_family ?? {}).length > 0;
  }

  load = async (): Promise<void> => {
    try {
      this.report = await this.fetch();
      this.error = null;
    } catch (e) {
      this.error = IpcError.from(e);
    }
  };
}
