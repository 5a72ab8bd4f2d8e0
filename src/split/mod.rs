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
//! **Locality filter.** Rows marked nonlocal leave the retained pool and the evaluation set;
//! nothing replaces them (the paper's 200 selected became 198). A row marked before the draft is
//! drawn and removed just as one marked after it, so the split, its counts and its
//! `locality_removed` list do not depend on when the audit ran.
//!
//! **Lock.** Locking freezes the split: the removals are written into it, its manifest is stored,
//! and every row its export covers (its own rows and every row adjudicated at the time) is frozen
//! through [`crate::rowstate::freeze`], so that any later export of this version is the same,
//! byte for byte. Work goes on with other rows, and a new split version can be drafted from the
//! current state.
//!
//! **Export / verify.** See [`export`] and [`verify`].

use rusqlite::{params, Connection, OptionalExtension};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, HashMap, HashSet};
use ts_rs::TS;

use crate::error::{Error, Result};
use crate::project::{now, Project};
use crate::vocab::Axis;
use facts::{Facts, Standing};

mod audit;
mod datasheet;
mod export;
pub(crate) mod facts;
mod leakage;
mod lines;
mod publish;
mod seal;
mod verify;

pub use audit::{audit_sample, LockAudit, RowChecks};
pub use export::{eval_rows, export, export_in_slices, export_version, export_with, EvalRow, ExportReport};
pub use leakage::{normalise, Leak, LeakageAudit};
pub use publish::EXPORT_FILES;
pub use verify::{verify, VerifyReport};

/// The folder of an export that holds the evaluation release (prompts, run manifests, outputs,
/// the guideline and the baselines' definitions), written and checked by
/// `crate::evaluate::release`; the split's own files, manifest and seal do not cover it.
pub const RELEASE_DIR: &str = "evaluation";

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
        SplitParams {
            caps,
            per_axis: per_axis.unwrap_or(DEFAULT_PER_AXIS),
            seed: seed.unwrap_or(1),
            strata: vec!["source_dataset".into()],
        }
    }
}

/// Parses `AXIS=N`, as `split draft --cap` takes it.
pub fn parse_cap(text: &str) -> std::result::Result<(Axis, u32), String> {
    let (axis, n) = text.split_once('=').ok_or_else(|| format!("`{text}` is not AXIS=N"))?;
    let axis: Axis = axis.trim().parse()?;
    let n: u32 = n.trim().parse().map_err(|_| format!("`{}` is not a whole number of rows", n.trim()))?;
    Ok((axis, n))
}

/// The caps given one by one (`--cap relation=48 --cap scope=30`) as the split's map; an axis
/// capped twice is refused, since keeping either number silently drafts a split the person did
/// not ask for.
pub fn caps_from(list: &[(Axis, u32)]) -> Result<BTreeMap<Axis, u32>> {
    let mut caps = BTreeMap::new();
    for (axis, n) in list {
        if let Some(first) = caps.insert(*axis, *n) {
            return Err(Error::InvalidArgument(format!(
                "--cap {axis} is given twice ({axis}={first} and {axis}={n}): give each axis one cap. Nothing was \
                 changed",
                axis = axis.as_str()
            )));
        }
    }
    Ok(caps)
}

/// An accepted row as the split sees it (final axis and severity).
#[derive(Debug, Clone)]
struct PoolRow<'a> {
    id: &'a str,
    group: &'a str,
    source: &'a str,
    axis: Axis,
}

/// The stable hash of a row: sha256 of `"<salt>:<seed>:<id>"`, given the `"<salt>:<seed>:"` prefix.
fn stable_hash(prefix: &str, id: &str) -> [u8; 32] {
    Sha256::new().chain_update(prefix).chain_update(id).finalize().into()
}

/// The accepted rows whose promotion checks are all affirmed, in id order (the rest
/// are held back, see [`Promotion`]), with those accepted but marked nonlocal (the locality
/// filter removes them after capping and selection, wherever in the workflow the mark was made).
fn accepted_pool(facts: &Facts) -> Result<Vec<PoolRow<'_>>> {
    facts
        .rows
        .iter()
        .filter(|f| {
            matches!(f.standing, Standing::Accepted | Standing::LocalityRemovedAccepted) && facts.held_back(f).is_none()
        })
        .map(|f| Ok(PoolRow { id: &f.id, group: &f.group, source: &f.source, axis: f.axis()? }))
        .collect()
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
fn stratified_keep<'a>(rows: &[&PoolRow<'a>], keep: usize, salt: &str, seed: u64) -> HashSet<&'a str> {
    let prefix = format!("{salt}:{seed}:");
    let mut by_source: BTreeMap<&str, Vec<&PoolRow>> = BTreeMap::new();
    for r in rows {
        by_source.entry(r.source).or_default().push(r);
    }
    let sizes: BTreeMap<&str, usize> = by_source.iter().map(|(k, v)| (*k, v.len())).collect();
    let quota = allocate(keep, &sizes);
    let mut out = HashSet::new();
    for (source, mut members) in by_source {
        members.sort_by_cached_key(|r| (stable_hash(&prefix, r.id), r.id));
        out.extend(members.into_iter().take(quota[source]).map(|r| r.id));
    }
    out
}

/// The result of a draft before it is written: retained, evaluation and capped rows, each in id
/// order.
struct Draft<'a> {
    retained: Vec<&'a str>,
    eval: Vec<&'a str>,
    capped: Vec<(&'a str, String)>, // id, reason
}

fn make_draft<'a>(pool: &[PoolRow<'a>], params: &SplitParams) -> Draft<'a> {
    let seed = params.seed;
    let mut retained: Vec<&PoolRow> = Vec::new();
    let mut capped = Vec::new();
    for axis in Axis::ALL {
        let rows: Vec<&PoolRow> = pool.iter().filter(|r| r.axis == *axis).collect();
        match params.caps.get(axis) {
            Some(&cap) if rows.len() > cap as usize => {
                let keep = stratified_keep(&rows, cap as usize, "cap", seed);
                let reason = format!(
                    "{} capped at {cap} rows ({} accepted); stratified by source, stable hash",
                    axis.as_str(),
                    rows.len()
                );
                for r in rows {
                    if keep.contains(r.id) {
                        retained.push(r);
                    } else {
                        capped.push((r.id, reason.clone()));
                    }
                }
            }
            _ => retained.extend(rows),
        }
    }
    // Evaluation set: per axis, per source quota; a picked row brings its group (whose other
    // rows count towards their own axis and source).
    let mut groups: HashMap<&str, Vec<&PoolRow>> = HashMap::new();
    for r in &retained {
        groups.entry(r.group).or_default().push(r);
    }
    let mut eval: HashSet<&str> = HashSet::new();
    let mut picked: HashMap<(Axis, &str), usize> = HashMap::new();
    let prefix = format!("eval:{seed}:");
    for axis in Axis::ALL {
        let rows: Vec<&PoolRow> = retained.iter().copied().filter(|r| r.axis == *axis).collect();
        let want = (params.per_axis as usize).min(rows.len());
        let mut by_source: BTreeMap<&str, Vec<&PoolRow>> = BTreeMap::new();
        for r in &rows {
            by_source.entry(r.source).or_default().push(r);
        }
        let sizes: BTreeMap<&str, usize> = by_source.iter().map(|(k, v)| (*k, v.len())).collect();
        let quota = allocate(want, &sizes);
        for (source, mut members) in by_source {
            members.sort_by_cached_key(|r| (stable_hash(&prefix, r.id), r.id));
            for r in &members {
                if picked.get(&(*axis, source)).copied().unwrap_or(0) >= quota[source] {
                    break;
                }
                if eval.contains(r.id) {
                    continue;
                }
                for g in &groups[r.group] {
                    if eval.insert(g.id) {
                        *picked.entry((g.axis, g.source)).or_insert(0) += 1;
                    }
                }
            }
        }
    }
    let mut retained: Vec<&str> = retained.into_iter().map(|r| r.id).collect();
    retained.sort_unstable();
    let mut eval: Vec<&str> = eval.into_iter().collect();
    eval.sort_unstable();
    capped.sort();
    Draft { retained, eval, capped }
}

/// A split row left out, with why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS, Deserialize)]
pub struct LeftOut {
    pub id: String,
    pub axis: String,
    pub source_dataset: String,
    pub reason: String,
    /// For locality removals: whether the row had been selected for evaluation.
    pub was_eval: bool,
}

/// One axis of the Table 1 style accounting.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, TS, Deserialize)]
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
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, TS, Deserialize)]
pub struct StageCounts {
    #[ts(type = "number")]
    pub candidates: u64,
    #[ts(type = "number")]
    pub double_annotated: u64,
    #[ts(type = "number")]
    pub adjudicated: u64,
    #[ts(type = "number")]
    pub rejected: u64,
    /// Accepted when the split was drafted (the pool it was drawn from), with the accepted rows
    /// marked nonlocal before the draft: capped + locality_removed + retained.
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
    /// How the split's rows were affirmed, and the accepted rows held back.
    pub promotion: Promotion,
    /// Construction family (`none` for rows without one) -> [retained, evaluation].
    #[ts(type = "Record<string, [number, number]>")]
    pub by_family: BTreeMap<String, [u64; 2]>,
    /// The steps before candidacy, when the project has contexts (the funnel then begins at
    /// the contexts); absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub before_candidacy: Option<crate::contexts::ContextCounts>,
    /// The final audit of the selected rows: what a lock waits for (a draft: as it stands now;
    /// a locked split: as it was locked, empty for splits locked before the audit was recorded).
    pub audit: LockAudit,
}

/// The name a row without a construction family is counted under.
pub const NO_FAMILY: &str = "none";

/// How the rows of a split came to be promoted: each retained row's promotion
/// checks were affirmed one by one (in the adjudicate view or an adjudication import) or in
/// bulk (`adjudicate confirm-agreements --affirm`), by a named adjudicator; accepted rows whose
/// checks are not all affirmed are held back from the split, each with its reason.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct Promotion {
    /// Retained rows affirmed one by one.
    #[ts(type = "number")]
    pub one_by_one: u64,
    /// Retained rows affirmed in bulk.
    #[ts(type = "number")]
    pub in_bulk: u64,
    /// Adjudicator -> [one by one, in bulk].
    #[ts(type = "Record<string, [number, number]>")]
    pub by: BTreeMap<String, [u64; 2]>,
    /// Accepted rows (passing QC) held back because a promotion check is not affirmed.
    pub held_back: Vec<LeftOut>,
}

/// The promotion record of a split: how its retained rows were affirmed, and (for a draft) the
/// accepted rows held back, in id order.
fn promotion(facts: &Facts, retained: &[String], draft: bool) -> Result<Promotion> {
    let mut out = Promotion::default();
    for id in retained {
        let Some(r) = facts.get(id) else { continue };
        let at = out.by.entry(r.adjudicator.clone()).or_insert([0, 0]);
        if r.bulk {
            out.in_bulk += 1;
            at[1] += 1;
        } else {
            out.one_by_one += 1;
            at[0] += 1;
        }
    }
    if draft {
        for r in facts.rows.iter().filter(|f| f.standing == Standing::Accepted) {
            let Some(reason) = facts.held_back(r) else { continue };
            out.held_back.push(LeftOut {
                id: r.id.clone(),
                axis: r.axis()?.as_str().into(),
                source_dataset: r.source.clone(),
                reason,
                was_eval: false,
            });
        }
    }
    Ok(out)
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

/// A row's roles in a split, as stored in `split_rows`.
#[derive(Debug, Clone, Default)]
struct Roles {
    retained: bool,
    eval: bool,
    /// Why the row was capped, when it was.
    capped: Option<String>,
    /// Why the locality audit removed it, once the split is locked.
    removed: Option<String>,
}

/// The roles of every row of a split, in id order (one scan of its part of `split_rows`).
fn read_roles(conn: &Connection, split_id: i64) -> Result<Vec<(String, Roles)>> {
    let mut stmt =
        conn.prepare("SELECT candidate_id, role, reason FROM split_rows WHERE split_id = ?1 ORDER BY candidate_id")?;
    let roles = roles_of(stmt.query([split_id])?);
    roles
}

/// The roles of the split's rows with ids from `first` to `last` (inclusive), in id order.
fn read_roles_between(conn: &Connection, split_id: i64, first: &str, last: &str) -> Result<Vec<(String, Roles)>> {
    let mut stmt = conn.prepare_cached(
        "SELECT candidate_id, role, reason FROM split_rows
         WHERE split_id = ?1 AND candidate_id BETWEEN ?2 AND ?3 ORDER BY candidate_id",
    )?;
    let roles = roles_of(stmt.query(params![split_id, first, last])?);
    roles
}

fn roles_of(mut rows: rusqlite::Rows<'_>) -> Result<Vec<(String, Roles)>> {
    let mut out: Vec<(String, Roles)> = Vec::new();
    while let Some(r) = rows.next()? {
        let id = crate::db::text(r, 0)?;
        if out.last().is_none_or(|(last, _)| last != id) {
            out.push((id.to_string(), Roles::default()));
        }
        let roles = &mut out.last_mut().expect("pushed").1;
        let reason = || -> rusqlite::Result<String> { Ok(r.get::<_, Option<String>>(2)?.unwrap_or_default()) };
        match crate::db::text(r, 1)? {
            "retained" => roles.retained = true,
            "eval" => roles.eval = true,
            "capped" => roles.capped = Some(reason()?),
            "locality_removed" => roles.removed = Some(reason()?),
            other => return Err(Error::Corrupt(format!("split row `{id}` has an unknown role `{other}`"))),
        }
    }
    Ok(out)
}

/// The roles a fresh draft gives its rows, in id order (a merge of its three sorted lists).
fn draft_roles(d: &Draft) -> Vec<(String, Roles)> {
    let mut out: Vec<(String, Roles)> = Vec::with_capacity(d.retained.len() + d.capped.len());
    let (mut r, mut e, mut c) = (d.retained.iter().peekable(), d.eval.iter().peekable(), d.capped.iter().peekable());
    loop {
        let next = [r.peek().map(|x| **x), e.peek().map(|x| **x), c.peek().map(|x| x.0)].into_iter().flatten().min();
        let Some(id) = next else { break };
        let roles = Roles {
            retained: r.next_if(|x| **x == id).is_some(),
            eval: e.next_if(|x| **x == id).is_some(),
            capped: c.next_if(|x| x.0 == id).map(|x| x.1.clone()),
            removed: None,
        };
        out.push((id.to_string(), roles));
    }
    out
}

/// Drafts a split from the accepted rows (replacing an unlocked draft; after a locked split, a
/// new version).
pub fn draft(project: &mut Project, params: &SplitParams) -> Result<SplitShow> {
    if params.per_axis == 0 {
        return Err(Error::InvalidArgument("--per-axis must be at least 1".into()));
    }
    if let Some((axis, _)) = params.caps.iter().find(|(_, n)| **n == 0) {
        // As the app's form says: a cap of 0 would drop the axis from the benchmark altogether.
        return Err(Error::InvalidArgument(format!(
            "the {} cap must be at least 1 row (leave the axis out to not cap it)",
            axis.as_str()
        )));
    }
    let tx = project.conn_mut().transaction()?;
    let facts = facts::load(&tx)?;
    let pool = accepted_pool(&facts)?;
    if pool.is_empty() {
        let held = facts.rows.iter().filter(|f| f.standing == Standing::Accepted).count();
        return Err(Error::NothingToSplit(if held > 0 {
            format!(
                "no affirmed rows to draft a split from: {held} accepted row(s) are held back because their promotion checks are not affirmed or a provenance check refuses them; answer the checklist in the adjudicate view or run `adjudicate confirm-agreements --affirm`, and resolve what QC lists"
            )
        } else {
            "no accepted rows to draft a split from: adjudicate rows as accept_force_gap and let them pass QC first"
                .into()
        }));
    }
    let d = make_draft(&pool, params);
    let params_json = serde_json::to_string(params).expect("params serialise");
    let created_at = now();
    let (split_id, version) = match latest(&tx)? {
        Some((id, version, status, ..)) if status == "draft" => {
            tx.execute("DELETE FROM split_rows WHERE split_id = ?1", [id])?;
            tx.execute(
                "UPDATE splits SET params_json = ?1, created_at = ?2 WHERE id = ?3",
                params![params_json, created_at, id],
            )?;
            (id, version)
        }
        other => {
            let version = other.map_or(1, |s| s.1 + 1);
            tx.execute(
                "INSERT INTO splits (version, status, params_json, created_at) VALUES (?1, 'draft', ?2, ?3)",
                params![version, params_json, created_at],
            )?;
            (tx.last_insert_rowid(), version)
        }
    };
    // One statement per role (and capping reason) over a JSON array of ids: SQLite walks the
    // array itself, which writes a large draft several times faster than a statement per row.
    let mut capped: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (id, reason) in &d.capped {
        capped.entry(reason).or_default().push(id);
    }
    {
        let mut insert = tx.prepare(
            "INSERT INTO split_rows (split_id, candidate_id, role, reason) SELECT ?1, value, ?3, ?4 FROM json_each(?2)",
        )?;
        let ids = |ids: &[&str]| serde_json::to_string(ids).expect("ids serialise");
        insert.execute(params![split_id, ids(&d.retained), "retained", Option::<&str>::None])?;
        insert.execute(params![split_id, ids(&d.eval), "eval", Option::<&str>::None])?;
        for (reason, rows) in capped {
            insert.execute(params![split_id, ids(&rows), "capped", reason])?;
        }
    }
    let roles = draft_roles(&d);
    let head = (split_id, version, "draft".to_string(), params_json, created_at, None);
    let mut show = build_show(&facts, head, &roles)?;
    show.before_candidacy = crate::contexts::accounting(&tx)?;
    show.audit = audit::audit(&tx, &show.eval_ids, facts.counts.double_annotated, facts.counts.adjudicated)?;
    tx.commit()?;
    Ok(show)
}

/// The latest split with the locality filter applied, or `None` before any draft.
pub fn show(project: &Project) -> Result<Option<SplitShow>> {
    show_in(project.conn())
}

fn show_in(conn: &Connection) -> Result<Option<SplitShow>> {
    let Some(head) = latest(conn)? else { return Ok(None) };
    let roles = read_roles(conn, head.0)?;
    let facts = facts::load(conn)?;
    let split_id = head.0;
    let mut show = build_show(&facts, head, &roles)?;
    show.before_candidacy = crate::contexts::accounting(conn)?;
    show.audit = if show.status == "locked" {
        let manifest: Option<String> =
            conn.query_row("SELECT manifest_json FROM splits WHERE id = ?1", [split_id], |r| r.get(0))?;
        manifest
            .and_then(|m| serde_json::from_str::<serde_json::Value>(&m).ok())
            .and_then(|m| serde_json::from_value(m["audit_at_lock"].clone()).ok())
            .unwrap_or_default()
    } else {
        audit::audit(conn, &show.eval_ids, facts.counts.double_annotated, facts.counts.adjudicated)?
    };
    Ok(Some(show))
}

/// Builds the report of a split from its rows' roles and the project's current facts.
fn build_show(facts: &Facts, head: SplitHead, roles: &[(String, Roles)]) -> Result<SplitShow> {
    let (_, version, status, params_json, created_at, locked_at) = head;
    let params: SplitParams =
        serde_json::from_str(&params_json).map_err(|e| Error::Corrupt(format!("split parameters: {e}")))?;
    let axis_names: Vec<&str> = Axis::ALL.iter().map(|a| a.as_str()).collect();
    let locked = status == "locked";
    let mut show = SplitShow {
        version,
        status,
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
        promotion: Promotion::default(),
        by_family: BTreeMap::new(),
        before_candidacy: None,
        audit: LockAudit::default(),
    };
    for (id, role) in roles {
        let r = facts
            .get(id)
            .ok_or_else(|| Error::Corrupt(format!("split v{version} holds `{id}`, which is not a candidate")))?;
        let axis = r.axis()?.as_str();
        let table = &mut show.per_axis[Axis::ALL.iter().position(|a| a.as_str() == axis).expect("every axis")];
        let sev = (r.severity as usize).clamp(1, 3) - 1;
        // Locked splits hold their removals; drafts read the current marks.
        let removed = if locked { role.removed.clone() } else { facts.marks.get(id).cloned() };
        // An unaffirmed row would be held back from a fresh draft.
        let unaffirmed = r.standing == Standing::Accepted && facts.held_back(r).is_some() && role.capped.is_none();
        if !locked && (r.standing == Standing::Other || unaffirmed) {
            show.stale.push(id.clone());
        }
        if let Some(reason) = &role.capped {
            table.accepted += 1;
            table.capped += 1;
            show.capped.push(LeftOut {
                id: id.clone(),
                axis: axis.into(),
                source_dataset: r.source.clone(),
                reason: reason.clone(),
                was_eval: false,
            });
            continue;
        }
        if role.retained {
            table.accepted += 1;
        }
        if role.eval {
            show.counts.selected += 1;
        }
        if let Some(reason) = removed {
            table.locality_removed += 1;
            show.locality_removed.push(LeftOut {
                id: id.clone(),
                axis: axis.into(),
                source_dataset: r.source.clone(),
                reason,
                was_eval: role.eval,
            });
            continue;
        }
        if role.retained {
            table.retained += 1;
            table.retained_severity[sev] += 1;
            *show.retained.get_mut(axis).expect("axis") += 1;
            show.retained_ids.push(id.clone());
            show.by_source.entry(r.source.clone()).or_insert([0, 0])[0] += 1;
            show.by_family.entry(r.family.clone().unwrap_or_else(|| NO_FAMILY.into())).or_insert([0, 0])[0] += 1;
        }
        if role.eval {
            table.eval += 1;
            table.eval_severity[sev] += 1;
            *show.eval.get_mut(axis).expect("axis") += 1;
            show.eval_ids.push(id.clone());
            show.by_source.entry(r.source.clone()).or_insert([0, 0])[1] += 1;
            show.by_family.entry(r.family.clone().unwrap_or_else(|| NO_FAMILY.into())).or_insert([0, 0])[1] += 1;
            *show.eval_by_axis_source.get_mut(axis).expect("axis").entry(r.source.clone()).or_insert(0) += 1;
        }
    }
    let c = facts.counts;
    show.counts.candidates = c.candidates;
    show.counts.double_annotated = c.double_annotated;
    show.counts.adjudicated = c.adjudicated;
    show.counts.rejected = c.rejected;
    show.counts.accepted = show.per_axis.iter().map(|t| t.accepted).sum();
    show.counts.capped = show.capped.len() as u64;
    show.counts.locality_removed = show.locality_removed.len() as u64;
    show.counts.retained = show.retained_ids.len() as u64;
    show.counts.eval = show.eval_ids.len() as u64;
    show.promotion = promotion(facts, &show.retained_ids, !locked)?;
    Ok(show)
}

/// Locks the latest draft: its locality removals are written into it, its manifest stored.
/// Refused while a selected row's locality warning is unreviewed or its QC error unresolved
/// (see [`lock_with`]).
pub fn lock(project: &mut Project) -> Result<SplitShow> {
    lock_with(project, false)
}

/// [`lock`], or with `allow_unreviewed`, a lock that goes ahead with selected rows whose final
/// audit is not finished: the manifest (and so the datasheet) records which they were.
pub fn lock_with(project: &mut Project, allow_unreviewed: bool) -> Result<SplitShow> {
    let tx = project.conn_mut().transaction()?;
    let Some(head) = latest(&tx)? else {
        return Err(Error::NoSplit("there is no split to lock; draft one first (`forcebench split draft`)".into()));
    };
    let (split_id, version) = (head.0, head.1);
    if head.2 == "locked" {
        return Err(Error::SplitAlreadyLocked(format!(
            "split v{version} is already locked; draft a new version to change anything"
        )));
    }
    let facts = facts::load(&tx)?;
    let mut roles = read_roles(&tx, split_id)?;
    let current = build_show(&facts, head.clone(), &roles)?;
    if !current.stale.is_empty() {
        return Err(Error::SplitOutOfDate(format!(
            "split v{version} is out of date: {} row(s) are no longer accepted since the draft ({}); draft again before locking",
            current.stale.len(),
            current.stale.iter().take(5).cloned().collect::<Vec<_>>().join(", ")
        )));
    }
    // The removals become part of the split (its retained and eval roles stay, as drafted).
    {
        let mut insert = tx.prepare(
            "INSERT INTO split_rows (split_id, candidate_id, role, reason) VALUES (?1, ?2, 'locality_removed', ?3)",
        )?;
        for removed in &current.locality_removed {
            insert.execute(params![split_id, removed.id, removed.reason])?;
        }
    }
    for removed in &current.locality_removed {
        let at = roles.binary_search_by(|(id, _)| id.as_str().cmp(&removed.id)).expect("a removed row is a split row");
        roles[at].1.removed = Some(removed.reason.clone());
    }
    let at = now();
    let (_, _, _, params_json, created_at, _) = head;
    let mut locked =
        build_show(&facts, (split_id, version, "locked".into(), params_json, created_at, Some(at.clone())), &roles)?;
    // The manifest records the rows the draft held back at lock time.
    locked.promotion.held_back = current.promotion.held_back.clone();
    locked.before_candidacy = crate::contexts::accounting(&tx)?;
    // The leakage audit; a split whose evaluation set shares a group, a passage or a
    // raised claim with the rest is refused.
    let audit = leakage::audit_split(&tx, &locked.eval_ids, &locked.retained_ids)?;
    if !audit.is_clean() {
        return Err(Error::SplitLeaks(format!(
            "split v{version} leaks: {}; resolve the rows (QC lists them) and draft again",
            audit.describe()
        )));
    }
    let mut review = audit::audit(&tx, &locked.eval_ids, facts.counts.double_annotated, facts.counts.adjudicated)?;
    if !review.is_clean() {
        if !allow_unreviewed {
            return Err(Error::AuditUnfinished(format!(
                "split v{version} cannot be locked yet: {}. Review each warned row (`forcebench locality mark ID \
                 --reason ...` or `forcebench locality keep ID`, or the locality audit view), resolve the QC errors, \
                 or lock anyway with --allow-unreviewed (the manifest and datasheet then list what was skipped). \
                 Besides, {}. Nothing was locked",
                review.describe(),
                review.never_adjudicated_words()
            )));
        }
        review.allowed_unreviewed = true;
    }
    locked.audit = review;
    let mut manifest = manifest_for(&tx, &locked, project_info_in(&tx)?)?;
    // Only a project with contexts has the key: a manifest without them reads as it always did.
    if let Some(c) = &locked.before_candidacy {
        manifest["before_candidacy"] = serde_json::to_value(c).expect("counts");
        // How much of what was annotated people kept of the drafts, as the lock found it.
        let uptake = crate::contexts::uptake::uptake_in(&tx)?;
        manifest["suggestion_uptake"] = serde_json::to_value(&uptake).expect("uptake");
    }
    manifest["audit_at_lock"] = serde_json::to_value(&locked.audit).expect("audit");
    manifest["leakage_audit"] = serde_json::to_value(&audit).expect("audit");
    manifest["extra_row_fields"] = serde_json::json!(export::EXTRA_ROW_FIELDS);
    // One update: once its status says locked, the split cannot change (a trigger refuses).
    tx.execute(
        "UPDATE splits SET status = 'locked', locked_at = ?1, manifest_json = ?2 WHERE id = ?3",
        params![at, serde_json::to_string(&manifest).expect("manifest"), split_id],
    )?;
    crate::rowstate::freeze(&tx, split_id)?;
    let sealed = export::export_hashes(&tx, version)?;
    seal::record(&tx, split_id, &sealed.files, &sealed.content_sha256)?;
    tx.commit()?;
    Ok(locked)
}

fn project_info_in(conn: &Connection) -> Result<(String, String)> {
    Ok(conn.query_row("SELECT id, name FROM project WHERE singleton = 1", [], |r| Ok((r.get(0)?, r.get(1)?)))?)
}

/// Format name and version of the manifest.
pub const MANIFEST_FORMAT: &str = "forcebench-split-manifest";
pub const MANIFEST_VERSION: u32 = 1;
pub(crate) const ZERO_HASH: &str = "0000000000000000000000000000000000000000000000000000000000000000";

fn manifest_for(
    conn: &Connection,
    s: &SplitShow,
    (project_id, project_name): (String, String),
) -> Result<serde_json::Value> {
    let agreement = {
        let report = crate::agreement::decision_agreement_in(conn)?;
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
        "tool": { "name": "forcebench", "version": crate::software::VERSION, "commit": crate::software::COMMIT },
        "project": { "id": project_id, "name": project_name },
        "split": { "version": s.version, "status": s.status, "created_at": s.created_at, "locked_at": s.locked_at },
        "params": s.params,
        "counts": s.counts,
        "per_axis": s.per_axis,
        "by_source": s.by_source.iter().map(|(k, v)| (k.clone(), serde_json::json!({"retained": v[0], "eval": v[1]}))).collect::<serde_json::Map<_, _>>(),
        "agreement_at_lock": agreement,
        "capped": s.capped,
        "locality_removed": s.locality_removed,
        "promotion": s.promotion,
        "by_family": s.by_family.iter().map(|(k, v)| (k.clone(), serde_json::json!({"retained": v[0], "eval": v[1]}))).collect::<serde_json::Map<_, _>>(),
    }))
}
