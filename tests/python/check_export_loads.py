"""Reads every file of a ForceBench split export with pandas and the Hugging Face `datasets`
json loader, as a user would, and checks the row counts against the manifest.

Usage: check_export_loads.py EXPORT_DIR
"""
import json
import os
import sys

import datasets
import pandas as pd

d = sys.argv[1]
manifest = json.load(open(os.path.join(d, "manifest.json"), encoding="utf-8"))
expected = {"eval.jsonl": manifest["counts"]["eval"], "benchmark.jsonl": manifest["counts"]["retained"],
            "locality_removed.jsonl": manifest["counts"]["locality_removed"]}
eval_keys = ["id", "axis", "severity", "source_dataset", "group_id", "context", "passage",
             "evidence_span", "calibrated_claim", "raised_claim", "repair"]
# A split locked with the extra row fields also carries the row fields its manifest lists (source_id,
# construction_family), after `repair`.
eval_keys += manifest.get("extra_row_fields") or []
datasets.disable_progress_bars()
for name in sorted(os.listdir(d)):
    path = os.path.join(d, name)
    if not name.endswith(".jsonl"):
        continue
    frame = pd.read_json(path, lines=True)
    if name in expected:
        assert len(frame) == expected[name], (name, len(frame), expected[name])
    if os.path.getsize(path) == 0:
        # datasets cannot infer columns from an empty file; pandas reads it as an empty frame.
        print(f"{name}: empty (pandas: {frame.shape}); skipped for datasets")
        continue
    ds = datasets.load_dataset("json", data_files=path, split="train")
    assert ds.num_rows == len(frame), (name, ds.num_rows, len(frame))
    if name == "eval.jsonl":
        assert list(frame.columns) == eval_keys, list(frame.columns)
        assert ds.column_names == eval_keys, ds.column_names
        assert str(frame["severity"].dtype).startswith("int"), frame["severity"].dtype
    print(f"{name}: pandas {frame.shape}, datasets {ds.num_rows} rows x {len(ds.column_names)} columns")
frame = pd.read_csv(os.path.join(d, "eval.csv"))
assert list(frame.columns) == eval_keys and len(frame) == manifest["counts"]["eval"]
print(f"eval.csv: pandas {frame.shape}")
