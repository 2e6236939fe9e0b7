//! The check stage: rebuild a core-only benchmark for every well-formed
//! reported core, and run the checkers on it.
//!
//! - **Rebuild** once per (solver, benchmark) into `cores/<hash>.smt2`
//!   (content-addressed, see [`crate::rebuild`]), journaled in `cores.jsonl`.
//! - **Selection**: per pair, the checkers whose definitions support the
//!   benchmark's logic, minus the solver's own team when `independent` is on.
//!   Jobs are per (core hash, checker): identical cores are checked once.
//! - **Dialects**: a checker with `accepts_named = false` or
//!   `unsupported_commands` gets a variant `cores/<hash>.<dialect>.smt2`
//!   ([`crate::rebuild::adapt`]); when the core needs a command it rejects,
//!   an explicit `not-applicable` answer is journaled and the checker does
//!   not count for that core.
//! - **Cache**: answers are journaled in the campaign's `checks.jsonl` and in
//!   a cross-campaign cache ([`cache`]) keyed by (core hash, checker, checker
//!   version, time limit), so a second run or another campaign with the same
//!   cores runs no checker at all.
//! - **Early stop**: once every pair using a core has a decision that the
//!   remaining checkers cannot change ([`crate::policy::decided_early`]), its
//!   pending jobs are skipped and running ones killed ([`schedule`]). Each
//!   core's checkers are queued most useful first: those that count for
//!   the most undecided pairs, then the cheapest (mean CPU of earlier runs).
//! - **Trust**: a `sat`/`unsat` printed after an error, or next to a second
//!   answer, is not counted (z3 keeps going after an error and answers for
//!   the script it did manage to read). A checker that fails to start leaves
//!   no record: the pair stays pending and the failure is reported.

pub mod cache;
pub mod schedule;

use crate::answer::{self, Answer, OutputFlag, ParsedOutput};
use crate::campaign::Campaign;
use crate::checkers::{self, Probe, SolverDef};
use crate::journal::{self, Journal};
use crate::policy::{decided_early, CheckAnswer, Policy, Tally};
use crate::rebuild::Dialect;
use crate::runner::{self, Exit};
use crate::solve::{self, RunRecord, SolverUnderTest};
use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// `cores.jsonl`: which core-only benchmark a pair's core became.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CoreRecord {
    pub solver: String,
    pub benchmark: String,
    /// BLAKE3 hash of the core-only benchmark's bytes (its file name).
    pub hash: String,
    /// Named assertions kept.
    pub kept: u64,
}

/// `checks.jsonl` and the cache: one checker's answer on one core.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CheckRecord {
    pub hash: String,
    pub checker: String,
    pub version: Option<String>,
    /// Time limit in seconds.
    pub time_limit: f64,
    pub answer: CheckAnswer,
    /// The raw answer (`sat`, `unsat`, `unknown`, `timeout`, `error`, `no-answer`).
    pub raw: Answer,
    pub exit: String,
    pub wall: f64,
    pub cpu: f64,
    /// Taken from the cross-campaign cache, not run here.
    #[serde(default)]
    pub cached: bool,
    /// Why the answer is not the raw one (an answer after an error), or why
    /// the checker was not applicable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// Checker answer as the policies see it.
pub fn classify(a: Answer) -> CheckAnswer {
    match a {
        Answer::Sat => CheckAnswer::Sat,
        Answer::Unsat => CheckAnswer::Unsat,
        _ => CheckAnswer::Other,
    }
}

/// A checker's output as the policies see it, with the reason when a
/// `sat`/`unsat` is not counted.
pub fn classify_output(p: &ParsedOutput) -> (CheckAnswer, Option<String>) {
    let a = classify(p.answer);
    if a == CheckAnswer::Other {
        return (a, None);
    }
    if p.has(OutputFlag::ErrorBeforeAnswer) {
        let first = p.errors.first().map(String::as_str).unwrap_or("");
        return (
            CheckAnswer::Other,
            Some(format!(
                "answer printed after an error, not counted: {first}"
            )),
        );
    }
    if p.has(OutputFlag::TwoAnswers) {
        return (
            CheckAnswer::Other,
            Some("two answers printed, not counted".into()),
        );
    }
    (a, None)
}

/// The checkers a pair's core goes to.
pub fn select<'a>(
    checkers: &'a [SolverDef],
    logic: &str,
    solver: &SolverUnderTest,
    independent: bool,
) -> Vec<&'a SolverDef> {
    checkers
        .iter()
        .filter(|k| k.supports(logic) && !(independent && k.team == solver.team))
        .collect()
}

/// Whether the producing solver is this checker (the 2017 self-check clause).
pub fn is_producer(solver: &SolverUnderTest, checker: &SolverDef) -> bool {
    solver.definition.as_deref() == Some(checker.name.as_str())
}

/// Tally of the answers available for one pair, and how many of its
/// checkers have not answered (and whether the producer is among them).
/// A `not-applicable` checker is neither counted nor waited for.
pub fn tally(
    answers: &HashMap<&str, CheckAnswer>,
    selected: &[&SolverDef],
    solver: &SolverUnderTest,
) -> (Tally, u32, bool) {
    let mut t = Tally::default();
    let mut remaining = 0;
    let mut producer_pending = false;
    for k in selected {
        match answers.get(k.name.as_str()) {
            Some(a) => t.add(*a, is_producer(solver, k)),
            None => {
                remaining += 1;
                producer_pending |= is_producer(solver, k);
            }
        }
    }
    (t, remaining, producer_pending)
}

/// What a check pass did.
#[derive(Debug, Default, Clone, Serialize)]
pub struct CheckSummary {
    /// Pairs with a well-formed core to check.
    pub cores: usize,
    /// Distinct core-only benchmarks among them.
    pub distinct: usize,
    /// Checker jobs run now.
    pub ran: usize,
    /// Answers taken from the cross-campaign cache.
    pub cache_hits: usize,
    /// Jobs skipped / killed by early stop.
    pub skipped: usize,
    pub killed: usize,
    /// CPU seconds spent by checkers in this pass.
    pub cpu: f64,
    /// Sum of the checkers' wall-clock seconds in this pass.
    pub checker_wall: f64,
    /// Wall-clock seconds of the checker runs phase, and the workers used.
    pub wall: f64,
    pub jobs: usize,
    /// (core, checker) pairs where the core needs a command the checker rejects.
    pub not_applicable: usize,
    /// Checker runs that could not start (no record kept: the pairs stay pending).
    pub failed_to_start: usize,
    pub interrupted: bool,
}

impl CheckSummary {
    /// Share of the workers' time spent inside checkers while checking.
    pub fn utilisation(&self) -> f64 {
        if self.wall <= 0.0 || self.jobs == 0 {
            return 0.0;
        }
        self.checker_wall / (self.jobs as f64 * self.wall)
    }
}

/// One (core hash, checker) job's input: the core, or the checker's variant.
struct Plan<'a> {
    c: &'a Campaign,
    checkers: Vec<SolverDef>,
    dialects: Vec<Option<Dialect>>,
    pairs: Vec<(&'a SolverUnderTest, &'a crate::solve::Bench, String)>,
    /// Hash → indices into `pairs`.
    hashes: BTreeMap<String, Vec<usize>>,
}

impl Plan<'_> {
    /// Pairs of `h` that select checker `k` and are not settled yet.
    fn waiting(&self, h: &str, k: &str, answers: &HashMap<(String, String), CheckAnswer>) -> usize {
        let cfg = &self.c.config.check;
        self.hashes[h]
            .iter()
            .filter(|&&p| {
                let (s, e, _) = &self.pairs[p];
                let sel = select(&self.checkers, &e.logic, s, cfg.independent);
                sel.iter().any(|x| x.name == k)
                    && !pair_settled(cfg.policy, h, &sel, s, answers, cfg.early_stop)
            })
            .count()
    }

    fn needed(&self, h: &str, k: &str, answers: &HashMap<(String, String), CheckAnswer>) -> bool {
        !answers.contains_key(&(h.to_string(), k.to_string())) && self.waiting(h, k, answers) > 0
    }
}

/// Run the check stage of a campaign.
pub fn check(
    c: &Campaign,
    filter: &dyn Fn(&str) -> bool,
    cancel: &AtomicBool,
) -> Result<CheckSummary> {
    let defs = checkers::load_dir(&solve::checkers_dir(c))?;
    let solvers = solve::solvers_under_test(c, &defs)?;
    let checkers = configured_checkers(c, &defs)?;
    if c.config.check.checkers.is_empty() {
        let missing: Vec<String> = defs
            .iter()
            .filter_map(|d| {
                d.missing()
                    .map(|m| format!("{} ({m}; {})", d.name, d.install_hint))
            })
            .collect();
        if !missing.is_empty() {
            eprintln!(
                "note: checkers not installed, not used: {}",
                missing.join(", ")
            );
        }
    }
    let index: HashMap<String, crate::solve::Bench> = solve::read_index(c)?
        .into_iter()
        .map(|e| (e.id.clone(), e))
        .collect();
    let (runs, rep): (Vec<RunRecord>, _) = journal::read_all(&c.runs_journal())?;
    warn(rep.warnings(&c.runs_journal()));

    // 1. Rebuild the cores not yet rebuilt.
    let cores_path = c.dir.join("cores.jsonl");
    let (core_recs, rep): (Vec<CoreRecord>, _) = journal::read_all(&cores_path)?;
    warn(rep.warnings(&cores_path));
    let mut hash_of: HashMap<(String, String), String> = core_recs
        .into_iter()
        .map(|r| ((r.solver, r.benchmark), r.hash))
        .collect();
    let cores_journal = Journal::open(&cores_path)?;
    let mut pairs = Vec::new();
    let mut seen = HashSet::new();
    for r in &runs {
        let (Some(s), Some(e)) = (
            solvers.iter().find(|s| s.name == r.solver),
            index.get(&r.benchmark),
        ) else {
            continue;
        };
        let Some(core) = checkable_core(r, e) else {
            continue;
        };
        if !filter(&r.benchmark) || !seen.insert((r.solver.as_str(), r.benchmark.as_str())) {
            continue; // another shard's, or journaled twice
        }
        let key = (r.solver.clone(), r.benchmark.clone());
        let stored = hash_of
            .get(&key)
            .is_some_and(|h| c.cores_dir().join(format!("{h}.smt2")).exists());
        if !stored {
            let set: HashSet<String> = core.iter().cloned().collect();
            let own = crate::rebuild::numbered_with(&e.prefix);
            let (hash, _, stats) =
                crate::rebuild::store(&c.named_dir().join(&e.output), &c.cores_dir(), &set, &own)?;
            cores_journal.append(&CoreRecord {
                solver: key.0.clone(),
                benchmark: key.1.clone(),
                hash: hash.clone(),
                kept: stats.kept,
            })?;
            hash_of.insert(key.clone(), hash);
        }
        pairs.push((s, e, hash_of[&key].clone()));
    }

    // 2. Which checkers each distinct core needs, and which answers exist.
    let mut hashes: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, (_, _, h)) in pairs.iter().enumerate() {
        hashes.entry(h.clone()).or_default().push(i);
    }
    let hash_list: Vec<String> = hashes.keys().cloned().collect();
    let mut summary = CheckSummary {
        cores: pairs.len(),
        distinct: hash_list.len(),
        jobs: c.jobs,
        ..Default::default()
    };
    let dialects = checkers
        .iter()
        .map(|k| Dialect::new(k.accepts_named, &k.unsupported_commands))
        .collect();
    let plan = Plan {
        c,
        checkers,
        dialects,
        pairs,
        hashes,
    };
    let checkers = &plan.checkers;
    let limit = c.checker_time.as_secs_f64();
    let (done, rep): (Vec<CheckRecord>, _) = journal::read_all(&c.checks_journal())?;
    warn(rep.warnings(&c.checks_journal()));
    let checks_journal = Journal::open(&c.checks_journal())?;
    let mut answers: HashMap<(String, String), CheckAnswer> = HashMap::new();
    for d in &done {
        answers.insert((d.hash.clone(), d.checker.clone()), d.answer);
    }
    let any_needed = hash_list
        .iter()
        .any(|h| checkers.iter().any(|k| plan.needed(h, &k.name, &answers)));
    if !any_needed {
        return Ok(summary);
    }
    let versions = probe_versions(checkers);
    let (cache, w) = cache::Cache::open(&c.cache_dir());
    warn(w);
    let cost = mean_cpu(done.iter().chain(cache.records()));
    let mut files: HashMap<(usize, usize), PathBuf> = HashMap::new();
    let mut jobs: Vec<Vec<usize>> = Vec::with_capacity(hash_list.len());
    for (hi, h) in hash_list.iter().enumerate() {
        let mut want = Vec::new();
        for (ki, k) in checkers.iter().enumerate() {
            if !plan.needed(h, &k.name, &answers) {
                continue;
            }
            if let Some(hit) = cache.get(h, &k.name, versions[ki].as_deref(), limit) {
                let mut rec = hit.clone();
                rec.cached = true;
                checks_journal.append(&rec)?;
                answers.insert((h.clone(), k.name.clone()), rec.answer);
                summary.cache_hits += 1;
                continue;
            }
            if let Some(d) = &plan.dialects[ki] {
                let core = c.cores_dir().join(format!("{h}.smt2"));
                match crate::rebuild::store_variant(&core, d)? {
                    Ok(path) => {
                        files.insert((hi, ki), path);
                    }
                    Err(why) => {
                        let rec =
                            not_applicable(h, k, versions[ki].clone(), limit, why.to_string());
                        checks_journal.append(&rec)?;
                        answers.insert((h.clone(), k.name.clone()), rec.answer);
                        summary.not_applicable += 1;
                        continue;
                    }
                }
            }
            want.push(ki);
        }
        // Cache hits may already settle the core; most useful checkers first.
        want.retain(|&ki| plan.needed(h, &checkers[ki].name, &answers));
        let useful: HashMap<usize, usize> = want
            .iter()
            .map(|&ki| (ki, plan.waiting(h, &checkers[ki].name, &answers)))
            .collect();
        want.sort_by(|a, b| {
            let cost_of = |ki: usize| cost.get(checkers[ki].name.as_str()).copied().unwrap_or(0.0);
            useful[b]
                .cmp(&useful[a])
                .then(cost_of(*a).total_cmp(&cost_of(*b)))
        });
        jobs.push(want);
    }

    // 3. Run the jobs.
    let total: usize = jobs.iter().map(Vec::len).sum();
    let sched = schedule::Scheduler::new(jobs);
    let answers = Mutex::new(answers);
    let bar = crate::progress::bar("check", total as u64);
    let stats = Mutex::new(RunStats::default());
    let first_error: Mutex<Option<anyhow::Error>> = Mutex::new(None);
    let started = std::time::Instant::now();
    let last_end = Mutex::new(0f64);
    let (tx, rx) = std::sync::mpsc::channel::<CheckRecord>();
    std::thread::scope(|scope| {
        // Records are written (and fsynced) by one thread, off the workers'
        // path; a kill loses the few not yet written, whose jobs run again.
        scope.spawn(|| {
            for rec in rx {
                if let Err(e) = checks_journal.append(&rec) {
                    first_error.lock().unwrap().get_or_insert(e);
                    sched.stop();
                    break;
                }
                if let Some(w) = cache.put(&rec) {
                    stats.lock().unwrap().cache_warning.get_or_insert(w);
                }
            }
        });
        scope.spawn(|| {
            while !sched.is_finished() {
                if cancel.load(Ordering::SeqCst) {
                    sched.stop();
                    break;
                }
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
        });
        for _ in 0..c.jobs {
            let tx = tx.clone();
            let (stats, answers, sched, plan, files, versions) = (&stats, &answers, &sched, &plan, &files, &versions);
            let (hash_list, last_end, bar) = (&hash_list, &last_end, &bar);
            scope.spawn(move || {
                while let Some(job) = sched.next() {
                    let h = &hash_list[job.core];
                    let k = &checkers[job.checker];
                    let path = files
                        .get(&(job.core, job.checker))
                        .cloned()
                        .unwrap_or_else(|| c.cores_dir().join(format!("{h}.smt2")));
                    let spec = solve::spec_for(k, &path, c, c.checker_time, false);
                    let out = runner::run(&spec, &job.cancel);
                    if let Some(rec) = record_run(stats, versions, h, k, job.checker, limit, &out) {
                        answers.lock().unwrap().insert((h.clone(), k.name.clone()), rec.answer);
                        // Closed only when the writer stopped on an error.
                        tx.send(rec).ok();
                    }
                    bar.inc(1);
                    let settled = |core: usize| {
                        let a = answers.lock().unwrap();
                        let h = &hash_list[core];
                        !checkers.iter().any(|k| plan.needed(h, &k.name, &a))
                    };
                    sched.finish(&job, &settled);
                }
                let mut end = last_end.lock().unwrap();
                *end = (*end).max(started.elapsed().as_secs_f64());
            });
        }
        drop(tx);
    });
    bar.finish_and_clear();
    summary.wall = last_end.into_inner().unwrap();
    if let Some(e) = first_error.into_inner().unwrap() {
        return Err(e);
    }
    let st = stats.into_inner().unwrap();
    if let Some(w) = st.cache_warning {
        eprintln!("warning: {w} (answers not cached)");
    }
    for (k, why) in &st.failures {
        eprintln!("error: checker '{k}' could not be started: {why}; its answers are missing (install it, or remove it from check.checkers)");
    }
    (
        summary.ran,
        summary.cpu,
        summary.checker_wall,
        summary.failed_to_start,
    ) = (st.ran, st.cpu, st.wall, st.failed);
    (summary.skipped, summary.killed) = sched.early_stop_counts();
    summary.interrupted = cancel.load(Ordering::SeqCst);
    Ok(summary)
}

/// Counters the workers share.
#[derive(Default)]
struct RunStats {
    ran: usize,
    cpu: f64,
    wall: f64,
    failed: usize,
    failures: BTreeMap<String, String>,
    cache_warning: Option<String>,
}

/// Count a finished run and turn it into its record; `None` when it has
/// none (cancelled by early stop or Ctrl-C, or the checker failed to start).
fn record_run(
    stats: &Mutex<RunStats>,
    versions: &[Option<String>],
    h: &str,
    k: &SolverDef,
    ki: usize,
    limit: f64,
    out: &runner::RunOutcome,
) -> Option<CheckRecord> {
    let mut st = stats.lock().unwrap();
    st.wall += out.wall;
    if let Exit::FailedToStart(why) = &out.exit {
        st.failed += 1;
        st.failures
            .entry(k.name.clone())
            .or_insert_with(|| why.clone());
        return None;
    }
    if out.cancelled {
        return None;
    }
    st.ran += 1;
    st.cpu += out.cpu;
    drop(st);
    let parsed = answer::parse_output(&out.stdout);
    let (answer, note) = if out.timed_out {
        (CheckAnswer::Other, None)
    } else {
        classify_output(&parsed)
    };
    Some(CheckRecord {
        hash: h.to_string(),
        checker: k.name.clone(),
        version: versions[ki].clone(),
        time_limit: limit,
        answer,
        raw: if out.timed_out {
            Answer::Timeout
        } else {
            parsed.answer
        },
        exit: format!("{:?}", out.exit),
        wall: out.wall,
        cpu: out.cpu,
        cached: false,
        note,
    })
}

/// Every checker's version; a failed probe is reported (its answers are
/// then kept out of the cross-campaign cache).
fn probe_versions(checkers: &[SolverDef]) -> Vec<Option<String>> {
    let probes: Vec<Probe> = std::thread::scope(|s| {
        let handles: Vec<_> = checkers.iter().map(|k| s.spawn(|| k.probe())).collect();
        let broken = || Probe::Broken { detail: "the version probe panicked".into() };
        handles.into_iter().map(|h| h.join().unwrap_or_else(|_| broken())).collect()
    });
    checkers
        .iter()
        .zip(probes)
        .map(|(k, p)| match p {
            Probe::Ok { version } => Some(version),
            Probe::Missing { detail } | Probe::Broken { detail } => {
                eprintln!(
                    "warning: checker '{}': version unknown ({detail}); its answers are not cached",
                    k.name
                );
                None
            }
        })
        .collect()
}

/// Mean CPU seconds per run of each checker, from earlier records.
fn mean_cpu<'r>(records: impl Iterator<Item = &'r CheckRecord>) -> HashMap<&'r str, f64> {
    let mut sums: HashMap<&str, (f64, u32)> = HashMap::new();
    for r in records.filter(|r| r.answer != CheckAnswer::NotApplicable) {
        let e = sums.entry(r.checker.as_str()).or_default();
        e.0 += r.cpu;
        e.1 += 1;
    }
    sums.into_iter()
        .map(|(k, (s, n))| (k, s / f64::from(n)))
        .collect()
}

fn not_applicable(
    h: &str,
    k: &SolverDef,
    version: Option<String>,
    limit: f64,
    why: String,
) -> CheckRecord {
    CheckRecord {
        hash: h.to_string(),
        checker: k.name.clone(),
        version,
        time_limit: limit,
        answer: CheckAnswer::NotApplicable,
        raw: Answer::NoAnswer,
        exit: "not run".into(),
        wall: 0.0,
        cpu: 0.0,
        cached: false,
        note: Some(why),
    }
}

/// Whether a pair's decision can no longer change.
fn pair_settled(
    policy: Policy,
    hash: &str,
    selected: &[&SolverDef],
    solver: &SolverUnderTest,
    answers: &HashMap<(String, String), CheckAnswer>,
    early_stop: bool,
) -> bool {
    let mine: HashMap<&str, CheckAnswer> = selected
        .iter()
        .filter_map(|k| {
            answers
                .get(&(hash.to_string(), k.name.clone()))
                .map(|a| (k.name.as_str(), *a))
        })
        .collect();
    let (t, remaining, producer_pending) = tally(&mine, selected, solver);
    if remaining == 0 {
        return true;
    }
    early_stop && decided_early(policy, &t, remaining, producer_pending).is_some()
}

/// The core of a run when it is worth checking: `unsat`, not timed out,
/// and well formed.
pub fn checkable_core<'a>(r: &'a RunRecord, e: &crate::solve::Bench) -> Option<&'a Vec<String>> {
    if r.answer != Answer::Unsat || r.timed_out {
        return None;
    }
    let core = r.core.as_ref()?;
    if core.is_empty() || !answer::core_issues(core, &e.top_level, &e.nested).is_empty() {
        return None;
    }
    Some(core)
}

/// The checker definitions a campaign uses: the named ones, or every
/// installed definition. A named checker that is not installed is an error
/// that says what is missing and how to install it.
pub fn configured_checkers(c: &Campaign, defs: &[SolverDef]) -> Result<Vec<SolverDef>> {
    let names = &c.config.check.checkers;
    if names.is_empty() {
        return Ok(defs.iter().filter(|d| d.is_installed()).cloned().collect());
    }
    names
        .iter()
        .map(|n| {
            let d = defs.iter().find(|d| &d.name == n).with_context(|| {
                let known: Vec<&str> = defs.iter().map(|d| d.name.as_str()).collect();
                format!(
                    "check.checkers: no definition '{n}' (known: {})",
                    known.join(", ")
                )
            })?;
            if let Some(why) = d.missing() {
                anyhow::bail!(
                    "checker '{n}' (check.checkers) is not installed: {why}; to install: {}",
                    d.install_hint
                );
            }
            Ok(d.clone())
        })
        .collect()
}

/// The checkers the verdicts count, which need not be runnable here: the
/// named ones (installed or not), or every installed definition plus those
/// that answered in this campaign (`answered`).
pub fn verdict_checkers(
    c: &Campaign,
    defs: &[SolverDef],
    answered: &HashSet<&str>,
) -> Vec<SolverDef> {
    let names = &c.config.check.checkers;
    defs.iter()
        .filter(|d| {
            if names.is_empty() {
                d.is_installed() || answered.contains(d.name.as_str())
            } else {
                names.contains(&d.name)
            }
        })
        .cloned()
        .collect()
}

fn warn(ws: Vec<String>) {
    for w in ws {
        eprintln!("warning: {w}");
    }
}
