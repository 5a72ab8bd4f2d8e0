//! Integration tests for the core, one binary whose modules mirror `src/`.

mod bindings;
mod common;
