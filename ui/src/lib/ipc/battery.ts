// A judge battery from a panel file (src-tauri/src/battery.rs): the panel as the core reads it,
// and the battery run with its progress; Cancel is the judge runner's (`judgeCancel`).
import { Channel } from "@tauri-apps/api/core";
import type { BatteryOutcome } from "../../bindings/shell/BatteryOutcome";
import type { BatteryParams } from "../../bindings/shell/BatteryParams";
import type { BatteryStep } from "../../bindings/shell/BatteryStep";
import type { PanelRead } from "../../bindings/shell/PanelRead";
import { call } from "./call";

export type { BatteryOutcome, BatteryParams, BatteryStep, PanelRead };

/** The panel file's models and their provider profiles, as the core read and checked them. */
export const batteryPanel = (path: string) => call<PanelRead>("battery_panel", { path });

/** Runs (or resumes) every model × prompt cell, then writes the report folder from what is stored. */
export function batteryRun(params: BatteryParams, onstep: (s: BatteryStep) => void): Promise<BatteryOutcome> {
  const onProgress = new Channel<BatteryStep>(onstep);
  return call<BatteryOutcome>("battery_run", { params, onProgress });
}
