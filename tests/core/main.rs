//! Integration tests for the core, one binary whose modules mirror `src/`.

mod bindings;
mod cli;
mod common;
mod db;
mod import;
mod sample;
mod vocab;
