// The split view's pure parts: checking the parameter form before anything is sent, the stage
// chain of the Table 4 style accounting, and the default export folder.
import type { Axis } from "../bindings/Axis";
import type { SplitParams } from "../bindings/SplitParams";
import type { StageCounts } from "../bindings/StageCounts";
import type { DraftParams } from "./ipc/split";
import { AXES } from "./vocab";

/** The form as typed: a cap per axis (blank: no cap), the per-axis target and the seed. */
export interface ParamForm {
  caps: Record<Axis, string>;
  perAxis: string;
  seed: string;
}

export type FormField = Axis | "per_axis" | "seed";
export type Checked = { ok: true; params: DraftParams } | { ok: false; errors: Partial<Record<FormField, string>> };

const U32_MAX = 4294967295;

/** An empty form, before the core's defaults arrive. */
export function emptyForm(): ParamForm {
  return { caps: Object.fromEntries(AXES.map((a) => [a.value, ""])) as Record<Axis, string>, perAxis: "", seed: "" };
}

/** The form showing a split's stored parameters, or the core's defaults before the first draft. */
export function formOf(params: SplitParams): ParamForm {
  const form = emptyForm();
  for (const a of AXES) {
    const cap = params.caps[a.value];
    form.caps[a.value] = cap === undefined ? "" : String(cap);
  }
  form.perAxis = String(params.per_axis);
  form.seed = String(params.seed);
  return form;
}

/** A whole number typed in a field, or null when it is not one. */
function whole(text: string): number | null {
  const t = text.trim();
  if (!/^\d+$/.test(t)) return null;
  const n = Number(t);
  return Number.isSafeInteger(n) ? n : null;
}

/** Checks the form; every problem is said beside its field, and nothing is sent while any remain. */
export function checkForm(form: ParamForm): Checked {
  const errors: Partial<Record<FormField, string>> = {};
  const caps: Partial<Record<Axis, number>> = {};
  for (const a of AXES) {
    const typed = form.caps[a.value].trim();
    if (typed === "") continue;
    const n = whole(typed);
    if (n === null || n < 1 || n > U32_MAX) {
      errors[a.value] = `The ${a.label.toLowerCase()} cap must be a whole number of rows, at least 1 (leave it blank for no cap).`;
    } else {
      caps[a.value] = n;
    }
  }
  const perAxis = whole(form.perAxis);
  if (perAxis === null || perAxis < 1 || perAxis > U32_MAX) {
    errors.per_axis = "Evaluation rows per axis must be a whole number, at least 1.";
  }
  const seed = whole(form.seed);
  if (seed === null) {
    errors.seed = `The seed must be a whole number from 0 to ${Number.MAX_SAFE_INTEGER}.`;
  }
  if (Object.keys(errors).length > 0 || perAxis === null || seed === null) return { ok: false, errors };
  return { ok: true, params: { caps, per_axis: perAxis, seed } };
}

/** Whether the checked form asks for what `params` already holds. */
export function sameParams(a: DraftParams, b: SplitParams): boolean {
  const caps = (c: Partial<Record<Axis, number>>) => AXES.map((x) => c[x.value] ?? null).join(",");
  return a.per_axis === b.per_axis && a.seed === b.seed && caps(a.caps) === caps(b.caps);
}

export type Stage = { key: string; label: string; n: number; title: string };

/**
 * The main line of the Table 4 accounting, e.g. 433 candidates → 433 double-annotated → 433
 * adjudicated → 283 accepted → 231 after the cap → 200 selected → 198 evaluation; and the rows
 * that leave it on the way (rejected, capped, locality-removed).
 */
export function stages(c: StageCounts): { line: Stage[]; exits: Stage[] } {
  return {
    line: [
      { key: "candidates", label: "candidates", n: c.candidates, title: "Rows imported" },
      { key: "double_annotated", label: "double-annotated", n: c.double_annotated, title: "Both annotations finished" },
      { key: "adjudicated", label: "adjudicated", n: c.adjudicated, title: "A final label exists" },
      { key: "accepted", label: "accepted", n: c.accepted, title: "The pool the split was drawn from: accepted when it was drafted" },
      { key: "after_cap", label: "after the cap", n: c.accepted - c.capped, title: "Accepted rows left once the over-represented axes were capped" },
      { key: "selected", label: "selected", n: c.selected, title: "Drawn for evaluation, before the locality filter" },
      { key: "eval", label: "evaluation", n: c.eval, title: "The evaluation set: selected rows the locality audit kept (nothing replaces a removed row)" },
    ],
    exits: [
      { key: "rejected", label: "rejected", n: c.rejected, title: "Adjudicated as not a force gap" },
      { key: "capped", label: "capped", n: c.capped, title: "Surplus on over-represented axes, left out of the retained pool" },
      { key: "locality_removed", label: "locality-removed", n: c.locality_removed, title: "Marked nonlocal in the locality audit" },
      { key: "retained", label: "retained", n: c.retained, title: "The benchmark pool after the cap and the locality filter (the evaluation set is part of it)" },
    ],
  };
}

/** Where an export goes unless told otherwise: `<project folder>/<project stem>-split-v<N>`. */
export function defaultExportDir(projectPath: string, version: number): string {
  const cut = Math.max(projectPath.lastIndexOf("/"), projectPath.lastIndexOf("\\"));
  const dir = projectPath.slice(0, cut + 1);
  const stem = projectPath.slice(cut + 1).replace(/\.forcebench$/, "") || "project";
  return `${dir}${stem}-split-v${version}`;
}

/** Sums of equal-length number arrays, element by element. */
export function sumColumns(rows: number[][], width: number): number[] {
  const out = new Array<number>(width).fill(0);
  for (const r of rows) r.forEach((v, i) => (out[i] += v));
  return out;
}

/**
 * A verify failure for people. The core words it "DIR/eval.csv: what is wrong" (code
 * `verify_failed`); older builds wrote an import-style heading first, which is dropped.
 */
export function verifyProblems(message: string): string {
  const lines = message.split("\n");
  if (lines.length > 1 && /: \d+ problems? found; nothing was imported$/.test(lines[0])) {
    return lines.slice(1).map((l) => l.trim()).join("\n");
  }
  return message;
}
