// Packets: merging returns, writing a return, opening a packet's workspace and the way back.
import type { MergeReport } from "../../bindings/MergeReport";
import type { ReturnedPacket } from "../../bindings/shell/ReturnedPacket";
import type { SessionInfo } from "../../bindings/shell/SessionInfo";
import { call } from "./call";

// A written return: the shell's own type, generated (ui/src/bindings/shell).
export type { ReturnedPacket } from "../../bindings/shell/ReturnedPacket";

export const mergePackets = (paths: string[]) => call<MergeReport[]>("merge_packets", { paths });
export const returnPacket = (out: string | null) => call<ReturnedPacket>("return_packet", { out });
export const openPacket = (path: string) => call<SessionInfo>("open_packet", { path });
/** The lead's project this window left for a packet's workspace, and the way back to it. */
export const previousProject = () => call<string | null>("previous_project");
export const reopenPreviousProject = () => call<SessionInfo>("reopen_previous_project");
