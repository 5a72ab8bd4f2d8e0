#!/usr/bin/env bash
# The release app measured, with a 100,000-row project open: cold start to the first interactive
# view and the resident memory of every app process (WebKit's included), under Xvfb, beside the
# floor (an empty window of the same build: the forcebench-studio-floor binary), then opens a view
# not shown at start (its code fetched from the app's protocol) and measures again; then the
# package's size. Builds the package first (scripts/package.sh). Prints figures; not a test.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
scripts/package.sh
deb=$(ls -t dist/forcebench-studio_*_amd64.deb | head -1)
echo "package: $deb, $(du -k "$deb" | cut -f1) KiB; installed size $(dpkg-deb --field "$deb" Installed-Size) KiB"
# The same features as the app's release build, so Tauri is not built again.
cargo build --locked --release -p forcebench-studio --features tauri/custom-protocol,floor --bin forcebench-studio-floor
FORCEBENCH_STUDIO_BIN="$PWD/target/release/forcebench-studio" \
  FORCEBENCH_FLOOR_BIN="$PWD/target/release/forcebench-studio-floor" \
  cargo test --locked -p forcebench-e2e --test bench_release -- --ignored --nocapture 2>&1 | grep -v '^test \|^running\|^$'
