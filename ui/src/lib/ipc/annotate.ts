// The annotate view's commands: the roster, an annotator's queue and row, the edits and the
// guideline in force.
import type { AnnotateRow } from "../../bindings/AnnotateRow";
import type { Annotation } from "../../bindings/Annotation";
import type { Annotator } from "../../bindings/Annotator";
import type { Field } from "../../bindings/Field";
import type { InForce } from "../../bindings/InForce";
import type { QueuePage } from "../../bindings/QueuePage";
import type { QueueQuery } from "../../bindings/QueueQuery";
import type { QueueRow } from "../../bindings/QueueRow";
import { call } from "./call";

export const listAnnotators = () => call<Annotator[]>("list_annotators");
/** A window of an annotator's queue with its counts (the core keeps the annotator's order). */
export const annotateQueuePage = (query: QueueQuery) => call<QueuePage>("annotate_queue_page", { query });
/** The annotator's next row not finished after `after` (going round), or from the start. */
export const annotateNextOpen = (annotator: string, after: string | null) =>
  call<QueueRow | null>("annotate_next_open", { annotator, after });
export const annotateRow = (id: string, annotator: string) => call<AnnotateRow>("annotate_row", { id, annotator });
export const setField = (id: string, annotator: string, field: Field, value: string | null) =>
  call<Annotation>("set_field", { id, annotator, field, value });
export const undoChange = (id: string, annotator: string) => call<Annotation>("undo_change", { id, annotator });
export const confirmSuggestions = (id: string, annotator: string) =>
  call<Annotation>("confirm_suggestions", { id, annotator });
export const addTime = (id: string, annotator: string, seconds: number) =>
  call<null>("add_time", { id, annotator, seconds });
export const guideline = () => call<InForce>("guideline");
