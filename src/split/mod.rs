//! The evaluation split: draft, locality filter, lock, export and verify.
//!
//! **Draft.** From the accepted rows: every axis with a cap keeps `cap` rows, chosen stratified by
//! source dataset (proportional allocation, largest remainder) with the rows of lowest stable hash
//! kept in each stratum; the rest are recorded as capped. What remains is the retained pool. The
//! evaluation set then takes `per_axis` rows of each axis (or all of them when fewer), allocated
//! to source datasets the same way, lowest stable hash first. Picking a row brings the other rows
//! of its group along, so a group never straddles the evaluation set and the rest. The stable
//! hash is sha256 of `"<salt>:<seed>:<id>"` (salt `cap` or `eval`), so the same accepted rows and
//! parameters give the same split on any machine.
//!
//! **Locality filter.** Rows marked nonlocal after the draft leave the retained pool and the
//! evaluation set; nothing replaces them (the paper's 200 selected became 198).
//!
//! **Lock.** Locking freezes the split: the removals are written into it, its manifest is stored,
//! and any later change to the final labels or locality marks of its rows is refused with a
//! message naming the split. A new split version can be drafted from the current state.
//!
//! **Export / verify.** See [`export`] and [`verify`].

use rusqlite::{params, Connection, OptionalExtension};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;
use ts_rs::TS;

use crate::error::{Error, Result};
use crate::project::{now, Project};
use crate::vocab::Axis;

/// Refuses a change to row `id` when a locked split holds it.
pub fn refuse_if_locked(conn: &Connection, id: &str) -> Result<()> {
    let locked: Option<i64> = conn
        .prepare_cached(
            "SELECT s.version FROM split_rows r JOIN splits s ON s.id = r.split_id
             WHERE r.candidate_id = ?1 AND s.status = 'locked' ORDER BY s.version DESC LIMIT 1",
        )?
        .query_row([id], |r| r.get(0))
        .optional()?;
    match locked {
        Some(version) => Err(Error::InvalidArgument(format!(
            "row `{id}` is in locked split v{version}; its final labels cannot change (draft a new split version to work on the current state)"
        ))),
        None => Ok(()),
    }
}

/// Evaluation rows per axis in the paper.
pub const DEFAULT_PER_AXIS: u32 = 40;

/// The parameters of a split, stored with it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SplitParams {
    /// Axis -> the most rows it keeps in the retained pool.
    #[ts(as = "BTreeMap<Axis, u32>")]
    pub caps: BTreeMap<Axis, u32>,
    /// Evaluation rows per axis (all of an axis's retained rows when it has fewer).
    pub per_axis: u32,
    #[ts(type = "number")]
    pub seed: u64,
    /// What selection is stratified by, within each axis (fixed: the source dataset).
    pub strata: Vec<String>,
}

impl SplitParams {
    pub fn new(caps: BTreeMap<Axis, u32>, per_axis: Option<u32>, seed: Option<u64>) -> Self {
        SplitParams { caps, per_axis: per_axis.unwrap_or(DEFAULT_PER_AXIS), seed: seed.unwrap_or(1), strata: vec!["source_dataset".into()] }
    }
}

/// Parses `AXIS=N`, as `split draft --cap` takes it.
pub fn parse_cap(text: &str) -> std::result::Result<(Axis, u32), String> {
    let (axis, n) = text.split_once('=').ok_or_else(|| format!("`{text}` is not AXIS=N"))?;
    let axis: Axis = axis.trim().parse()?;
    let n: u32 = n.trim().parse().map_err(|_| format!("`{}` is not a whole number of rows", n.trim()))?;
    Ok((axis, n))
}

/// An accepted row as the split sees it (final axis and severity).
#[derive(Debug, Clone)]
struct PoolRow {
    id: String,
    group: String,
    source: String,
    axis: Axis,
    severity: u8,
}

fn stable_hash(salt: &str, seed: u64, id: &str) -> [u8; 32] {
    Sha256::digest(format!("{salt}:{seed}:{id}").as_bytes()).into()
}

/// Rows of the accepted pool (state `accepted`), in id order.
fn accepted_pool(conn: &Connection) -> Result<Vec<PoolRow>> {
    rows_where(conn, "s.state = 'accepted'", [])
}

fn rows_where<P: rusqlite::Params>(conn: &Connection, condition: &str, params: P) -> Result<Vec<PoolRow>> {
    let mut stmt = conn.prepare(&format!(
        "SELECT c.id, c.group_id, c.source_dataset,
                coalesce((SELECT value FROM adjudication_fields f WHERE f.candidate_id = c.id AND f.field = 'axis'), c.axis),
                (SELECT value FROM adjudication_fields f WHERE f.candidate_id = c.id AND f.field = 'severity')
         FROM candidates c JOIN candidate_states s ON s.candidate_id = c.id
         WHERE {condition} ORDER BY c.id"
    ))?;
    let rows = stmt.query_map(params, |r| {
        let axis: Option<String> = r.get(3)?;
        let severity: Option<String> = r.get(4)?;
        Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?, r.get::<_, String>(2)?, axis, severity))
    })?;
    let mut out = Vec::new();
    for row in rows {
        let (id, group, source, axis, severity) = row?;
        let axis: Axis = axis
            .ok_or_else(|| Error::InvalidArgument(format!("row `{id}` has no axis (neither final nor suggested)")))?
            .parse()
            .map_err(Error::InvalidArgument)?;
        let severity: u8 = severity.and_then(|s| s.parse().ok()).unwrap_or(0);
        out.push(PoolRow { id, group, source, axis, severity });
    }
    Ok(out)
}

/// Splits `total` across strata in proportion to their sizes (largest remainder; ties by stratum
/// name). `sizes` is sorted by name.
fn allocate(total: usize, sizes: &BTreeMap<&str, usize>) -> BTreeMap<String, usize> {
    let n: usize = sizes.values().sum();
    let mut out: BTreeMap<String, usize> = BTreeMap::new();
    if n == 0 {
        return out;
    }
    let mut remainders: Vec<(usize, &str)> = Vec::new(); // (remainder numerator, name)
    let mut given = 0;
    for (name, &size) in sizes {
        let exact = total * size;
        out.insert(name.to_string(), exact / n);
        given += exact / n;
        remainders.push((exact % n, name));
    }
    // Largest remainder first; equal remainders by name.
    remainders.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
    for (_, name) in remainders.into_iter().take(total - given) {
        *out.get_mut(name).expect("allocated") += 1;
    }
    out
}

/// Chooses `keep` of `rows` stratified by source, lowest hash first within each source.
fn stratified_keep<'a>(rows: &[&'a PoolRow], keep: usize, salt: &str, seed: u64) -> BTreeSet<&'a str> {
    let mut by_source: BTreeMap<&str, Vec<&PoolRow>> = BTreeMap::new();
    for r in rows {
        by_source.entry(r.source.as_str()).or_default().push(r);
    }
    let sizes: BTreeMap<&str, usize> = by_source.iter().map(|(k, v)| (*k, v.len())).collect();
    let quota = allocate(keep, &sizes);
    let mut out = BTreeSet::new();
    for (source, mut members) in by_source {
        members.sort_by_cached_key(|r| (stable_hash(salt, seed, &r.id), r.id.clone()));
        out.extend(members.into_iter().take(quota[source]).map(|r| r.id.as_str()));
    }
    out
}

/// The result of a draft before it is written: retained, evaluation and capped rows.
struct Draft {
    retained: Vec<String>,
    eval: BTreeSet<String>,
    capped: Vec<(String, String)>, // id, reason
}

fn make_draft(pool: &[PoolRow], params: &SplitParams) -> Draft {
    let seed = params.seed;
    let mut retained: Vec<&PoolRow> = Vec::new();
    let mut capped = Vec::new();
    for axis in Axis::ALL {
        let rows: Vec<&PoolRow> = pool.iter().filter(|r| r.axis == *axis).collect();
        match params.caps.get(axis) {
            Some(&cap) if rows.len() > cap as usize => {
                let keep = stratified_keep(&rows, cap as usize, "cap", seed);
                for r in rows {
                    if keep.contains(r.id.as_str()) {
                        retained.push(r);
                    } else {
                        capped.push((
                            r.id.clone(),
                            format!("{} capped at {cap} rows ({} accepted); stratified by source, stable hash", axis.as_str(), pool.iter().filter(|p| p.axis == *axis).count()),
                        ));
                    }
                }
            }
            _ => retained.extend(rows),
        }
    }
    // Evaluation set: per axis, per source quota; a picked row brings its group.
    let mut groups: HashMap<&str, Vec<&PoolRow>> = HashMap::new();
    for r in &retained {
        groups.entry(r.group.as_str()).or_default().push(r);
    }
    let mut eval: BTreeSet<String> = BTreeSet::new();
    for axis in Axis::ALL {
        let rows: Vec<&PoolRow> = retained.iter().copied().filter(|r| r.axis == *axis).collect();
        let want = (params.per_axis as usize).min(rows.len());
        let mut by_source: BTreeMap<&str, Vec<&PoolRow>> = BTreeMap::new();
        for r in &rows {
            by_source.entry(r.source.as_str()).or_default().push(r);
        }
        let sizes: BTreeMap<&str, usize> = by_source.iter().map(|(k, v)| (*k, v.len())).collect();
        let quota = allocate(want, &sizes);
        for (source, mut members) in by_source {
            members.sort_by_cached_key(|r| (stable_hash("eval", seed, &r.id), r.id.clone()));
            for r in &members {
                let have = members.iter().filter(|m| eval.contains(&m.id)).count();
                if have >= quota[source] {
                    break;
                }
                if eval.contains(&r.id) {
                    continue;
                }
                for g in &groups[r.group.as_str()] {
                    eval.insert(g.id.clone());
                }
            }
        }
    }
    let mut retained: Vec<String> = retained.into_iter().map(|r| r.id.clone()).collect();
    retained.sort();
    capped.sort();
    Draft { retained, eval, capped }
}

/// A split row left out, with why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct LeftOut {
    pub id: String,
    pub axis: String,
    pub source_dataset: String,
    pub reason: String,
    /// For locality removals: whether the row had been selected for evaluation.
    pub was_eval: bool,
}

/// One axis of the Table 1 style accounting.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, TS)]
pub struct AxisTable {
    pub axis: String,
    #[ts(type = "number")]
    pub accepted: u64,
    #[ts(type = "number")]
    pub capped: u64,
    #[ts(type = "number")]
    pub locality_removed: u64,
    #[ts(type = "number")]
    pub retained: u64,
    #[ts(type = "number")]
    pub eval: u64,
    /// Evaluation rows at severity 1, 2 and 3.
    #[ts(type = "[number, number, number]")]
    pub eval_severity: [u64; 3],
    /// Retained rows at severity 1, 2 and 3.
    #[ts(type = "[number, number, number]")]
    pub retained_severity: [u64; 3],
}

/// The Table 4 style counts at every stage.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, TS)]
pub struct StageCounts {
    #[ts(type = "number")]
    pub candidates: u64,
    #[ts(type = "number")]
    pub double_annotated: u64,
    #[ts(type = "number")]
    pub adjudicated: u64,
    #[ts(type = "number")]
    pub rejected: u64,
    /// Accepted when the split was drafted (the pool it was drawn from).
    #[ts(type = "number")]
    pub accepted: u64,
    #[ts(type = "number")]
    pub capped: u64,
    #[ts(type = "number")]
    pub selected: u64,
    #[ts(type = "number")]
    pub locality_removed: u64,
    #[ts(type = "number")]
    pub retained: u64,
    #[ts(type = "number")]
    pub eval: u64,
}

/// A split as `split show` reports it, with the locality filter applied.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct SplitShow {
    #[ts(type = "number")]
    pub version: i64,
    /// `draft` or `locked`.
    pub status: String,
    pub params: SplitParams,
    pub created_at: String,
    pub locked_at: Option<String>,
    /// Axis -> retained rows (every axis present).
    #[ts(as = "BTreeMap<String, u32>")]
    pub retained: BTreeMap<String, u64>,
    /// Axis -> evaluation rows (every axis present).
    #[ts(as = "BTreeMap<String, u32>")]
    pub eval: BTreeMap<String, u64>,
    pub retained_ids: Vec<String>,
    pub eval_ids: Vec<String>,
    pub locality_removed: Vec<LeftOut>,
    pub capped: Vec<LeftOut>,
    pub counts: StageCounts,
    pub per_axis: Vec<AxisTable>,
    /// Source dataset -> [retained, evaluation].
    #[ts(type = "Record<string, [number, number]>")]
    pub by_source: BTreeMap<String, [u64; 2]>,
    /// Axis -> source -> evaluation rows (for the preview table).
    #[ts(as = "BTreeMap<String, BTreeMap<String, u32>>")]
    pub eval_by_axis_source: BTreeMap<String, BTreeMap<String, u64>>,
    /// Draft rows whose state changed since the draft (no longer accepted): lock refuses them.
    pub stale: Vec<String>,
}

/// The latest split: id, version, status, params JSON, created_at, locked_at.
type SplitHead = (i64, i64, String, String, String, Option<String>);

fn latest(conn: &Connection) -> Result<Option<SplitHead>> {
    Ok(conn
        .query_row(
            "SELECT id, version, status, params_json, created_at, locked_at FROM splits ORDER BY version DESC LIMIT 1",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?)),
        )
        .optional()?)
}

/// Drafts a split from the accepted rows (replacing an unlocked draft; after a locked split, a
/// new version).
pub fn draft(project: &mut Project, params: &SplitParams) -> Result<SplitShow> {
    if params.per_axis == 0 {
        return Err(Error::InvalidArgument("--per-axis must be at least 1".into()));
    }
    let tx = project.conn_mut().transaction()?;
    let pool = accepted_pool(&tx)?;
    if pool.is_empty() {
        return Err(Error::InvalidArgument(
            "no accepted rows to draft a split from: adjudicate rows as accept_force_gap and let them pass QC first".into(),
        ));
    }
    let d = make_draft(&pool, params);
    let params_json = serde_json::to_string(params).expect("params serialise");
    let split_id = match latest(&tx)? {
        Some((id, _, status, ..)) if status == "draft" => {
            tx.execute("DELETE FROM split_rows WHERE split_id = ?1", [id])?;
            tx.execute("UPDATE splits SET params_json = ?1, created_at = ?2 WHERE id = ?3", params![params_json, now(), id])?;
            id
        }
        other => {
            let version = other.map_or(1, |s| s.1 + 1);
            tx.execute(
                "INSERT INTO splits (version, status, params_json, created_at) VALUES (?1, 'draft', ?2, ?3)",
                params![version, params_json, now()],
            )?;
            tx.last_insert_rowid()
        }
    };
    {
        let mut insert = tx.prepare("INSERT INTO split_rows (split_id, candidate_id, role, reason) VALUES (?1, ?2, ?3, ?4)")?;
        for id in &d.retained {
            insert.execute(params![split_id, id, "retained", Option::<String>::None])?;
        }
        for id in &d.eval {
            insert.execute(params![split_id, id, "eval", Option::<String>::None])?;
        }
        for (id, reason) in &d.capped {
            insert.execute(params![split_id, id, "capped", reason])?;
        }
    }
    tx.commit()?;
    show(project)?.ok_or_else(|| Error::InvalidArgument("the draft vanished".into()))
}

/// The latest split with the locality filter applied, or `None` before any draft.
pub fn show(project: &Project) -> Result<Option<SplitShow>> {
    show_in(project.conn())
}

fn show_in(conn: &Connection) -> Result<Option<SplitShow>> {
    let Some((split_id, version, status, params_json, created_at, locked_at)) = latest(conn)? else { return Ok(None) };
    let params: SplitParams = serde_json::from_str(&params_json).map_err(|e| Error::InvalidArgument(format!("split parameters: {e}")))?;
    let mut roles: HashMap<String, Vec<(String, Option<String>)>> = HashMap::new();
    {
        let mut stmt = conn.prepare("SELECT candidate_id, role, reason FROM split_rows WHERE split_id = ?1")?;
        for row in stmt.query_map([split_id], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?, r.get::<_, Option<String>>(2)?)))? {
            let (id, role, reason) = row?;
            roles.entry(id).or_default().push((role, reason));
        }
    }
    let members: Vec<PoolRow> =
        rows_where(conn, "c.id IN (SELECT candidate_id FROM split_rows WHERE split_id = ?1)", [split_id])?;
    let marks: HashMap<String, String> = conn
        .prepare("SELECT candidate_id, reason FROM locality_marks")?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    let states: HashMap<String, String> = conn
        .prepare("SELECT s.candidate_id, s.state FROM candidate_states s JOIN split_rows r ON r.candidate_id = s.candidate_id WHERE r.split_id = ?1")?
        .query_map([split_id], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    let axis_names: Vec<&str> = Axis::ALL.iter().map(|a| a.as_str()).collect();
    let mut show = SplitShow {
        version,
        status: status.clone(),
        params,
        created_at,
        locked_at,
        retained: axis_names.iter().map(|a| (a.to_string(), 0)).collect(),
        eval: axis_names.iter().map(|a| (a.to_string(), 0)).collect(),
        retained_ids: Vec::new(),
        eval_ids: Vec::new(),
        locality_removed: Vec::new(),
        capped: Vec::new(),
        counts: StageCounts::default(),
        per_axis: axis_names.iter().map(|a| AxisTable { axis: a.to_string(), ..Default::default() }).collect(),
        by_source: BTreeMap::new(),
        eval_by_axis_source: axis_names.iter().map(|a| (a.to_string(), BTreeMap::new())).collect(),
        stale: Vec::new(),
    };
    for r in &members {
        let has = |role: &str| roles.get(&r.id).is_some_and(|v| v.iter().any(|x| x.0 == role));
        let reason_of = |role: &str| roles.get(&r.id).and_then(|v| v.iter().find(|x| x.0 == role).and_then(|x| x.1.clone()));
        let axis = r.axis.as_str();
        let table = show.per_axis.iter_mut().find(|t| t.axis == axis).expect("every axis");
        let sev = (r.severity as usize).clamp(1, 3) - 1;
        // Locked splits hold their removals; drafts read the current marks.
        let removed = if status == "locked" { reason_of("locality_removed") } else { marks.get(&r.id).cloned() };
        let state = states.get(&r.id).map(String::as_str).unwrap_or("");
        if status == "draft" && !matches!(state, "accepted" | "locality_removed") {
            show.stale.push(r.id.clone());
        }
        if has("capped") {
            table.accepted += 1;
            table.capped += 1;
            show.capped.push(LeftOut {
                id: r.id.clone(),
                axis: axis.into(),
                source_dataset: r.source.clone(),
                reason: reason_of("capped").unwrap_or_default(),
                was_eval: false,
            });
            continue;
        }
        let was_eval = has("eval");
        if has("retained") {
            table.accepted += 1;
        }
        if was_eval {
            show.counts.selected += 1;
        }
        if let Some(reason) = removed {
            table.locality_removed += 1;
            show.locality_removed.push(LeftOut { id: r.id.clone(), axis: axis.into(), source_dataset: r.source.clone(), reason, was_eval });
            continue;
        }
        if has("retained") {
            table.retained += 1;
            table.retained_severity[sev] += 1;
            *show.retained.get_mut(axis).expect("axis") += 1;
            show.retained_ids.push(r.id.clone());
            show.by_source.entry(r.source.clone()).or_insert([0, 0])[0] += 1;
        }
        if has("eval") {
            table.eval += 1;
            table.eval_severity[sev] += 1;
            *show.eval.get_mut(axis).expect("axis") += 1;
            show.eval_ids.push(r.id.clone());
            show.by_source.entry(r.source.clone()).or_insert([0, 0])[1] += 1;
            *show.eval_by_axis_source.get_mut(axis).expect("axis").entry(r.source.clone()).or_insert(0) += 1;
        }
    }
    let count = |sql: &str| -> Result<u64> { Ok(conn.query_row(sql, [], |r| r.get::<_, i64>(0))? as u64) };
    show.counts.candidates = count("SELECT count(*) FROM candidates")?;
    show.counts.double_annotated = count(
        "SELECT count(*) FROM candidates c WHERE (SELECT count(*) FROM annotations n WHERE n.candidate_id = c.id AND n.finished = 1) >= 2
            OR EXISTS (SELECT 1 FROM adjudications j WHERE j.candidate_id = c.id)",
    )?;
    show.counts.adjudicated = count("SELECT count(*) FROM adjudications")?;
    show.counts.rejected = count("SELECT count(*) FROM adjudications WHERE decision = 'reject_not_force_gap'")?;
    show.counts.accepted = show.per_axis.iter().map(|t| t.accepted).sum();
    show.counts.capped = show.capped.len() as u64;
    show.counts.locality_removed = show.locality_removed.len() as u64;
    show.counts.retained = show.retained_ids.len() as u64;
    show.counts.eval = show.eval_ids.len() as u64;
    Ok(Some(show))
}

/// Locks the latest draft: its locality removals are written into it, its manifest stored.
pub fn lock(project: &mut Project) -> Result<SplitShow> {
    let tx = project.conn_mut().transaction()?;
    let Some((split_id, version, status, ..)) = latest(&tx)? else {
        return Err(Error::InvalidArgument("there is no split to lock; draft one first (`forcebench split draft`)".into()));
    };
    if status == "locked" {
        return Err(Error::InvalidArgument(format!("split v{version} is already locked; draft a new version to change anything")));
    }
    let current = show_in(&tx)?.expect("a split exists");
    if !current.stale.is_empty() {
        return Err(Error::InvalidArgument(format!(
            "split v{version} is out of date: {} row(s) are no longer accepted since the draft ({}); draft again before locking",
            current.stale.len(),
            current.stale.iter().take(5).cloned().collect::<Vec<_>>().join(", ")
        )));
    }
    // The removals become part of the split (its retained and eval roles stay, as drafted).
    for removed in &current.locality_removed {
        tx.execute(
            "INSERT INTO split_rows (split_id, candidate_id, role, reason) VALUES (?1, ?2, 'locality_removed', ?3)",
            params![split_id, removed.id, removed.reason],
        )?;
    }
    let at = now();
    tx.execute("UPDATE splits SET status = 'locked', locked_at = ?1 WHERE id = ?2", params![at, split_id])?;
    let locked = show_in(&tx)?.expect("a split exists");
    let manifest = manifest_for(&tx, &locked, project_info_in(&tx)?)?;
    tx.execute("UPDATE splits SET manifest_json = ?1 WHERE id = ?2", params![serde_json::to_string(&manifest).expect("manifest"), split_id])?;
    tx.commit()?;
    Ok(locked)
}

fn project_info_in(conn: &Connection) -> Result<(String, String)> {
    Ok(conn.query_row("SELECT id, name FROM project WHERE singleton = 1", [], |r| Ok((r.get(0)?, r.get(1)?)))?)
}

/// Format name and version of the manifest.
pub const MANIFEST_FORMAT: &str = "forcebench-split-manifest";
pub const MANIFEST_VERSION: u32 = 1;
const ZERO_HASH: &str = "0000000000000000000000000000000000000000000000000000000000000000";

fn manifest_for(conn: &Connection, s: &SplitShow, (project_id, project_name): (String, String)) -> Result<serde_json::Value> {
    let agreement = {
        let rows = crate::agreement::double_annotated_in(conn)?;
        let report = crate::agreement::report_for(&rows, None);
        serde_json::json!({
            "n_items": report.decision.kappa.n_items,
            "cohen_kappa": report.decision.kappa.cohen_kappa,
            "kappa_se": report.decision.kappa.kappa_se,
            "kappa_ci95": report.decision.kappa.kappa_ci95,
            "percent_agreement": report.decision.kappa.percent_agreement,
            "krippendorff_alpha": report.krippendorff_alpha,
            "gwet_ac1": report.decision.kappa.gwet_ac1,
        })
    };
    Ok(serde_json::json!({
        "format": MANIFEST_FORMAT,
        "format_version": MANIFEST_VERSION,
        "tool": { "name": "forcebench", "version": env!("CARGO_PKG_VERSION") },
        "project": { "id": project_id, "name": project_name },
        "split": { "version": s.version, "status": s.status, "created_at": s.created_at, "locked_at": s.locked_at },
        "params": s.params,
        "counts": s.counts,
        "per_axis": s.per_axis,
        "by_source": s.by_source.iter().map(|(k, v)| (k.clone(), serde_json::json!({"retained": v[0], "eval": v[1]}))).collect::<serde_json::Map<_, _>>(),
        "agreement_at_lock": agreement,
        "capped": s.capped,
        "locality_removed": s.locality_removed,
    }))
}

/// The rows of an export with their final fields.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct EvalRow {
    pub id: String,
    pub axis: String,
    pub severity: i64,
    pub source_dataset: String,
    pub group_id: String,
    pub context: String,
    pub passage: String,
    pub evidence_span: String,
    pub calibrated_claim: String,
    pub raised_claim: String,
    pub repair: String,
}

/// Final fields of the split's rows in the given role (locality-removed rows left out), in id
/// order: the candidates in one query, their final fields from one scan.
fn final_rows(conn: &Connection, split_id: i64, role: &str, fields: &HashMap<String, crate::adjudicate::FinalFields>) -> Result<Vec<EvalRow>> {
    use crate::annotate::Field;
    let mut stmt = conn.prepare(
        "SELECT c.id, c.source_dataset, c.group_id, c.context, c.passage
         FROM split_rows r JOIN candidates c ON c.id = r.candidate_id
         WHERE r.split_id = ?1 AND r.role = ?2
           AND NOT EXISTS (SELECT 1 FROM split_rows x WHERE x.split_id = ?1 AND x.candidate_id = r.candidate_id AND x.role = 'locality_removed')
         ORDER BY c.id",
    )?;
    let mut rows = stmt.query(params![split_id, role])?;
    let mut out = Vec::new();
    while let Some(r) = rows.next()? {
        let id: String = r.get(0)?;
        let finals = fields.get(&id);
        let value = |f: Field| -> String {
            let i = crate::adjudicate::FIELDS.iter().position(|x| *x == f).expect("adjudicated field");
            finals.and_then(|v| v[i].as_ref()).and_then(|x| x.0.clone()).unwrap_or_default()
        };
        let span_json = value(Field::EvidenceSpan);
        out.push(EvalRow {
            evidence_span: serde_json::from_str::<crate::annotate::Span>(&span_json).map(|s| s.text).unwrap_or(span_json),
            axis: value(Field::Axis),
            severity: value(Field::Severity).parse().unwrap_or(0),
            calibrated_claim: value(Field::CalibratedClaim),
            raised_claim: value(Field::RaisedClaim),
            repair: value(Field::Repair),
            source_dataset: r.get(1)?,
            group_id: r.get(2)?,
            context: r.get(3)?,
            passage: r.get(4)?,
            id,
        });
    }
    Ok(out)
}

/// The evaluation rows of the latest split, with their final fields, in id order.
pub fn eval_rows(project: &Project) -> Result<Vec<EvalRow>> {
    let conn = project.conn();
    let (split_id, ..) = latest(conn)?.ok_or_else(|| Error::InvalidArgument("there is no split".into()))?;
    let fields = crate::adjudicate::all_final_fields(conn)?;
    final_rows(conn, split_id, "eval", &fields)
}

fn jsonl<T: Serialize>(w: &mut dyn std::io::Write, rows: impl IntoIterator<Item = T>) -> std::io::Result<()> {
    for r in rows {
        serde_json::to_writer(&mut *w, &r)?;
        w.write_all(b"\n")?;
    }
    Ok(())
}

/// Writes through a buffer into a file while hashing what passes.
struct HashingWriter {
    file: std::io::BufWriter<std::fs::File>,
    hash: Sha256,
}

impl std::io::Write for HashingWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.file.write(buf)?;
        self.hash.update(&buf[..n]);
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}

/// Writes `name` in `dir` by streaming `fill` into a temporary file that is synced and renamed
/// into place; returns the sha256 of what was written.
fn write_file(dir: &Path, name: &str, fill: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>) -> Result<String> {
    use std::io::Write;
    let path = dir.join(name);
    let tmp = dir.join(format!(".{name}.tmp"));
    let io = |e: std::io::Error| Error::io(&path, e);
    let file = std::fs::File::create(&tmp).map_err(|e| Error::io(&tmp, e))?;
    let mut w = HashingWriter { file: std::io::BufWriter::with_capacity(1 << 20, file), hash: Sha256::new() };
    fill(&mut w).map_err(io)?;
    w.flush().map_err(io)?;
    let HashingWriter { file, hash } = w;
    file.into_inner().map_err(|e| io(e.into_error()))?.sync_all().map_err(io)?;
    std::fs::rename(&tmp, &path).map_err(io)?;
    Ok(hex::encode(hash.finalize()))
}

fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// The files an export writes, in writing order.
pub const EXPORT_FILES: [&str; 9] = [
    "eval.jsonl",
    "eval.csv",
    "benchmark.jsonl",
    "annotations.jsonl",
    "adjudications.jsonl",
    "rejected.jsonl",
    "locality_removed.jsonl",
    "DATASHEET.md",
    "manifest.json",
];

/// The canonical content of a split: parameters and the ids on every side, as compact JSON.
/// Its sha256 names the split's content whatever the times in the manifest.
fn canonical_content(params: &serde_json::Value, benchmark_sha256: &str, eval_ids: &[String], capped: &[String], removed: &[String]) -> Vec<u8> {
    let value = serde_json::json!({
        "params": params,
        "benchmark_sha256": benchmark_sha256,
        "eval_ids": eval_ids,
        "capped_ids": capped,
        "locality_removed_ids": removed,
    });
    serde_json::to_vec(&value).expect("canonical content")
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct ExportReport {
    pub dir: String,
    #[ts(type = "number")]
    pub version: i64,
    /// File name -> sha256.
    pub files: BTreeMap<String, String>,
    pub content_sha256: String,
}

/// Exports the latest locked split into `dir` (created if needed; earlier export files there
/// are replaced). `progress(done, total)` is called after each file.
pub fn export(project: &Project, dir: &Path, progress: &mut dyn FnMut(usize, usize)) -> Result<ExportReport> {
    let conn = project.conn();
    let s = show_in(conn)?.ok_or_else(|| Error::InvalidArgument("there is no split to export; draft and lock one first".into()))?;
    if s.status != "locked" {
        return Err(Error::InvalidArgument(format!("split v{} is a draft; lock it before exporting (`forcebench split lock`)", s.version)));
    }
    let (split_id, ..) = latest(conn)?.expect("a split");
    let stored: serde_json::Value = conn
        .query_row("SELECT manifest_json FROM splits WHERE id = ?1", [split_id], |r| r.get::<_, Option<String>>(0))?
        .and_then(|m| serde_json::from_str(&m).ok())
        .ok_or_else(|| Error::InvalidArgument(format!("split v{} has no manifest", s.version)))?;
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let total = EXPORT_FILES.len();
    let mut files: BTreeMap<String, String> = BTreeMap::new();
    let mut put = |name: &str, fill: &mut dyn FnMut(&mut dyn std::io::Write) -> std::io::Result<()>, files: &mut BTreeMap<String, String>| -> Result<String> {
        let hash = write_file(dir, name, |w| fill(w))?;
        files.insert(name.to_string(), hash.clone());
        progress(files.len(), total);
        Ok(hash)
    };
    let csv_io = |e: csv::Error| std::io::Error::other(e);

    let fields = crate::adjudicate::all_final_fields(conn)?;
    let eval = final_rows(conn, split_id, "eval", &fields)?;
    put("eval.jsonl", &mut |w| jsonl(w, &eval), &mut files)?;
    put(
        "eval.csv",
        &mut |w| {
            let mut c = csv::WriterBuilder::new().has_headers(false).from_writer(w);
            c.write_record(["id", "axis", "severity", "source_dataset", "group_id", "context", "passage", "evidence_span", "calibrated_claim", "raised_claim", "repair"])
                .map_err(csv_io)?;
            for r in &eval {
                c.serialize(r).map_err(csv_io)?;
            }
            c.flush()
        },
        &mut files,
    )?;

    let eval_ids: BTreeSet<&str> = eval.iter().map(|r| r.id.as_str()).collect();
    #[derive(Serialize)]
    struct BenchRow<'a> {
        #[serde(flatten)]
        row: &'a EvalRow,
        in_eval: bool,
    }
    let retained = final_rows(conn, split_id, "retained", &fields)?;
    drop(fields);
    let benchmark_sha256 = put(
        "benchmark.jsonl",
        &mut |w| jsonl(w, retained.iter().map(|row| BenchRow { row, in_eval: eval_ids.contains(row.id.as_str()) })),
        &mut files,
    )?;
    drop(retained);
    let annotations = annotation_rows(conn)?;
    put("annotations.jsonl", &mut |w| jsonl(w, &annotations), &mut files)?;
    drop(annotations);
    let adjudications = adjudication_rows(project)?;
    put("adjudications.jsonl", &mut |w| jsonl(w, &adjudications), &mut files)?;
    drop(adjudications);
    let rejected = rejected_rows(conn)?;
    put("rejected.jsonl", &mut |w| jsonl(w, &rejected), &mut files)?;
    put("locality_removed.jsonl", &mut |w| jsonl(w, &s.locality_removed), &mut files)?;

    let capped: Vec<String> = s.capped.iter().map(|c| c.id.clone()).collect();
    let removed: Vec<String> = s.locality_removed.iter().map(|c| c.id.clone()).collect();
    let eval_id_list: Vec<String> = eval.iter().map(|r| r.id.clone()).collect();
    let content_sha256 = sha256_hex(&canonical_content(&stored["params"], &benchmark_sha256, &eval_id_list, &capped, &removed));
    let sheet = datasheet(&s, &stored, &content_sha256);
    put("DATASHEET.md", &mut |w| w.write_all(sheet.as_bytes()), &mut files)?;

    let mut manifest = stored.clone();
    manifest["content_sha256"] = content_sha256.clone().into();
    manifest["files"] = serde_json::to_value(&files).expect("files");
    manifest["manifest_sha256"] = ZERO_HASH.into();
    let text = serde_json::to_string_pretty(&manifest).expect("manifest") + "\n";
    let own = sha256_hex(text.as_bytes());
    let text = text.replacen(&format!("\"manifest_sha256\": \"{ZERO_HASH}\""), &format!("\"manifest_sha256\": \"{own}\""), 1);
    put("manifest.json", &mut |w| w.write_all(text.as_bytes()), &mut files)?;
    Ok(ExportReport { dir: dir.display().to_string(), version: s.version, files, content_sha256 })
}

/// Both independent annotations of every adjudicated row (annotator A first, by roster order).
fn annotation_rows(conn: &Connection) -> Result<Vec<serde_json::Value>> {
    let mut stmt = conn.prepare(
        "SELECT n.candidate_id, a.name, n.decision, n.evidence_span, n.span_start, n.span_end, n.calibrated_claim,
                n.raised_claim, n.axis, n.severity, n.boundary_type, n.repair, n.notes, n.seconds_spent
         FROM annotations n JOIN annotators a ON a.id = n.annotator_id
         WHERE n.finished = 1 AND n.candidate_id IN (SELECT candidate_id FROM adjudications)
         ORDER BY n.candidate_id, n.annotator_id",
    )?;
    let rows = stmt.query_map([], |r| {
        Ok(serde_json::json!({
            "id": r.get::<_, String>(0)?,
            "annotator": r.get::<_, String>(1)?,
            "decision": r.get::<_, Option<String>>(2)?,
            "evidence_span": r.get::<_, Option<String>>(3)?,
            "span_start": r.get::<_, Option<i64>>(4)?,
            "span_end": r.get::<_, Option<i64>>(5)?,
            "calibrated_claim": r.get::<_, Option<String>>(6)?,
            "raised_claim": r.get::<_, Option<String>>(7)?,
            "axis": r.get::<_, Option<String>>(8)?,
            "severity": r.get::<_, Option<i64>>(9)?,
            "boundary_type": r.get::<_, Option<String>>(10)?,
            "repair": r.get::<_, Option<String>>(11)?,
            "notes": r.get::<_, Option<String>>(12)?,
            "seconds_spent": r.get::<_, f64>(13)?,
        }))
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Final labels, flat (one column per field's source) so every line has the same keys.
fn adjudication_rows(project: &Project) -> Result<Vec<serde_json::Value>> {
    let mut rows = crate::adjudicate::export_rows(project)?;
    rows.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(rows
        .into_iter()
        .map(|r| {
            let mut v = serde_json::json!({
                "id": r.id,
                "state": r.state.as_str(),
                "decision": r.decision.as_str(),
                "evidence_span": r.evidence_span,
                "calibrated_claim": r.calibrated_claim,
                "raised_claim": r.raised_claim,
                "axis": r.axis,
                "severity": r.severity,
                "repair": r.repair,
                "boundary_type": r.boundary_type,
                "rationale": r.rationale,
                "adjudicator": r.adjudicator,
                "decided_at": r.decided_at,
                "bulk_confirmed": r.bulk_confirmed,
            });
            for f in crate::adjudicate::FIELDS {
                v[format!("source_{}", f.as_str())] = r.sources.get(f.as_str()).map(|s| s.as_str()).into();
                v[format!("annotator_{}", f.as_str())] = r.annotators.get(f.as_str()).cloned().flatten().into();
            }
            for (name, _, answer) in r.checklist.items() {
                v[format!("checklist_{name}")] = answer.into();
            }
            v
        })
        .collect())
}

fn rejected_rows(conn: &Connection) -> Result<Vec<serde_json::Value>> {
    let mut stmt = conn.prepare(
        "SELECT c.id, j.boundary_type, j.rationale, c.source_dataset, c.passage, c.calibrated_claim, c.raised_claim, c.axis
         FROM adjudications j JOIN candidates c ON c.id = j.candidate_id
         WHERE j.decision = 'reject_not_force_gap' ORDER BY c.id",
    )?;
    let rows = stmt.query_map([], |r| {
        Ok(serde_json::json!({
            "id": r.get::<_, String>(0)?,
            "boundary_type": r.get::<_, Option<String>>(1)?,
            "rationale": r.get::<_, Option<String>>(2)?,
            "source_dataset": r.get::<_, String>(3)?,
            "passage": r.get::<_, String>(4)?,
            "suggested_calibrated_claim": r.get::<_, String>(5)?,
            "suggested_raised_claim": r.get::<_, String>(6)?,
            "suggested_axis": r.get::<_, Option<String>>(7)?,
        }))
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

fn fmt_num(v: &serde_json::Value) -> String {
    v.as_f64().map_or("undefined".into(), |x| format!("{x:.3}"))
}

/// The datasheet, written from the split's own numbers.
fn datasheet(s: &SplitShow, manifest: &serde_json::Value, content_sha256: &str) -> String {
    let c = &s.counts;
    let a = &manifest["agreement_at_lock"];
    let mut out = String::new();
    let name = manifest["project"]["name"].as_str().unwrap_or("");
    out.push_str(&format!("# Datasheet: {name}, evaluation split v{}\n\n", s.version));
    out.push_str(&format!(
        "Written by forcebench {} from the locked split (locked {}). Content sha256 `{content_sha256}`.\n\n",
        env!("CARGO_PKG_VERSION"),
        s.locked_at.as_deref().unwrap_or("")
    ));
    out.push_str("## What it is\n\nContrastive citation-warrant pairs. Each row has a cited passage, a calibrated claim that the passage licenses and a minimally stronger raised claim that it does not, tagged with one force axis (relation, modality, scope, temporal, numeric) and a severity (1 subtle, 2 clear, 3 high-impact). `eval.jsonl` / `eval.csv` hold the evaluation set; `benchmark.jsonl` the whole retained pool (`in_eval` marks the evaluation rows).\n\n");
    out.push_str("## How it was made\n\nEvery candidate was annotated independently by two annotators on blinded packets; an adjudicator resolved every disagreement and confirmed agreements; rows adjudicated as a force gap that passed quality control were accepted; a locality audit removed rows whose raised claim changes more than force. Over-represented axes were capped, and the evaluation set was drawn per axis, stratified by source dataset, with a stable hash for ties.\n\n");
    out.push_str(&format!(
        "Agreement on the pre-adjudication decisions of {} double-annotated rows: Cohen's kappa {} (95% CI {}), percent agreement {}, Krippendorff's alpha {}.\n\n",
        a["n_items"], fmt_num(&a["cohen_kappa"]),
        a["kappa_ci95"].as_array().map_or("undefined".into(), |v| format!("{} to {}", fmt_num(&v[0]), fmt_num(&v[1]))),
        fmt_num(&a["percent_agreement"]), fmt_num(&a["krippendorff_alpha"])
    ));
    out.push_str("## Counts at every stage\n\n| stage | rows |\n|---|---|\n");
    for (stage, n) in [
        ("candidates", c.candidates),
        ("double-annotated", c.double_annotated),
        ("adjudicated", c.adjudicated),
        ("rejected", c.rejected),
        ("accepted", c.accepted),
        ("capped (surplus on over-represented axes)", c.capped),
        ("selected for evaluation", c.selected),
        ("removed by the locality audit", c.locality_removed),
        ("retained", c.retained),
        ("evaluation", c.eval),
    ] {
        out.push_str(&format!("| {stage} | {n} |\n"));
    }
    out.push_str("\n## Per axis\n\n| axis | accepted | capped | locality-removed | retained | evaluation | eval sev 1 / 2 / 3 |\n|---|---|---|---|---|---|---|\n");
    for t in &s.per_axis {
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} / {} / {} |\n",
            t.axis, t.accepted, t.capped, t.locality_removed, t.retained, t.eval, t.eval_severity[0], t.eval_severity[1], t.eval_severity[2]
        ));
    }
    out.push_str("\n## Per source dataset\n\n| source | retained | evaluation |\n|---|---|---|\n");
    for (source, [r, e]) in &s.by_source {
        out.push_str(&format!("| {source} | {r} | {e} |\n"));
    }
    out.push_str(&format!(
        "\n## Parameters\n\nCaps {}; {} evaluation rows per axis; seed {}; strata: axis, then {}.\n\n",
        if s.params.caps.is_empty() { "none".to_string() } else { s.params.caps.iter().map(|(a, n)| format!("{a}={n}")).collect::<Vec<_>>().join(", ") },
        s.params.per_axis,
        s.params.seed,
        s.params.strata.join(", ")
    ));
    if !s.locality_removed.is_empty() {
        out.push_str("## Removed by the locality audit\n\n");
        for r in &s.locality_removed {
            out.push_str(&format!("- `{}` ({}): {}\n", r.id, r.axis, r.reason));
        }
        out.push('\n');
    }
    out.push_str("## Intended use and limits\n\nFor measuring whether citation evaluators notice when a claim is stronger than its cited passage allows: score both claims of each pair and report the monotonicity violation rate and force sensitivity. The set is small and English-only; its passages come from the source datasets named above and inherit their topics and errors; one axis per row is a simplification, since real overclaims can move on several. The labels reflect two annotators and one adjudicator following the project's guideline. It is not training data for claim verification and says nothing about whether a passage is true.\n");
    out
}

/// A problem `verify` found, naming the file.
fn mismatch(dir: &Path, file: &str, message: String) -> Error {
    Error::VerifyFailed { file: dir.join(file).display().to_string(), message }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct VerifyReport {
    pub dir: String,
    #[ts(type = "number")]
    pub files_checked: u64,
    pub content_sha256: String,
    #[ts(type = "number")]
    pub eval_rows: u64,
    #[ts(type = "number")]
    pub retained_rows: u64,
}

/// Re-checks an export folder: the manifest's own hash, every file's sha256, the canonical
/// content hash, and that the files agree with each other and with the manifest's counts.
pub fn verify(dir: &Path) -> Result<VerifyReport> {
    let read = |name: &str| std::fs::read(dir.join(name)).map_err(|e| Error::io(dir.join(name), e));
    let manifest_bytes = read("manifest.json")?;
    let text = String::from_utf8(manifest_bytes.clone()).map_err(|_| mismatch(dir, "manifest.json", "not UTF-8".into()))?;
    let manifest: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| mismatch(dir, "manifest.json", format!("not valid JSON: {e}")))?;
    if manifest["format"] != MANIFEST_FORMAT {
        return Err(mismatch(dir, "manifest.json", format!("not a ForceBench split manifest (no \"format\": \"{MANIFEST_FORMAT}\")")));
    }
    let stated = manifest["manifest_sha256"].as_str().unwrap_or_default().to_string();
    let blanked = text.replacen(&format!("\"manifest_sha256\": \"{stated}\""), &format!("\"manifest_sha256\": \"{ZERO_HASH}\""), 1);
    if stated.len() != 64 || sha256_hex(blanked.as_bytes()) != stated {
        return Err(mismatch(dir, "manifest.json", "the manifest's own sha256 does not match its contents (it was changed after export)".into()));
    }
    let files = manifest["files"].as_object().ok_or_else(|| mismatch(dir, "manifest.json", "no `files` table".into()))?;
    for name in EXPORT_FILES.iter().filter(|n| **n != "manifest.json") {
        if !files.contains_key(*name) {
            return Err(mismatch(dir, "manifest.json", format!("`files` does not list {name}")));
        }
    }
    let mut checked = 1;
    for (name, hash) in files {
        if name == "manifest.json" {
            continue;
        }
        if name.contains('/') || name.contains('\\') || name.starts_with('.') {
            return Err(mismatch(dir, "manifest.json", format!("`files` names an unexpected path `{name}`")));
        }
        let bytes = read(name)?;
        if Some(sha256_hex(&bytes).as_str()) != hash.as_str() {
            return Err(mismatch(dir, name, format!("sha256 differs from the manifest's (expected {})", hash.as_str().unwrap_or("?"))));
        }
        checked += 1;
    }
    // Consistency between files.
    let parse_lines = |name: &str| -> Result<Vec<serde_json::Value>> {
        let bytes = read(name)?;
        let text = String::from_utf8(bytes).map_err(|_| mismatch(dir, name, "not UTF-8".into()))?;
        text.lines()
            .enumerate()
            .map(|(i, l)| serde_json::from_str(l).map_err(|e| mismatch(dir, name, format!("line {}: not valid JSON: {e}", i + 1))))
            .collect()
    };
    let eval = parse_lines("eval.jsonl")?;
    let benchmark = parse_lines("benchmark.jsonl")?;
    let ids = |rows: &[serde_json::Value]| -> Vec<String> { rows.iter().filter_map(|r| r["id"].as_str().map(String::from)).collect() };
    let eval_ids = ids(&eval);
    let mut csv_ids = Vec::new();
    let csv_bytes = read("eval.csv")?;
    let mut reader = csv::Reader::from_reader(&csv_bytes[..]);
    for record in reader.records() {
        let record = record.map_err(|e| mismatch(dir, "eval.csv", e.to_string()))?;
        csv_ids.push(record.get(0).unwrap_or_default().to_string());
    }
    if csv_ids != eval_ids {
        return Err(mismatch(dir, "eval.csv", "its ids differ from eval.jsonl's".into()));
    }
    let counts = &manifest["counts"];
    if counts["eval"].as_u64() != Some(eval.len() as u64) {
        return Err(mismatch(dir, "eval.jsonl", format!("{} rows, but the manifest counts {}", eval.len(), counts["eval"])));
    }
    if counts["retained"].as_u64() != Some(benchmark.len() as u64) {
        return Err(mismatch(dir, "benchmark.jsonl", format!("{} rows, but the manifest counts {}", benchmark.len(), counts["retained"])));
    }
    let in_eval: BTreeSet<String> = benchmark.iter().filter(|r| r["in_eval"] == true).filter_map(|r| r["id"].as_str().map(String::from)).collect();
    if in_eval != eval_ids.iter().cloned().collect::<BTreeSet<_>>() {
        return Err(mismatch(dir, "benchmark.jsonl", "its in_eval rows differ from eval.jsonl".into()));
    }
    let removed = ids(&parse_lines("locality_removed.jsonl")?);
    let capped: Vec<String> = manifest["capped"].as_array().map(|v| ids(v)).unwrap_or_default();
    let content = sha256_hex(&canonical_content(&manifest["params"], &sha256_hex(&read("benchmark.jsonl")?), &eval_ids, &capped, &removed));
    if manifest["content_sha256"].as_str() != Some(content.as_str()) {
        return Err(mismatch(dir, "manifest.json", "content_sha256 does not match the exported rows".into()));
    }
    Ok(VerifyReport {
        dir: dir.display().to_string(),
        files_checked: checked,
        content_sha256: content,
        eval_rows: eval.len() as u64,
        retained_rows: benchmark.len() as u64,
    })
}
