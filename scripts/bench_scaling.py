#!/usr/bin/env python3
"""How each step's cost grows with the project: times every workflow step of the release
`forcebench` command line at several sizes of generated project, beside two floors measured in
the same run on the same CSV (SQLite's own `.import`, and reading and writing the same bytes),
with each command's peak memory and the project file's size. Writes docs/scaling.md (a table and
each step's growth exponent between the two largest sizes) and docs/scaling.svg (time against
rows, log-log). A benchmark: prints figures, asserts nothing.

Usage: scripts/bench-scaling.sh [SIZES...]   (default 1000 10000 100000; add 1000000 for 1M)
"""
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FB = os.path.join(ROOT, "target", "release", "forcebench")
STEPS = [
    "floor: sqlite3 .import",
    "floor: read+write bytes",
    "import",
    "assign",
    "annotate import (Ana)",
    "annotate import (Ben)",
    "agreement",
    "adjudicate confirm-agreements",
    "qc run",
    "split draft",
    "split lock",
    "export",
    "verify",
    "packets issue",
]


def timed(args, **kw):
    """Runs args under GNU time; returns (seconds, peak resident MiB)."""
    out = subprocess.run(
        ["/usr/bin/time", "-f", "%e %M"] + args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, **kw
    )
    if out.returncode != 0:
        sys.exit(f"failed: {' '.join(args)}\n{out.stderr}")
    secs, kib = out.stderr.strip().splitlines()[-1].split()
    return float(secs), int(kib) / 1024


def fb(project, *args):
    return [FB, "--project", project, *args]


def run_size(n, work):
    os.makedirs(work, exist_ok=True)
    p = os.path.join(work, "p.forcebench")
    csv = os.path.join(work, "candidates.csv")
    subprocess.run([FB, "sample", "generate", "--rows", str(n), "--seed", "1", "--out", csv, "--force"], check=True,
                   stdout=subprocess.DEVNULL)
    r = {}
    r["floor: sqlite3 .import"] = timed(["sqlite3", os.path.join(work, "floor.db"), ".mode csv", f".import {csv} t"])
    r["floor: read+write bytes"] = timed(["cp", csv, os.path.join(work, "copy.csv")])
    subprocess.run(fb(p, "init", "--name", f"scaling {n}"), check=True, stdout=subprocess.DEVNULL)
    r["import"] = timed(fb(p, "import", csv))
    for who, role in [("Ana", "annotator"), ("Ben", "annotator"), ("Eve", "adjudicator")]:
        subprocess.run(fb(p, "annotators", "add", who, "--role", role), check=True, stdout=subprocess.DEVNULL)
    r["assign"] = timed(fb(p, "assign", "--seed", "1"))
    # Both annotators label every row: accept, keeping the suggestions; Ben rejects every 7th.
    for who in ["Ana", "Ben"]:
        queue = json.loads(subprocess.run(fb(p, "annotate", "queue", "--annotator", who, "--json"), check=True,
                                          capture_output=True, text=True).stdout)
        path = os.path.join(work, f"{who}.jsonl")
        with open(path, "w") as f:
            for i, q in enumerate(queue):
                if who == "Ben" and i % 7 == 3:
                    f.write(json.dumps({"id": q["id"], "decision": "reject_not_force_gap", "boundary_type": "ambiguous"}) + "\n")
                else:
                    f.write(json.dumps({"id": q["id"], "decision": "accept_force_gap", "severity": 2}) + "\n")
        r[f"annotate import ({who})"] = timed(fb(p, "annotate", "import", path, "--annotator", who))
    r["agreement"] = timed(fb(p, "agreement", "--json", "--bootstrap", "0"))
    r["adjudicate confirm-agreements"] = timed(fb(p, "adjudicate", "confirm-agreements", "--adjudicator", "Eve"))
    r["qc run"] = timed(fb(p, "qc", "run"))
    r["split draft"] = timed(fb(p, "split", "draft", "--per-axis", "40"))
    r["split lock"] = timed(fb(p, "split", "lock"))
    out = os.path.join(work, "export")
    r["export"] = timed(fb(p, "export", out))
    r["verify"] = timed([FB, "verify", out])
    r["packets issue"] = timed(fb(p, "packets", "issue", "--out", os.path.join(work, "packets")))
    size = os.path.getsize(p) / 2**20
    csv_size = os.path.getsize(csv) / 2**20
    return r, size, csv_size


def svg(results, sizes):
    """Time against rows on log-log axes, one line per step."""
    w, h, left, top, right, bottom = 760, 480, 70, 30, 250, 50
    pw, ph = w - left - right, h - top - bottom
    ts = [t for r in results.values() for (t, _) in r.values() if t > 0]
    lo, hi = math.floor(math.log10(max(min(ts), 0.005))), math.ceil(math.log10(max(ts)))
    xs = [math.log10(n) for n in sizes]
    x0, x1 = min(xs), max(xs) if max(xs) > min(xs) else min(xs) + 1

    def X(n):
        return left + (math.log10(n) - x0) / (x1 - x0) * pw

    def Y(t):
        return top + (hi - math.log10(max(t, 10**lo))) / (hi - lo) * ph

    colours = ["#888", "#bbb", "#1f77b4", "#ff7f0e", "#2ca02c", "#98df8a", "#d62728", "#9467bd", "#8c564b",
               "#e377c2", "#7f7f7f", "#bcbd22", "#17becf", "#393b79"]
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="12">',
           f'<rect width="{w}" height="{h}" fill="#fff"/>',
           f'<text x="{left}" y="18" font-size="14">Time per step against rows (log-log)</text>']
    for e in range(lo, hi + 1):
        y = Y(10**e)
        out.append(f'<line x1="{left}" x2="{left + pw}" y1="{y}" y2="{y}" stroke="#eee"/>')
        out.append(f'<text x="{left - 6}" y="{y + 4}" text-anchor="end">{10**e:g} s</text>')
    for n in sizes:
        out.append(f'<line x1="{X(n)}" x2="{X(n)}" y1="{top}" y2="{top + ph}" stroke="#eee"/>')
        out.append(f'<text x="{X(n)}" y="{top + ph + 16}" text-anchor="middle">{n:,}</text>')
    out.append(f'<text x="{left + pw / 2}" y="{h - 10}" text-anchor="middle">rows</text>')
    for i, step in enumerate(STEPS):
        pts = [(X(n), Y(results[n][step][0])) for n in sizes]
        c = colours[i % len(colours)]
        dash = ' stroke-dasharray="4 3"' if step.startswith("floor") else ""
        out.append(f'<polyline fill="none" stroke="{c}" stroke-width="2"{dash} points="'
                   + " ".join(f"{x:.1f},{y:.1f}" for x, y in pts) + '"/>')
        ly = top + 10 + i * 16
        out.append(f'<line x1="{left + pw + 14}" x2="{left + pw + 34}" y1="{ly - 4}" y2="{ly - 4}" stroke="{c}" stroke-width="2"{dash}/>')
        out.append(f'<text x="{left + pw + 40}" y="{ly}">{step}</text>')
    out.append("</svg>")
    return "\n".join(out)


def main():
    sizes = [int(s) for s in sys.argv[1:]] or [1000, 10000, 100000]
    if not os.path.exists(FB):
        sys.exit(f"{FB} is missing: scripts/bench-scaling.sh builds it")
    work = tempfile.mkdtemp(prefix="forcebench-scaling-")
    results, files = {}, {}
    try:
        for n in sizes:
            print(f"== {n:,} rows", flush=True)
            results[n], size, csv_size = run_size(n, os.path.join(work, str(n)))
            files[n] = (size, csv_size)
            for step in STEPS:
                t, m = results[n][step]
                print(f"  {step:<32} {t:8.2f} s  {m:8.1f} MiB", flush=True)
            print(f"  project file {size:.1f} MiB (CSV {csv_size:.1f} MiB)", flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    a, b = sizes[-2:] if len(sizes) > 1 else (sizes[0], sizes[0])
    lines = ["# How cost grows with the project", "",
             "Written by `scripts/bench-scaling.sh` (release build, one run, this machine: "
             f"{os.cpu_count()} cores). Seconds of wall time and peak resident memory per command; "
             "the exponent k is the slope between the two largest sizes on log-log axes "
             "(time grows as rows^k: 1 is linear, n log n shows as slightly above 1).", "",
             "| step | " + " | ".join(f"{n:,} rows" for n in sizes) + f" | k ({a:,}→{b:,}) | peak MiB at {b:,} |",
             "| --- | " + " | ".join("---:" for _ in sizes) + " | ---: | ---: |"]
    for step in STEPS:
        ts = [results[n][step][0] for n in sizes]
        k = "—"
        if a != b and ts[-2] > 0.05 and ts[-1] > 0:
            k = f"{math.log(ts[-1] / ts[-2]) / math.log(b / a):.2f}"
        lines.append(f"| {step} | " + " | ".join(f"{t:.2f}" for t in ts) + f" | {k} | {results[b][step][1]:.0f} |")
    lines.append("| project file (MiB) | " + " | ".join(f"{files[n][0]:.1f}" for n in sizes) + " | | |")
    lines.append("| candidates CSV (MiB) | " + " | ".join(f"{files[n][1]:.1f}" for n in sizes) + " | | |")
    lines += ["", "Times under 0.05 s at the smaller size give no exponent (process start dominates).", "",
              "![Time per step against rows](scaling.svg)", ""]
    with open(os.path.join(ROOT, "docs", "scaling.md"), "w") as f:
        f.write("\n".join(lines))
    with open(os.path.join(ROOT, "docs", "scaling.svg"), "w") as f:
        f.write(svg(results, sizes))
    print("wrote docs/scaling.md and docs/scaling.svg")


if __name__ == "__main__":
    main()
