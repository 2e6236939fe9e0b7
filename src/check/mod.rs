//! The check stage: rebuild a core-only benchmark for every well-formed
//! reported core, and run the checkers on it.
//!
//! - **Rebuild** once per (solver, benchmark) into `cores/<hash>.smt2`
//!   (content-addressed, see [`crate::rebuild`]), journaled in `cores.jsonl`
//!   ([`plan`] decides what is still needed before anything runs).
//! - **Selection**: per pair, the checkers whose definitions support the
//!   benchmark's logic, minus the solver's own team when `independent` is on.
//!   Jobs are per (core hash, checker): identical cores are checked once.
//! - **Dialects**: a checker with `accepts_named = false` or
//!   `unsupported_commands` gets a variant `cores/<hash>.<dialect>.smt2`
//!   ([`crate::rebuild::adapt`]); when the core needs a command it rejects,
//!   an explicit `not-applicable` answer is journaled and the checker does
//!   not count for that core.
//! - **Cache**: answers are journaled in the campaign's `checks.jsonl` and in
//!   a cross-campaign cache ([`cache`]) keyed by (core hash, checker
//!   identity: command, limits, program hash, version), so a second run or another campaign with the same
//!   cores runs no checker at all.
//! - **Early stop**: once every pair using a core has a decision that the
//!   remaining checkers cannot change ([`crate::campaign::verdict::policy::decided_early`]), its
//!   pending jobs are skipped and running ones killed ([`schedule`]). Each
//!   core's checkers are queued most useful first: those that count for
//!   the most undecided pairs, then the cheapest (mean CPU of earlier runs).
//! - **Trust**: a `sat`/`unsat` printed after an error, or next to a second
//!   answer, is not counted (z3 keeps going after an error and answers for
//!   the script it did manage to read). A checker that fails to start leaves
//!   no record: the pair stays pending and the failure is reported.
//! - **Beyond validation** (optional): the subset-minimality of every
//!   validated core ([`minimality`]) and the best-known core per benchmark
//!   ([`best`]), both asking the checkers one core at a time within a
//!   budget ([`ask`]), with the same selection, policy and cache.
//! - **Provenance**: only answers of the checkers as configured now count
//!   ([`crate::campaign::ledger::current`]); a new build of a checker is asked again.
//! - **Throughput**: workers only run checkers; one writer thread journals
//!   their records as they come (one fsync at most every few milliseconds).
//!   `benches/check.rs` measures dedupe, cache, early-stop
//!   savings and utilisation.

pub mod ask;
pub mod best;
pub mod cache;
pub mod certify;
pub mod incremental;
pub mod minimality;
pub mod plan;
mod references;
pub mod schedule;
mod summary;

pub use summary::CheckSummary;

use crate::answer::{self, Answer, OutputFlag, ParsedOutput};
use crate::campaign::ledger::records::{CheckRecord, RunRecord, Timing, CHECKS};
use crate::campaign::ledger::Loaded;
use crate::campaign::verdict::policy::CheckAnswer;
use crate::checkers::SolverDef;
use crate::message::Say;
use crate::runner;
use crate::store::journal::Journal;
use anyhow::Result;
use plan::Plan;
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

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
    if p.has(OutputFlag::FailedAfterAnswer) {
        return (
            CheckAnswer::Other,
            Some("the checker failed after its answer (exit code or signal), not counted".into()),
        );
    }
    (a, None)
}

/// Run the check stage of a campaign: validation, then (as configured)
/// the minimality check and the best-known cores.
pub fn check(
    l: &Loaded,
    filter: &dyn Fn(&str) -> bool,
    cancel: &AtomicBool,
    runs: Option<Vec<RunRecord>>,
) -> Result<CheckSummary> {
    let mut summary = if l.solvers.iter().any(|s| s.reference) {
        references::validate_in_two_passes(l, filter, cancel, runs)?
    } else {
        validate(l, filter, &|_| true, true, cancel, runs)?
    };
    crate::process::trace::phase("check: validated");
    let cfg = &l.campaign.config.check;
    if cfg.minimality && !cancel.load(Ordering::SeqCst) {
        summary.minimality = Some(minimality::run(l, filter, cancel)?);
    }
    if cfg.best_known && !cancel.load(Ordering::SeqCst) {
        summary.best = Some(best::run(l, filter, cancel)?);
        crate::process::trace::phase("check: best-known");
    }
    summary.interrupted = cancel.load(Ordering::SeqCst);
    Ok(summary)
}

/// Validate the cores of the runs passing `which` (of the benchmarks
/// passing `filter`), and the incremental benchmarks' with `with_incremental`.
fn validate(
    l: &Loaded,
    filter: &dyn Fn(&str) -> bool,
    which: &dyn Fn(&RunRecord) -> bool,
    with_incremental: bool,
    cancel: &AtomicBool,
    read: Option<Vec<RunRecord>>,
) -> Result<CheckSummary> {
    let (c, defs) = (l.campaign, l.defs);
    let checkers = l.ctx.checkers.clone();
    if c.config.check.checkers.is_empty() {
        let missing: Vec<String> = defs
            .iter()
            .filter_map(|d| {
                d.missing()
                    .map(|m| format!("{} ({m}; {})", d.name, d.install_hint))
            })
            .collect();
        if !missing.is_empty() {
            l.say.note(format!(
                "checkers not installed, not used: {}",
                missing.join(", ")
            ));
        }
    }
    let runs = crate::campaign::ledger::current::read_runs(l, read)?.current;
    crate::campaign::setup::solvers::reap_orphans(c, l.say);
    crate::process::trace::phase("check: runs read");

    // 1. The pairs with a core to check, their core-only files.
    let mut pairs = plan::pairs_to_check(l, &runs, filter, which)?;
    crate::process::trace::phase("check: pairs planned");
    if with_incremental {
        pairs.extend(incremental::pairs(l, &runs, filter)?);
    }
    let plan = Plan::new(c, checkers, pairs, l.ctx.validators.as_ref());
    let mut summary = CheckSummary {
        cores: plan.pairs.len(),
        distinct: plan.hash_list.len(),
        jobs: c.jobs,
        ..Default::default()
    };

    // 2. The jobs still needed: only answers of the checkers as configured
    // now count (a new build, other limits: asked again).
    let all: Vec<CheckRecord> = c.read_journal(CHECKS)?;
    let done: Vec<CheckRecord> = all
        .iter()
        .filter(|r| l.current.check_stale(r).is_none())
        .cloned()
        .collect();
    let mut answers: plan::Answers = done
        .iter()
        .map(|d| {
            let a = d.counted(c.config.check.policy);
            ((d.hash.clone(), d.checker.clone()), a)
        })
        .collect();
    crate::process::trace::phase("check: answers read");
    if !plan.any_needed(&answers) {
        drop(plan);
        crate::store::compact::let_go(runs);
        return Ok(summary);
    }
    // What this pass redoes is counted as it is journaled, and said after.
    let redone = crate::campaign::ledger::current::Redone::new(
        crate::campaign::ledger::current::stale_check_keys(l, &all),
    );
    let checks_journal = Journal::open(&c.journal_path(CHECKS))?;
    let (cache, w) = cache::Cache::open(&c.cache_dir());
    warn(l.say, w);
    let run_cost = plan::run_costs(l, &runs);
    let jobs = plan.jobs(
        &mut answers,
        &cache,
        &l.current,
        &checks_journal,
        &done,
        &run_cost,
    )?;
    for r in &jobs.journaled {
        redone.journaled((&r.0, &r.1), &r.1);
    }
    (summary.cache_hits, summary.not_applicable) = (jobs.cache_hits, jobs.not_applicable);

    crate::process::trace::phase("check: jobs planned");
    // 3. Run them.
    let run = Run {
        plan: &plan,
        current: &l.current,
        files: &jobs.files,
        cache: &cache,
        journal: &checks_journal,
        say: l.say,
        redone: &redone,
    };
    run.all(jobs.queue, answers, cancel, &mut summary)?;
    redone.say("checker ", "answer(s)", l.say);
    summary.interrupted = cancel.load(Ordering::SeqCst);
    Ok(summary)
}

/// The run phase: workers take jobs from the scheduler, one writer thread
/// journals their records.
struct Run<'a> {
    plan: &'a Plan<'a>,
    current: &'a crate::campaign::ledger::provenance::Current,
    files: &'a HashMap<(usize, usize), PathBuf>,
    cache: &'a cache::Cache,
    journal: &'a Journal,
    say: Say<'a>,
    redone: &'a crate::campaign::ledger::current::Redone<'a>,
}

impl Run<'_> {
    fn all(
        &self,
        queue: Vec<Vec<usize>>,
        answers: plan::Answers,
        cancel: &AtomicBool,
        summary: &mut CheckSummary,
    ) -> Result<()> {
        let c = self.plan.c;
        let total: usize = queue.iter().map(Vec::len).sum();
        let sched = schedule::Scheduler::new(queue);
        let answers = Mutex::new(answers);
        let bar = self.say.bar("check", total as u64);
        let stats = Mutex::new(RunStats::default());
        let first_error: Mutex<Option<anyhow::Error>> = Mutex::new(None);
        let started = std::time::Instant::now();
        let last_end = Mutex::new(0f64);
        let pool = crate::process::pool::Pool {
            slots: c.jobs,
            journal: self.journal,
            bar: &bar,
        };
        std::thread::scope(|scope| {
            let (first_error, stats, sched) = (&first_error, &stats, &sched);
            scope.spawn(move || {
                while !sched.is_finished() {
                    if cancel.load(Ordering::SeqCst) {
                        sched.stop();
                        break;
                    }
                    std::thread::sleep(std::time::Duration::from_millis(50));
                }
            });
            // Records are written by the pool's writer, off the workers'
            // path, as they come (fsynced together at most every few
            // milliseconds); a kill loses the few not yet written, whose
            // jobs run again.
            let written = |group: &[CheckRecord]| {
                for r in group {
                    self.redone.journaled((&r.hash, &r.checker), &r.checker);
                }
                let inline: Vec<CheckRecord> =
                    group.iter().map(|r| self.current.inline_check(r)).collect();
                if let Some(w) = self.cache.put_all(&inline) {
                    stats.lock().unwrap().cache_warning.get_or_insert(w);
                }
            };
            let result = pool.run(
                written,
                || sched.stop(),
                |slot| {
                    let (answers, last_end) = (&answers, &last_end);
                    while let Some(job) = sched.next() {
                        let h = &self.plan.hash_list[job.core];
                        let k = &self.plan.checkers[job.checker];
                        let path = self
                            .files
                            .get(&(job.core, job.checker))
                            .cloned()
                            .unwrap_or_else(|| c.cores_dir().join(format!("{h}.smt2")));
                        let spec = crate::campaign::setup::solvers::spec_for(
                            k,
                            &path,
                            c,
                            c.checker_time,
                            false,
                        );
                        let out = runner::run(&spec, &job.cancel);
                        let limit = c.checker_time.as_secs_f64();
                        if let Some(mut rec) =
                            record_run(stats, self.current, h, k, limit, &out, &c.dir)
                        {
                            rec.timing = Some(Timing::of(&out, slot.index));
                            rec.provenance = self.current.check_provenance(c, &k.name, &path);
                            if rec.answer == CheckAnswer::Sat {
                                let core = c.cores_dir().join(format!("{h}.smt2"));
                                let others = self.fallbacks(job.core, k);
                                let (cert, cpu) = certify::certify(
                                    c,
                                    k,
                                    &core,
                                    &path,
                                    &others,
                                    &job.cancel,
                                    &mut rec.model,
                                );
                                let mut st = stats.lock().unwrap();
                                (st.cpu, st.certify_cpu, st.certify_runs) =
                                    (st.cpu + cpu, st.certify_cpu + cpu, st.certify_runs + 1);
                                drop(st);
                                if cert.unproven().is_some_and(|u| u.is_own_fault()) {
                                    let why =
                                        format!("{} on core {h}: {}", k.name, cert.describe());
                                    stats.lock().unwrap().undone.push(why);
                                    rec.certification = None;
                                } else {
                                    rec.certification = Some(cert);
                                }
                            }
                            // Not kept when certifying failed on coreval's side.
                            if rec.answer != CheckAnswer::Sat || rec.certification.is_some() {
                                let counted = rec.counted(c.config.check.policy);
                                answers
                                    .lock()
                                    .unwrap()
                                    .insert((h.clone(), k.name.clone()), counted);
                                // Closed only when the writer stopped on an error.
                                slot.send(rec);
                            }
                        }
                        slot.bar.inc(1);
                        let settled = |core: usize| {
                            let a = answers.lock().unwrap();
                            let h = &self.plan.hash_list[core];
                            !self
                                .plan
                                .checkers
                                .iter()
                                .any(|k| self.plan.needed(h, &k.name, &a))
                        };
                        sched.finish(&job, &settled);
                    }
                    let mut end = last_end.lock().unwrap();
                    *end = (*end).max(started.elapsed().as_secs_f64());
                },
            );
            if let Err(e) = result {
                first_error.lock().unwrap().get_or_insert(e);
            }
        });
        bar.finish_and_clear();
        summary.wall = last_end.into_inner().unwrap();
        if let Some(e) = first_error.into_inner().unwrap() {
            return Err(e);
        }
        let st = stats.into_inner().unwrap();
        if let Some(w) = st.cache_warning {
            self.say.warning(format!("{w} (answers not cached)"));
        }
        if let Some(first) = st.undone.first() {
            self.say.error(format!(
                "{} checker answer(s) not kept: a fault on coreval's side, not the checker's \
                 (first: {first}); the next run asks again",
                st.undone.len()
            ));
        }
        summary.undone = st.undone.len();
        for (k, why) in &st.failures {
            self.say.error(format!(
                "checker '{k}' could not be started: {why}; its answers are missing \
                 (install it, or remove it from check.checkers)"
            ));
        }
        (
            summary.ran,
            summary.cpu,
            summary.checker_wall,
            summary.failed_to_start,
        ) = (st.ran, st.cpu, st.wall, st.failed);
        (summary.certified_sats, summary.certification_cpu) = (st.certify_runs, st.certify_cpu);
        (summary.skipped, summary.killed) = sched.early_stop_counts();
        Ok(())
    }
}

impl Run<'_> {
    /// The checkers that may settle a model of `k` on core `core` that the
    /// evaluator cannot: the campaign's checkers of other teams than `k`'s
    /// that support the core's logic and take the script as it is (the
    /// solver's own team may check a model: it can only refute its core).
    fn fallbacks(&self, core: usize, k: &SolverDef) -> Vec<&SolverDef> {
        let h = &self.plan.hash_list[core];
        let Some(&(_, e, _)) = self.plan.hashes[h].first().map(|&p| &self.plan.pairs[p]) else {
            return Vec::new();
        };
        self.plan
            .checkers
            .iter()
            .filter(|j| j.team != k.team && j.supports(&e.logic))
            .filter(|j| {
                crate::rebuild::Dialect::new(j.accepts_named, &j.unsupported_commands).is_none()
            })
            .collect()
    }
}

/// Counters the workers share.
#[derive(Default)]
struct RunStats {
    /// CPU seconds and runs spent certifying `sat` answers (their models).
    certify_cpu: f64,
    certify_runs: usize,
    ran: usize,
    cpu: f64,
    wall: f64,
    failed: usize,
    failures: BTreeMap<String, String>,
    cache_warning: Option<String>,
    /// Why each answer left unkept (coreval's fault) was.
    undone: Vec<String>,
}

/// Count a finished run and turn it into its record; `None` when it has
/// none (cancelled by early stop or Ctrl-C, or the checker failed to start).
fn record_run(
    stats: &Mutex<RunStats>,
    current: &crate::campaign::ledger::provenance::Current,
    h: &str,
    k: &SolverDef,
    limit: f64,
    out: &runner::RunOutcome,
    dir: &std::path::Path,
) -> Option<CheckRecord> {
    let mut st = stats.lock().unwrap();
    st.wall += out.wall;
    // A job cancelled before it started (early stop) is no failure.
    if let Some(why) = out.start_failure() {
        st.failed += 1;
        st.failures
            .entry(k.name.clone())
            .or_insert_with(|| why.to_string());
        return None;
    }
    if out.cancelled {
        return None;
    }
    st.ran += 1;
    st.cpu += out.cpu;
    drop(st);
    Some(to_record(
        h,
        k,
        current.version(&k.name, true),
        limit,
        out,
        dir,
    ))
}

/// The journal record of a finished checker run on core `h`; `dir` is the
/// campaign folder (its paths in the output are written relative to it).
pub(crate) fn to_record(
    h: &str,
    k: &SolverDef,
    version: Option<String>,
    limit: f64,
    out: &runner::RunOutcome,
    dir: &std::path::Path,
) -> CheckRecord {
    let mut parsed = answer::parse_streams(&out.stdout, &out.stderr, k.answer_stream);
    if !out.timed_out && answer::failed_after(parsed.answer, out.exit.code()) {
        parsed.flag(OutputFlag::FailedAfterAnswer);
    }
    let (answer, note) = if out.timed_out {
        (CheckAnswer::Other, None)
    } else {
        classify_output(&parsed)
    };
    CheckRecord {
        hash: h.to_string(),
        checker: k.name.clone(),
        version,
        time_limit: limit,
        answer,
        raw: if out.timed_out {
            Answer::Timeout
        } else {
            parsed.answer
        },
        exit: out.exit.clone(),
        wall: out.wall,
        cpu: out.cpu,
        cached: false,
        note,
        output: output_shown(out, dir),
        flags: parsed
            .flags
            .iter()
            .map(crate::campaign::ledger::records::flag_name)
            .collect(),
        stdout_dropped: out.stdout_dropped,
        stderr_dropped: out.stderr_dropped,
        // The caller knows the slot the run had.
        timing: None,
        provenance: None,
        // The caller checks a `sat`'s model.
        certification: None,
        model: None,
    }
}

/// The first lines a checker printed, paths into the campaign relative to
/// it (so the record is the same wherever the campaign lives: shards,
/// copies, archives), and what was dropped beyond the output cap.
fn output_shown(out: &runner::RunOutcome, dir: &std::path::Path) -> Option<String> {
    use crate::campaign::ledger::records::{dropped_note, output_head, relative_to};
    let head = output_head(&out.stdout, &out.stderr, 8, 800).map(|text| relative_to(&text, dir));
    match (head, dropped_note(out.stdout_dropped, out.stderr_dropped)) {
        (Some(h), Some(d)) => Some(format!("{h}\n{d}")),
        (h, d) => h.or(d),
    }
}

/// The core of a run when it is worth checking: `unsat`, not timed out,
/// and well formed.
pub fn checkable_core<'a>(
    r: &'a RunRecord,
    e: &crate::campaign::ledger::index::Bench,
) -> Option<&'a Vec<String>> {
    if r.answer != Answer::Unsat || r.timed_out {
        return None;
    }
    let core = r.core.as_ref()?;
    if core.is_empty() || !answer::core_issues(core, &e.top_level, &e.nested).is_empty() {
        return None;
    }
    Some(core)
}

pub(crate) fn warn(say: Say, ws: Vec<String>) {
    for w in ws {
        say.warning(w);
    }
}
