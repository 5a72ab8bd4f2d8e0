//! The last of the hostile-input holes, each through the real `forcebench` command: ids and names given
//! on the command line are looked up in the form they are stored (NFC), damage found after
//! opening is named as damage, a packet that cannot be written whole leaves nothing behind, and
//! every error carries its code.

use super::*;

/// `café` and `José` as import and the roster store them (NFC), and as a keyboard or a file
/// name may hand them over (NFD: `e` and U+0301 COMBINING ACUTE ACCENT).
const CAFE_NFD: &str = "cafe\u{301}";
const JOSE_NFD: &str = "Jose\u{301}";

/// A case whose project holds one row `café` (imported composed), assigned to `José` (added
/// composed) and `ben`.
fn nfc_case() -> Case {
    let c = Case::new();
    let first =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/hostile/candidates-nfc-nfd.jsonl"))
            .unwrap()
            .lines()
            .next()
            .unwrap()
            .to_string();
    assert!(first.contains("\"caf\u{e9}\""), "the corpus's first line holds the composed id");
    std::fs::write(c.path("one.jsonl"), first + "\n").unwrap();
    std::fs::remove_file(c.project()).unwrap();
    for args in [
        vec!["init"],
        vec!["import", "one.jsonl"],
        vec!["annotators", "add", "Jos\u{e9}"],
        vec!["annotators", "add", "ben"],
        vec!["assign"],
    ] {
        let (code, out, err) = c.run(&args);
        assert_eq!(code, 0, "{args:?}: {out} {err}");
    }
    c
}

#[test]
fn an_id_and_a_name_typed_decomposed_find_the_stored_row_and_person() {
    // Before: `annotate set cafe\u{301} ... --annotator Jose\u{301}` said "no candidate with id
    // `café`" (the NFD text, which prints alike), and with the id composed "`José` is not
    // assigned to row `café`"; `annotate history` printed nothing.
    let c = nfc_case();
    let (code, _, err) = c.run(&["annotate", "set", CAFE_NFD, "notes", "seen", "--annotator", JOSE_NFD]);
    assert_eq!((code, err.as_str()), (0, ""));
    let (code, out, err) = c.run(&["annotate", "show", "caf\u{e9}", "--annotator", "Jos\u{e9}", "--json"]);
    assert_eq!((code, err.as_str()), (0, ""));
    let shown: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!((shown["candidate_id"].as_str(), shown["notes"].as_str()), (Some("caf\u{e9}"), Some("seen")));
    let (code, out, err) = c.run(&["annotate", "history", CAFE_NFD, "--annotator", JOSE_NFD]);
    assert_eq!((code, err.as_str()), (0, ""));
    assert!(out.lines().any(|l| l.contains(" notes ") && l.contains("-> \"seen\"")), "{out}");
    for args in [
        vec!["candidates", "show", CAFE_NFD],
        vec!["annotate", "show", CAFE_NFD, "--annotator", JOSE_NFD],
        vec!["annotate", "next", "--annotator", JOSE_NFD, "--after", CAFE_NFD],
        vec!["annotate", "undo", CAFE_NFD, "--annotator", JOSE_NFD],
    ] {
        let (code, _, err) = c.run(&args);
        assert_eq!((code, err.as_str()), (0, ""), "{args:?}");
    }
}

#[test]
fn an_id_or_name_with_a_space_like_character_is_refused_as_import_refuses_it() {
    // Before: "no candidate with id `x 1`" (the NO-BREAK SPACE printed as a plain space), and a
    // name with U+3000 was "not assigned" to the row.
    let c = nfc_case();
    let space = "a space that looks like a plain space (only U+0020 may appear)";
    c.refused_code(
        &["annotate", "set", "x\u{a0}1", "notes", "seen", "--annotator", "ben"],
        "invalid_argument",
        &format!("id `x\\u{{00A0}}1` contains U+00A0 NO-BREAK SPACE, {space}"),
        &[],
    );
    c.refused_code(
        &["candidates", "show", "x\u{2800}1"],
        "invalid_argument",
        &format!("id `x\\u{{2800}}1` contains U+2800 BRAILLE PATTERN BLANK, {space}"),
        &[],
    );
    c.refused_code(
        &["annotate", "set", "caf\u{e9}", "notes", "seen", "--annotator", "be\u{3000}n"],
        "invalid_argument",
        &format!("name `be\\u{{3000}}n` contains U+3000 IDEOGRAPHIC SPACE, {space}"),
        &[],
    );
}

/// Overwrites the first page of `table`'s b-tree (its root) with bytes no page holds, so opening
/// the project (which reads the schema and the `project` row, never that table) succeeds and the
/// first statement that reads the table finds the damage.
fn damage_table(c: &Case, table: &str) {
    let (page_size, root): (i64, i64) = {
        let conn = rusqlite::Connection::open(c.project()).unwrap();
        let page_size = conn.query_row("PRAGMA page_size", [], |r| r.get(0)).unwrap();
        let root = conn.query_row("SELECT rootpage FROM sqlite_master WHERE name = ?1", [table], |r| r.get(0)).unwrap();
        (page_size, root)
    };
    assert!(!c.path("p.forcebench-wal").exists(), "everything is in the main file");
    let mut bytes = std::fs::read(c.project()).unwrap();
    let at = ((root - 1) * page_size) as usize;
    bytes[at..at + page_size as usize].fill(0xEE);
    std::fs::write(c.project(), bytes).unwrap();
}

#[test]
fn damage_found_after_opening_is_named_as_damage_with_the_way_back() {
    // Before: opening succeeded, and the first statement reading the damaged table failed with
    // "database error: database disk image is malformed": no file named, no advice, code
    // `database` instead of opening's `damaged_project`.
    let c = Case::new();
    damage_table(&c, "candidates");
    std::fs::write(c.path("p.forcebench.schema9.bak"), b"a copy").unwrap();
    let damaged = "p.forcebench is damaged (SQLite: database disk image is malformed); ForceBench cannot read it, and \
                   changed nothing. The copies kept beside it before upgrades (p.forcebench.schema9.bak) are the way \
                   back: copy the latest over it, or restore it from your own backup";
    c.refused_code(&["status"], "damaged_project", damaged, &[]);
    c.refused_code(&["candidates", "list"], "damaged_project", damaged, &[]);
    c.refused_code(&["annotate", "set", "r0000", "notes", "x", "--annotator", "ana"], "damaged_project", damaged, &[]);
}

/// Runs `forcebench --project p.forcebench ARGS` in the case folder through `sh` with SIGXFSZ
/// ignored and a file size limit of `blocks` 512-byte blocks (dash's unit): the ignored signal
/// stays ignored across `exec`, so a write past the limit fails with EFBIG, as a full disk fails
/// a write, instead of killing the process.
fn run_with_file_limit(c: &Case, blocks: u64, args: &[&str]) -> (i32, String, String) {
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!("trap '' XFSZ; ulimit -f {blocks}; exec \"$0\" --project p.forcebench \"$@\""))
        .arg(env!("CARGO_BIN_EXE_forcebench"))
        .args(args)
        .current_dir(c.dir.path())
        .env_remove("FORCEBENCH_PROJECT")
        .env("FORCEBENCH_ERROR_CODE", "1")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap())
}

#[test]
fn packets_issue_stopped_by_a_real_write_failure_leaves_no_packet_and_records_none() {
    // Before: the refusal named the temporary file (`out/.eve-….packet.json.<random>.
    // forcebench-tmp.json: File too large (os error 27)`), a name nobody chose or could find, and
    // did not say that nothing was issued. (The earlier test of this case made the failure with a
    // trigger; here the operating system refuses the write.)
    let c = Case::new();
    std::fs::remove_file(c.project()).unwrap();
    for args in [vec!["init"], vec!["sample", "load"]]
        .into_iter()
        .chain(["ana", "ben", "chidi", "dee", "eve"].map(|n| vec!["annotators", "add", n]))
        .chain([vec!["assign"]])
    {
        let (code, out, err) = c.run(&args);
        assert_eq!(code, 0, "{args:?}: {out} {err}");
    }
    // The packets' sizes, in the order they are written, from an issue on a copy.
    let sizes: Vec<(String, u64)> = {
        let copy = Case::of(&c.project());
        let (code, out, err) = copy.run(&["packets", "issue", "--out", "out", "--json"]);
        assert_eq!((code, err.as_str()), (0, ""));
        let issued: serde_json::Value = serde_json::from_str(&out).unwrap();
        issued
            .as_array()
            .unwrap()
            .iter()
            .map(|p| {
                let file = copy.path(p["file"].as_str().unwrap());
                (p["annotator"].as_str().unwrap().to_string(), std::fs::metadata(file).unwrap().len())
            })
            .collect()
    };
    // A limit every packet before eve's fits under, and eve's does not.
    let last = sizes.len() - 1;
    let before = sizes[..last].iter().map(|(_, s)| *s).max().unwrap();
    let blocks = before.div_ceil(512);
    assert!(
        sizes[last].0 == "eve" && sizes[last].1 > blocks * 512,
        "{sizes:?}: the limit must fall before eve's packet"
    );
    std::fs::create_dir(c.path("out")).unwrap();
    let project = c.project_sha256();
    let (code, out, err) = run_with_file_limit(&c, blocks, &["packets", "issue", "--out", "out"]);
    let (head, tail) = ("error [io]: out/eve-", ".packet.json: the file would be larger than this process may write (its file \
                         size limit); no packet was issued: any packet file written before it was removed, and the project \
                         records none\n");
    let id = err.strip_prefix(head).and_then(|e| e.strip_suffix(tail));
    assert!(
        (code, out.as_str()) == (1, "")
            && id.is_some_and(|id| id.len() == 8 && id.bytes().all(|b| b.is_ascii_hexdigit())),
        "exit {code}, stdout {out:?}, stderr {err:?}"
    );
    let left: Vec<_> = std::fs::read_dir(c.path("out")).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert!(left.is_empty(), "packet files left behind: {left:?}");
    assert_eq!(c.project_sha256(), project, "the project records nothing");
    let conn = rusqlite::Connection::open(c.project()).unwrap();
    let packets: i64 = conn.query_row("SELECT count(*) FROM packets", [], |r| r.get(0)).unwrap();
    assert_eq!(packets, 0);
}
