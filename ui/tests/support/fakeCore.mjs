// A core for the window's state modules under node: answers the commands they send through
// @tauri-apps/api's `invoke` (installed as `window.__TAURI_INTERNALS__`, as Tauri does), records
// every call, and keeps what a command changed. Built from the same fixtures as the Chromium
// tests (fixtures.mjs). Only the commands the annotate and adjudicate modules send are here.
import { annotate, adjQueue, adjRows } from "./fixtures.mjs";

/** Installs a fake core; `answers` overrides a command with a function of its arguments. */
export function installCore(answers = {}) {
  const calls = [];
  const state = structuredClone({ annotate, adjQueue, adjRows });
  const rowsOf = (who) => state.annotate.queues[who] ?? [];
  const queueRow = (who, id, i) => {
    const a = state.annotate.rows[id].annotation;
    return { id, position: i + 1, decision: a.decision, finished: a.finished, started: a.events > 0 };
  };
  const history = {};
  const base = {
    list_annotators: () => state.annotate.annotators,
    annotate_next_open: ({ annotator, after }) => {
      const ids = rowsOf(annotator);
      const from = after === null ? 0 : ids.indexOf(after) + 1;
      for (let k = 0; k < ids.length; k++) {
        const i = (from + k) % ids.length;
        if (!state.annotate.rows[ids[i]].annotation.finished) return queueRow(annotator, ids[i], i);
      }
      return null;
    },
    annotate_queue_page: ({ query }) => {
      const ids = rowsOf(query.annotator);
      const offset = Math.min(query.offset, ids.length);
      const rows = ids.slice(offset, offset + query.limit).map((id, k) => queueRow(query.annotator, id, offset + k));
      const finished = ids.filter((id) => state.annotate.rows[id].annotation.finished).length;
      return { total: ids.length, finished, offset, rows };
    },
    annotate_row: ({ id, annotator }) => {
      const ids = rowsOf(annotator);
      return { ...state.annotate.rows[id], id, position: ids.indexOf(id) + 1, total: ids.length };
    },
    set_field: ({ id, field, value }) => {
      const r = state.annotate.rows[id];
      (history[id] ??= []).push(r.annotation);
      const stored = field === "evidence_span" && value !== null ? JSON.parse(value) : field === "severity" && value !== null ? Number(value) : value;
      r.annotation = {
        ...r.annotation,
        [field]: stored,
        events: r.annotation.events + 1,
        can_undo: true,
        suggested: r.annotation.suggested.filter((f) => f !== field),
      };
      return r.annotation;
    },
    undo_change: ({ id }) => {
      const r = state.annotate.rows[id];
      const before = (history[id] ?? []).pop();
      if (before) r.annotation = { ...before, can_undo: (history[id] ?? []).length > 0 };
      return r.annotation;
    },
    confirm_suggestions: ({ id }) => {
      const r = state.annotate.rows[id];
      (history[id] ??= []).push(r.annotation);
      r.annotation = { ...r.annotation, suggested: [], can_undo: true, events: r.annotation.events + 1 };
      return r.annotation;
    },
    add_time: ({ id, seconds }) => {
      state.annotate.rows[id].annotation.seconds_spent += seconds;
      return null;
    },
    adjudication_page: ({ query }) => {
      const items = state.adjQueue.items;
      const at = query.around ? items.findIndex((i) => i.id === query.around) : -1;
      const open = items.filter((i) => !i.adjudicated);
      let nextOpen = null;
      if (query.open_after !== null) {
        const after = items.findIndex((i) => i.id === query.open_after);
        nextOpen = [...items.slice(after + 1), ...items.slice(0, after + 1)].find((i) => !i.adjudicated && i.id !== query.open_after)?.id ?? null;
      }
      return {
        counts: state.adjQueue.counts,
        facets: { sources: ["ExpertQA", "LFQA"], pairs: [] },
        items,
        offset: 0,
        matching: items.length,
        position: at === -1 ? null : at,
        next_open: nextOpen ?? (query.open_after === "" ? (open[0]?.id ?? null) : null),
      };
    },
    adjudication_row: ({ id }) => {
      const r = state.adjRows[id] ?? { ...structuredClone(state.adjRows["fx-adj-2"]), candidate: { ...state.adjRows["fx-adj-2"].candidate, id } };
      return structuredClone(r);
    },
    resolve_row: ({ id, adjudicator, resolution }) => {
      const r = structuredClone(state.adjRows[id]);
      const decision = resolution.choices.find(([f]) => f === "decision");
      r.adjudication = {
        candidate_id: id,
        decision: decision ? (decision[1].take === "value" ? decision[1].value : r.fields[0][decision[1].take]) : null,
        rationale: resolution.rationale,
        adjudicator,
        decided_at: "2025-03-04T05:06:07.123Z",
        bulk_confirmed: false,
        checklist: resolution.checklist,
        fields: [],
      };
      state.adjRows[id] = r;
      return r;
    },
  };
  const invoke = async (cmd, args = {}) => {
    // As Tauri sends them: serialized (a $state proxy arrives as its plain value).
    args = JSON.parse(JSON.stringify(args));
    calls.push({ cmd, args });
    const answer = answers[cmd] ?? base[cmd];
    if (!answer) throw { code: "unknown_command", message: `no fake for ${cmd}` };
    return answer(args);
  };
  globalThis.window = { __TAURI_INTERNALS__: { invoke } };
  return {
    state,
    calls,
    /** The arguments of every call of `cmd`, in order. */
    of: (cmd) => calls.filter((c) => c.cmd === cmd).map((c) => c.args),
    /** The commands called, in order. */
    names: () => calls.map((c) => c.cmd),
  };
}

/** Lets every queued promise (a save chain, a row read) run. */
export async function settle() {
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
}
