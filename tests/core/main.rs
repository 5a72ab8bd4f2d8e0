//! Integration tests for the core, one binary whose modules mirror `src/`.

mod adjudicate;
mod agreement;
mod annotate;
mod assign;
mod bindings;
mod cli;
mod common;
mod db;
mod error;
mod evaluate;
mod hostile;
mod import;
mod package;
mod packets;
mod rowstate;
mod sample;
mod schemas;
mod settings;
mod software;
mod split;
mod structure;
mod upgrade;
mod vocab;
