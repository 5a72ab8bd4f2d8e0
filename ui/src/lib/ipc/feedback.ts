// Feedback the lead wrote for an annotator.
import type { Feedback } from "../../bindings/Feedback";
import { call } from "./call";

/** Reads a feedback file the lead wrote for an annotator. */
export const openFeedback = (path: string) => call<Feedback>("open_feedback", { path });
