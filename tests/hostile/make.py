"""Writes the hostile-input corpus (tests/core/hostile.rs runs each file through the CLI).

Run from this folder: python3 make.py. The files are committed; this script documents how the
odd ones (UTF-16, Latin-1, NUL bytes, invisible characters) were made. Inputs too big or too
strange to commit (a line over 1 MiB, a FIFO, /dev/zero, a 257 MiB file) are made by the tests.
"""

HEADER = "id,group_id,source_dataset,source_id,context,passage,evidence_span,calibrated_claim,raised_claim,repair,rationale,axis,severity"


def row(id, group="g-new", axis="scope", severity="2", raised="The drug reduces pain."):
    return (f'{id},{group},ExpertQA,src-{id},Does the drug help?,"In a trial of adults, the drug may reduce pain, '
            f'the authors said.",may reduce pain,The drug may reduce pain in adults.,{raised},'
            f'The drug may reduce pain in adults.,Drops the hedge.,{axis},{severity}')


def jrow(id, **over):
    fields = {"id": id, "group_id": "g-new", "source_dataset": "ExpertQA", "source_id": "", "context": "Does the drug help?",
              "passage": "It may help.", "evidence_span": "may help", "calibrated_claim": "It may help.",
              "raised_claim": "It helps.", "repair": None, "rationale": None, "axis": "modality", "severity": 2}
    fields.update(over)
    import json
    return json.dumps(fields, ensure_ascii=False, separators=(",", ":"))


def csv(*rows):
    return HEADER + "\n" + "".join(r + "\n" for r in rows)


def put(name, data):
    with open(name, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode("utf-8"))


# Candidates
put("candidates-utf16le-bom.csv", csv(row("new-1")).encode("utf-16"))           # BOM + little-endian
put("candidates-utf16be.csv", csv(row("new-1")).encode("utf-16-be"))            # no BOM
put("candidates-utf32le.jsonl", (jrow("new-1") + "\n").encode("utf-32-le"))     # no BOM
put("candidates-latin1.csv", csv(row("new-1").replace("Does the drug help?", "Does the café drug help?")).encode("latin-1"))
put("candidates-nul.csv", csv(row("new-1")).replace("Does the drug", "Does\0the drug"))
put("candidates-duplicate-key.jsonl", jrow("new-1")[:-1] + ',"severity":3}\n')
put("candidates-severity-string.jsonl", jrow("new-1", severity="2") + "\n")
put("candidates-id-rlo.csv", csv(row("new-1"), row("ab\u202ec")))
put("candidates-group-zwsp.jsonl", jrow("new-1", group_id="g\u200bnew") + "\n")
put("candidates-missing-column.csv", "id,group_id,source_dataset,context,passage,calibrated_claim\nx,g,S,c,p,a\n")
put("candidates-unknown-column.csv", csv(row("new-1")).replace("group_id", "groupid", 1))
put("candidates-bad-axis.csv", csv(row("new-1", axis="vibes")))
put("candidates-duplicate-id.csv", csv(row("new-1"), row("new-2"), row("new-1")))
put("candidates-ragged.csv", csv(row("new-1"), "new-2,g,S"))
put("candidates-not-object.jsonl", jrow("new-1") + "\n[1,2]\n")
put("candidates-empty.csv", "")
# r0000 of the test project (tests/core/split.rs, `row`), with another raised claim.
put("candidates-changed-row.csv", csv(
    'r0000,g-scope-0,ExpertQA,src-r0000,Question 0?,"In a trial of adults (row 0), the drug may reduce pain, the authors said.",'
    'may reduce pain,The drug may reduce pain in adults (row 0).,The drug cures pain (row 0).,The drug may reduce pain in adults.,'
    'Drops the hedge.,scope,1'))

# Annotations (for ana) and adjudications (for eve)
put("annotations-severity-string.jsonl", '{"id":"r0000","decision":"accept_force_gap","axis":"scope","severity":"2"}\n')
put("annotations-span-offset-string.jsonl",
    '{"id":"r0000","evidence_span":{"text":"may reduce pain","start":"40","end":55}}\n')
put("annotations-duplicate-key.jsonl", '{"id":"r0000","decision":"accept_force_gap","decision":"reject_not_force_gap"}\n')
put("annotations-id-rlo.jsonl", '{"id":"r00\u202e00","decision":"accept_force_gap"}\n')
put("annotations-notes-number.jsonl", '{"id":"r0000","notes":3}\n')
put("adjudications-severity-string.jsonl", '{"id":"r0000","severity":"3","rationale":"milder"}\n')
put("adjudications-duplicate-key.jsonl", '{"id":"r0000","axis":"scope","rationale":"a","rationale":"b"}\n')

# Evaluators
put("scores-empty.jsonl", "\n\n")
put("scores-score-string.jsonl", '{"id":"r0000","claim":"safe","score":"0.9"}\n')
put("judge-empty.jsonl", "")
put("labelmap-duplicate.json", '{"yes": 1, "no": 0, "yes": 0}\n')

# Agreement tables
put("labels-unknown-column.csv", "item,annotator,label,labeller\n1,A,yes,x\n1,B,no,y\n")
put("labels-utf16.csv", "item,annotator,label\n1,A,yes\n1,B,no\n".encode("utf-16"))
put("labels-annotator-bidi.csv", "item,annotator,label\n1,A,yes\n1,\u2066A\u2069,no\n")

# Lookalike ids and names: one id composed (NFC) and decomposed (NFD); ids and names
# with spaces that look like the plain space.
put("candidates-nfc-nfd.jsonl", jrow("caf\u00e9") + "\n" + jrow("cafe\u0301") + "\n")
put("candidates-space-like.csv", csv(row("x\u00a01"), row("x\u28001", group="g\u3000new")))
put("labels-annotator-nfd.csv", "item,annotator,label\n1,Jos\u00e9,yes\n1,B,no\n1,Jose\u0301,no\n")
