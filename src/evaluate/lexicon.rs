//! Every word list the baselines use, in one place. Lower-case; matched against lower-cased whole
//! words (multi-word entries against the lower-cased text with single spaces).

/// Hedges: words that limit how sure a statement is (modality).
pub const HEDGES: &[&str] = &[
    "may", "might", "could", "can", "possibly", "perhaps", "likely", "unlikely", "suggest", "suggests",
    "suggested", "preliminary", "appears", "appear", "seems", "seem", "potentially", "probably",
    "tentative", "tentatively", "uncertain", "unclear", "estimated", "expected", "projected", "if",
];

/// Association without causation (relation).
pub const ASSOCIATION: &[&str] = &[
    "associated", "association", "linked", "link", "correlated", "correlation", "related", "tied",
    "coincided", "accompanied",
];

/// Causal or preventive verbs a raised claim uses in place of an association (relation).
pub const CAUSATION: &[&str] = &[
    "causes", "cause", "caused", "leads", "led", "prevents", "prevent", "prevented", "reduces",
    "reduce", "reduced", "increases", "increase", "increased", "drives", "drove", "results",
    "resulted", "produces", "protects", "cures", "triggers", "makes", "eliminates",
];

/// Words that make a statement universal or certain (the rule-based force check).
pub const STRONG: &[&str] = &[
    "all", "every", "always", "never", "proves", "proven", "proved", "definitely", "certainly",
    "guarantees", "guaranteed", "will", "must", "cannot", "entire", "everyone", "nobody", "none",
    "exactly", "completely", "conclusively", "universally", "causes", "prevents", "cures",
];

/// Markers of a dated or as-of statement (temporal).
pub const DATED: &[&str] = &[
    "as of", "in 19", "in 20", "until", "at the time", "by then", "last year", "that year",
    "projected", "forecast", "planned", "expected to", "was", "were", "had been",
];

/// Markers of a bounded population, place or version (scope): the word after "in" / "among" is
/// the bound the raised claim must keep ("a trial of adults", "among older women").
pub const SCOPE_INTRODUCERS: &[&str] = &["in", "among", "for", "within", "across", "of", "with"];

/// Population and setting nouns that bound a scope when they follow an introducer.
pub const BOUNDED: &[&str] = &[
    "adults", "children", "women", "men", "patients", "mice", "rats", "students", "participants",
    "older", "young", "smokers", "veterans", "employees", "residents", "infants", "teenagers",
    "version", "release", "district", "county", "state", "province", "city", "region", "trial",
    "sample", "cohort", "subgroup", "country",
];

/// Range markers (numeric): a range in the evidence that the claim turns into a point value.
pub const RANGE: &[&str] = &["between", "to", "from", "about", "around", "approximately", "roughly", "nearly", "almost", "up to", "at least", "at most", "over", "under", "–", "-"];
