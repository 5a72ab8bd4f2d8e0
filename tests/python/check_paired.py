"""McNemar's exact test in `forcebench evaluate paired`, checked against SciPy's binomtest.

Usage: check_paired.py FORCEBENCH PROJECT. The project must have a locked split. For twenty seeded
draws of two evaluators' outcomes, this writes their scores, imports them with the CLI, runs
`evaluate paired --json`, and compares the discordant counts (computed here from the draws) and the
p-value (SciPy's exact two-sided binomial test at 1/2 on the discordant pairs) with the tool's.
"""

import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

from scipy.stats import binomtest


def run(fb, project, *args):
    out = subprocess.run([fb, "--project", project, *args], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"forcebench {' '.join(args)} failed: {out.stderr}")
    return out.stdout


def main():
    fb, project = sys.argv[1], sys.argv[2]
    ids = json.loads(run(fb, project, "split", "show", "--json"))["eval_ids"]
    work = Path(tempfile.mkdtemp())
    checked = 0
    for seed in range(20):
        rng = random.Random(seed)
        # Each evaluator violates a pair with its own probability; B's violations lean on A's.
        pa, pb = rng.uniform(0.1, 0.8), rng.uniform(0.1, 0.8)
        va = [rng.random() < pa for _ in ids]
        vb = [(a and rng.random() < 0.6) or rng.random() < pb * 0.5 for a in va]
        for name, viol in (("pa", va), ("pb", vb)):
            with open(work / f"{name}.jsonl", "w") as f:
                for pid, v in zip(ids, viol):
                    f.write(json.dumps({"id": pid, "claim": "safe", "score": 0.5}) + "\n")
                    f.write(json.dumps({"id": pid, "claim": "raised", "score": 0.5 if v else 0.0}) + "\n")
            run(fb, project, "evaluate", "--scores", str(work / f"{name}.jsonl"), "--name", name, "--bootstrap", "0", "--json")
        r = json.loads(run(fb, project, "evaluate", "paired", "pa", "pb", "--bootstrap", "0", "--json"))
        b = sum(1 for a, v in zip(va, vb) if a and not v)
        c = sum(1 for a, v in zip(va, vb) if v and not a)
        assert (r["only_a_violates"], r["only_b_violates"]) == (b, c), (seed, r, b, c)
        expected = binomtest(b, b + c, 0.5).pvalue if b + c else 1.0
        assert abs(r["mcnemar_p"] - expected) < 1e-9 * max(1.0, expected), (seed, r["mcnemar_p"], expected)
        checked += 1
    run(fb, project, "evaluate", "remove", "pa")
    run(fb, project, "evaluate", "remove", "pb")
    print(f"paired check: McNemar's exact p equals SciPy's binomtest on {checked} draws of {len(ids)} pairs")


if __name__ == "__main__":
    main()
