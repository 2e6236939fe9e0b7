//! The journals as the configuration sees them now: only records whose
//! provenance matches what it would run ([`super::provenance::Current`])
//! count; the others stay in the journals, superseded, and never reach a
//! verdict, a score or the evidence. Here the stages read the runs, the
//! checker answers and the core records that count, and learn what is
//! stale and why (for "z3: command changed: 12 runs redone" and for the
//! reports' warnings).

use super::loaded::{Loaded, PairId, UnscoredRuns};
use super::provenance::is_core_source;
use super::records::{CheckRecord, RunRecord, Timing, CHECKS, CORES, RUNS};
use anyhow::Result;
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::Arc;

/// What one reading of `runs.jsonl` gives the stages after it.
pub struct Runs {
    /// The runs that count now.
    pub current: Vec<RunRecord>,
    /// What the others are (runs of solvers no longer configured, of
    /// another configuration), for the reports' warnings ([`warnings`]).
    pub unscored: UnscoredRuns,
    /// The timing of every record, current or not, in journal order (the
    /// report's occupancy), when scoring follows (`None` otherwise).
    pub timings: Option<Vec<Timing>>,
}

/// The runs of `runs.jsonl`, from `read` (the records as the solve stage
/// read them, when it appended nothing) or read now.
pub fn read_runs(l: &Loaded, read: Option<Vec<RunRecord>>) -> Result<Runs> {
    let mut all: Vec<RunRecord> = match read {
        Some(all) => all,
        None => l.campaign.read_journal(RUNS)?,
    };
    let timings = l
        .ctx
        .stages
        .score
        .then(|| all.iter().filter_map(|r| r.timing).collect());
    // In place: the records that count keep the buffer they were read in.
    let stale: Vec<RunRecord> = all
        .extract_if(.., |r| l.current.run_stale(r).is_some())
        .collect();
    let unscored = unscored_runs(l, &all, &stale);
    note_executed(l, &all);
    Ok(Runs {
        current: all,
        unscored,
        timings,
    })
}

/// The runs of `runs.jsonl` that count now, read now.
pub fn runs(l: &Loaded) -> Result<Vec<RunRecord>> {
    read_runs(l, None).map(|r| r.current)
}

/// Each solver learns the checkers' programs its current runs were seen
/// executing ([`crate::campaign::setup::team::Executed`]): from here on,
/// those checkers are of its team for every stage that reads the runs.
fn note_executed(l: &Loaded, runs: &[RunRecord]) {
    let mut programs: HashMap<&str, HashSet<&str>> = HashMap::default();
    for r in runs.iter().filter(|r| !r.programs.is_empty()) {
        let of = programs.entry(r.solver.as_str()).or_default();
        of.extend(r.programs.iter().map(String::as_str));
    }
    for (solver, seen) in programs {
        if let Some(s) = l.solver(solver) {
            s.executed.note(seen, l.defs);
        }
    }
}

/// [`UnscoredRuns`] of the records that count (`current`) and the others.
fn unscored_runs(l: &Loaded, current: &[RunRecord], stale: &[RunRecord]) -> UnscoredRuns {
    let mut gone: BTreeMap<String, usize> = BTreeMap::new();
    for r in stale.iter().filter(|r| l.solver(&r.solver).is_none()) {
        *gone.entry(r.solver.clone()).or_default() += 1;
    }
    // The stale records' pairs, less those with a record that counts.
    let why: Vec<_> = stale.iter().map(|r| l.current.run_stale(r)).collect();
    let mut pairs = stale_pairs(stale, &why);
    if !pairs.is_empty() {
        for r in current {
            pairs.remove(&(r.solver.as_str(), r.benchmark.as_str()));
        }
    }
    let mut out = Stale::new();
    for (pair, why) in pairs {
        *out.entry((pair.0.to_string(), why.to_string()))
            .or_default() += 1;
    }
    UnscoredRuns { gone, stale: out }
}

/// [`runs`] one at a time, without keeping them: `f` gets each run of
/// `runs.jsonl` that counts now and whose (solver, benchmark) is `wanted`.
/// Only those lines are read whole: the others are read for their pair
/// alone (a report shows a few thousand pairs of a million).
pub fn for_each_run_of(
    l: &Loaded,
    wanted: &(dyn Fn(&str, &str) -> bool + Sync),
    mut f: impl FnMut(RunRecord),
) -> Result<()> {
    let parse = |text: &[u8]| -> serde_json::Result<Option<RunRecord>> {
        let pair: PairLine = serde_json::from_slice(text)?;
        match wanted(&pair.solver, &pair.benchmark) {
            true => serde_json::from_slice(text).map(Some),
            false => Ok(None),
        }
    };
    l.campaign.for_each_record_parsed(
        RUNS,
        |_| {},
        &parse,
        |r: Option<RunRecord>| {
            if let Some(r) = r.filter(|r| l.current.run_stale(r).is_none()) {
                f(r)
            }
        },
    )
}

/// The pair of a journal line, borrowed from it when its texts hold no
/// escape.
#[derive(serde::Deserialize)]
struct PairLine<'a> {
    #[serde(borrow)]
    solver: Cow<'a, str>,
    #[serde(borrow)]
    benchmark: Cow<'a, str>,
}

/// The checker answers of journal `name` (`checks.jsonl`, or a journal of
/// the same records) that count now.
pub fn checks_of(l: &Loaded, name: &str) -> Result<Vec<CheckRecord>> {
    let all: Vec<CheckRecord> = l.campaign.read_journal(name)?;
    Ok(all
        .into_iter()
        .filter(|r| l.current.check_stale(r).is_none())
        .collect())
}

/// The checker answers of `checks.jsonl` that count now.
pub fn checks(l: &Loaded) -> Result<Vec<CheckRecord>> {
    checks_of(l, CHECKS)
}

/// The core-only benchmark's hash of each pair, by [`PairId`].
pub type CoreHashes = HashMap<PairId, Arc<str>>;

/// The core-only benchmark of every pair of `runs`, from `cores.jsonl`:
/// only a record built from that very run (same benchmark bytes, same
/// core) is taken. Pairs share few distinct cores, so each hash is held
/// once and shared.
pub fn core_hashes(l: &Loaded, runs: &[RunRecord]) -> Result<CoreHashes> {
    use rayon::prelude::*;
    // The last run of a pair is the one its core comes from; pairs are
    // dense (solver's place × benchmark's place): a slot each, no hashing.
    let width = l.index.len();
    let slot = |id: PairId| id.solver() * width + id.bench();
    let ids: Vec<Option<PairId>> = runs
        .par_iter()
        .map(|r| {
            r.core
                .as_ref()
                .and_then(|_| l.pair_id(&r.solver, &r.benchmark))
        })
        .collect();
    let mut run_of: Vec<Option<&RunRecord>> = vec![None; l.solvers.len() * width];
    let mut with_run = 0;
    for (r, id) in runs.iter().zip(ids) {
        if let Some(id) = id {
            with_run += run_of[slot(id)].replace(r).is_none() as usize;
        }
    }
    let mut out = HashMap::with_capacity_and_hasher(with_run, Default::default());
    let mut distinct: HashSet<Arc<str>> = HashSet::default();
    // Streamed: `cores.jsonl` has a record per pair. Each record is read
    // (its texts borrowed from the line) and matched to its run on the
    // threads that parse it.
    let matched = |rec: CoreLine| -> Option<(PairId, String)> {
        let source = rec.source.as_deref()?;
        // Written in lower case: another spelling is not this run's.
        if !super::records::is_hash(&rec.hash) || !super::records::is_hash(source) {
            return None;
        }
        let id = l.pair_id(&rec.solver, &rec.benchmark)?;
        let r = run_of[slot(id)]?;
        let core = r.core.as_deref().unwrap_or_default();
        let built_from_it = is_core_source(source, l.current.bench_hash(&r.benchmark), core);
        built_from_it.then(|| (id, rec.hash.into_owned()))
    };
    l.campaign.for_each_record_parsed(
        CORES,
        |_| {},
        &|text| serde_json::from_slice::<CoreLine>(text).map(matched),
        |m: Option<(PairId, String)>| {
            if let Some((id, hash)) = m {
                out.insert(id, crate::store::compact::shared(&mut distinct, &hash));
            }
        },
    )?;
    Ok(out)
}

/// The fields of a [`CoreRecord`](super::records::CoreRecord) that
/// [`core_hashes`] reads, borrowed from the line when they hold no escape
/// (a million records: no allocation for each text). `kept` is read only so that a line without
/// it is a bad line here too.
#[derive(serde::Deserialize)]
struct CoreLine<'a> {
    #[serde(borrow)]
    solver: Cow<'a, str>,
    #[serde(borrow)]
    benchmark: Cow<'a, str>,
    #[serde(borrow)]
    hash: Cow<'a, str>,
    #[serde(rename = "kept")]
    _kept: u64,
    #[serde(borrow, default)]
    source: Option<Cow<'a, str>>,
}

/// Stale records of solvers (or checkers) still configured, whose work
/// has no record that counts: (name, reason) → count.
pub type Stale = BTreeMap<(String, String), usize>;

/// Per key (of `key`), the reason of the stale records of that key when
/// none counts: of the records closest to now (see [`closeness`]).
/// Reasons in `ignored` (no longer configured) are left out.
fn newest_stale<'r, R>(
    all: &'r [R],
    key: impl Fn(&'r R) -> (&'r str, &'r str),
    stale: impl Fn(usize, &R) -> Option<&'static str>,
    ignored: &str,
) -> HashMap<(&'r str, &'r str), &'static str> {
    let mut newest: HashMap<(&str, &str), &'static str> = HashMap::default();
    for (i, r) in all.iter().enumerate() {
        match stale(i, r) {
            None => {}
            Some(why) if why == ignored || why == "benchmark not named" => {}
            Some(why) => {
                let e = newest.entry(key(r)).or_insert(why);
                if closeness(why) >= closeness(e) {
                    *e = why;
                }
            }
        }
    }
    // Looked for only when some are stale (not a set of a million keys).
    if !newest.is_empty() {
        for (_, r) in all
            .iter()
            .enumerate()
            .filter(|(i, r)| stale(*i, r).is_none())
        {
            newest.remove(&key(r));
        }
    }
    newest
}

/// How much of the configuration a stale record matched (its reason's
/// place in the order the comparison goes).
fn closeness(why: &str) -> usize {
    [
        "limits changed",
        "command changed",
        "program changed",
        "version changed",
        "benchmark changed",
    ]
    .iter()
    .position(|w| *w == why)
    .map_or(0, |i| i + 1)
}

/// The pairs of configured solvers whose runs are all stale, with the
/// most specific reason; `why[i]`: why `all[i]` is stale
/// ([`super::provenance::Current::run_stale`]).
pub fn stale_pairs<'r>(
    all: &'r [RunRecord],
    why: &[Option<&'static str>],
) -> HashMap<(&'r str, &'r str), &'static str> {
    newest_stale(
        all,
        |r| (r.solver.as_str(), r.benchmark.as_str()),
        |i, _| why[i],
        "solver not configured",
    )
}

/// The (core, checker) answers of configured checkers that are all stale,
/// with the most specific reason.
pub fn stale_check_keys<'r>(
    l: &Loaded,
    all: &'r [CheckRecord],
) -> HashMap<(&'r str, &'r str), &'static str> {
    newest_stale(
        all,
        |r| (r.hash.as_str(), r.checker.as_str()),
        |_, r| l.current.check_stale(r),
        "checker not configured",
    )
}

/// What the journals hold that the scores leave out, as warnings: records
/// of solvers and checkers no longer configured, and records of another
/// configuration that `coreval run` would redo: runs of pairs without a
/// current one, and answers on the core of a pair still pending (`pairs`:
/// the judged pairs; an answer the decision no longer needs is not
/// redone, so it is not said either; `runs`: what reading the runs found
/// not scored, [`Runs::unscored`]).
pub fn warnings(
    l: &Loaded,
    pairs: &[crate::campaign::verdict::pair::PairVerdict],
    runs: UnscoredRuns,
) -> Result<Unscored> {
    let c = l.campaign;
    let mut out = Vec::new();
    let mut redo = 0;
    for (s, n) in &runs.gone {
        out.push(format!(
            "{RUNS} holds {n} run(s) of solver '{s}', which the configuration no longer has: left out of the scores"
        ));
    }
    for ((s, why), n) in runs.stale {
        redo += n;
        out.push(format!(
            "{s}: {why}: {n} run(s) in {RUNS} are of another configuration and not scored; \
             `coreval run {}` redoes them",
            c.dir.display()
        ));
    }
    let checks: Vec<CheckRecord> = c.read_journal(CHECKS)?;
    let mut gone: BTreeMap<&str, usize> = BTreeMap::new();
    for r in &checks {
        if !l.current.checkers.contains_key(&r.checker) {
            *gone.entry(r.checker.as_str()).or_default() += 1;
        }
    }
    for (k, n) in gone {
        out.push(format!(
            "{CHECKS} holds {n} answer(s) of checker '{k}', which has no definition any more: not counted"
        ));
    }
    let pending: HashSet<&str> = pairs
        .iter()
        .filter(|p| p.pending)
        .filter_map(|p| p.core_hash.as_deref())
        .collect();
    let mut stale = Stale::new();
    for ((hash, k), why) in stale_check_keys(l, &checks) {
        if pending.contains(hash) {
            *stale.entry((k.to_string(), why.to_string())).or_default() += 1;
        }
    }
    for ((k, why), n) in stale {
        redo += n;
        out.push(format!(
            "checker {k}: {why}: {n} answer(s) in {CHECKS} are of another configuration and not counted; \
             `coreval run {}` redoes them",
            c.dir.display()
        ));
    }
    // Benchmarks edited since they were named: a run names them again and
    // redoes their pairs; the journals cannot show it (the index is the
    // naming stage's, which ran in this process or not at all).
    let changed = match l.ctx.stages.name {
        true => Vec::new(),
        false => super::index::changed_sources(c)?,
    };
    if let Some(first) = changed.first() {
        out.push(format!(
            "{} benchmark(s) changed since they were named ({first}{}): their verdicts are of the \
             old content; `coreval run {}` names them again and redoes their pairs",
            changed.len(),
            if changed.len() > 1 { ", …" } else { "" },
            c.dir.display()
        ));
    }
    Ok(Unscored {
        warnings: out,
        to_redo: redo,
        changed_benchmarks: changed.len(),
    })
}

/// What [`warnings`] found: the warnings, how many of the records they
/// name are of another configuration, which `coreval run` would redo, and
/// how many named benchmarks changed since they were named.
#[derive(Clone, Debug, Default)]
pub struct Unscored {
    pub warnings: Vec<String>,
    pub to_redo: usize,
    pub changed_benchmarks: usize,
}

/// [`warnings`] said to the loaded campaign's messages, each once, then
/// [`Unscored::refuse`]: what `coreval show` and `coreval diff` do before
/// they read a campaign's verdicts (`score CAMPAIGN` says the warnings
/// with its report's and refuses the same way).
pub fn refuse_stale(
    l: &Loaded,
    pairs: &[crate::campaign::verdict::pair::PairVerdict],
) -> Result<()> {
    let unscored = warnings(l, pairs, read_runs(l, None)?.unscored)?;
    for w in &unscored.warnings {
        l.say.warning(w.as_str());
    }
    unscored.refuse(&l.campaign.dir, false)
}

impl Unscored {
    /// The one staleness test of the commands that read a campaign's
    /// verdicts without redoing anything (`score CAMPAIGN`, `show`,
    /// `diff`): whatever `coreval run` would redo (records of another
    /// configuration, benchmarks changed since they were named) is an
    /// error. Each cause is one of [`Unscored::warnings`], said before; the
    /// error names none again. `partial`: `--partial` (the records of
    /// another configuration are left out, and that is asked for).
    pub fn refuse(&self, dir: &std::path::Path, partial: bool) -> Result<()> {
        let redo = self.to_redo > 0 && !partial;
        if !redo && self.changed_benchmarks == 0 {
            return Ok(());
        }
        let mut what = Vec::new();
        if redo {
            what.push(format!(
                "{} record(s) are of another configuration",
                self.to_redo
            ));
        }
        if self.changed_benchmarks > 0 {
            what.push(format!(
                "{} benchmark(s) changed since they were named",
                self.changed_benchmarks
            ));
        }
        let partial = match redo && self.changed_benchmarks == 0 {
            true => format!(
                ", `coreval score {} --partial` scores without them",
                dir.display()
            ),
            false => String::new(),
        };
        anyhow::bail!(
            "{}: {} (above); the reports are left as they were: `coreval run {0}` redoes them{partial}",
            dir.display(),
            what.join(" and ")
        )
    }
}

/// What a stage redoes, counted as it journals it: a record whose key (a
/// pair, or a core and a checker) had only stale records counts once,
/// under its solver's or checker's name and the reason, so that "z3:
/// command changed: 12 run(s) redone" says what this run ran.
pub struct Redone<'r> {
    stale: HashMap<(&'r str, &'r str), &'static str>,
    counts: std::sync::Mutex<Stale>,
}

impl<'r> Redone<'r> {
    /// Stale keys and their reasons ([`stale_pairs`], [`stale_check_keys`]).
    pub fn new(stale: HashMap<(&'r str, &'r str), &'static str>) -> Self {
        Redone {
            stale,
            counts: Default::default(),
        }
    }

    /// A record of `key`, `name`'s, was journaled.
    pub fn journaled(&self, key: (&str, &str), name: &str) {
        if let Some(why) = self.stale.get(&key) {
            let mut counts = self.counts.lock().unwrap_or_else(|p| p.into_inner());
            *counts
                .entry((name.to_string(), why.to_string()))
                .or_default() += 1;
        }
    }

    /// Say what was redone and why (`what`: a prefix of the name, such as
    /// `checker `; `records`: `run(s)`); the number redone.
    pub fn say(self, what: &str, records: &str, say: crate::message::Say) -> usize {
        let counts = self.counts.into_inner().unwrap_or_else(|p| p.into_inner());
        for ((name, why), n) in &counts {
            say.note(format!("{what}{name}: {why}: {n} {records} redone"));
        }
        counts.values().sum()
    }
}

#[cfg(test)]
mod tests {
    use super::CoreLine;

    #[test]
    fn a_core_line_is_read_borrowed_and_escaped_texts_still_read_right() {
        let plain = br#"{"solver":"z3","benchmark":"a/b.smt2","hash":"h","kept":2,"source":"s"}"#;
        let rec: CoreLine = serde_json::from_slice(plain).unwrap();
        assert!(matches!(
            rec.benchmark,
            std::borrow::Cow::Borrowed("a/b.smt2")
        ));
        assert_eq!(rec.source.as_deref(), Some("s"));
        let escaped = br#"{"solver":"z\u0033","benchmark":"a\"b.smt2","hash":"h","kept":2}"#;
        let rec: CoreLine = serde_json::from_slice(escaped).unwrap();
        assert_eq!((&*rec.solver, &*rec.benchmark), ("z3", "a\"b.smt2"));
        assert_eq!(rec.source, None);
        // Without `kept` the line is as bad as for the whole record.
        let short = br#"{"solver":"z3","benchmark":"b","hash":"h"}"#;
        assert!(serde_json::from_slice::<CoreLine>(short).is_err());
        let whole = serde_json::from_slice::<super::super::records::CoreRecord>(short);
        assert!(whole.is_err());
    }
}
