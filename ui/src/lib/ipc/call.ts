// How every command crosses to the Rust side: `call` invokes it and turns any failure into an
// `IpcError` carrying the core's `{code, message}`, so views can branch on the code and show the
// real message. The commands themselves live beside this file, one file per shell module
// (src-tauri/src/<module>.rs → ui/src/lib/ipc/<module>.ts); to add a command, add a function
// to the file named after the shell module that registers it.
import { invoke } from "@tauri-apps/api/core";
import type { ErrorPayload } from "../../bindings/ErrorPayload";

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

/** Calls a command; a failure comes out as an `IpcError`. The one wrapper every command uses. */
export async function call<T>(command: string, args?: Record<string, unknown>): Promise<T> {
  try {
    return await invoke<T>(command, args);
  } catch (cause) {
    throw IpcError.from(cause);
  }
}
