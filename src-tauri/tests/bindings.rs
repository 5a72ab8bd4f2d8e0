//! The shell's TypeScript bindings in ui/src/bindings/shell must match its Rust types (the UI
//! retyped them by hand before, and nothing noticed when they drifted).

use std::path::Path;

#[test]
fn generated_shell_bindings_are_current() {
    let committed = Path::new(env!("CARGO_MANIFEST_DIR")).join("../ui/src/bindings/shell");
    if std::env::var_os("FORCEBENCH_UPDATE_BINDINGS").is_some() {
        let _ = std::fs::remove_dir_all(&committed);
        forcebench_studio::bindings::export_all_to(&committed).unwrap();
        return;
    }
    let fresh = tempfile::tempdir().unwrap();
    forcebench_studio::bindings::export_all_to(fresh.path()).unwrap();
    let list = |dir: &Path| -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    };
    let names = list(fresh.path());
    assert_eq!(names, list(&committed), "binding files differ; rerun with FORCEBENCH_UPDATE_BINDINGS=1");
    for name in names {
        let want = std::fs::read_to_string(fresh.path().join(&name)).unwrap();
        let have = std::fs::read_to_string(committed.join(&name)).unwrap();
        assert_eq!(have, want, "ui/src/bindings/shell/{name} is stale; rerun with FORCEBENCH_UPDATE_BINDINGS=1");
    }
}
