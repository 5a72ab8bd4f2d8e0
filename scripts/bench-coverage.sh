#!/usr/bin/env bash
# The full coverage simulation of the agreement intervals (issue 32): two-rater data from known
# populations (n = 30, 100, 433, 2,000; kappa 0.4, 0.78, 0.9; prevalence of accept 0.5 and 0.85;
# two and three labels), how often each 95% interval holds the true value. Writes the table to
# docs/coverage-table.md, the cells to docs/coverage.json and the plot to docs/coverage.svg.
# Replicates per cell: FORCEBENCH_COVERAGE_REPS (default 2,000; a quarter at n = 2,000), bootstrap
# replicates: FORCEBENCH_COVERAGE_BOOT (default 500). About 5 minutes at the defaults (release build first).
set -euo pipefail
cd "$(dirname "$0")/.."
FORCEBENCH_COVERAGE_JSON=docs/coverage.json cargo bench --locked -q --bench coverage | tee docs/coverage-table.md
python3 scripts/coverage-plot.py docs/coverage.json docs/coverage.svg
echo "wrote docs/coverage-table.md, docs/coverage.json and docs/coverage.svg"
