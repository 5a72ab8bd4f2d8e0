"""Every numeric column of the judge report's CSVs reads as a number in pandas.

Stores an evaluator that prefers every raised claim (FS -1, so negative numbers are written),
writes the battery report from what is stored, and reads table2.csv, table3.csv and
figure3_grid.csv with pandas: every column but the text ones must have a numeric dtype. Removes
the evaluator it added.

Usage: check_report_numbers.py FORCEBENCH PROJECT OUT_DIR
"""

import json
import subprocess
import sys
import tempfile
from pathlib import Path

import pandas as pd

TEXT = {"evaluator", "prompt", "model"}


def main() -> None:
    fb, project, out = sys.argv[1], sys.argv[2], Path(sys.argv[3])
    run = lambda *args: subprocess.run([fb, "--project", project, *args], check=True, capture_output=True, text=True)
    eval_ids = json.loads(run("split", "show", "--json").stdout)["eval_ids"]
    with tempfile.TemporaryDirectory() as tmp:
        scores = Path(tmp) / "contrary.jsonl"
        lines = []
        for i in eval_ids:
            lines.append(json.dumps({"id": i, "claim": "safe", "score": 0}))
            lines.append(json.dumps({"id": i, "claim": "raised", "score": 1}))
        scores.write_text("\n".join(lines) + "\n")
        run("evaluate", "--scores", str(scores), "--name", "contrary@generic", "--bootstrap", "0")
    try:
        run("baselines", "run")
        run("judge", "battery", "--base-url", "http://127.0.0.1:9/v1", "--models", "contrary",
            "--templates", "generic", "--no-run", "--out", str(out))
        negative = False
        for name in ["table2.csv", "table3.csv", "figure3_grid.csv"]:
            frame = pd.read_csv(out / name)
            for column in frame.columns:
                if column in TEXT:
                    continue
                assert pd.api.types.is_numeric_dtype(frame[column]), f"{name}: column {column} is {frame[column].dtype}"
            if "fs" in frame.columns:
                negative |= bool((frame["fs"] < 0).any())
        assert negative, "the check needs a negative FS in the report"
        print(f"report CSVs: every numeric column is a number in pandas {pd.__version__}")
    finally:
        run("evaluate", "remove", "contrary@generic")


if __name__ == "__main__":
    main()
