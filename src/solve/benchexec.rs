//! The solve stage for a solver whose runs BenchExec made
//! (`[[solver]] benchexec`, [`crate::campaign::setup::benchexec`]): each
//! pair to do is the run of the result file on that benchmark, imported
//! instead of run. Its answer and core come from its log (what the tool
//! printed, after BenchExec's header), read by the parser every run goes
//! through ([`super::record`]); its CPU, wall, peak memory, exit code and
//! how it ended (`terminationreason`) from the result's columns, as
//! BenchExec measured them with its cgroups. The record says where it was
//! read (`origin`, `RESULT:LINE`). A run that cannot be imported (no log,
//! no times) is not recorded and is said, with its file and line; runs of
//! the file on no benchmark of the campaign are said once, counted, and
//! so are the logs that say `unsat` without a core.

use crate::answer::AnswerStream;
use crate::campaign::ledger::index::Bench;
use crate::campaign::ledger::records::RunRecord;
use crate::campaign::ledger::Loaded;
use crate::campaign::setup::benchexec::BenchExecRuns;
use crate::campaign::verdict::pair::RunStatus;
use crate::import::benchexec::{log_of, logs::Logs, measures};
use crate::runner::{Exit, RunOutcome};

/// Runs shown by name in a message; the rest are counted.
const SHOWN: usize = 3;

/// The records of solver `name`'s runs on `todo`, from its result file.
pub fn import(
    l: &Loaded,
    name: &str,
    b: &BenchExecRuns,
    todo: &[&Bench],
    version: Option<String>,
) -> Vec<(RunRecord, usize)> {
    let logs = match Logs::open(&b.logs) {
        Ok(logs) => logs,
        Err(e) => {
            l.say.error(format!(
                "solver '{name}': {e:#}; its {} run(s) are left undone",
                todo.len()
            ));
            return Vec::new();
        }
    };
    unmatched(l, name, b);
    let mut out = Vec::new();
    let mut problems = Vec::new();
    let mut no_core = Vec::new();
    for (k, e) in todo.iter().enumerate() {
        let Some(i) = b.run_on(&e.id, &e.output) else {
            continue;
        };
        let run = &b.file.runs[i];
        let origin = b.origin(i);
        let rec = measures(&run.cols).and_then(|m| {
            let log = log_of(&run.name, b.runset.as_deref(), &logs)?;
            Ok(record(name, e, m, log, version.clone(), origin.clone()))
        });
        match rec {
            Ok(mut rec) => {
                if rec.answer == crate::answer::Answer::Unsat && rec.core.is_none() {
                    no_core.push(format!("{origin} ({})", logs.path().display()));
                }
                rec.provenance = l.current.run_provenance(name, e).map(Box::new);
                out.push((rec, k));
            }
            Err(why) => problems.push(format!("{origin}: {why}")),
        }
    }
    if !no_core.is_empty() {
        l.say.warning(format!(
            "solver '{name}': {} run(s) answered unsat with no core in their log, so they earn nothing: {}",
            no_core.len(),
            shown(&no_core)
        ));
    }
    if !problems.is_empty() {
        l.say.error(format!(
            "solver '{name}': {} run(s) of {} not imported, left undone: {}",
            problems.len(),
            b.xml.display(),
            shown(&problems)
        ));
    }
    out
}

/// Say the runs of the file that are on no benchmark of the campaign.
fn unmatched(l: &Loaded, name: &str, b: &BenchExecRuns) {
    let mut lost: Vec<String> = (b.elsewhere.iter().copied())
        .map(|i| {
            format!(
                "{}: `{}` is no file below the benchmarks nor below named/",
                b.origin(i),
                b.file.runs[i].name
            )
        })
        .collect();
    let outputs: rustc_hash::FxHashSet<&str> = l.index.iter().map(|e| e.output.as_str()).collect();
    for (path, i) in b.matched() {
        let known = l.bench_place(path).is_some() || outputs.contains(path);
        if !known {
            lost.push(format!(
                "{}: `{}` is not a named benchmark of the campaign (not eligible, or not named yet)",
                b.origin(i),
                b.file.runs[i].name
            ));
        }
    }
    if !lost.is_empty() {
        lost.sort();
        l.say.warning(format!(
            "solver '{name}': {} run(s) of {} match no benchmark of the campaign and are left out: {}",
            lost.len(),
            b.xml.display(),
            shown(&lost)
        ));
    }
}

fn shown(all: &[String]) -> String {
    let mut text = all[..all.len().min(SHOWN)].join("; ");
    if all.len() > SHOWN {
        text.push_str(&format!(" (and {} more)", all.len() - SHOWN));
    }
    text
}

/// One imported run as a record: what it printed read like any run's
/// output, as BenchExec measured and ended it.
fn record(
    name: &str,
    e: &Bench,
    m: crate::import::benchexec::Measures,
    log: Vec<u8>,
    version: Option<String>,
    origin: String,
) -> RunRecord {
    let exit = match (m.signal, m.exit_code) {
        (Some(sig), _) if sig != 0 => Exit::Signaled(sig),
        (_, code) => Exit::Exited(code.unwrap_or(0)),
    };
    let out = RunOutcome {
        exit,
        timed_out: m.status == RunStatus::Timeout,
        cancelled: false,
        wall: m.wall,
        cpu: m.cpu,
        user: m.cpu,
        sys: 0.0,
        max_rss: m.memory.unwrap_or(0),
        stdout: log,
        stderr: Vec::new(),
        stdout_dropped: 0,
        stderr_dropped: 0,
        memory_limit_by: None,
        measured_by: Default::default(),
        memout: m.status == RunStatus::Memout,
        start: 0.0,
        end: 0.0,
        programs: Vec::new(),
    };
    let memout = m.status == RunStatus::Memout;
    let mut rec = super::record(name, &e.id, &out, memout, version, AnswerStream::Stdout);
    rec.origin = Some(origin);
    rec
}
