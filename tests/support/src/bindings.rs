//! The staleness check of generated TypeScript bindings, shared by the core's
//! (`tests/core/bindings.rs`) and the shell's (`src-tauri/tests/bindings.rs`).

use std::path::Path;

/// Fails when the `.ts` files `export` writes differ from the ones committed in `committed`
/// (`shown` names that folder in the message, as `ui/src/bindings`). Only files directly in
/// `committed` are compared: a folder beside them (the shell's `shell/`) is another export's.
///
/// With `FORCEBENCH_UPDATE_BINDINGS` set it rewrites them instead: the files in `committed` are
/// removed (folders kept) and `export` writes the current ones.
pub fn assert_current<E: std::fmt::Debug>(committed: &Path, shown: &str, export: impl Fn(&Path) -> Result<(), E>) {
    if std::env::var_os("FORCEBENCH_UPDATE_BINDINGS").is_some() {
        for entry in std::fs::read_dir(committed).into_iter().flatten().flatten() {
            if entry.path().is_file() {
                std::fs::remove_file(entry.path()).unwrap();
            }
        }
        std::fs::create_dir_all(committed).unwrap();
        export(committed).unwrap();
        return;
    }
    let fresh = tempfile::tempdir().unwrap();
    export(fresh.path()).unwrap();
    let names = files_in(fresh.path());
    assert_eq!(names, files_in(committed), "binding files differ; rerun with FORCEBENCH_UPDATE_BINDINGS=1");
    for name in names {
        let want = std::fs::read_to_string(fresh.path().join(&name)).unwrap();
        let have = std::fs::read_to_string(committed.join(&name)).unwrap();
        assert_eq!(have, want, "{shown}/{name} is stale; rerun with FORCEBENCH_UPDATE_BINDINGS=1");
    }
}

/// The names of the files (not folders) directly in `dir`, sorted.
fn files_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap())
        .filter(|e| e.path().is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}
