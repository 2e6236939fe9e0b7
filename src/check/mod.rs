//! The check stage: rebuild a core-only benchmark for every well-formed
//! reported core, and run the checkers on it.
//!
//! - **Rebuild** once per (solver, benchmark) into `cores/<hash>.smt2`
//!   (content-addressed, see [`crate::rebuild`]), journaled in `cores.jsonl`.
//! - **Selection**: per pair, the checkers whose definitions support the
//!   benchmark's logic, minus the solver's own team when `independent` is on.
//!   Jobs are per (core hash, checker): identical cores are checked once.
//! - **Cache**: answers are journaled in the campaign's `checks.jsonl` and in
//!   a cross-campaign cache keyed by (core hash, checker, checker version,
//!   time limit), so a second run or another campaign with the same cores
//!   runs no checker at all.
//! - **Early stop**: once every pair using a core has a decision that the
//!   remaining checkers cannot change ([`crate::policy::decided_early`]), its
//!   pending jobs are skipped and running ones killed. A `sat` with no
//!   `unsat` beside it settles nothing early: every selected checker runs,
//!   so that an unsound checker shows as a *dispute*.
//! - **Votes**: a checker's answer counts as [`checker_vote`] says (two
//!   answers, or `sat` after an error, are no vote).

pub mod schedule;

use crate::answer::{self, Answer};
use crate::campaign::Campaign;
use crate::checkers::{self, SolverDef};
use crate::journal::{self, Journal};
use crate::policy::{decided_early, CheckAnswer, Policy, Tally};
use crate::runner;
use crate::solve::{self, RunRecord, SolverUnderTest};
use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap, HashSet};
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
    /// Output flags of the checker run (two answers, error before the answer…).
    #[serde(default)]
    pub flags: Vec<String>,
}

/// Checker answer as the policies see it.
pub fn classify(a: Answer) -> CheckAnswer {
    match a {
        Answer::Sat => CheckAnswer::Sat,
        Answer::Unsat => CheckAnswer::Unsat,
        _ => CheckAnswer::Other,
    }
}

/// A checker's vote from its raw answer and output flags. Output that
/// contradicts itself (two answers) is no vote. A `sat` after an error is
/// none either: the checker may have skipped the assertion it could not read
/// (z3 goes on after errors), and a script missing assertions is easier to
/// satisfy, so it would refute a correct core. An `unsat` after an error
/// stands: fewer assertions being unsat means the whole core is.
pub fn checker_vote(raw: Answer, flags: &[answer::OutputFlag]) -> CheckAnswer {
    use answer::OutputFlag::{ErrorBeforeAnswer, TwoAnswers};
    match classify(raw) {
        _ if flags.contains(&TwoAnswers) => CheckAnswer::Other,
        CheckAnswer::Sat if flags.contains(&ErrorBeforeAnswer) => CheckAnswer::Other,
        vote => vote,
    }
}

/// The checkers a pair's core goes to.
pub fn select<'a>(checkers: &'a [SolverDef], logic: &str, solver: &SolverUnderTest, independent: bool) -> Vec<&'a SolverDef> {
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
    pub interrupted: bool,
}

/// Run the check stage of a campaign.
pub fn check(c: &Campaign, filter: &dyn Fn(&str) -> bool, cancel: &AtomicBool) -> Result<CheckSummary> {
    let defs = checkers::load_dir(&solve::checkers_dir(c))?;
    let solvers = solve::solvers_under_test(c, &defs)?;
    let checkers = configured_checkers(c, &defs)?;
    let index: HashMap<String, crate::solve::Bench> =
        solve::read_index(c)?.into_iter().map(|e| (e.id.clone(), e)).collect();
    let (runs, rep): (Vec<RunRecord>, _) = journal::read_all(&c.runs_journal())?;
    warn(rep.warnings(&c.runs_journal()));
    solve::reap_orphans(c);

    // 1. Rebuild the cores not yet rebuilt.
    let cores_path = c.dir.join("cores.jsonl");
    let (core_recs, rep): (Vec<CoreRecord>, _) = journal::read_all(&cores_path)?;
    warn(rep.warnings(&cores_path));
    // A hash names a file under `cores/`: anything but a BLAKE3 hex digest
    // (a damaged or edited journal) is ignored and the core rebuilt.
    let mut hash_of: HashMap<(String, String), String> = core_recs
        .into_iter()
        .filter(|r| is_hash(&r.hash))
        .map(|r| ((r.solver, r.benchmark), r.hash))
        .collect();
    let cores_journal = Journal::open(&cores_path)?;
    let mut pairs = Vec::new();
    for r in &runs {
        let (Some(s), Some(e)) = (solvers.iter().find(|s| s.name == r.solver), index.get(&r.benchmark)) else {
            continue;
        };
        let Some(core) = checkable_core(r, e) else { continue };
        if !filter(&r.benchmark) {
            continue;
        }
        let key = (r.solver.clone(), r.benchmark.clone());
        if !hash_of.contains_key(&key) {
            let set: HashSet<String> = core.iter().cloned().collect();
            let own = crate::rebuild::numbered_with(&e.prefix);
            let (hash, _, stats) = crate::rebuild::store(&c.named_dir().join(&e.output), &c.cores_dir(), &set, &own)?;
            cores_journal.append(&CoreRecord { solver: key.0.clone(), benchmark: key.1.clone(), hash: hash.clone(), kept: stats.kept })?;
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
    let mut summary = CheckSummary { cores: pairs.len(), distinct: hash_list.len(), ..Default::default() };
    let versions: Vec<Option<String>> = checkers.iter().map(|k| k.probe_version()).collect();
    let limit = c.checker_time.as_secs_f64();
    let (done, rep): (Vec<CheckRecord>, _) = journal::read_all(&c.checks_journal())?;
    warn(rep.warnings(&c.checks_journal()));
    let cache_path = c.cache_dir().join("checks.jsonl");
    let (cached, rep): (Vec<CheckRecord>, _) = journal::read_all(&cache_path).unwrap_or_default();
    warn(rep.warnings(&cache_path));
    let checks_journal = Journal::open(&c.checks_journal())?;
    let cache_journal = Journal::open(&cache_path).ok();
    let mut answers: HashMap<(String, String), CheckAnswer> = HashMap::new();
    for d in &done {
        answers.insert((d.hash.clone(), d.checker.clone()), d.answer);
    }
    let cache_key = |r: &CheckRecord| (r.hash.clone(), r.checker.clone(), r.version.clone(), r.time_limit.to_bits());
    let cache: HashMap<_, &CheckRecord> = cached.iter().map(|r| (cache_key(r), r)).collect();

    let needed = |h: &str, k: &str, answers: &HashMap<(String, String), CheckAnswer>| -> bool {
        !answers.contains_key(&(h.to_string(), k.to_string()))
            && hashes[h].iter().any(|&p| {
                let (s, e, _) = &pairs[p];
                let sel = select(&checkers, &e.logic, s, c.config.check.independent);
                sel.iter().any(|x| x.name == k) && !pair_settled(c.config.check.policy, h, &sel, s, answers, c.config.check.early_stop)
            })
    };
    let mut jobs: Vec<Vec<usize>> = Vec::with_capacity(hash_list.len());
    for h in &hash_list {
        let mut want = Vec::new();
        for (ki, k) in checkers.iter().enumerate() {
            if !needed(h, &k.name, &answers) {
                continue;
            }
            let key = (h.clone(), k.name.clone(), versions[ki].clone(), limit.to_bits());
            if let Some(hit) = cache.get(&key) {
                let mut rec = (*hit).clone();
                rec.cached = true;
                checks_journal.append(&rec)?;
                answers.insert((h.clone(), k.name.clone()), rec.answer);
                summary.cache_hits += 1;
            } else {
                want.push(ki);
            }
        }
        // Cache hits may already settle the core.
        want.retain(|&ki| needed(h, &checkers[ki].name, &answers));
        jobs.push(want);
    }

    // 3. Run the jobs.
    let total: usize = jobs.iter().map(Vec::len).sum();
    let sched = schedule::Scheduler::new(jobs);
    let answers = Mutex::new(answers);
    let bar = crate::progress::bar("check", total as u64);
    let ran = Mutex::new((0usize, 0f64));
    let first_error: Mutex<Option<anyhow::Error>> = Mutex::new(None);
    std::thread::scope(|scope| {
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
            scope.spawn(|| {
                while let Some(job) = sched.next() {
                    let h = &hash_list[job.core];
                    let k = &checkers[job.checker];
                    let path = c.cores_dir().join(format!("{h}.smt2"));
                    let spec = solve::spec_for(k, &path, c, c.checker_time, false);
                    let out = runner::run(&spec, &job.cancel);
                    if !out.cancelled {
                        let parsed = answer::parse_output(&out.stdout);
                        let raw = if out.timed_out { Answer::Timeout } else { parsed.answer };
                        let rec = CheckRecord {
                            hash: h.clone(),
                            checker: k.name.clone(),
                            version: versions[job.checker].clone(),
                            time_limit: limit,
                            answer: checker_vote(raw, &parsed.flags),
                            raw,
                            exit: format!("{:?}", out.exit),
                            wall: out.wall,
                            cpu: out.cpu,
                            cached: false,
                            flags: parsed.flags.iter().map(solve::flag_name).collect(),
                        };
                        let res = checks_journal.append(&rec).and_then(|_| {
                            if let Some(cj) = &cache_journal {
                                cj.append(&rec).ok();
                            }
                            Ok(())
                        });
                        if let Err(e) = res {
                            first_error.lock().unwrap().get_or_insert(e);
                            sched.stop();
                        }
                        answers.lock().unwrap().insert((h.clone(), k.name.clone()), rec.answer);
                        let mut r = ran.lock().unwrap();
                        r.0 += 1;
                        r.1 += out.cpu;
                    }
                    bar.inc(1);
                    let settled = |core: usize| {
                        let a = answers.lock().unwrap();
                        let h = &hash_list[core];
                        !checkers.iter().any(|k| needed(h, &k.name, &a))
                    };
                    sched.finish(&job, &settled);
                }
            });
        }
    });
    bar.finish_and_clear();
    if let Some(e) = first_error.into_inner().unwrap() {
        return Err(e);
    }
    let (ran, cpu) = ran.into_inner().unwrap();
    summary.ran = ran;
    summary.cpu = cpu;
    (summary.skipped, summary.killed) = sched.early_stop_counts();
    summary.interrupted = cancel.load(Ordering::SeqCst);
    Ok(summary)
}

/// Whether `h` is a BLAKE3 digest in lowercase hex, the only file names of `cores/`.
pub fn is_hash(h: &str) -> bool {
    h.len() == 64 && h.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
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
        .filter_map(|k| answers.get(&(hash.to_string(), k.name.clone())).map(|a| (k.name.as_str(), *a)))
        .collect();
    let (t, remaining, producer_pending) = tally(&mine, selected, solver);
    if remaining == 0 {
        return true;
    }
    // A `sat` with no `unsat` yet never settles a core early: the remaining
    // checkers run, so that one unsound checker shows as a dispute instead of
    // silently refuting a correct core (refuted cores are rare, this costs little).
    if t.sat > 0 && t.unsat == 0 {
        return false;
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
/// installed definition.
pub fn configured_checkers(c: &Campaign, defs: &[SolverDef]) -> Result<Vec<SolverDef>> {
    let names = &c.config.check.checkers;
    if names.is_empty() {
        return Ok(defs.iter().filter(|d| d.is_installed()).cloned().collect());
    }
    names
        .iter()
        .map(|n| {
            let d = defs.iter().find(|d| &d.name == n).with_context(|| format!("check.checkers: no definition '{n}'"))?;
            if !d.is_installed() {
                anyhow::bail!("checker '{n}' is not installed: run `bash checkers/install.sh`");
            }
            Ok(d.clone())
        })
        .collect()
}

fn warn(ws: Vec<String>) {
    for w in ws {
        eprintln!("warning: {w}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use answer::OutputFlag::*;

    #[test]
    fn contradictory_or_mutilated_answers_are_no_vote() {
        assert_eq!(checker_vote(Answer::Unsat, &[]), CheckAnswer::Unsat);
        assert_eq!(checker_vote(Answer::Sat, &[GarbageLines]), CheckAnswer::Sat);
        assert_eq!(checker_vote(Answer::Sat, &[TwoAnswers]), CheckAnswer::Other);
        assert_eq!(checker_vote(Answer::Unsat, &[TwoAnswers]), CheckAnswer::Other);
        assert_eq!(checker_vote(Answer::Sat, &[ErrorBeforeAnswer]), CheckAnswer::Other);
        assert_eq!(checker_vote(Answer::Unsat, &[ErrorBeforeAnswer]), CheckAnswer::Unsat);
        assert_eq!(checker_vote(Answer::Timeout, &[]), CheckAnswer::Other);
    }

    #[test]
    fn only_digests_name_core_files() {
        assert!(is_hash(&blake3::hash(b"x").to_hex()));
        assert!(!is_hash("../../etc/passwd"));
        assert!(!is_hash(&"A".repeat(64)));
    }
}
