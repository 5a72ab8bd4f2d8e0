#!/usr/bin/env bash
# Builds and opens ForceBench Studio on the default project (created with the sample data on
# first run), or on the file named by FORCEBENCH_PROJECT. Extra arguments go to cargo run's
# program: scripts/app.sh [ARGS...]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
scripts/setup.sh
(cd ui && npm run build)
exec cargo run -p forcebench-studio -- "$@"
