#!/usr/bin/env bash
# Next-row navigation time in the real app window (tauri-driver + WebKitWebDriver, under its own
# Xvfb when DISPLAY is unset): builds the UI and the app, then runs the ignored benchmark test
# and prints p50/p90/p99. Not part of the test suite; the figures depend on the machine.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export PATH="$HOME/.cargo/bin:$PATH"
[[ -d ui/node_modules ]] || { echo "bench-ui: ui/node_modules missing; run scripts/setup.sh first" >&2; exit 1; }
(cd ui && npm run --silent build)
cargo build -p forcebench-studio
cargo test -p forcebench-e2e --test bench_nav -- --ignored --nocapture
