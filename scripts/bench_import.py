#!/usr/bin/env python3
"""`forcebench import` beside `sqlite3 .import` of the same CSV, interleaved: each round imports
the CSV once with every binary given (each into a new project) and once with the sqlite3 shell
(into a new database, a plain table), so a machine shared with other work slows them alike; then
once more into a database with a project's journal (write-ahead log, synchronous FULL), the floor
a project's own journal sets. Prints wall and CPU time (user + system) per run, their medians,
each binary's ratios to both, and the load average before and after. A benchmark: asserts nothing
but that every import succeeded.

Usage: scripts/bench_import.py [--rounds=N] CSV BINARY [BINARY...]
       (e.g. scripts/bench_import.py --rounds=5 rows.csv /path/to/forcebench-base target/release/forcebench;
        `forcebench sample generate --rows 100000 --out rows.csv` makes the bench's CSV)
"""
import os
import statistics
import subprocess
import sys
import tempfile
import time

# `.import` with the project's own journal: what the same shell pays for the write-ahead log that
# every project uses (each page written to the log, then copied into the file by the checkpoint).
WAL = ".import, WAL + FULL"


def timed(args, cwd):
    """Runs args; returns (wall, cpu) seconds. CPU time is user plus system time from the child's
    resource usage, as GNU time reads it (wait4), but to the microsecond: GNU time prints
    hundredths, and a 200-row import takes a few of them."""
    start = time.perf_counter()
    proc = subprocess.Popen(args, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"failed: {' '.join(args)}\n{proc.stderr.read()}")
    proc.stderr.close()
    return wall, usage.ru_utime + usage.ru_stime


def load():
    return open("/proc/loadavg").read().split()[0]


def main():
    args = sys.argv[1:]
    rounds = 5
    if args and args[0].startswith("--rounds="):
        rounds = int(args.pop(0).split("=", 1)[1])
    if len(args) < 2:
        sys.exit(__doc__)
    csv, binaries = os.path.abspath(args[0]), [os.path.abspath(b) for b in args[1:]]
    names = [f"{os.path.basename(os.path.dirname(b))}/{os.path.basename(b)}" for b in binaries]
    size = os.path.getsize(csv)
    print(f"{csv}: {size / 2**20:.1f} MiB; {rounds} rounds; load average {load()} at the start", flush=True)
    results = {name: [] for name in names + ["sqlite3 .import", WAL]}
    with tempfile.TemporaryDirectory(dir=os.path.dirname(csv)) as work:
        for r in range(rounds):
            for name, binary in zip(names, binaries):
                project = os.path.join(work, f"p{r}.forcebench")
                subprocess.run([binary, "--project", project, "init", "--name", "bench"], check=True,
                               stdout=subprocess.DEVNULL)
                results[name].append(timed([binary, "--project", project, "import", csv], work))
                os.remove(project)
            db = os.path.join(work, f"plain{r}.db")
            results["sqlite3 .import"].append(timed(["sqlite3", db, ".mode csv", f".import {csv} t"], work))
            os.remove(db)
            # The same into a database journalled as a project is: a write-ahead log, synced in full.
            db = os.path.join(work, f"wal{r}.db")
            results[WAL].append(timed(["sqlite3", db, "PRAGMA journal_mode = WAL", "PRAGMA synchronous = FULL",
                                       ".mode csv", f".import {csv} t"], work))
            os.remove(db)
            print(f"round {r + 1}: " + "; ".join(f"{n} {w:.3f} s wall {c:.3f} s CPU" for n, v in results.items()
                                                 for w, c in [v[-1]]) + f" (load {load()})", flush=True)
    floor_wall = statistics.median(w for w, _ in results["sqlite3 .import"])
    floor_cpu = statistics.median(c for _, c in results["sqlite3 .import"])
    wal_wall = statistics.median(w for w, _ in results[WAL])
    for name, runs in results.items():
        wall = statistics.median(w for w, _ in runs)
        cpu = statistics.median(c for _, c in runs)
        ratios = sorted(w / f for (w, _), (f, _) in zip(runs, results["sqlite3 .import"]))
        print(f"{name:<28} median {wall:7.3f} s wall ({wall / floor_wall:4.2f}x .import, "
              f"{wall / wal_wall:4.2f}x with WAL), {cpu:7.3f} s CPU ({cpu / floor_cpu:4.2f}x); "
              f"per-round wall ratios to .import {ratios[0]:.2f}-{ratios[-1]:.2f}")
    print(f"load average {load()} at the end")


if __name__ == "__main__":
    main()
