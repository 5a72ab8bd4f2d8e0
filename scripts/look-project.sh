#!/usr/bin/env bash
# Makes the project the README's pictures of the Split and Evaluate views are taken from: the
# bundled sample, four annotators and an adjudicator, every row annotated (simulated), the full
# agreements confirmed and affirmed, QC, split v1 (8 rows per axis) audited (`sample audit`) and
# locked, the five baselines and
# an example judge whose answers are made up here (most raised claims flagged, a few misses, one
# answer with no verdict). Then takes every view at 1280×800, 1440×900 and 960×600 in the real
# window and writes the README's pictures into docs/:
#   scripts/look-project.sh            # the project and the pictures
#   scripts/look-project.sh --no-look  # the project only (its path is printed)
# Needs what scripts/test-e2e.sh needs (tauri-driver, WebKitWebDriver, Xvfb).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$(pwd)
cargo build --quiet -p forcebench --bin forcebench
fb="$root/target/debug/forcebench"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
p="$work/Sample project.forcebench"
run() { "$fb" --project "$p" "$@" >/dev/null; }
run init --name "Sample project"
run sample load
for who in Ana Ben Chidi Dana; do run annotators add "$who"; done
run annotators add Eve --role adjudicator
run assign --seed 1
run sample annotate --rows 106
run adjudicate confirm-agreements --adjudicator Eve --affirm
run qc run
run split draft --per-axis 8
run sample audit --by Eve
run split lock
run baselines run
run judge export --template force_aware --out "$work/requests.jsonl"
python3 - "$work/requests.jsonl" "$work/responses.jsonl" <<'PY'
import hashlib, json, sys
with open(sys.argv[2], "w") as out:
    for line in open(sys.argv[1]):
        r = json.loads(line)
        h = int(hashlib.sha256(r["request_id"].encode()).hexdigest(), 16) % 100
        if h == 7:
            answer = "I cannot tell."
        elif r["claim"] == "raised":
            answer = json.dumps({"label": "force_gap" if h < 94 else "force_calibrated", "primary_axis": "modality", "severity": 2,
                                 "warranted_claim": "…", "rationale": "The claim says more than the passage."})
        else:
            answer = json.dumps({"label": "force_calibrated" if h < 95 else "force_gap", "primary_axis": None, "severity": None,
                                 "warranted_claim": "…", "rationale": "The passage supports it."})
        out.write(json.dumps({"request_id": r["request_id"], "response": answer}) + "\n")
PY
run judge import "$work/responses.jsonl" --name example-judge
if [[ ${1:-} == --no-look ]]; then
  keep="$root/target/look-project.forcebench"
  cp "$p" "$keep"
  echo "$keep"
  exit 0
fi
(cd ui && npm run --silent build)
cargo build -p forcebench-studio
FORCEBENCH_LOOK_DOCS=1 FORCEBENCH_LOOK_PROJECT="$p" cargo test -p forcebench-e2e --test look -- --ignored
