// The open project: its status, its revision and what kind of session it is (the commands
// src-tauri/src/lib.rs keeps beside the managed state).
import type { StatusReport } from "../../bindings/StatusReport";
import type { SessionInfo } from "../../bindings/shell/SessionInfo";
import { call } from "./call";

// The open project (a lead's project, or an annotator's workspace made from a packet): the
// shell's own type, generated (ui/src/bindings/shell).
export type { SessionInfo } from "../../bindings/shell/SessionInfo";

export const projectStatus = () => call<StatusReport>("project_status");
/** A name for the project's current state: it changes when anyone changes the project. */
export const projectRevision = () => call<string>("project_revision");
export const sessionInfo = () => call<SessionInfo>("session_info");
