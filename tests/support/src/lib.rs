//! What the Rust test crates share (the core's `tests/core`, the shell's `src-tauri/tests`, the
//! window's `tests/e2e`): one scripted OpenAI-compatible server ([`openai`]), one check that
//! generated TypeScript bindings are current ([`bindings`]) and a measure of a file's mapped
//! pages ([`smaps`]).
//!
//! A crate of its own rather than a file each test crate includes with `#[path]`: it is compiled
//! once, its dependencies are declared once, and a helper one crate does not use is not a
//! dead-code warning there.

pub mod bindings;
pub mod openai;
pub mod smaps;
