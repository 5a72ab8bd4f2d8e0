//! ForceBench core: everything the protocol does, with no window attached.
//!
//! Modules are named after workflow steps. The desktop shell (`src-tauri`) and the `forcebench`
//! command line are thin fronts over this crate; neither holds domain logic.

pub mod adjudicate;
pub mod agreement;
pub mod annotate;
pub mod assign;
pub mod bindings;
pub mod candidate;
pub mod contexts;
pub mod crashpoint;
pub mod db;
pub mod drafting;
pub mod error;
pub mod evaluate;
pub mod feedback;
pub mod guideline;
pub mod import;
pub mod input;
pub mod label;
pub mod limits;
pub mod locality;
pub mod output;
pub mod packets;
pub mod problem;
pub mod project;
pub mod provenance;
pub mod qc;
pub mod roster;
pub mod rowstate;
pub mod sample;
pub mod settings;
pub mod software;
pub mod split;
pub mod status;
pub mod vocab;
pub mod workspace;

pub use error::{Error, ErrorPayload, Result};
pub use project::Project;
