// The one door to the Rust side. Every command the UI calls is a typed function here, and every
// failure comes out as an `IpcError` carrying the core's `{code, message}`, so views can branch
// on the code and show the real message. To add a command: add a function below.
import { invoke } from "@tauri-apps/api/core";
import type { CandidateDetail } from "../bindings/CandidateDetail";
import type { CandidateSummary } from "../bindings/CandidateSummary";
import type { ErrorPayload } from "../bindings/ErrorPayload";
import type { StatusReport } from "../bindings/StatusReport";

export class IpcError extends Error implements ErrorPayload {
  readonly code: string;

  constructor(code: string, message: string) {
    super(message);
    this.name = "IpcError";
    this.code = code;
  }

  /** Turns whatever a failed `invoke` rejected with into an IpcError. */
  static from(cause: unknown): IpcError {
    if (cause instanceof IpcError) return cause;
    if (isPayload(cause)) return new IpcError(cause.code, cause.message);
    // Tauri itself rejects with plain strings (unknown command, denied by the ACL, ...).
    if (typeof cause === "string") return new IpcError("ipc", cause);
    if (cause instanceof Error) return new IpcError("ipc", cause.message);
    return new IpcError("ipc", String(cause));
  }
}

function isPayload(value: unknown): value is ErrorPayload {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.code === "string" && typeof v.message === "string";
}

async function call<T>(command: string, args?: Record<string, unknown>): Promise<T> {
  try {
    return await invoke<T>(command, args);
  } catch (cause) {
    throw IpcError.from(cause);
  }
}

export const projectStatus = () => call<StatusReport>("project_status");
export const listCandidates = () => call<CandidateSummary[]>("list_candidates");
export const getCandidate = (id: string) => call<CandidateDetail>("get_candidate", { id });
