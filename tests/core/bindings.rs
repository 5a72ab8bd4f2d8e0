//! The TypeScript bindings in ui/src/bindings must match the Rust types (the shell's, in
//! `shell/` beside them, are checked by its own test with the same helper).

use std::path::Path;

#[test]
fn generated_files_are_current() {
    let committed = Path::new(env!("CARGO_MANIFEST_DIR")).join("ui/src/bindings");
    forcebench_test_support::bindings::assert_current(
        &committed,
        "ui/src/bindings",
        forcebench::bindings::export_all_to,
    );
}
