//! What is wrong with an input file, row by row: the problem types that readers collect and
//! the error type carries. Kept apart from the readers (`input`, `import`) so the error type
//! depends on these plain types alone.

use serde::Serialize;
use std::fmt;
use ts_rs::TS;

/// One thing wrong with an input file, located as precisely as the file allows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct InputProblem {
    pub file: String,
    /// 1-based line where the row starts (`None` for problems with the file as a whole).
    #[ts(type = "number | null")]
    pub line: Option<u64>,
    pub field: Option<String>,
    pub message: String,
}

impl fmt::Display for InputProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        if let Some(field) = &self.field {
            write!(f, ": field `{field}`")?;
        }
        write!(f, ": {}", self.message)
    }
}

/// A row whose id is already in the project with different content.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct ImportConflict {
    pub id: String,
    #[ts(type = "number")]
    pub line: u64,
    pub fields: Vec<String>,
}
