#!/usr/bin/env bash
# Recomputes the reference values of the agreement intervals with statsmodels, irrCAC
# and the krippendorff package, installed from PyPI into .venv-agreement-check (pinned in
# tests/python/requirements-agreement.txt), checks them against the committed
# tests/fixtures/agreement/reference.json, and runs the Rust test that compares ForceBench with
# that file. Offline apart from the one-time pip install.
set -euo pipefail
cd "$(dirname "$0")/.."

venv=.venv-agreement-check
req=tests/python/requirements-agreement.txt
if [[ ! -x $venv/bin/python ]] || ! cmp -s "$req" "$venv/.installed"; then
  echo "agreement reference: installing irrCAC, statsmodels and krippendorff into $venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check -r "$req"
  cp "$req" "$venv/.installed"
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$venv/bin/python" tests/python/agreement_reference.py "$work/reference.json"
"$venv/bin/python" - "$work/reference.json" tests/fixtures/agreement/reference.json <<'PY'
import json, math, sys
fresh, committed = (json.load(open(p)) for p in sys.argv[1:])
def walk(a, b, where):
    if isinstance(a, dict):
        assert a.keys() == b.keys(), where
        for k in a: walk(a[k], b[k], f"{where}.{k}")
    elif isinstance(a, list):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b)): walk(x, y, f"{where}[{i}]")
    elif isinstance(a, float):
        assert math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12), f"{where}: {a} recomputed, {b} committed"
    else:
        assert a == b, f"{where}: {a!r} recomputed, {b!r} committed"
walk(fresh, committed, "reference")
print(f"agreement reference: {len(fresh['cases'])} cases recomputed, equal to the committed file")
PY
cargo test --locked -q --test core agreement_intervals
