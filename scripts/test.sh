#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine (system packages, npm packages, tauri-driver) and runs every
# test: the core (unit, integration, CLI), the UI alone in headless Chromium, the Tauri commands
# on the mock runtime, and the end-to-end test in the real app window under Xvfb.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh

echo "== layout and lints: cargo fmt, clippy on every crate and target =="
cargo fmt --all --check
# The app embeds ui/dist at compile time, so the UI is built before the shell is linted.
(cd ui && npm run --silent build)
cargo clippy --locked --workspace --all-targets -- -D warnings

echo "== core: library, storage, import, CLI =="
cargo test --locked

echo "== the export, read by pandas and Hugging Face datasets =="
scripts/test-export-loaders.sh

echo "== UI alone in headless Chromium =="
scripts/test-ui.sh

echo "== desktop shell and the real app window =="
scripts/test-e2e.sh

echo "all test suites passed"
