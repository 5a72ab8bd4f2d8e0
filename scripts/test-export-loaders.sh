#!/usr/bin/env bash
# Exports a split of the demonstration project with the CLI and reads every file with pandas and
# the Hugging Face `datasets` json loader (installed from PyPI into .venv-export-check, pinned in
# tests/python/requirements.txt), checking the counts against the manifest. Offline apart from
# the one-time pip install.
set -euo pipefail
cd "$(dirname "$0")/.."

venv=.venv-export-check
if [[ ! -x $venv/bin/python ]] || ! cmp -s tests/python/requirements.txt "$venv/.installed"; then
  echo "export check: installing pandas, datasets and scipy into $venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check -r tests/python/requirements.txt
  cp tests/python/requirements.txt "$venv/.installed"
fi

cargo build --locked -q --bin forcebench
fb="${CARGO_TARGET_DIR:-target}/debug/forcebench"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
p=(--project "$work/demo.forcebench")
$fb "${p[@]}" init >/dev/null
$fb "${p[@]}" sample load >/dev/null
for name in Ana Ben Chidi Dana; do $fb "${p[@]}" annotators add "$name" >/dev/null; done
$fb "${p[@]}" annotators add Eve --role adjudicator >/dev/null
$fb "${p[@]}" assign >/dev/null
$fb "${p[@]}" sample annotate >/dev/null
$fb "${p[@]}" adjudicate confirm-agreements --adjudicator Eve --affirm >/dev/null
$fb "${p[@]}" split draft --per-axis 8 >/dev/null
first=$($fb "${p[@]}" split show --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["eval_ids"][0])')
$fb "${p[@]}" locality mark "$first" --reason "export check: a removed row" >/dev/null
$fb "${p[@]}" sample audit >/dev/null
$fb "${p[@]}" split lock >/dev/null
# McNemar's exact test of `evaluate paired`, against SciPy's binomtest (removes what it adds).
"$venv/bin/python" tests/python/check_paired.py "$fb" "$work/demo.forcebench"
$fb "${p[@]}" export "$work/out" >/dev/null
$fb verify "$work/out"
HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 HF_HOME="$work/hf" "$venv/bin/python" tests/python/check_export_loads.py "$work/out"
# Every numeric column of the judge report's CSVs is a number in pandas (negative FS included).
"$venv/bin/python" tests/python/check_report_numbers.py "$fb" "$work/demo.forcebench" "$work/report"
