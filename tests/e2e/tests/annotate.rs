//! The annotate view in the real app window (WebKitGTK through tauri-driver), keyboard only:
//! go to Annotate, choose an annotator, annotate three rows (one with a span chosen by keyboard,
//! one rejected with a boundary type), check the saved indicator, then restart the app on the
//! same project file and find every label again, in the window and through the core.

use std::path::Path;
use std::time::Duration;

use fantoccini::key::Key;
use fantoccini::Client;
use forcebench::annotate::{self, Annotation};
use forcebench::vocab::{Axis, BoundaryType, Decision};
use forcebench::{sample, Project};
use forcebench_e2e::client::{css, js, k, keys, run, session, shot, wait_js, Res, ROW_ID, SAVE_STATE};
use forcebench_e2e::{find_tools, start_for};
use serde_json::json;

const WHO: &str = "Ana";

fn pressed(testid: &str) -> String {
    format!("document.querySelector('[data-testid={testid}]')?.getAttribute('aria-pressed') ?? null")
}

/// From the app's start to the first row of the annotator's queue, by keyboard.
async fn enter_annotate(client: &Client, first_row: &str) -> Res {
    client.wait().at_most(Duration::from_secs(30)).for_element(css("[data-testid=nav-annotate]")).await?;
    keys(client, &format!("{}2", k(Key::Alt))).await?; // Alt+2: the Annotate view
    client.wait().at_most(Duration::from_secs(10)).for_element(css("[data-testid=pick-annotator]")).await?;
    wait_js(client, "document.activeElement?.dataset?.name ?? null", json!(WHO)).await?;
    keys(client, &k(Key::Enter)).await?;
    wait_js(client, ROW_ID, json!(first_row)).await
}

/// The checks of one row's labels as the window shows them.
async fn check_row_in_window(client: &Client, a: &Annotation) -> Res {
    wait_js(client, ROW_ID, json!(a.candidate_id)).await?;
    let d = a.decision.expect("decided").as_str();
    wait_js(client, &pressed(&format!("decision-{d}")), json!("true")).await?;
    if let Some(axis) = a.axis {
        wait_js(client, &pressed(&format!("axis-{}", axis.as_str())), json!("true")).await?;
    }
    if let Some(s) = a.severity {
        wait_js(client, &pressed(&format!("severity-{s}")), json!("true")).await?;
    }
    if let Some(b) = a.boundary_type {
        wait_js(client, "document.querySelector('[data-testid=boundary]').value", json!(b.as_str())).await?;
    }
    if let Some(span) = &a.evidence_span {
        wait_js(client, "document.querySelector('[data-testid=row-span]')?.textContent ?? null", json!(span.text))
            .await?;
    }
    wait_js(
        client,
        &format!("document.querySelector('[data-testid=queue-row][data-id=\"{}\"]').dataset.finished", a.candidate_id),
        json!(a.finished.to_string()),
    )
    .await
}

async fn first_session(client: Client, ids: Vec<String>) -> Res {
    enter_annotate(&client, &ids[0]).await?;

    // Row 1: the span by keyboard (start two words in, extend by one), accept, modality, clear.
    keys(&client, "s").await?;
    client.wait().at_most(Duration::from_secs(5)).for_element(css("[data-testid=span-mode]")).await?;
    // Home first: span mode starts on the words of the suggested span, and from a suggestion
    // that ends the passage two steps right and one more leave a single word (the queue's order,
    // so the first row, is shuffled per project).
    let right = k(Key::Right);
    keys(&client, &format!("{}{right}{right}", k(Key::Home))).await?;
    keys(&client, &format!("{}{right}", k(Key::Shift))).await?;
    let preview = js(&client, "return document.querySelector('[data-testid=row-span]').textContent").await?;
    keys(&client, &k(Key::Enter)).await?;
    // The span, axis and severity are the annotator's own; y confirms the suggested repair.
    keys(&client, "a2xy").await?;
    wait_js(&client, SAVE_STATE, json!("saved")).await?;
    wait_js(&client, &pressed("decision-accept_force_gap"), json!("true")).await?;
    wait_js(&client, "document.querySelector('[data-testid=row-span]')?.textContent ?? null", preview.clone()).await?;
    shot(&client, "window-annotate.png").await?;

    // Row 2: needs discussion, temporal, high-impact, and (a discussion is finished only
    // when the note says what to discuss) a note: `o` goes to the notes, Esc leaves and saves.
    keys(&client, "n").await?;
    wait_js(&client, ROW_ID, json!(ids[1])).await?;
    keys(&client, "d4c").await?;
    wait_js(&client, SAVE_STATE, json!("saved")).await?;
    wait_js(&client, "document.querySelector('[data-testid=discuss-why]') !== null", json!(true)).await?;
    keys(&client, "o").await?;
    wait_js(&client, "document.activeElement?.dataset?.testid ?? null", json!("notes")).await?;
    keys(&client, "Is the follow-up long enough?").await?;
    keys(&client, &k(Key::Escape)).await?;
    wait_js(&client, "document.activeElement?.dataset?.testid ?? null", json!("annotate-view")).await?;
    wait_js(&client, SAVE_STATE, json!("saved")).await?;
    wait_js(&client, "document.querySelector('[data-testid=discuss-why]') !== null", json!(false)).await?;

    // Row 3: reject; t focuses the boundary type, where an entry is chosen (here as a click on
    // it would, through the list's change event).
    keys(&client, "n").await?;
    wait_js(&client, ROW_ID, json!(ids[2])).await?;
    keys(&client, "r").await?;
    keys(&client, "t").await?;
    wait_js(&client, "document.activeElement?.dataset?.testid ?? null", json!("boundary")).await?;
    js(
        &client,
        "const s = document.querySelector('[data-testid=boundary]'); s.value = 'nonlocal_rewrite'; \
         s.dispatchEvent(new Event('change', { bubbles: true })); return true",
    )
    .await?;
    wait_js(&client, "document.querySelector('[data-testid=boundary]').value", json!("nonlocal_rewrite")).await?;
    wait_js(&client, SAVE_STATE, json!("saved")).await?;
    // Broke: with the list still focused, `n` (meant as "next row") picked an entry by its first
    // letter and saved it. Letters now change nothing there and say how to leave; Esc leaves.
    keys(&client, "nnu").await?;
    wait_js(&client, "document.querySelector('[data-testid=boundary-hint]') !== null", json!(true)).await?;
    tokio::time::sleep(std::time::Duration::from_millis(400)).await;
    wait_js(&client, "document.querySelector('[data-testid=boundary]').value", json!("nonlocal_rewrite")).await?;
    wait_js(&client, ROW_ID, json!(ids[2])).await?;
    wait_js(&client, SAVE_STATE, json!("saved")).await?;
    keys(&client, &k(Key::Escape)).await?;
    wait_js(&client, "document.activeElement?.dataset?.testid ?? null", json!("annotate-view")).await?;
    wait_js(&client, "document.querySelector('[data-testid=save-state]').textContent.trim()", json!("Saved")).await?;
    wait_js(
        &client,
        "document.querySelector('[data-testid=progress]').textContent",
        json!(format!("3 / {}", ids.len())),
    )
    .await?;
    // Leave the row so its time is sent too.
    keys(&client, "p").await?;
    wait_js(&client, ROW_ID, json!(ids[1])).await?;
    wait_js(&client, SAVE_STATE, json!("saved")).await?;
    Ok(())
}

async fn second_session(client: Client, ids: Vec<String>, saved: Vec<Annotation>) -> Res {
    // The view opens on the first unfinished row: the fourth.
    enter_annotate(&client, &ids[3]).await?;
    wait_js(
        &client,
        "document.querySelector('[data-testid=progress]').textContent",
        json!(format!("3 / {}", ids.len())),
    )
    .await?;
    keys(&client, "ppp").await?;
    for (i, a) in saved.iter().enumerate() {
        if i > 0 {
            keys(&client, "n").await?;
        }
        check_row_in_window(&client, a).await?;
    }
    shot(&client, "window-annotate-restarted.png").await?;
    Ok(())
}

fn make_project(path: &Path) -> Vec<String> {
    let mut project = Project::create(path, "E2E annotate").expect("create the project");
    sample::load_sample_project(&mut project).expect("load the sample project");
    annotate::queue(&project, WHO).unwrap().into_iter().map(|q| q.id).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn annotate_three_rows_by_keyboard_and_find_them_after_a_restart() {
    let tools = find_tools().unwrap_or_else(|message| panic!("{message}"));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("annotate.forcebench");
    let ids = make_project(&path);
    assert!(ids.len() >= 4, "the sample gives {WHO} at least four rows");

    let (display, driver) = start_for(&tools, &path, dir.path());

    let client = session(&tools, &driver).await;
    run(client.clone(), first_session(client, ids.clone())).await;

    // What the core reads from the file: the three labels, as typed.
    let saved: Vec<Annotation> = {
        let project = Project::open(&path).unwrap();
        ids[..3].iter().map(|id| annotate::get(&project, id, WHO).unwrap()).collect()
    };
    let project = Project::open(&path).unwrap();
    let passage = |id: &str| forcebench::candidate::get(&project, id).unwrap().candidate.passage;
    let a = &saved[0];
    assert_eq!(a.decision, Some(Decision::AcceptForceGap), "{a:?}");
    assert_eq!(a.axis, Some(Axis::Modality));
    assert_eq!(a.severity, Some(2));
    let span = a.evidence_span.as_ref().expect("a span chosen by keyboard");
    assert_eq!(&passage(&a.candidate_id)[span.start as usize..span.end as usize], span.text);
    assert!(span.text.contains(' '), "two words: {span:?}");
    assert!(a.finished, "{:?}", a.problems);
    let b = &saved[1];
    assert_eq!((b.decision, b.axis, b.severity), (Some(Decision::NeedsDiscussion), Some(Axis::Temporal), Some(3)));
    assert_eq!(b.notes.as_deref(), Some("Is the follow-up long enough?"));
    assert!(b.finished, "{:?}", b.problems);
    let c = &saved[2];
    assert_eq!(c.decision, Some(Decision::RejectNotForceGap));
    assert_eq!(c.boundary_type, Some(BoundaryType::NonlocalRewrite));
    assert!(c.finished, "{:?}", c.problems);
    assert!(saved.iter().any(|a| a.seconds_spent >= 0.0));
    drop(project);

    // A new session starts the app again on the same file: every label is still there.
    let client = session(&tools, &driver).await;
    run(client.clone(), second_session(client, ids.clone(), saved)).await;
    drop(driver);
    drop(display);
}

async fn confirm_then_finish(client: Client, id: String) -> Res {
    enter_annotate(&client, &id).await?;
    let finished = "document.querySelector('[data-testid=finished]') !== null";
    // Broke: one `a` finished a row whose suggested span, axis, severity and repair were unseen.
    wait_js(&client, "document.querySelector('[data-testid=axis-fieldset] .opt.suggested') !== null", json!(true))
        .await?;
    keys(&client, "a").await?;
    wait_js(&client, SAVE_STATE, json!("saved")).await?;
    wait_js(&client, &pressed("decision-accept_force_gap"), json!("true")).await?;
    wait_js(&client, "document.querySelector('[data-testid=unfinished]') !== null", json!(true)).await?;
    wait_js(&client, finished, json!(false)).await?;
    let bar = js(&client, "return document.querySelector('[data-testid=suggested-bar]').textContent").await?;
    assert!(
        bar.as_str().unwrap_or("").contains("confirm or change the suggested span, axis, severity and repair"),
        "{bar}"
    );
    shot(&client, "window-annotate-suggested.png").await?;
    keys(&client, "y").await?;
    wait_js(&client, SAVE_STATE, json!("saved")).await?;
    wait_js(
        &client,
        "document.querySelector('[data-testid=confirmed]')?.textContent ?? null",
        json!("Confirmed span, axis, severity and repair."),
    )
    .await?;
    wait_js(&client, finished, json!(true)).await?;
    wait_js(&client, "document.querySelector('[data-testid=axis-fieldset] .opt.suggested') !== null", json!(false))
        .await?;
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_accept_waits_for_the_suggestions_to_be_confirmed_and_y_confirms_them() {
    let tools = find_tools().unwrap_or_else(|message| panic!("{message}"));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("suggested.forcebench");
    let ids = make_project(&path);
    let id = {
        let project = Project::open(&path).unwrap();
        let a = annotate::get(&project, &ids[0], WHO).unwrap();
        assert_eq!(a.suggested.len(), 4, "the first row shows four suggestions: {a:?}");
        ids[0].clone()
    };
    let (display, driver) = start_for(&tools, &path, dir.path());
    let client = session(&tools, &driver).await;
    run(client.clone(), confirm_then_finish(client, id.clone())).await;
    let project = Project::open(&path).unwrap();
    let a = annotate::get(&project, &id, WHO).unwrap();
    assert!(a.finished && a.suggested.is_empty(), "{a:?}");
    let confirms = annotate::history(&project, &id, WHO).unwrap().into_iter().filter(|e| e.origin == "confirm").count();
    assert_eq!(confirms, 4, "one confirm event per suggested field");
    drop(driver);
    drop(display);
}

/// Screenshots for a person to look at (not a test of behaviour): the app on a brand-new default
/// project (created with the sample project on first run), the picker, the annotate view with a
/// span being chosen, the guideline and the packets view. Run with `-- --ignored look`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "screenshots for review"]
async fn look_at_the_views() {
    let tools = find_tools().unwrap_or_else(|message| panic!("{message}"));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("Sample project.forcebench");
    let (display, driver) = start_for(&tools, &path, dir.path());
    let client = session(&tools, &driver).await;
    let c = client.clone();
    run(client, async move {
        c.wait().at_most(Duration::from_secs(30)).for_element(css("[data-testid=nav-annotate]")).await?;
        keys(&c, &format!("{}2", k(Key::Alt))).await?;
        c.wait().at_most(Duration::from_secs(10)).for_element(css("[data-testid=pick-annotator]")).await?;
        tokio::time::sleep(Duration::from_millis(300)).await;
        shot(&c, "look-picker.png").await?;
        keys(&c, &k(Key::Enter)).await?;
        c.wait().at_most(Duration::from_secs(10)).for_element(css("[data-testid=row-id]")).await?;
        // The first row as the suggestions pre-fill it, accepted with one key and confirmed.
        keys(&c, "ay").await?;
        wait_js(&c, SAVE_STATE, json!("saved")).await?;
        tokio::time::sleep(Duration::from_millis(300)).await;
        shot(&c, "look-accepted.png").await?;
        keys(&c, "n").await?;
        tokio::time::sleep(Duration::from_millis(300)).await;
        shot(&c, "look-annotate.png").await?;
        keys(&c, "s").await?;
        let right = k(Key::Right);
        keys(&c, &format!("{right}{right}{right}{}{right}{right}", k(Key::Shift))).await?;
        tokio::time::sleep(Duration::from_millis(200)).await;
        shot(&c, "look-span-mode.png").await?;
        keys(&c, &k(Key::Enter)).await?;
        keys(&c, "r").await?;
        tokio::time::sleep(Duration::from_millis(300)).await;
        shot(&c, "look-reject.png").await?;
        keys(&c, "?").await?;
        tokio::time::sleep(Duration::from_millis(300)).await;
        shot(&c, "look-guideline.png").await?;
        keys(&c, &k(Key::Escape)).await?;
        keys(&c, &format!("{}3", k(Key::Alt))).await?;
        c.wait().at_most(Duration::from_secs(10)).for_element(css("[data-testid=packets-view]")).await?;
        tokio::time::sleep(Duration::from_millis(300)).await;
        shot(&c, "look-packets.png").await?;
        Ok(())
    })
    .await;
    drop(driver);
    drop(display);
}
