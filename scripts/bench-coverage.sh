#!/usr/bin/env bash
# The full coverage simulation of the agreement intervals: two-rater data from known populations
# (n = 30, 50, 100, 200, 433, 2,000; kappa 0.4, 0.78, 0.9; prevalence of accept 0.5 and 0.85; two
# and three labels) and many-rater data (three to five raters, each rating missing with chance
# 0.2, n = 30, 50, 100, 200): how often each 95% interval, plain and to read, holds the true
# value. Writes the tables to docs/coverage-table.md, the cells to docs/coverage.json and the plot
# to docs/coverage.svg. Replicates per cell: FORCEBENCH_COVERAGE_REPS (default 1,000; a quarter
# at n = 2,000), bootstrap replicates: FORCEBENCH_COVERAGE_BOOT (default 200). About 10 minutes
# at the defaults on a shared two-core machine (release build first), run at the lowest priority.
set -euo pipefail
cd "$(dirname "$0")/.."
FORCEBENCH_COVERAGE_JSON=docs/coverage.json nice -n 19 cargo bench --locked -q --bench coverage | tee docs/coverage-table.md
python3 scripts/coverage-plot.py docs/coverage.json docs/coverage.svg
echo "wrote docs/coverage-table.md, docs/coverage.json and docs/coverage.svg"
