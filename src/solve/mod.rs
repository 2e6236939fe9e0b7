//! The solve stage: run every solver under test on every named benchmark
//! and journal what each printed.
//!
//! Work is the set of (solver, benchmark) pairs without a record in
//! `runs.jsonl` whose provenance is what the configuration runs now
//! ([`crate::campaign::ledger::provenance`]; a stale record is redone, saying why),
//! for the divisions each solver's definition supports with cores;
//! each finished pair appends one record, so a re-run (after a kill,
//! Ctrl-C or a crash) picks up exactly the missing pairs. `jobs` workers
//! each take the next pair the moment their run ends (one slot each, never
//! idle while pairs are left); a writer thread appends the records as they
//! come, one fsync at most every few milliseconds for all of them
//! ([`Journal::write_behind`]), so that no worker waits for the disk. A kill loses at most the few records not yet
//! written, whose pairs run again. Runs go through
//! the runner ([`crate::runner`]) with the campaign's limits (a solver marked
//! `cached`, a selfcheck reference, first looks in the cross-campaign run
//! cache, [`crate::solve::cache`]); what a solver
//! printed becomes an answer ([`crate::answer`]) plus flags. An answer printed
//! after the time limit counts as a timeout (BenchExec does the same).

mod benchexec;
pub mod cache;

use crate::answer::{self, Answer};
use crate::campaign::ledger::index::entered;
use crate::campaign::ledger::index::Bench;
use crate::campaign::ledger::records::{flag_name, RunRecord, Timing, RUNS};
use crate::campaign::ledger::Loaded;
use crate::campaign::setup::solvers::{reap_orphans, spec_for, SolverUnderTest};
use crate::runner::{self, Exit, RunOutcome};
use crate::store::journal::Journal;
use anyhow::Result;
use cache::RunCache;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// How many of the last lines of a solver's stderr a run record keeps.
pub const STDERR_LINES: usize = 10;

/// Whether a run died of the memory limit: in a cgroup, when the OOM
/// killer killed one of its processes; under RLIMIT_AS, when it failed
/// with an allocation error or near the limit.
pub fn is_memout(out: &RunOutcome, limit: Option<u64>) -> bool {
    let Some(limit) = limit else { return false };
    if out.measured_by != crate::runner::cgroup::Measure::Rusage {
        return out.memout;
    }
    if out.timed_out {
        return false;
    }
    let text = |b: &[u8]| {
        let s = String::from_utf8_lossy(b).to_ascii_lowercase();
        s.contains("out of memory")
            || s.contains("bad_alloc")
            || s.contains("memoryerror")
            || s.contains("cannot allocate")
    };
    let failed = !matches!(out.exit, Exit::Exited(0));
    failed && (text(&out.stderr) || text(&out.stdout) || out.max_rss >= limit / 10 * 9)
}

/// Turn a finished run into its journal record.
pub fn record(
    solver: &str,
    benchmark: &str,
    out: &RunOutcome,
    memout: bool,
    version: Option<String>,
    stream: answer::AnswerStream,
) -> RunRecord {
    let mut parsed = answer::parse_streams(&out.stdout, &out.stderr, stream);
    if out.stdout_dropped > 0 {
        parsed.truncated();
    }
    // Only after `unsat` (the answer that earns credit): after `sat`, z3
    // exits 1 because `(get-unsat-core)` is then an error, as it should be.
    if parsed.answer == Answer::Unsat
        && !out.timed_out
        && !memout
        && answer::failed_after(parsed.answer, out.exit.code())
    {
        parsed.flag(answer::OutputFlag::FailedAfterAnswer);
    }
    let flags: Vec<String> = parsed.flags.iter().map(flag_name).collect();
    let (answer, core, late_answer) = if out.timed_out {
        (
            Answer::Timeout,
            None,
            Some(parsed.answer).filter(|a| *a != Answer::NoAnswer),
        )
    } else if memout {
        (Answer::NoAnswer, None, None)
    } else {
        (parsed.answer, parsed.core, None)
    };
    let core_problem = parsed.core_problem.filter(|_| answer == Answer::Unsat);
    RunRecord {
        solver: solver.to_string(),
        benchmark: benchmark.to_string(),
        answer,
        core,
        core_problem,
        flags,
        errors: parsed.errors,
        exit: out.exit.clone(),
        timed_out: out.timed_out,
        memout,
        late_answer,
        wall: crate::campaign::ledger::records::micros(out.wall),
        cpu: crate::campaign::ledger::records::micros(out.cpu),
        max_rss: out.max_rss,
        stdout_dropped: out.stdout_dropped,
        stderr_dropped: out.stderr_dropped,
        solver_version: version,
        timing: None,
        stderr_tail: crate::campaign::ledger::records::output_tail(&out.stderr, STDERR_LINES, 4096),
        programs: out
            .programs
            .iter()
            .map(|p| p.to_string_lossy().into_owned())
            .collect(),
        cached: false,
        measured: Some(out.measured_by),
        provenance: None,
        transcript: None,
        origin: None,
    }
}

/// Keep what a solver printed on an incremental script (matched to the
/// script by the check stage) instead of a single answer's core.
pub fn keep_transcript(rec: &mut RunRecord, out: &RunOutcome) {
    rec.transcript = Some(String::from_utf8_lossy(&out.stdout).into_owned());
    rec.core = None;
}

/// The pairs with a run record that counts now, a bit per (solver,
/// benchmark) place in the configuration and the index, and the pairs
/// whose records are all stale, with why. Whether each record counts,
/// and its pair, is worked out once and on every core (a million records
/// when there is nothing to do).
#[allow(clippy::type_complexity)]
fn done_pairs<'r>(
    l: &Loaded,
    all: &'r [RunRecord],
) -> (
    Vec<bool>,
    rustc_hash::FxHashMap<(&'r str, &'r str), &'static str>,
) {
    use rayon::prelude::*;
    let (why, ids): (Vec<_>, Vec<_>) = all
        .par_iter()
        .map(|r| (l.current.run_stale(r), l.pair_id(&r.solver, &r.benchmark)))
        .unzip();
    let stale = crate::campaign::ledger::current::stale_pairs(all, &why);
    let places = l.index.len();
    let mut done = vec![false; l.solvers.len() * places];
    for (why, id) in why.iter().zip(&ids) {
        if let (None, Some(id)) = (why, id) {
            done[id.solver() * places + id.bench()] = true;
        }
    }
    (done, stale)
}

/// What a solve pass did.
#[derive(Debug, Default, Clone)]
pub struct SolveSummary {
    pub total_pairs: usize,
    pub already_done: usize,
    pub ran: usize,
    /// Pairs run again because their records were of another configuration.
    pub redone: usize,
    /// Runs not recorded because of a fault on coreval's side (the named
    /// file vanished or changed during the run, the program could not be
    /// started): the pairs stay undone, and the next run does them.
    pub undone: usize,
    /// Runs imported from BenchExec result files (not run here).
    pub imported: usize,
    /// BenchExec runs that could not be imported (no log, no times): bad
    /// input, said with file and line; imported once fixed.
    pub not_imported: usize,
    pub interrupted: bool,
}

/// What the solve stage hands on: what it did, and `runs.jsonl` as it read
/// it when it appended nothing (the next reader takes it instead of
/// reading the journal again).
pub struct Solved {
    pub summary: SolveSummary,
    pub runs: Option<Vec<RunRecord>>,
}

/// Run the solve stage of a campaign. `filter` selects which pairs this
/// process owns (all of them, or one shard); `ran` hears each record as it
/// goes to the journal (from the worker that made it).
pub fn solve(
    l: &Loaded,
    filter: &dyn Fn(&str, &str) -> bool,
    cancel: &AtomicBool,
    ran: &(dyn Fn(&RunRecord, &Bench) + Sync),
) -> Result<Solved> {
    let (c, solvers, index) = (l.campaign, l.solvers, &l.index);
    let journal_path = c.journal_path(RUNS);
    // Only a record of what the configuration runs now counts as done.
    let all: Vec<RunRecord> = c.read_journal(RUNS)?;
    let (done, stale) = done_pairs(l, &all);
    reap_orphans(c, l.say);
    // A benchmark's place is the one its id leads to (an index that names
    // an id twice, left by an interrupted naming, has one place for both).
    let place: Vec<Option<usize>> = index.iter().map(|e| l.bench_place(&e.id)).collect();
    let mut todo = Vec::new();
    let mut summary = SolveSummary::default();
    for (si, s) in solvers.iter().enumerate() {
        for (e, place) in index.iter().zip(&place) {
            if !filter(&s.name, &e.id) || !entered(s, e) {
                continue;
            }
            summary.total_pairs += 1;
            if place.is_some_and(|b| done[si * index.len() + b]) {
                summary.already_done += 1;
            } else {
                todo.push((s, e));
            }
        }
    }
    // What this run redoes is counted as it is journaled, and said after.
    let redone = crate::campaign::ledger::current::Redone::new(stale);
    if todo.is_empty() {
        // Nothing appended: the next stage takes the records as read, while
        // this process holds the lock of the only journal (no shard writes
        // beside it).
        drop((redone, done));
        let only = c.shard_dir.is_none() && !c.dir.join("shards").exists();
        return Ok(Solved {
            summary,
            runs: only.then_some(all),
        });
    }
    // Once: runs are limited and measured by rusage here, not by cgroups.
    if let Some(why) = runner::cgroup::why_rusage() {
        let limit = c
            .memory
            .map_or(String::new(), |_| ", memory limit by RLIMIT_AS".into());
        l.say.note(format!(
            "runs measured by rusage{limit} ({why}); each run record says how it was measured"
        ));
    }
    let versions: HashMap<&str, Option<String>> = solvers
        .iter()
        .map(|s| (s.name.as_str(), l.current.version(&s.name, false)))
        .collect();
    // A run records the programs its process tree ran besides the
    // solver's own executable and script (those are in its provenance,
    // once): a plain solver's records stay small, a wrapper's name what it
    // started (the team identity, `campaign::setup::team`).
    let own: HashMap<&str, Vec<&str>> = solvers
        .iter()
        .map(|s| {
            let p = l.current.solvers.get(&s.name).map(|x| &x.program);
            let files = p.into_iter().flat_map(|p| [&p.executable, &p.script]);
            (
                s.name.as_str(),
                files.flatten().map(|f| f.path.as_str()).collect(),
            )
        })
        .collect();
    let journal = Journal::open(&journal_path)?;
    // Solvers whose runs BenchExec made: imported, not run.
    let (imported, todo): (Vec<_>, Vec<_>) =
        todo.into_iter().partition(|(s, _)| s.benchexec.is_some());
    for s in solvers {
        let Some(b) = &s.benchexec else { continue };
        let mine: Vec<&Bench> = (imported.iter())
            .filter(|(x, _)| x.name == s.name)
            .map(|(_, e)| *e)
            .collect();
        if mine.is_empty() || cancel.load(Ordering::SeqCst) {
            continue;
        }
        let version = versions[s.name.as_str()].clone();
        let records = benchexec::import(l, &s.name, b, &mine, version);
        let only: Vec<&RunRecord> = records.iter().map(|(r, _)| r).collect();
        journal.append_all(&only)?;
        for (rec, k) in &records {
            ran(rec, mine[*k]);
            redone.journaled((&s.name, &mine[*k].id), &s.name);
        }
        summary.imported += records.len();
        summary.not_imported += mine.len() - records.len();
    }
    let cache = solvers.iter().any(|s| s.cached).then(|| {
        let (cache, warnings) = RunCache::open(&c.cache_dir());
        for w in warnings {
            l.say.warning(w);
        }
        cache
    });
    let bar = l.say.bar("solve", todo.len() as u64);
    let named = c.named_dir();
    // Each of `jobs` workers (its slot) takes the next pair as soon as its
    // run is over; the pool's writer journals the records
    // (crate::process::pool).
    let next = AtomicUsize::new(0);
    let count = AtomicUsize::new(0);
    let faults = Faults::default();
    let sent = |s: &SolverUnderTest, e: &Bench, rec: &RunRecord| {
        ran(rec, e);
        count.fetch_add(1, Ordering::SeqCst);
        redone.journaled((&s.name, &e.id), &s.name);
    };
    let pool = crate::process::pool::Pool {
        slots: c.jobs,
        journal: &journal,
        bar: &bar,
    };
    let written = pool.run(
        |_: &[RunRecord]| {},
        || {},
        |slot| loop {
            if cancel.load(Ordering::SeqCst) || slot.stopped() {
                return;
            }
            let Some((s, e)) = todo.get(next.fetch_add(1, Ordering::SeqCst)) else {
                return;
            };
            let file = named.join(&e.output);
            let version = versions[s.name.as_str()].clone();
            let provenance = l.current.run_provenance(&s.name, e);
            let key = cache.as_ref().filter(|_| s.cached).and_then(|_| {
                let bench = l.current.bench_hash(&e.id)?;
                cache::key(&s.name, l.current.solvers.get(&s.name)?, bench)
            });
            let hit = key
                .as_ref()
                .and_then(|k| cache.as_ref()?.get(k, &s.name, &e.id));
            if let Some(mut rec) = hit {
                rec.provenance = provenance.map(Box::new);
                if slot.send(rec.clone()) {
                    sent(s, e, &rec);
                    slot.bar.inc(1);
                }
                continue;
            }
            let before = InputState::of(&file);
            let mut spec = spec_for(&s.def, &file, c, c.time, true);
            spec.workdir.clone_from(&s.workdir);
            spec.observe = s.observe;
            let out = runner::run(&spec, cancel);
            if out.cancelled {
                continue;
            }
            if let Some(why) = own_fault(&out, &file, &before) {
                faults.add(format!("{} on {}: {why}", s.name, e.id));
                slot.bar.inc(1);
                continue;
            }
            let memout = is_memout(&out, c.memory);
            let mut rec = record(&s.name, &e.id, &out, memout, version, s.def.answer_stream);
            rec.programs
                .retain(|p| !own[s.name.as_str()].contains(&p.as_str()));
            if e.incremental {
                keep_transcript(&mut rec, &out);
            }
            rec.timing = Some(Timing::of(&out, slot.index));
            rec.provenance = provenance.map(Box::new);
            if let (Some(k), Some(cache)) = (&key, &cache) {
                if let Some(w) = cache.put(k, &l.current.inline_run(&rec)) {
                    l.say.warning(w);
                }
            }
            // Refused only when the writer stopped on an error.
            if slot.send(rec.clone()) {
                sent(s, e, &rec);
                slot.bar.inc(1);
            }
        },
    );
    bar.finish_and_clear();
    written?;
    summary.undone = faults.say(l.say);
    summary.redone = redone.say("", "run(s)", l.say);
    summary.ran = count.into_inner();
    summary.interrupted = cancel.load(std::sync::atomic::Ordering::SeqCst);
    Ok(Solved {
        summary,
        runs: None,
    })
}

/// What a named file was before its run: its length and modification
/// time, or `None` when it was no regular file.
#[derive(PartialEq)]
struct InputState(Option<(u64, Option<std::time::SystemTime>)>);

impl InputState {
    fn of(file: &std::path::Path) -> InputState {
        InputState(
            std::fs::metadata(file)
                .ok()
                .filter(|m| m.is_file())
                .map(|m| (m.len(), m.modified().ok())),
        )
    }
}

/// Why a finished run is no outcome of the solver but a fault on
/// coreval's side, to be left undone rather than recorded: the program
/// could not be started (a preflight-checked program that fails to start
/// was refused a process: EAGAIN, ENOMEM…), or the named file it was
/// given was missing, or vanished or changed while it ran.
fn own_fault(out: &RunOutcome, file: &std::path::Path, before: &InputState) -> Option<String> {
    if let Some(why) = out.start_failure() {
        return Some(format!("could not be started: {why}"));
    }
    let shown = file.display();
    match (&before.0, InputState::of(file)) {
        (None, _) => Some(format!(
            "the named file {shown} was missing when the run began"
        )),
        (Some(_), InputState(None)) => {
            Some(format!("the named file {shown} vanished during the run"))
        }
        (Some(_), after) if &after != before => {
            Some(format!("the named file {shown} changed during the run"))
        }
        _ => None,
    }
}

/// The runs a solve pass left undone for a fault of its own, counted and
/// told once at the end with the first few causes.
#[derive(Default)]
struct Faults(std::sync::Mutex<Vec<String>>);

impl Faults {
    fn add(&self, why: String) {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).push(why);
    }

    /// Say them (an error: the run is incomplete) and return how many.
    fn say(self, say: crate::message::Say) -> usize {
        let mut all = self.0.into_inner().unwrap_or_else(|p| p.into_inner());
        all.sort();
        if !all.is_empty() {
            let shown: Vec<&str> = all.iter().take(3).map(String::as_str).collect();
            let more = all.len().saturating_sub(shown.len());
            let more = if more > 0 {
                format!(" (and {more} more)")
            } else {
                String::new()
            };
            say.error(format!(
                "{} run(s) left undone, not recorded: a fault on coreval's side, not the solver's: {}{more}; \
                 the next run does them",
                all.len(),
                shown.join("; ")
            ));
        }
        all.len()
    }
}
