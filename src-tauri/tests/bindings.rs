//! The shell's TypeScript bindings in ui/src/bindings/shell must match its Rust types (the UI
//! retyped them by hand before, and nothing noticed when they drifted).

use std::path::Path;

#[test]
fn generated_shell_bindings_are_current() {
    let committed = Path::new(env!("CARGO_MANIFEST_DIR")).join("../ui/src/bindings/shell");
    forcebench_test_support::bindings::assert_current(
        &committed,
        "ui/src/bindings/shell",
        forcebench_studio::bindings::export_all_to,
    );
}
