#!/usr/bin/env bash
# How each step's cost grows with the project (1k, 10k, 100k generated rows by default; pass
# sizes to choose, e.g. `scripts/bench-scaling.sh 1000 10000 100000 1000000`): every workflow
# step of the release command line timed beside floors measured in the same run, with peak
# memory and file sizes. Writes docs/scaling.md and docs/scaling.svg. A benchmark, not a test.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
command -v sqlite3 >/dev/null || { echo "needs the sqlite3 command (apt-get install sqlite3) for the import floor" >&2; exit 1; }
[[ -x /usr/bin/time ]] || { echo "needs GNU time (apt-get install time) for peak memory" >&2; exit 1; }
cargo build --locked --release --bin forcebench
exec python3 scripts/bench_scaling.py "$@"
