#!/usr/bin/env python3
"""A returned packet's size and `packets merge` beside its floor, at the sizes given: a generated
project, Ana's packet opened as a workspace, every row labelled there by `annotate import`, the
return written and merged into the lead's project, each step timed with scripts/bench_scaling.py's
functions (the merge beside `annotation_floor`, a bare SQLite transaction writing the same rows).
A benchmark: prints figures, asserts nothing.

Usage: FORCEBENCH_BIN=target/release/forcebench scripts/bench_packets.py [SIZES...] (default 10000)
"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_scaling as bs  # noqa: E402

bs.FB = os.path.abspath(os.environ.get("FORCEBENCH_BIN", bs.FB))


def run(n, work):
    p = os.path.join(work, "p.forcebench")
    csv = os.path.join(work, "candidates.csv")
    bs.generate(n, csv, work)
    subprocess.run(bs.fb(p, "init", "--name", f"packets {n}"), check=True, stdout=subprocess.DEVNULL)
    subprocess.run(bs.fb(p, "import", csv), check=True, stdout=subprocess.DEVNULL)
    for who in ("Ana", "Ben"):
        subprocess.run(bs.fb(p, "annotators", "add", who, "--role", "annotator"), check=True, stdout=subprocess.DEVNULL)
    subprocess.run(bs.fb(p, "assign", "--seed", "1"), check=True, stdout=subprocess.DEVNULL)
    packets = os.path.join(work, "packets")
    subprocess.run(bs.fb(p, "packets", "issue", "--out", packets), check=True, stdout=subprocess.DEVNULL)
    issued = [os.path.join(packets, f) for f in os.listdir(packets) if "Ana" in f]
    ws = os.path.join(work, "ana.forcebench")
    subprocess.run([bs.FB, "packets", "open", issued[0], "--workspace", ws], check=True, stdout=subprocess.DEVNULL)
    queue = json.loads(subprocess.run(bs.fb(ws, "annotate", "queue", "--annotator", "Ana", "--json"), check=True,
                                      capture_output=True, text=True).stdout)
    labels = os.path.join(work, "Ana.jsonl")
    with open(labels, "w") as f:
        for q in queue:
            f.write(json.dumps({"id": q["id"], "decision": "accept_force_gap", "severity": 2}) + "\n")
    subprocess.run(bs.fb(ws, "annotate", "import", labels, "--annotator", "Ana"), check=True, stdout=subprocess.DEVNULL)
    returned = os.path.join(work, "ana-returned.json")
    subprocess.run(bs.fb(ws, "packets", "return", "--out", returned), check=True, stdout=subprocess.DEVNULL)
    size = os.path.getsize(returned) / 2**20
    print(f"{n:,} rows: returned packet {size:.1f} MiB ({len(queue):,} rows)", flush=True)
    if os.path.getsize(returned) > 256 * 2**20:
        print(f"  over the 256 MiB a packet may hold: merge refuses it", flush=True)
        return
    r = {}
    bs.timed_with_floor(r, "packets merge (Ana)", bs.fb(p, "packets", "merge", returned), p, work)


for n in [int(a) for a in sys.argv[1:]] or [10000]:
    with tempfile.TemporaryDirectory(dir=os.environ.get("FORCEBENCH_BENCH_DIR")) as work:
        run(n, work)
