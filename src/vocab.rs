//! Controlled vocabularies: force axes, row decisions, rejection boundary types and workflow
//! states.
//!
//! The lists live in the schema's lookup tables (`schema/0001_init.sql`); these enums mirror them
//! for type safety and a test (`tests/core/vocab.rs`) fails if the two drift. To add a value, add it
//! to the lookup table in a new migration and to the enum here, in the same position.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// Declares a string-valued vocabulary enum with its wire names, in schema order.
macro_rules! vocabulary {
    ($(#[$meta:meta])* $name:ident, $table:literal { $($variant:ident => $wire:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, TS)]
        #[serde(rename_all = "snake_case")]
        pub enum $name { $($variant),+ }

        impl $name {
            /// Every value, in the schema's order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];
            /// The lookup table in the schema that holds this vocabulary.
            pub const TABLE: &'static str = $table;

            pub fn as_str(self) -> &'static str {
                match self { $($name::$variant => $wire),+ }
            }

            /// The wire names joined for error messages: `a, b or c`.
            pub fn expected() -> String {
                let names: Vec<&str> = Self::ALL.iter().map(|v| v.as_str()).collect();
                match names.split_last() {
                    Some((last, rest)) if !rest.is_empty() => format!("{} or {}", rest.join(", "), last),
                    _ => names.join(""),
                }
            }
        }

        impl std::str::FromStr for $name {
            type Err = String;
            fn from_str(s: &str) -> Result<Self, String> {
                match s {
                    $($wire => Ok($name::$variant),)+
                    other => Err(format!("`{}` is not one of {}", other, Self::expected())),
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

vocabulary!(
    /// The dimension along which the raised claim is stronger than the calibrated one.
    Axis, "axes" {
        Relation => "relation",
        Modality => "modality",
        Scope => "scope",
        Temporal => "temporal",
        Numeric => "numeric",
    }
);

vocabulary!(
    /// An annotator's or adjudicator's row-level decision.
    Decision, "decisions" {
        AcceptForceGap => "accept_force_gap",
        RejectNotForceGap => "reject_not_force_gap",
        NeedsDiscussion => "needs_discussion",
    }
);

vocabulary!(
    /// Why a row is rejected.
    BoundaryType, "boundary_types" {
        UnsupportedCalibratedClaim => "unsupported_calibrated_claim",
        RaisedClaimSupported => "raised_claim_supported",
        NonlocalRewrite => "nonlocal_rewrite",
        MultipleForceShifts => "multiple_force_shifts",
        UnrelatedAddition => "unrelated_addition",
        NeedsOutsideKnowledge => "needs_outside_knowledge",
        NoDecisiveSpan => "no_decisive_span",
        Duplicate => "duplicate",
        SafeOrUnderclaimed => "safe_or_underclaimed",
        Ambiguous => "ambiguous",
    }
);

vocabulary!(
    /// Where a candidate row stands in the protocol; decided by `rowstate::settle`, never stored.
    WorkflowState, "workflow_states" {
        Imported => "imported",
        Assigned => "assigned",
        Annotating => "annotating",
        DoubleAnnotated => "double_annotated",
        Adjudicated => "adjudicated",
        Accepted => "accepted",
        Rejected => "rejected",
        LocalityRemoved => "locality_removed",
    }
);

/// Severity of a force gap: 1 subtle, 2 clear, 3 high-impact.
pub const SEVERITIES: std::ops::RangeInclusive<i64> = 1..=3;
