// Feedback the lead wrote for an annotator.
import type { Feedback } from "../../bindings/Feedback";
import type { IssuedFeedback } from "../../bindings/IssuedFeedback";
import { call } from "./call";

/** Reads a feedback file the lead wrote for an annotator. */
export const openFeedback = (path: string) => call<Feedback>("open_feedback", { path });

/** Writes one blinded feedback file per annotator with adjudicated rows into `dir` (the lead's
 *  `forcebench feedback issue`); an existing file is replaced only with `force`. */
export const issueFeedback = (dir: string, force: boolean) => call<IssuedFeedback[]>("issue_feedback", { dir, force });
