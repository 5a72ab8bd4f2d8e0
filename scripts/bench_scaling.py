#!/usr/bin/env python3
"""How each step's cost grows with the project: times every workflow step of the release
`forcebench` command line at several sizes of generated project, beside two floors measured in
the same run on the same CSV (SQLite's own `.import`, and reading and writing the same bytes),
with each command's peak memory and the project file's size. Writes docs/scaling.md (a table and
each step's growth exponent between the two largest sizes) and docs/scaling.svg (time against
rows, log-log). A benchmark: prints figures, asserts nothing.

Usage: scripts/bench-scaling.sh [--packets-up-to=N] [--merge] [--docs-only] [SIZES...]
       (default sizes 1000 10000 100000; add 1000000 for 1M; the packet round trip runs at sizes
       up to N, default 100000)
       FORCEBENCH_BENCH_DIR=DIR keeps the projects and files of each size under DIR.
       Each size's figures are also kept in docs/scaling.json; --merge adds this run's sizes to
       the sizes kept there (a 1M run takes long: it can be measured on its own), and the table
       says which run measured each size; --docs-only rewrites the docs from that file alone.
"""
import csv as csvmod
import json
import math
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# FORCEBENCH_BIN=PATH measures another build of the command line (an earlier commit's, for a
# before/after figure in the same sitting); such a run prints its figures and leaves the docs,
# which describe this checkout's build, as they are.
OTHER_BIN = os.environ.get("FORCEBENCH_BIN")
FB = OTHER_BIN or os.path.join(ROOT, "target", "release", "forcebench")
STEPS = [
    "floor: sqlite3 .import",
    "floor: sqlite3 .import, WAL",
    "floor: read+write bytes",
    "import",
    "floor: import, bare inserts",
    "assign",
    "floor: assign, bare inserts",
    "packets issue",
    "packets open (Ana)",
    "annotate import (Ana)",
    "packets return (Ana)",
    "packets merge (Ana)",
    "annotate import (Ben)",
    "agreement",
    "adjudicate confirm-agreements",
    "floor: confirm-agreements, bare inserts",
    "adjudicate import",
    "floor: adjudicate import, bare inserts",
    "qc run",
    "split draft",
    "split lock",
    "export",
    "verify",
]


def timed(args, refusable=False):
    """Runs args; returns (seconds, peak resident MiB, peak private MiB), or with `refusable`
    None when the command refuses (its first line printed), where the bench stops otherwise.

    Resident memory counts the pages of the project file that SQLite reads through its memory
    map (up to 1 GiB), which the OS shares and can drop at will; private memory (RssAnon, sampled
    every 10 ms) is what the command itself allocated."""
    with tempfile.NamedTemporaryFile(mode="w+") as out, tempfile.TemporaryFile(mode="w+") as err:
        # GNU time reports the peak resident memory of the command alone (a fork of this Python
        # process would count its own pages); the command is time's only child.
        proc = subprocess.Popen(["/usr/bin/time", "-f", "%e %M", "-o", out.name] + args,
                                stdout=subprocess.DEVNULL, stderr=err)
        private, child = 0, None
        while proc.poll() is None:
            try:
                if child is None:
                    with open(f"/proc/{proc.pid}/task/{proc.pid}/children") as f:
                        child = int(f.read().split()[0])
                with open(f"/proc/{child}/status") as f:
                    for line in f:
                        if line.startswith("RssAnon:"):
                            private = max(private, int(line.split()[1]))
            except (FileNotFoundError, ProcessLookupError, ValueError, IndexError):
                pass
            time.sleep(0.01)
        if proc.returncode != 0:
            err.seek(0)
            if refusable:
                print(f"  refused: {' '.join(args[3:])}: {err.read().splitlines()[0]}", flush=True)
                return None
            sys.exit(f"failed: {' '.join(args)}\n{err.read()}")
        secs, kib = open(out.name).read().split()[-2:]
    return float(secs), int(kib) / 1024, private / 1024


# Each write step measured beside its bare-transaction floor (see `bare_floor`): the step's name,
# and the floor's row in the results.
BARE_FLOORS = {
    "import": "floor: import, bare inserts",
    "assign": "floor: assign, bare inserts",
    "adjudicate confirm-agreements": "floor: confirm-agreements, bare inserts",
    "adjudicate import": "floor: adjudicate import, bare inserts",
}


def bare_floor(before, after, work, step):
    """Times the floor of a write step: one bare SQLite transaction inserting, into a copy of the
    project as it stood before the step, exactly the rows the step added (read back from the
    project after it), with the project's own pragmas (foreign keys on, synchronous FULL, the
    bulk page cache), so its indexes, checks, foreign keys and triggers all do their work. What
    the step spends over it goes on reading, deciding and per-statement overhead. Returns timed()'s
    figures and a note naming any table whose existing rows the step changed (an update the floor
    does not repeat)."""
    floor_db = os.path.join(work, "floor-step.forcebench")
    delta = os.path.join(work, "floor-delta.db")
    for f in (floor_db, delta):
        if os.path.exists(f):
            os.remove(f)
    shutil.copyfile(before, floor_db)
    con = sqlite3.connect(delta)
    con.execute("ATTACH ? AS a", (after,))
    con.execute("ATTACH ? AS b", (before,))
    tables = [(name, sql) for name, sql in con.execute(
        "SELECT name, sql FROM a.sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY rootpage")]
    # A table after the tables it refers to: its rows' keys must be there when they go in.
    refers = {name: {r[2] for r in con.execute(f'PRAGMA a.foreign_key_list("{name}")')} - {name}
              for name, _ in tables}
    ordered = []
    while tables:
        ready = next(t for t in tables if not refers[t[0]] & {x[0] for x in tables})
        ordered.append(ready)
        tables.remove(ready)
    tables = ordered
    inserts, changed = [], []
    for name, sql in tables:
        cols = ", ".join(f'"{r[1]}"' for r in con.execute(f'PRAGMA a.table_info("{name}")'))
        if "WITHOUT ROWID" in sql.upper():
            new = f'SELECT {cols} FROM a."{name}" EXCEPT SELECT {cols} FROM b."{name}"'
        else:
            # Rows the step appended, in the order it wrote them.
            new = (f'SELECT {cols} FROM a."{name}" WHERE rowid > (SELECT coalesce(max(rowid), 0) FROM b."{name}") '
                   "ORDER BY rowid")
            gone = con.execute(f'SELECT count(*) FROM (SELECT {cols} FROM b."{name}" EXCEPT SELECT {cols} FROM a."{name}")').fetchone()[0]
            if gone:
                changed.append(f"{name} ({gone} rows changed)")
        con.execute(f'CREATE TABLE "{name}" AS {new}')
        if con.execute(f'SELECT count(*) FROM "{name}"').fetchone()[0]:
            inserts.append(f'INSERT INTO main."{name}" ({cols}) SELECT {cols} FROM d."{name}";')
    con.commit()
    con.close()
    # temp_store MEMORY keeps the floor's statement journals in memory, as a bulk step of the tool
    # keeps its own (Project::bulk): past 64 KiB SQLite would move them to a temporary file.
    script = "\n".join(["PRAGMA foreign_keys = ON;", "PRAGMA synchronous = FULL;", "PRAGMA cache_size = -1048576;",
                        "PRAGMA temp_store = MEMORY;",
                        f"ATTACH '{delta}' AS d;", "BEGIN;", *inserts, "COMMIT;"])
    t = timed(["sqlite3", floor_db, script])
    for f in (floor_db, delta):
        os.remove(f)
    return t, "; ".join(changed)


def with_floor(r, step, project, work, run):
    """Runs a write step (`run` returns its timed() figures) and then its bare-transaction floor,
    from a copy of the project taken before it."""
    before = os.path.join(work, "before-step.forcebench")
    shutil.copyfile(project, before)
    r[step] = run()
    r[BARE_FLOORS[step]], note = bare_floor(before, project, work, step)
    if note:
        print(f"  note: {step} also changed existing rows the floor does not repeat: {note}", flush=True)
    os.remove(before)


def floors_of(step):
    """The floors a step is measured against: its bare-transaction floor, and for import also
    SQLite's own `.import` of the same CSV, plain and into a project's journal."""
    out = [BARE_FLOORS[step]] if step in BARE_FLOORS else []
    if step == "import":
        out[:0] = ["floor: sqlite3 .import", "floor: sqlite3 .import, WAL"]
    return out


def fb(project, *args):
    return [FB, "--project", project, *args]


PACKET_STEPS = ["packets issue", "packets open (Ana)", "packets return (Ana)", "packets merge (Ana)"]


def ana_offline(r, p, work, path, labels, queue_of):
    """Ana works offline: her packet is opened as a workspace, labelled there, returned and merged."""
    packets = os.path.join(work, "packets")
    r["packets issue"] = timed(fb(p, "packets", "issue", "--out", packets))
    issued = [os.path.join(packets, f) for f in os.listdir(packets) if "Ana" in f and f.endswith(".json")]
    if len(issued) != 1:
        sys.exit(f"expected one packet for Ana in {packets}, found {issued}")
    ws = os.path.join(work, "ana.forcebench")
    r["packets open (Ana)"] = timed([FB, "packets", "open", issued[0], "--workspace", ws])
    labels("Ana", queue_of(ws, "Ana"), path)
    timed_with_floor(r, "annotate import (Ana)", fb(ws, "annotate", "import", path, "--annotator", "Ana"), ws, work)
    returned = os.path.join(work, "ana-returned.json")
    r["packets return (Ana)"] = timed(fb(ws, "packets", "return", "--out", returned))
    timed_with_floor(r, "packets merge (Ana)", fb(p, "packets", "merge", returned), p, work)


ANNOTATION_FLOORS = ["floor: annotate import (Ana)", "floor: packets merge (Ana)", "floor: annotate import (Ben)"]


# Printed and tabled beside the other steps.
STEPS = STEPS + ANNOTATION_FLOORS


def annotation_notes(results, sizes, files):
    """Lines for docs/scaling.md: each annotation step over its floor, and the file over the CSV
    with its largest tables and indexes, per size."""
    lines = ["", "Annotation writes over their floor (a bare SQLite transaction inserting the same rows "
             "into the same schema, `synchronous=FULL`): "]
    for n in sizes:
        parts = []
        for floor in ANNOTATION_FLOORS:
            step = floor[len("floor: "):]
            t, f = results[n].get(step), results[n].get(floor)
            if t and f and f[0] > 0:
                parts.append(f"{step} {t[0]:.2f} s = {t[0] / f[0]:.1f}× {f[0]:.2f} s")
        if parts:
            lines[-1] += f"{n:,} rows: " + "; ".join(parts) + ". "
    lines += ["", "Where the project file's bytes go (SQLite's `dbstat`, MiB; the file over the candidates CSV):", ""]
    for n in sizes:
        breakdown = results[n].get("size breakdown")
        if not breakdown:
            continue
        top = ", ".join(f"{name} {mib:.1f}" for name, mib in breakdown[:8])
        lines.append(f"- {n:,} rows: {size_floor_note(results[n], *files[n])}; {top}")
    return lines


def annotation_writes(before, after):
    """What a step wrote to the annotation tables: the events it added (ids above those in the
    file before it), the annotations it wrote or rewrote, and its packet return, as rows."""
    import sqlite3
    with sqlite3.connect(before) as b:
        last = b.execute("SELECT coalesce(max(id), 0) FROM annotation_events").fetchone()[0]
        last_return = b.execute("SELECT coalesce(max(id), 0) FROM packet_returns").fetchone()[0]
    a = sqlite3.connect(after)
    out = {}
    for table, where, args in [("annotation_events", "id > ?", (last,)),
                               ("packet_returns", "id > ?", (last_return,)),
                               ("annotations", "(candidate_id, annotator_id) IN (SELECT candidate_id, annotator_id "
                                "FROM annotation_events WHERE id > ?)", (last,))]:
        cols = [r[1] for r in a.execute(f"PRAGMA table_info({table})")]
        out[table] = (cols, a.execute(f"SELECT {', '.join(cols)} FROM {table} WHERE {where}", args).fetchall())
    a.close()
    return out


def annotation_floor(before, after, work):
    """The floor of a step that writes annotations: a bare SQLite transaction (synchronous=FULL,
    WAL, foreign keys on, the same schema, indexes and triggers) inserting exactly the rows the
    step wrote, into a copy of the file as it was before the step. Returns (seconds, 0, 0)."""
    import sqlite3
    rows = annotation_writes(before, after)
    floor = os.path.join(work, "floor-annotations.forcebench")
    shutil.copy(before, floor)
    for ext in ("-wal", "-shm"):
        if os.path.exists(before + ext):
            shutil.copy(before + ext, floor + ext)
    conn = sqlite3.connect(floor, isolation_level=None)
    # The pragmas of a bulk write (src/db.rs): without the same page cache, the floor's index
    # inserts would thrash a 2 MiB cache that the step never uses; statement journals in memory, as
    # the step keeps them (see bare_floor).
    for pragma in ("journal_mode = WAL", "synchronous = FULL", "foreign_keys = ON", "cache_size = -1048576",
                   "mmap_size = 1073741824", "temp_store = MEMORY"):
        conn.execute(f"PRAGMA {pragma}")
    start = time.perf_counter()
    conn.execute("BEGIN IMMEDIATE")
    for table in ("packet_returns", "annotation_events", "annotations"):
        cols, values = rows[table]
        # An annotation the step rewrote is there already; everything else is new.
        verb = "INSERT OR REPLACE" if table == "annotations" else "INSERT"
        if values:
            conn.executemany(f"{verb} INTO {table} ({', '.join(cols)}) VALUES ({', '.join('?' for _ in cols)})", values)
    conn.execute("COMMIT")
    took = time.perf_counter() - start
    conn.close()
    return (took, 0.0, 0.0)


def size_floor(r, step, project, csv):
    """The file's size right after `step` (import: the candidates alone; assign: with who labels
    what), over the CSV: the floor the finished project's size is set beside, since no project
    can be smaller than what it holds before any work is recorded. Kept in r["size floors"] as
    [step, MiB, MiB over the CSV] pairs."""
    mib = os.path.getsize(project) / 2**20
    over = mib / (os.path.getsize(csv) / 2**20)
    r.setdefault("size floors", []).append([step, mib, over])
    print(f"  file after {step}: {mib:.1f} MiB = {over:.2f}× the CSV", flush=True)


def size_floor_note(r, size, csv_size):
    """One line: the finished project's size over the CSV beside its floors."""
    floors = "; ".join(f"after {step} {mib:.1f} MiB = {over:.2f}×" for step, mib, over in r.get("size floors") or [])
    return f"{size:.1f} MiB = {size / csv_size:.2f}× the CSV (floors: {floors})"


def size_breakdown(project):
    """The project file's bytes per table and index (SQLite's dbstat), largest first: [(name, MiB)]."""
    import sqlite3
    conn = sqlite3.connect(f"file:{project}?mode=ro", uri=True)
    rows = conn.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC").fetchall()
    conn.close()
    return [(name, size / 2**20) for name, size in rows]


def timed_with_floor(r, step, args, project, work):
    """Times a step that writes annotations to `project`, and beside it its floor (see
    annotation_floor), from a copy of the file kept as it was before the step."""
    before = os.path.join(work, "before-step.forcebench")
    shutil.copy(project, before)
    for ext in ("-wal", "-shm"):
        if os.path.exists(project + ext):
            shutil.copy(project + ext, before + ext)
    r[step] = timed(args)
    r["floor: " + step] = annotation_floor(before, project, work)
    print(f"  {step}: {r[step][0]:.2f} s, floor {r['floor: ' + step][0]:.2f} s "
          f"({r[step][0] / max(r['floor: ' + step][0], 1e-9):.1f}×)", flush=True)
    for f in (before, before + "-wal", before + "-shm", os.path.join(work, "floor-annotations.forcebench")):
        if os.path.exists(f):
            os.remove(f)


def sqlite_import(csv, work, wal=False):
    """The sqlite3 shell's `.import` of the CSV into a plain table of a new database; with `wal`,
    a database with a project's journal (write-ahead log, synchronous FULL): each page written to
    the log and copied into the file by the checkpoint, which a rollback journal does not do."""
    db = os.path.join(work, "floor.db")
    for f in (db, db + "-wal", db + "-shm"):
        if os.path.exists(f):
            os.remove(f)
    journal = ["PRAGMA journal_mode = WAL", "PRAGMA synchronous = FULL"] if wal else []
    t = timed(["sqlite3", db, *journal, ".mode csv", f".import {csv} t"])
    os.remove(db)
    return t


def run_size(n, work, packets_too=True):
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    p = os.path.join(work, "p.forcebench")
    csv = os.path.join(work, "candidates.csv")
    generate(n, csv, work)
    r = {}
    plain = sqlite_import(csv, work)
    r["floor: read+write bytes"] = timed(["cp", csv, os.path.join(work, "copy.csv")])
    subprocess.run(fb(p, "init", "--name", f"scaling {n}"), check=True, stdout=subprocess.DEVNULL)
    # One input file holds at most 256 MiB (about 350,000 of these rows): a larger CSV is imported
    # as parts, as the refusal tells a user to; the step's time is the parts' sum, its memory the
    # largest part's.
    parts = split_csv(csv, 200000) if os.path.getsize(csv) > 250 * 2**20 else [csv]

    def import_parts():
        done = [timed(fb(p, "import", part)) for part in parts]
        return sum(t for t, _, _ in done), max(m for _, m, _ in done), max(x for _, _, x in done)

    with_floor(r, "import", p, work, import_parts)
    size_floor(r, "import", p, csv)
    # `.import` is timed on both sides of `import` and their mean kept, so a load that comes or goes
    # meanwhile weighs on the ratio less.
    again = sqlite_import(csv, work)
    r["floor: sqlite3 .import"] = tuple((a + b) / 2 for a, b in zip(plain, again))
    r["floor: sqlite3 .import, WAL"] = sqlite_import(csv, work, wal=True)
    print(f"  import: {r['import'][0]:.2f} s, sqlite3 .import {plain[0]:.2f} and {again[0]:.2f} s "
          f"({r['import'][0] / max(r['floor: sqlite3 .import'][0], 1e-9):.2f}× their mean), "
          f"into a write-ahead log {r['floor: sqlite3 .import, WAL'][0]:.2f} s", flush=True)
    for who, role in [("Ana", "annotator"), ("Ben", "annotator"), ("Eve", "adjudicator")]:
        subprocess.run(fb(p, "annotators", "add", who, "--role", role), check=True, stdout=subprocess.DEVNULL)
    with_floor(r, "assign", p, work, lambda: timed(fb(p, "assign", "--seed", "1")))
    size_floor(r, "assign", p, csv)

    def labels(who, queue, path):
        """Every row accepted keeping the suggestions, but Ben rejects every 7th."""
        with open(path, "w") as f:
            for i, q in enumerate(queue):
                if who == "Ben" and i % 7 == 3:
                    f.write(json.dumps({"id": q["id"], "decision": "reject_not_force_gap", "boundary_type": "ambiguous"}) + "\n")
                else:
                    f.write(json.dumps({"id": q["id"], "decision": "accept_force_gap", "severity": 2}) + "\n")

    def queue_of(project, who):
        return json.loads(subprocess.run(fb(project, "annotate", "queue", "--annotator", who, "--json"), check=True,
                                         capture_output=True, text=True).stdout)

    path = os.path.join(work, "Ana.jsonl")
    if not packets_too:
        # Ana labels in the lead's project too; the packet steps are left out at this size.
        labels("Ana", queue_of(p, "Ana"), path)
        timed_with_floor(r, "annotate import (Ana)", fb(p, "annotate", "import", path, "--annotator", "Ana"), p, work)
        for step in PACKET_STEPS:
            r[step] = None
        r["floor: packets merge (Ana)"] = None
    else:
        ana_offline(r, p, work, path, labels, queue_of)

    # Ben labels in the lead's project.
    path = os.path.join(work, "Ben.jsonl")
    labels("Ben", queue_of(p, "Ben"), path)
    timed_with_floor(r, "annotate import (Ben)", fb(p, "annotate", "import", path, "--annotator", "Ben"), p, work)
    r["agreement"] = timed(fb(p, "agreement", "--json", "--bootstrap", "0"))
    with_floor(r, "adjudicate confirm-agreements", p, work,
               lambda: timed(fb(p, "adjudicate", "confirm-agreements", "--adjudicator", "Eve", "--affirm")))
    path = os.path.join(work, "adjudications.jsonl")
    decided = adjudications(p, path)
    with_floor(r, "adjudicate import", p, work,
               lambda: timed(fb(p, "adjudicate", "import", path, "--adjudicator", "Eve")))
    print(f"  adjudicate import: {decided} rows, {r['adjudicate import'][0]:.2f} s, floor "
          f"{r['floor: adjudicate import, bare inserts'][0]:.2f} s", flush=True)
    r["qc run"] = timed(fb(p, "qc", "run"))
    # At 1,000,000 generated rows every raised claim recurs on other passages, so the provenance
    # check holds every row back and there is no split to draft: the split's steps are left out.
    r["split draft"] = timed(fb(p, "split", "draft", "--per-axis", "40"), refusable=True)
    if r["split draft"] is None:
        r["split lock"] = r["export"] = r["verify"] = None
    else:
        # The synthetic rows' locality warnings are not reviewed: the lock records them as skipped.
        r["split lock"] = timed(fb(p, "split", "lock", "--allow-unreviewed"))
        out = os.path.join(work, "export")
        r["export"] = timed(fb(p, "export", out))
        r["verify"] = timed([FB, "verify", out])
    size = os.path.getsize(p) / 2**20
    csv_size = os.path.getsize(csv) / 2**20
    r["size breakdown"] = size_breakdown(p)
    print(f"  file {size:.1f} MiB = {size / csv_size:.1f}× the CSV: "
          + ", ".join(f"{name} {mib:.1f}" for name, mib in r["size breakdown"][:10]), flush=True)
    return r, size, csv_size


def adjudications(project, path):
    """Writes the adjudication file of every double-annotated row still open (after
    confirm-agreements, the bench's decision disagreements: Ana accepted, Ben rejected), read from
    the project before the step's clock starts: alternately Ana's accept, every field given with
    the checklist affirmed, and Ben's reject with his boundary type. Returns the rows written."""
    con = sqlite3.connect(f"file:{project}?mode=ro", uri=True)
    rows = con.execute(
        """SELECT n.candidate_id, a.name, n.decision, n.evidence_span, n.span_start, n.span_end, n.calibrated_claim,
                  n.raised_claim, n.axis, n.severity, n.repair, n.boundary_type
           FROM annotations n JOIN annotators a ON a.id = n.annotator_id JOIN candidates c ON c.id = n.candidate_id
           WHERE n.finished = 1 AND n.candidate_id NOT IN (SELECT candidate_id FROM adjudications)
           ORDER BY c.seq, a.name""").fetchall()
    con.close()
    by_row = {}
    for r in rows:
        by_row.setdefault(r[0], {})[r[1]] = r
    checklist = {k: True for k in ["span_decisive", "calibrated_supported", "raised_underwarranted", "one_local_axis",
                                   "no_unrelated_addition"]}
    written = 0
    with open(path, "w") as f:
        for i, (id, label) in enumerate(by_row.items()):
            ana, ben = label.get("Ana"), label.get("Ben")
            if ana is None or ben is None:
                continue
            if i % 2 == 0 and ana[2] == "accept_force_gap":
                line = {"id": id, "decision": "accept_force_gap",
                        "evidence_span": {"text": ana[3], "start": ana[4], "end": ana[5]},
                        "calibrated_claim": ana[6], "raised_claim": ana[7], "axis": ana[8], "severity": ana[9],
                        "repair": ana[10], "checklist": checklist}
            else:
                line = {"id": id, "decision": "reject_not_force_gap", "boundary_type": ben[11] or "ambiguous"}
            f.write(json.dumps(line) + "\n")
            written += 1
    return written


def generate(n, csv, work):
    """Writes n generated rows to `csv`. `sample generate` writes at most 200,000 rows (a file an
    import reads whole): a larger set is generated in parts, each with its own seed (the seed is
    part of every id, so ids stay distinct), and the parts joined under one header."""
    per = 200000
    if n <= per:
        subprocess.run([FB, "sample", "generate", "--rows", str(n), "--seed", "1", "--out", csv, "--force"], check=True,
                       stdout=subprocess.DEVNULL)
        return
    with open(csv, "wb") as out:
        for k, start in enumerate(range(0, n, per)):
            part = os.path.join(work, "generated-part.csv")
            subprocess.run([FB, "sample", "generate", "--rows", str(min(per, n - start)), "--seed", str(k + 1),
                            "--out", part, "--force"], check=True, stdout=subprocess.DEVNULL)
            with open(part, "rb") as f:
                header = f.readline()
                if k == 0:
                    out.write(header)
                shutil.copyfileobj(f, out)
            os.remove(part)


def split_csv(path, rows):
    """Writes `path` as parts of at most `rows` rows, each with the header; returns their paths."""
    parts = []
    with open(path, newline="") as f:
        reader = csvmod.reader(f)
        header = next(reader)
        out = None
        for i, row in enumerate(reader):
            if i % rows == 0:
                if out:
                    out.close()
                parts.append(f"{path[:-4]}.part{len(parts) + 1}.csv")
                out = open(parts[-1], "w", newline="")
                writer = csvmod.writer(out, lineterminator="\n")
                writer.writerow(header)
            writer.writerow(row)
        if out:
            out.close()
    return parts


def svg(results, sizes):
    """Time against rows on log-log axes, one line per step."""
    w, h, left, top, right, bottom = 760, 480, 70, 30, 250, 50
    pw, ph = w - left - right, h - top - bottom
    # Timed steps only: the size figures kept beside them are lists of names and MiB.
    ts = [v[0] for r in results.values() for v in r.values()
          if v and isinstance(v[0], (int, float)) and v[0] > 0]
    lo, hi = math.floor(math.log10(max(min(ts), 0.005))), math.ceil(math.log10(max(ts)))
    xs = [math.log10(n) for n in sizes]
    x0, x1 = min(xs), max(xs) if max(xs) > min(xs) else min(xs) + 1

    def X(n):
        return left + (math.log10(n) - x0) / (x1 - x0) * pw

    def Y(t):
        return top + (hi - math.log10(max(t, 10**lo))) / (hi - lo) * ph

    colours = ["#888", "#bbb", "#1f77b4", "#ff7f0e", "#2ca02c", "#98df8a", "#d62728", "#9467bd", "#8c564b",
               "#e377c2", "#7f7f7f", "#bcbd22", "#17becf", "#393b79", "#637939", "#8c6d31", "#843c39"]
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
        pts = [(X(n), Y(results[n][step][0])) for n in sizes if results[n].get(step)]
        c = colours[i % len(colours)]
        dash = ' stroke-dasharray="4 3"' if step.startswith("floor") else ""
        out.append(f'<polyline fill="none" stroke="{c}" stroke-width="2"{dash} points="'
                   + " ".join(f"{x:.1f},{y:.1f}" for x, y in pts) + '"/>')
        ly = top + 10 + i * 16
        out.append(f'<line x1="{left + pw + 14}" x2="{left + pw + 34}" y1="{ly - 4}" y2="{ly - 4}" stroke="{c}" stroke-width="2"{dash}/>')
        out.append(f'<text x="{left + pw + 40}" y="{ly}">{step}</text>')
    out.append("</svg>")
    return "\n".join(out)


def write_docs(results, files, sizes, packets_up_to, runs=None):
    """docs/scaling.md and docs/scaling.svg for the sizes measured so far."""
    # Exponents between each of the last (up to three) sizes and the next: a step's growth per
    # decade, so a change of slope at the largest size shows.
    pairs = list(zip(sizes[-3:], sizes[-3:][1:])) or [(sizes[0], sizes[0])]
    a, b = pairs[-1]

    def nlogn(x, y):
        return math.log(y * math.log(y) / (x * math.log(x))) / math.log(y / x) if x != y else 1.0

    lines = ["# How cost grows with the project", "",
             "Written by `scripts/bench-scaling.sh` (release build, this machine: "
             f"{os.cpu_count()} cores). Seconds of wall time per command; an exponent k is the slope "
             "between two sizes on log-log axes (time grows as rows^k: 1 is linear; n log n has slope "
             + " and ".join(f"{nlogn(x, y):.2f} from {x:,} to {y:,}" for x, y in pairs)
             + "; a step is marked faster than n log n when k exceeds that by 0.05, a margin for one "
             "run's noise). Resident memory counts the project file's pages SQLite reads through its "
             "memory map (up to 1 GiB, shared with the OS's file cache); private memory is what the "
             "command allocated itself.", "",
             "| step | " + " | ".join(f"{n:,} rows" for n in sizes)
             + "".join(f" | k ({x:,}→{y:,})" for x, y in pairs)
             + f" | growth to {b:,} | resident MiB at {b:,} | private MiB at {b:,} |",
             "| --- | " + " | ".join("---:" for _ in sizes) + "".join(" | ---:" for _ in pairs)
             + " | --- | ---: | ---: |"]
    for step in STEPS:
        ts = {n: results[n][step][0] if results[n].get(step) else None for n in sizes}
        ks, growth = [], ""
        for x, y in pairs:
            if runs and runs.get(x, "")[:10] != runs.get(y, "")[:10]:
                # Sizes measured on different days ran different code, on a machine as busy as
                # it was then: their slope would mix a change with growth.
                ks.append("(other day)")
            elif x != y and ts[x] and ts[y] and ts[x] > 0.05:
                slope = math.log(ts[y] / ts[x]) / math.log(y / x)
                ks.append(f"{slope:.2f}")
                if (x, y) == (a, b):
                    growth = "faster than n log n" if slope > nlogn(x, y) + 0.05 else "within n log n"
            else:
                ks.append("—")
        _, resident, private = results[b].get(step) or (None, None, None)
        cell = lambda v, f: "—" if v is None else format(v, f)  # noqa: E731
        lines.append(f"| {step} | " + " | ".join(cell(ts[n], ".2f") for n in sizes)
                     + "".join(f" | {k}" for k in ks)
                     + f" | {growth} | {cell(resident, '.0f')} | {cell(private, '.0f')} |")
    blanks = " |" * (len(pairs) + 3)
    lines.append("| project file (MiB) | " + " | ".join(f"{files[n][0]:.1f}" for n in sizes) + " |" + blanks)
    lines.append("| candidates CSV (MiB) | " + " | ".join(f"{files[n][1]:.1f}" for n in sizes) + " |" + blanks)
    lines += ["", "Times under 0.05 s at the smaller size give no exponent (process start dominates); nor do "
              "two sizes measured on different days (`(other day)`). "
              f"A dash: the step was left out at that size (packets above {packets_up_to:,} rows, a floor "
              "not yet measured in the run that measured that size, or the split's steps where the split "
              "was refused: at 1,000,000 generated rows every raised claim recurs on other passages, so the "
              "provenance check holds every row back and there is no split to draft; the project file is "
              "then measured without a split)."]
    lines += ["", "## Write steps against their floors", "",
              "A bare-transaction floor is one SQLite transaction inserting, into a copy of the project as "
              "it stood before the step, exactly the rows the step added, with the project's pragmas "
              "(foreign keys on, synchronous FULL, the bulk page cache): the indexes, checks, foreign keys "
              "and triggers do their work, nothing is read or decided. Import is also set beside "
              "`sqlite3 .import` of the same CSV into a plain table (no types, no keys, no checks), and the same "
              "into a database with a project's journal (write-ahead log, synchronous FULL: every page "
              "written twice, to the log and by the checkpoint into the file). "
              "Each cell: the step's time over the floor's.", "",
              "| step | floor | " + " | ".join(f"{n:,} rows" for n in sizes) + " |",
              "| --- | --- | " + " | ".join("---:" for _ in sizes) + " |"]
    for step in STEPS:
        for f in floors_of(step):
            def ratio(n):
                x, y = results[n].get(step), results[n].get(f)
                if not x or not y:
                    return "—"
                if y[0] < 0.05:
                    return f"{x[0]:.2f} s / {y[0]:.2f} s"
                return f"{x[0] / y[0]:.2f}×"
            lines.append(f"| {step} | {f[7:]} | " + " | ".join(ratio(n) for n in sizes) + " |")
    lines += ["", "A ratio needs a floor of 0.05 s or more; under that both times are shown."]
    if runs and len(set(runs.values())) > 1:
        lines += ["", "Measured in separate runs: " + "; ".join(
            f"{n:,} rows on {runs[n]}" for n in sizes) + ". A size measured in an earlier run shows the code "
            "as it was then, before any change made since; a floor that run did not yet measure is a dash."]
    lines += annotation_notes(results, sizes, files)
    lines += ["",
              "![Time per step against rows](scaling.svg)", ""]
    with open(os.path.join(ROOT, "docs", "scaling.md"), "w") as f:
        f.write("\n".join(lines))
    with open(os.path.join(ROOT, "docs", "scaling.svg"), "w") as f:
        f.write(svg(results, sizes))
    print("wrote docs/scaling.md and docs/scaling.svg", flush=True)


def main():
    args = sys.argv[1:]
    # Sizes above --packets-up-to=N (default 100,000) leave the packet round trip out: a packet is
    # one JSON document read whole, so its memory grows with it (docs/benchmarks.md).
    packets_up_to = 100000
    for a in [a for a in args if a.startswith("--packets-up-to=")]:
        packets_up_to = int(a.split("=", 1)[1])
        args.remove(a)
    merge = "--merge" in args
    docs_only = "--docs-only" in args
    args = [a for a in args if a not in ("--merge", "--docs-only")]
    sizes = [int(s) for s in args] or [1000, 10000, 100000]
    if not os.path.exists(FB):
        sys.exit(f"{FB} is missing: scripts/bench-scaling.sh builds it")
    # FORCEBENCH_BENCH_DIR=DIR keeps each size's project, packets and export in DIR for a look.
    keep = os.environ.get("FORCEBENCH_BENCH_DIR")
    results, files, runs = {}, {}, {}
    kept = os.path.join(ROOT, "docs", "scaling.json")
    if merge and os.path.exists(kept):
        with open(kept) as f:
            old = json.load(f)
        for n, v in old.items():
            if int(n) not in sizes:
                results[int(n)] = {k: (tuple(x) if x else None) for k, x in v["steps"].items()}
                files[int(n)] = tuple(v["files"])
                runs[int(n)] = v["run"]
    stamp = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    if docs_only:
        with open(kept) as f:
            old = json.load(f)
        results = {int(n): {k: (tuple(x) if x else None) for k, x in v["steps"].items()} for n, v in old.items()}
        files = {int(n): tuple(v["files"]) for n, v in old.items()}
        runs = {int(n): v["run"] for n, v in old.items()}
        write_docs(results, files, sorted(results), packets_up_to, runs)
        return
    work = keep or tempfile.mkdtemp(prefix="forcebench-scaling-")
    try:
        for n in sizes:
            print(f"== {n:,} rows", flush=True)
            results[n], size, csv_size = run_size(n, os.path.join(work, str(n)), n <= packets_up_to)
            files[n] = (size, csv_size)
            for step in STEPS:
                if results[n][step] is None:
                    print(f"  {step:<38}  left out at this size", flush=True)
                    continue
                t, m, priv = results[n][step]
                ratios = "".join(f"  {t / results[n][f][0]:5.2f}x {f[7:]}" for f in floors_of(step)
                                 if results[n].get(f) and results[n][f][0] > 0)
                print(f"  {step:<38} {t:8.2f} s  {m:8.1f} MiB resident  {priv:8.1f} MiB private{ratios}", flush=True)
            print(f"  project file {size:.1f} MiB (CSV {csv_size:.1f} MiB): "
                  + size_floor_note(results[n], size, csv_size), flush=True)
            runs[n] = stamp
            # Written after each size, so a run stopped at a larger one keeps what it measured.
            done = sorted(results)
            if not OTHER_BIN:
                write_docs(results, files, done, packets_up_to, runs)
                with open(kept, "w") as f:
                    json.dump({str(m): {"steps": results[m], "files": files[m], "run": runs[m]} for m in done}, f,
                              indent=1)
            if not keep:
                shutil.rmtree(os.path.join(work, str(n)), ignore_errors=True)
    finally:
        if not keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
