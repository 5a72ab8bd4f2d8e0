//! The adjudicate view in the real app window (WebKitGTK through tauri-driver), keyboard only:
//! on a row where the two annotators disagree on the decision, the axis and the severity, take A
//! for the decision and the axis, B for the severity, edit the raised claim with a rationale and
//! save; then the real `forcebench` command line finds the result in `status --json` (the funnel)
//! and in `adjudicate export`, with each field's source and the adjudicator.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use fantoccini::key::Key;
use fantoccini::Client;
use forcebench::{adjudicate, annotate, assign, candidate, locality, qc, roster, sample, Project};
use forcebench_e2e::client::{cli_binary, css, js, k, keys, run, session, shot, wait_js, Res, ROW_ID, SAVE_STATE};
use forcebench_e2e::{find_tools, repo_root, start_for};
use serde_json::{json, Value};

const FOCUSED: &str = "document.querySelector('[data-testid=field-row][data-focused=true]')?.dataset.field ?? null";
const NEW_RAISED: &str = "Every survey of Zurich renters shows that most will move within a year.";
const RATIONALE: &str = "Both raised claims shifted two axes; this one raises the quantity only.";

fn source_of(field: &str) -> String {
    format!("document.querySelector('[data-testid=field-row][data-field={field}]')?.dataset.source ?? null")
}

/// The row under test and its annotators in roster order (A, B).
struct Setup {
    id: String,
    a: String,
    b: String,
}

/// Writes one annotator's labels as JSONL and imports them.
fn import(project: &mut Project, dir: &Path, who: &str, lines: &[Value]) {
    let file = dir.join(format!("{who}.jsonl"));
    std::fs::write(&file, lines.iter().map(|l| format!("{l}\n")).collect::<String>()).unwrap();
    annotate::import_jsonl(project, &file, who).unwrap();
}

/// The two annotators of `id`, the one added to the roster first as A.
fn pair_of(project: &Project, id: &str) -> (String, String) {
    let roster: Vec<String> = roster::list(project).unwrap().into_iter().map(|p| p.name).collect();
    let (x, y) = assign::annotators_of(project, id).unwrap().expect("assigned");
    let at = |n: &str| roster.iter().position(|r| r == n).unwrap();
    if at(&x) < at(&y) {
        (x, y)
    } else {
        (y, x)
    }
}

/// The sample project (candidates, roster, assignments); on its first row A accepts (modality,
/// severity 2) and B rejects as a nonlocal rewrite (scope, severity 3).
fn make_project(path: &Path, dir: &Path) -> Setup {
    let mut project = Project::create(path, "E2E adjudicate").expect("create the project");
    sample::load_sample_project(&mut project).expect("load the sample project");
    let id = candidate::list(&project).unwrap().remove(0).id;
    let (a, b) = pair_of(&project, &id);
    import(
        &mut project,
        dir,
        &a,
        &[json!({ "id": id, "decision": "accept_force_gap", "axis": "modality", "severity": 2 })],
    );
    import(
        &mut project,
        dir,
        &b,
        &[
            json!({ "id": id, "decision": "reject_not_force_gap", "boundary_type": "nonlocal_rewrite", "axis": "scope", "severity": 3 }),
        ],
    );
    Setup { id, a, b }
}

async fn adjudicate_in_window(client: Client, id: String) -> Res {
    client.wait().at_most(Duration::from_secs(30)).for_element(css("[data-testid=nav-adjudicate]")).await?;
    keys(&client, &format!("{}5", k(Key::Alt))).await?; // Alt+5: the Adjudicate view
    wait_js(&client, ROW_ID, json!(id)).await?;
    wait_js(
        &client,
        "document.querySelector('[data-testid=row-category]').textContent",
        json!("Decision disagreements"),
    )
    .await?;
    let differing = js(
        &client,
        "return [...document.querySelectorAll('[data-testid=field-row][data-differs=true]')].map(e => e.dataset.field)",
    )
    .await?;
    assert_eq!(differing, json!(["decision", "axis", "severity", "boundary_type"]));
    wait_js(&client, FOCUSED, json!("decision")).await?;

    // Decision: A. j → axis: A. j → severity: B.
    keys(&client, "a").await?;
    keys(&client, "j").await?;
    wait_js(&client, FOCUSED, json!("axis")).await?;
    keys(&client, "a").await?;
    keys(&client, "j").await?;
    wait_js(&client, FOCUSED, json!("severity")).await?;
    keys(&client, "b").await?;
    // Up twice to the raised claim; e edits it; the text is replaced and Enter keeps it.
    let up = k(Key::Up);
    keys(&client, &format!("{up}{up}")).await?;
    wait_js(&client, FOCUSED, json!("raised_claim")).await?;
    keys(&client, "e").await?;
    wait_js(&client, "document.activeElement?.dataset?.testid ?? null", json!("edit-input")).await?;
    js(&client, "document.activeElement.select(); return true").await?;
    keys(&client, NEW_RAISED).await?;
    keys(&client, &k(Key::Enter)).await?;
    wait_js(&client, &source_of("raised_claim"), json!("edited")).await?;
    // An override of both annotators: the rationale is asked for before anything is sent.
    wait_js(&client, "!!document.querySelector('[data-testid=rationale-required]')", json!(true)).await?;
    keys(&client, &format!("{}{}", k(Key::Control), k(Key::Enter))).await?;
    wait_js(&client, "document.activeElement?.dataset?.testid ?? null", json!("rationale")).await?;
    assert_eq!(js(&client, &format!("return {SAVE_STATE}")).await?, json!("error"), "refused before saving");
    keys(&client, RATIONALE).await?;
    keys(&client, &format!("{}{}", k(Key::Control), k(Key::Enter))).await?;
    // Broke: saving stayed on the row. It now moves on to the next open row, and says what it saved.
    wait_js(
        &client,
        &format!("document.querySelector('[data-testid=save-advanced]')?.textContent.startsWith('Saved {id} (accepted).') ?? null"),
        json!(true),
    )
    .await?;
    if js(&client, &format!("return {ROW_ID}")).await? != json!(id) {
        js(
            &client,
            &format!("document.querySelector('[data-testid=adj-item][data-id=\"{id}\"]').click(); return true"),
        )
        .await?;
        wait_js(&client, ROW_ID, json!(id)).await?;
    }

    // What the core recorded, as the window shows it.
    for (field, src) in
        [("decision", "a"), ("axis", "a"), ("severity", "b"), ("raised_claim", "edited"), ("calibrated_claim", "both")]
    {
        wait_js(&client, &source_of(field), json!(src)).await?;
    }
    wait_js(
        &client,
        "document.querySelector('[data-testid=qc-summary]')?.textContent.trim().startsWith('Accepted') ?? null",
        json!(true),
    )
    .await?;
    wait_js(&client, "document.querySelectorAll('[data-testid=history-event]').length > 0", json!(true)).await?;
    wait_js(
        &client,
        &format!("document.querySelector('[data-testid=adj-item][data-id=\"{id}\"]')?.dataset.adjudicated ?? null"),
        json!("true"),
    )
    .await?;
    shot(&client, "window-adjudicate-saved.png").await?;
    Ok(())
}

/// Runs the real command line on the project and returns its stdout.
fn cli(project: &Path, args: &[&str]) -> String {
    let bin = cli_binary().unwrap_or_else(|m| panic!("{m}"));
    let out = Command::new(&bin).arg("--project").arg(project).args(args).output().expect("run forcebench");
    assert!(out.status.success(), "forcebench {args:?} failed:\n{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resolve_a_disagreement_by_keyboard_and_find_it_in_status_and_the_export() {
    let tools = find_tools().unwrap_or_else(|message| panic!("{message}"));
    cli_binary().unwrap_or_else(|message| panic!("{message}"));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("adjudicate.forcebench");
    let setup = make_project(&path, dir.path());

    let (display, driver) = start_for(&tools, &path, dir.path());
    let client = session(&tools, &driver).await;
    run(client.clone(), adjudicate_in_window(client, setup.id.clone())).await;
    drop(driver);
    drop(display);

    // The funnel in `forcebench status --json`: one row adjudicated and accepted, on A's axis.
    let status: Value = serde_json::from_str(&cli(&path, &["status", "--json"])).unwrap();
    let funnel = &status["funnel"];
    assert_eq!(funnel["double_annotated"], 1, "{funnel}");
    assert_eq!(funnel["adjudicated"], 1);
    assert_eq!(funnel["accepted"], 1);
    assert_eq!(funnel["qc_blocked"], 0);
    assert_eq!(funnel["rejected"], 0);
    assert_eq!(funnel["by_axis"]["modality"]["accepted"], 1, "counted on the final axis, A's");
    assert_eq!(status["states"]["accepted"], 1);

    // The export: every final field with its source, the adjudicator, the rationale.
    let out = dir.path().join("final.jsonl");
    cli(&path, &["adjudicate", "export", "--out", out.to_str().unwrap()]);
    let text = std::fs::read_to_string(&out).unwrap();
    let rows: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(rows.len(), 1, "{text}");
    let row = &rows[0];
    assert_eq!(row["id"], setup.id.as_str());
    assert_eq!(row["state"], "accepted");
    assert_eq!(row["decision"], "accept_force_gap");
    assert_eq!(row["axis"], "modality");
    assert_eq!(row["severity"], 3);
    assert_eq!(row["raised_claim"], NEW_RAISED);
    assert_eq!(row["rationale"], RATIONALE);
    assert_eq!(row["adjudicator"], "Eve", "the roster's adjudicator");
    assert_eq!(row["bulk_confirmed"], false);
    let sources = &row["sources"];
    assert_eq!(
        [&sources["decision"], &sources["axis"], &sources["severity"], &sources["raised_claim"]],
        [&json!("a"), &json!("a"), &json!("b"), &json!("edited")],
        "{sources}"
    );
    assert_eq!(sources["calibrated_claim"], "both");
    assert_eq!(row["annotators"]["decision"], setup.a.as_str());
    assert_eq!(row["annotators"]["severity"], setup.b.as_str());
    assert_eq!(row["annotators"]["raised_claim"], Value::Null);
}

/// Screenshots for the README (not a test of behaviour): the sample project with simulated
/// annotations, the full agreements confirmed and a few rows settled, so the adjudicate view,
/// the locality audit and the funnel have something to show. Writes `docs/screenshot-*.png`.
/// Run with `-- --ignored look`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "screenshots for review and the README"]
async fn look_at_adjudication_and_the_funnel() {
    let tools = find_tools().unwrap_or_else(|message| panic!("{message}"));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("Sample project.forcebench");
    // The field disagreement with the most differing fields (differing spans first) makes the
    // most telling picture.
    let target = {
        let mut project = Project::create(&path, "Sample project").unwrap();
        sample::load_sample_project(&mut project).unwrap();
        sample::annotate_sample(&mut project, 80, 1).unwrap();
        adjudicate::confirm_agreements(&mut project, "Eve").unwrap();
        qc::run(&mut project).unwrap();
        // Two accepted rows leave by the locality audit, so the funnel shows that step too.
        let audit = locality::audit_rows(&project).unwrap();
        for r in audit.iter().take(2) {
            locality::mark(
                &mut project,
                &r.id,
                "the raised claim changes more than force (a demonstration mark)",
                "Eve",
            )
            .unwrap();
        }
        let queue = adjudicate::queue(&project, &adjudicate::QueueFilter::default()).unwrap();
        queue
            .items
            .into_iter()
            .filter(|i| i.category == adjudicate::Category::FieldDisagreement)
            .max_by_key(|i| (i.differing.contains(&annotate::Field::EvidenceSpan), i.differing.len()))
            .expect("a field disagreement in the simulated sample")
            .id
    };
    let (display, driver) = start_for(&tools, &path, dir.path());
    let client = session(&tools, &driver).await;
    let c = client.clone();
    run(client, async move {
        let docs = repo_root().join("docs");
        let save_doc = |name: &'static str| {
            let c = c.clone();
            let docs = docs.clone();
            async move {
                std::fs::write(docs.join(name), c.screenshot().await?)?;
                Ok::<_, Box<dyn std::error::Error + Send + Sync>>(())
            }
        };
        c.wait().at_most(Duration::from_secs(30)).for_element(css("[data-testid=nav-adjudicate]")).await?;
        keys(&c, &format!("{}5", k(Key::Alt))).await?;
        c.wait().at_most(Duration::from_secs(10)).for_element(css("[data-testid=field-row]")).await?;
        // Mid-way through that row: the first conflict taken from A, the next from B.
        c.find(css(&format!("[data-testid=adj-item][data-id=\"{target}\"]"))).await?.click().await?;
        wait_js(&c, ROW_ID, json!(target)).await?;
        keys(&c, "ajb").await?;
        tokio::time::sleep(Duration::from_millis(300)).await;
        shot(&c, "look-adjudicate.png").await?;
        save_doc("screenshot-adjudicate.png").await?;
        keys(&c, "l").await?;
        c.wait().at_most(Duration::from_secs(10)).for_element(css("[data-testid=locality-view]")).await?;
        tokio::time::sleep(Duration::from_millis(300)).await;
        shot(&c, "look-locality.png").await?;
        keys(&c, &format!("{}6", k(Key::Alt))).await?;
        c.wait().at_most(Duration::from_secs(10)).for_element(css("[data-testid=funnel-table]")).await?;
        tokio::time::sleep(Duration::from_millis(300)).await;
        shot(&c, "look-funnel.png").await?;
        save_doc("screenshot-funnel.png").await?;
        Ok(())
    })
    .await;
    drop(driver);
    drop(display);
}
