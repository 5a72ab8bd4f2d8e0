//! The roster (`roster`): one entry per person, names that cannot impersonate one another,
//! roles, and a refusal that says who is on the roster when a name is not.

use crate::common::*;
use forcebench::roster::{self, Role};
use forcebench::Project;

fn names(project: &Project) -> Vec<(String, Role)> {
    roster::list(project).unwrap().into_iter().map(|a| (a.name, a.role)).collect()
}

fn refused(project: &Project, name: &str) -> (&'static str, String) {
    let err = roster::add(project, name, Role::Annotator).expect_err("the name should be refused");
    (err.code(), err.to_string())
}

#[test]
fn a_name_with_a_direction_changing_character_is_refused_naming_the_code_point() {
    let project = Project::in_memory("t").unwrap();
    assert_eq!(
        refused(&project, "Ana\u{202E}neB"),
        (
            "invalid_argument",
            "name `Ana\\u{202E}neB` contains U+202E RIGHT-TO-LEFT OVERRIDE, an invisible or direction-changing character"
                .into()
        )
    );
    assert_eq!(
        refused(&project, "\u{2066}Ben\u{2069}"),
        (
            "invalid_argument",
            "name `\\u{2066}Ben\\u{2069}` contains U+2066 LEFT-TO-RIGHT ISOLATE, an invisible or direction-changing character"
                .into()
        )
    );
    assert_eq!(
        refused(&project, "Ana\u{FEFF}"),
        (
            "invalid_argument",
            "name `Ana\\u{FEFF}` contains U+FEFF ZERO WIDTH NO-BREAK SPACE, an invisible or direction-changing character"
                .into()
        )
    );
    assert!(names(&project).is_empty(), "nothing was added");
}

#[test]
fn a_name_with_a_control_character_is_refused_naming_the_code_point() {
    let project = Project::in_memory("t").unwrap();
    assert_eq!(
        refused(&project, "Ana\u{1B}[31m"),
        ("invalid_argument", "name `Ana\\u{001B}[31m` contains U+001B, a control character".into())
    );
    assert_eq!(
        refused(&project, "Ana\nBen"),
        ("invalid_argument", "name `Ana\\u{000A}Ben` contains U+000A, a control character".into())
    );
    assert!(names(&project).is_empty());
}

#[test]
fn a_blank_name_is_refused() {
    let project = Project::in_memory("t").unwrap();
    for name in ["", "  ", "\u{3000}\t"] {
        assert_eq!(
            refused(&project, name),
            ("invalid_argument", "an annotator needs a non-empty name".into()),
            "{name:?}"
        );
    }
}

#[test]
fn a_name_already_on_the_roster_is_refused_with_already_done_even_padded_or_with_another_role() {
    let project = Project::in_memory("t").unwrap();
    roster::add(&project, "Ana", Role::Annotator).unwrap();
    for padded in ["Ana", "  Ana ", "Ana\u{A0}", "\tAna\n"] {
        for role in [Role::Annotator, Role::Lead] {
            let err = roster::add(&project, padded, role).err().unwrap();
            assert_eq!(
                (err.code(), err.to_string()),
                ("already_done", "`Ana` is already on the roster".into()),
                "{padded:?}"
            );
        }
    }
    assert_eq!(names(&project), [("Ana".to_string(), Role::Annotator)]);
}

#[test]
fn names_are_compared_exactly_so_other_letters_or_case_make_another_person() {
    let project = Project::in_memory("t").unwrap();
    for name in ["Ana", "ana", "Ána", "Ana Lee", "山田"] {
        roster::add(&project, name, Role::Annotator).unwrap();
    }
    let listed: Vec<String> = names(&project).into_iter().map(|(n, _)| n).collect();
    assert_eq!(listed, ["Ana", "ana", "Ána", "Ana Lee", "山田"], "in the order they were added");
}

#[test]
fn a_name_is_stored_trimmed_and_found_with_or_without_padding() {
    let project = Project::in_memory("t").unwrap();
    let added = roster::add(&project, "  Chidi Okafor  ", Role::Adjudicator).unwrap();
    assert_eq!((added.name.as_str(), added.role, added.assigned), ("Chidi Okafor", Role::Adjudicator, 0));
    assert_eq!(roster::find(&project, " Chidi Okafor\t").unwrap(), Some(added.clone()));
    assert_eq!(roster::require(&project, "Chidi Okafor ").unwrap(), added);
    assert_eq!(roster::find(&project, "chidi okafor").unwrap(), None);
}

#[test]
fn a_name_not_on_the_roster_is_refused_naming_everyone_who_is() {
    let project = Project::in_memory("t").unwrap();
    let err = roster::require(&project, " Dana ").err().unwrap();
    assert_eq!(
        (err.code(), err.to_string()),
        (
            "not_on_roster",
            "no one named `Dana` is on the roster (it is empty; add people with `forcebench annotators add`)".into()
        )
    );
    roster::add(&project, "Ana", Role::Annotator).unwrap();
    roster::add(&project, "Eve", Role::Lead).unwrap();
    let err = roster::require(&project, "ana").err().unwrap();
    assert_eq!(
        (err.code(), err.to_string()),
        ("not_on_roster", "no one named `ana` is on the roster (Ana, Eve)".into())
    );
}

#[test]
fn a_role_is_one_of_three_lowercase_words_and_nothing_else() {
    for (word, role) in [("annotator", Role::Annotator), ("adjudicator", Role::Adjudicator), ("lead", Role::Lead)] {
        assert_eq!(word.parse::<Role>(), Ok(role));
        assert_eq!(role.as_str(), word);
        assert_eq!(serde_json::to_value(role).unwrap(), serde_json::json!(word));
        assert_eq!(serde_json::from_value::<Role>(serde_json::json!(word)).unwrap(), role);
    }
    for word in ["Annotator", "admin", "", " lead"] {
        assert_eq!(
            word.parse::<Role>(),
            Err(format!("`{word}` is not a role; expected annotator, adjudicator or lead")),
            "{word:?}"
        );
    }
    assert!(serde_json::from_value::<Role>(serde_json::json!("Lead")).is_err());
}

#[test]
fn each_person_keeps_their_role_and_counts_the_rows_assigned_to_them() {
    let (_dir, _, mut project) = temp_project();
    forcebench::sample::load_sample(&mut project).unwrap();
    let rows = forcebench::candidate::list(&project).unwrap().len() as i64;
    roster::add(&project, "Ana", Role::Annotator).unwrap();
    roster::add(&project, "Eve", Role::Adjudicator).unwrap();
    roster::add(&project, "Ben", Role::Annotator).unwrap();
    roster::add(&project, "Lee", Role::Lead).unwrap();
    forcebench::assign::assign(&mut project, 1).unwrap();
    let listed: Vec<(String, Role, i64)> =
        roster::list(&project).unwrap().into_iter().map(|a| (a.name, a.role, a.assigned)).collect();
    // Two annotators: each row goes to both of them, and to no one else.
    assert_eq!(
        listed,
        [
            ("Ana".to_string(), Role::Annotator, rows),
            ("Eve".to_string(), Role::Adjudicator, 0),
            ("Ben".to_string(), Role::Annotator, rows),
            ("Lee".to_string(), Role::Lead, 0),
        ]
    );
}

// The window lists the people who may adjudicate from the roster as the core sends it,
// instead of restating the rule.
#[test]
fn the_roster_says_who_may_adjudicate() {
    let project = Project::in_memory("t").unwrap();
    for (name, role) in [("Ana", Role::Annotator), ("Eve", Role::Adjudicator), ("Lee", Role::Lead)] {
        roster::add(&project, name, role).unwrap();
    }
    let may: Vec<(String, bool)> =
        roster::list(&project).unwrap().into_iter().map(|a| (a.name, a.may_adjudicate)).collect();
    assert_eq!(may, [("Ana".to_string(), false), ("Eve".to_string(), true), ("Lee".to_string(), true)]);
    assert!(!Role::Annotator.may_adjudicate() && Role::Adjudicator.may_adjudicate() && Role::Lead.may_adjudicate());
}
