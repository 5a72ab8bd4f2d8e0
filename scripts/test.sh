#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine (system packages, npm packages, tauri-driver) and runs every
# test: the core (unit, integration, CLI), the UI alone in headless Chromium, the Tauri commands
# on the mock runtime, and the end-to-end test in the real app window under Xvfb.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh

# A whole test run is not an edit-compile loop: incremental caches only cost disk (gigabytes on a
# clean clone), so they are off unless the caller sets CARGO_INCREMENTAL.
export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"
free_gb=$(df -Pk . | awk 'NR==2 {print int($4 / 1048576)}')
echo "== disk: ${free_gb} GB free here; a clean build and test run takes about 4 GB of target/ and needs some room besides =="

echo "== layout and lints: cargo fmt, clippy on every crate and target =="
cargo fmt --all --check
# The app embeds ui/dist at compile time, so the UI is built before the shell is linted.
(cd ui && npm run --silent build)
cargo clippy --locked --workspace --all-targets -- -D warnings

echo "== core: library, storage, import, CLI =="
cargo test --locked

echo "== the export, read by pandas and Hugging Face datasets =="
scripts/test-export-loaders.sh

echo "== agreement intervals against statsmodels, irrCAC and krippendorff =="
scripts/test-agreement-reference.sh

echo "== UI alone in headless Chromium =="
scripts/test-ui.sh

echo "== desktop shell and the real app window =="
scripts/test-e2e.sh

echo "all test suites passed"
