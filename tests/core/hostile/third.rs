//! The hostile probe's third round, each through the real `forcebench` command: counts bounded
//! before they size memory, flags given twice or naming nothing refused, lead steps refused in a
//! workspace, notes of invisible characters taken for no note, writes stopped by a file size limit
//! that leave nothing behind, the seal over what an export is written from, and damage in the
//! words every damage refusal uses.

use super::*;

#[test]
fn a_count_past_the_largest_allowed_is_refused_before_it_sizes_memory() {
    // Before: `--bootstrap 4294967295` aborted with "memory allocation of 34359738360 bytes
    // failed" and a backtrace (evaluate, evaluate panel, evaluate paired, agreement), and
    // `sample generate --rows 1000000000000` the same way.
    let c = Case::new();
    let too_many = "--bootstrap 4294967295 is more replicates than ForceBench runs: at most 100000 (the default is \
                    1000; 0 skips the intervals). Nothing was computed";
    for args in [
        vec!["evaluate", "--bootstrap", "4294967295"],
        vec!["evaluate", "panel", "A", "B", "--bootstrap", "4294967295"],
        vec!["evaluate", "paired", "A", "B", "--bootstrap", "4294967295"],
        vec!["agreement", "--bootstrap", "4294967295"],
    ] {
        c.refused_code(&args, "invalid_argument", too_many, &[]);
    }
    // The largest allowed is taken.
    let (code, out, err) = c.run(&["agreement", "--bootstrap", "100000"]);
    assert_eq!((code, err.as_str()), (0, ""), "{out}");
    c.refused_code(
        &["sample", "generate", "--rows", "1000000000000", "--out", "big.csv"],
        "invalid_argument",
        "--rows 1000000000000 is not a number of rows ForceBench generates: from 1 to 200000 (a larger file would \
         be over the size an import reads). Nothing was written",
        &["big.csv"],
    );
    c.refused_code(
        &["sample", "generate", "--rows", "0", "--out", "none.csv"],
        "invalid_argument",
        "--rows 0 is not a number of rows ForceBench generates: from 1 to 200000 (a larger file would be over the \
         size an import reads). Nothing was written",
        &["none.csv"],
    );
    c.refused_code(
        &["sample", "annotate", "--rows", "0"],
        "invalid_argument",
        "--rows 0 simulates nothing: give the number of rows to simulate, at least 1. Nothing was changed",
        &[],
    );
}

#[test]
fn the_largest_synthetic_file_is_one_an_import_reads() {
    // The bound on `sample generate --rows` is there so its file can be imported: 200,000 rows
    // must stay under the 256 MiB an input file may hold, in either format. Measured on 2,000
    // rows (the rows' lengths do not grow with their number).
    let c = Case::new();
    for out in ["g.csv", "g.jsonl"] {
        let (code, _, err) = c.run(&["sample", "generate", "--rows", "2000", "--out", out]);
        assert_eq!((code, err.as_str()), (0, ""));
        let per_row = std::fs::metadata(c.path(out)).unwrap().len() as f64 / 2000.0;
        assert!(per_row * 200_000.0 * 1.2 < forcebench::input::MAX_FILE_BYTES as f64, "{out}: {per_row} bytes a row");
    }
}

#[test]
fn an_axis_capped_twice_is_refused() {
    // Before: `--cap relation=3 --cap relation=9` drafted with the last cap, silently.
    let c = Case::new();
    c.refused_code(
        &["split", "draft", "--cap", "relation=3", "--cap", "relation=9"],
        "invalid_argument",
        "--cap relation is given twice (relation=3 and relation=9): give each axis one cap. Nothing was changed",
        &[],
    );
}

#[test]
fn a_filter_value_that_can_never_match_is_refused_with_what_it_takes() {
    // Before: `adjudicate queue --axis gravity` and `--pair nobody+ghost` listed an empty queue,
    // which reads as "nothing to adjudicate", and `annotate next --after nope` started from the
    // top as if no row had been named.
    let c = Case::new();
    c.refused_code(
        &["adjudicate", "queue", "--axis", "gravity"],
        "invalid_argument",
        "--axis `gravity` is not an axis; the axes are relation, modality, scope, temporal, numeric, none",
        &[],
    );
    c.refused_code(
        &["adjudicate", "queue", "--pair", "nobody+ghost"],
        "invalid_argument",
        "--pair `nobody+ghost` names `nobody` and `ghost` not on the roster; the queue's pairs are ana+ben",
        &[],
    );
    c.refused_code(
        &["adjudicate", "queue", "--pair", "ana+nobody"],
        "invalid_argument",
        "--pair `ana+nobody` names `nobody` not on the roster; the queue's pairs are ana+ben",
        &[],
    );
    c.refused_code(
        &["adjudicate", "queue", "--pair", "ana"],
        "invalid_argument",
        "--pair `ana` is not two names joined by `+`; the queue's pairs are ana+ben",
        &[],
    );
    c.refused_code(
        &["annotate", "next", "--annotator", "ana", "--after", "nope"],
        "not_found",
        "no candidate with id `nope`",
        &[],
    );
    // What the filters take still works, in either order of the pair.
    for args in [
        vec!["adjudicate", "queue", "--axis", "scope"],
        vec!["adjudicate", "queue", "--axis", "none"],
        vec!["adjudicate", "queue", "--pair", "ben+ana"],
        vec!["annotate", "next", "--annotator", "ana", "--after", "r0000"],
    ] {
        let (code, _, err) = c.run(&args);
        assert_eq!((code, err.as_str()), (0, ""), "{args:?}");
    }
}

#[test]
fn simulated_annotations_are_refused_in_an_annotators_workspace() {
    // Before: `sample annotate --rows 5` inside Ana's workspace simulated five annotations there,
    // which her return then carried to the lead as her work.
    let c = packet_case();
    let (code, _, err) = c.run(&["packets", "open", "ana.packet.json", "--workspace", "ws.forcebench"]);
    assert_eq!((code, err.as_str()), (0, ""));
    let w = Case::of(&c.path("ws.forcebench"));
    w.refused_code(
        &["sample", "annotate", "--rows", "5"],
        "lead_only",
        "this is an annotator's workspace, made from a packet: simulating annotations (a demonstration) is the \
         lead's step, done in the lead's project. Nothing was changed",
        &[],
    );
    // The other sample steps: `load` imports (refused as import is), `generate` only writes a
    // file of synthetic rows and touches no project.
    let (code, _, err) = w.run(&["sample", "generate", "--rows", "3", "--out", "g.csv"]);
    assert_eq!((code, err.as_str()), (0, ""));
}

#[test]
fn a_note_of_only_invisible_characters_is_no_note() {
    // Before: a needs-discussion annotation whose note was U+200B, U+200D or U+FEFF alone
    // counted as finished, though every reader sees an empty note.
    let c = packet_case();
    for invisible in ["\u{200B}", "\u{200D}", "\u{FEFF}", " \u{200B}\u{FEFF} "] {
        for args in [
            vec!["annotate", "set", "fb-0001", "notes", invisible, "--annotator", "ana"],
            vec!["annotate", "set", "fb-0001", "decision", "needs_discussion", "--annotator", "ana"],
        ] {
            let (code, _, err) = c.run(&args);
            assert_eq!((code, err.as_str()), (0, ""), "{args:?}");
        }
        let (code, out, err) = c.run(&["annotate", "show", "fb-0001", "--annotator", "ana", "--json"]);
        assert_eq!((code, err.as_str()), (0, ""));
        let shown: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(shown["finished"], false, "{invisible:?}");
        assert_eq!(shown["problems"], serde_json::json!(["needs discussion needs a note saying what to discuss"]));
    }
    // A visible note finishes it.
    let (code, _, err) = c.run(&["annotate", "set", "fb-0001", "notes", "\u{200B}why?", "--annotator", "ana"]);
    assert_eq!((code, err.as_str()), (0, ""));
    let (_, out, _) = c.run(&["annotate", "show", "fb-0001", "--annotator", "ana", "--json"]);
    assert_eq!(serde_json::from_str::<serde_json::Value>(&out).unwrap()["finished"], true);
}
