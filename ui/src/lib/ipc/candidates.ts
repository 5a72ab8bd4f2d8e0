// The candidates view's commands.
import type { CandidateDetail } from "../../bindings/CandidateDetail";
import type { CandidatePage } from "../../bindings/CandidatePage";
import type { CandidateQuery } from "../../bindings/CandidateQuery";
import { call } from "./call";

/** One page of the candidate list, filtered in the core (the window never holds the whole pool). */
export const candidatePage = (query: CandidateQuery) => call<CandidatePage>("candidate_page", { query });
export const getCandidate = (id: string) => call<CandidateDetail>("get_candidate", { id });
