//! The TypeScript bindings in ui/src/bindings must match the Rust types.

use std::path::Path;

#[test]
fn generated_files_are_current() {
    let committed = Path::new(env!("CARGO_MANIFEST_DIR")).join("ui/src/bindings");
    if std::env::var_os("FORCEBENCH_UPDATE_BINDINGS").is_some() {
        // Files only: the shell's bindings live in the `shell/` folder beside them.
        for entry in std::fs::read_dir(&committed).into_iter().flatten().flatten() {
            if entry.path().is_file() {
                std::fs::remove_file(entry.path()).unwrap();
            }
        }
        forcebench::bindings::export_all_to(&committed).unwrap();
        return;
    }
    let fresh = tempfile::tempdir().unwrap();
    forcebench::bindings::export_all_to(fresh.path()).unwrap();
    let list = |dir: &Path| -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.unwrap())
            .filter(|e| e.path().is_file())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    };
    let names = list(fresh.path());
    assert_eq!(names, list(&committed), "binding files differ; rerun with FORCEBENCH_UPDATE_BINDINGS=1");
    for name in names {
        let want = std::fs::read_to_string(fresh.path().join(&name)).unwrap();
        let have = std::fs::read_to_string(committed.join(&name)).unwrap();
        assert_eq!(have, want, "ui/src/bindings/{name} is stale; rerun with FORCEBENCH_UPDATE_BINDINGS=1");
    }
}
