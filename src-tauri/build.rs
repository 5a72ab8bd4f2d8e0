//! Reads tauri.conf.json and capabilities/ and prepares the context `generate_context!` embeds.
fn main() {
    tauri_build::build()
}
