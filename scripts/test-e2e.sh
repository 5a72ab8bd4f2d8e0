#!/usr/bin/env bash
# The desktop app: build the UI and the app, run the commands through IPC on Tauri's mock
# runtime, then the end-to-end test in the real window (tauri-driver + WebKitWebDriver, under
# its own Xvfb when DISPLAY is unset), which also runs the `forcebench` command line.
# Screenshots land in tests/e2e/shots/.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export PATH="$HOME/.cargo/bin:$PATH"
[[ -d ui/node_modules ]] || { echo "test-e2e: ui/node_modules missing; run scripts/setup.sh first" >&2; exit 1; }
(cd ui && npm run --silent build)
cargo build -p forcebench-studio
# The window tests check what the window wrote with the real command line.
cargo build -p forcebench --bin forcebench
cargo test -p forcebench-studio
cargo test -p forcebench-e2e
