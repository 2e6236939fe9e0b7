//! The solve stage: run every solver under test on every named benchmark
//! and journal what each printed.
//!
//! Work is the set of (solver, benchmark) pairs not yet in `runs.jsonl`,
//! for the divisions each solver's definition supports with cores;
//! each finished pair appends one fsynced record, so a re-run (after a kill,
//! Ctrl-C or a crash) picks up exactly the missing pairs. Runs go through
//! the runner ([`crate::runner`]) with the campaign's limits; what a solver
//! printed becomes an answer ([`crate::answer`]) plus flags. An answer printed
//! after the time limit counts as a timeout (BenchExec does the same).

use crate::answer::{self, Answer};
use crate::campaign::Campaign;
use crate::checkers::{self, SolverDef};
use crate::journal::{self, Journal};
use crate::name::{IndexEntry, Outcome, INDEX_FILE};
use crate::runner::{self, Exit, RunOutcome, RunSpec};
use anyhow::{bail, Context, Result};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

/// File name of the runs journal.
pub const RUNS: &str = "runs.jsonl";

/// One finished (solver, benchmark) run: the journal record of `runs.jsonl`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct RunRecord {
    /// Solver name from the campaign config.
    pub solver: String,
    /// Benchmark id (path below the benchmark root).
    pub benchmark: String,
    /// The answer (`sat`, `unsat`, `unknown`, `timeout`, `error`, `no-answer`).
    pub answer: Answer,
    /// The core's names in normal form, in the order printed.
    pub core: Option<Vec<String>>,
    /// Output flags (errors before the answer, two answers, garbage…).
    pub flags: Vec<String>,
    /// `(error "…")` messages the solver printed.
    #[serde(default)]
    pub errors: Vec<String>,
    /// How the process ended: `exit N`, `signal N` or `failed to start: …`.
    pub exit: String,
    /// Killed at the time limit (any answer it printed is discarded).
    pub timed_out: bool,
    /// Ran out of the memory limit.
    pub memout: bool,
    /// The answer printed before the kill, when the run timed out.
    pub late_answer: Option<Answer>,
    /// Wall-clock seconds.
    pub wall: f64,
    /// CPU seconds of the whole process tree.
    pub cpu: f64,
    /// Peak resident memory in bytes.
    pub max_rss: u64,
    /// Bytes of stdout beyond the cap (not kept).
    pub stdout_dropped: u64,
    /// Solver version, from its version probe.
    pub solver_version: Option<String>,
}

/// A solver under test, resolved from the config.
#[derive(Clone, Debug)]
pub struct SolverUnderTest {
    pub name: String,
    pub team: String,
    /// Definition name when the solver is one of the checkers' definitions.
    pub definition: Option<String>,
    pub def: SolverDef,
}

/// Resolve the config's solvers against the definitions folder.
pub fn solvers_under_test(c: &Campaign, defs: &[SolverDef]) -> Result<Vec<SolverUnderTest>> {
    let mut out = Vec::new();
    for s in &c.config.solvers {
        let mut def = match (&s.definition, &s.command) {
            (Some(d), _) => {
                let Some(found) = defs.iter().find(|x| &x.name == d) else {
                    bail!(
                        "solver '{}': no definition '{d}' in the checkers folder (known: {})",
                        s.name,
                        defs.iter()
                            .map(|x| x.name.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    );
                };
                found.clone()
            }
            (None, Some(cmd)) => inline_def(c, &s.name, s.team.as_deref().unwrap_or(&s.name), cmd)?,
            (None, None) => bail!("solver '{}' has neither definition nor command", s.name),
        };
        def.command.extend(s.args.iter().cloned());
        let team = s.team.clone().unwrap_or_else(|| def.team.clone());
        out.push(SolverUnderTest {
            name: s.name.clone(),
            team,
            definition: s.definition.clone(),
            def,
        });
    }
    Ok(out)
}

/// A definition for an inline `command`: every logic, cores expected, a
/// relative program path taken from the campaign folder. No shell is
/// involved: the words are the program and its arguments. A config may ask
/// for a shell (`["sh", "-c", SCRIPT, "sh", "{file}"]`), but `{file}` inside
/// the script is refused: file names would be read as shell code.
pub fn inline_def(c: &Campaign, name: &str, team: &str, command: &[String]) -> Result<SolverDef> {
    let mut command = command.to_vec();
    if !command.iter().any(|a| a.contains("{file}")) {
        bail!("solver '{name}': the command needs a {{file}} argument");
    }
    if let Some(script) = shell_script(&command).filter(|s| s.contains("{file}")) {
        bail!(
            "solver '{name}': {{file}} inside the shell script {script:?} would run benchmark file names \
             as shell code; pass it as an argument: [\"sh\", \"-c\", \"mysolver \\\"$1\\\"\", \"sh\", \"{{file}}\"]"
        );
    }
    if command[0].contains('/') && !Path::new(&command[0]).is_absolute() {
        command[0] = c.dir.join(&command[0]).to_string_lossy().into_owned();
    }
    Ok(SolverDef {
        name: name.to_string(),
        team: team.to_string(),
        command,
        logics: vec!["*".into()],
        exclude_logics: Vec::new(),
        produces_cores: true,
        no_core_logics: Vec::new(),
        core_options: Vec::new(),
        version_command: Vec::new(),
        version_regex: None,
        install_hint: String::new(),
        accepts_named: true,
        unsupported_commands: Vec::new(),
        dir: checkers_dir(c),
        source: PathBuf::new(),
    })
}

/// The script of a command that runs a shell with `-c` (`sh -c SCRIPT …`).
fn shell_script(command: &[String]) -> Option<&str> {
    let program = Path::new(command.first()?).file_name()?.to_str()?;
    if !matches!(
        program,
        "sh" | "bash" | "dash" | "zsh" | "ksh" | "mksh" | "ash" | "busybox"
    ) {
        return None;
    }
    let i = command
        .iter()
        .position(|a| a.starts_with('-') && !a.starts_with("--") && a.contains('c'))?;
    command.get(i + 1).map(String::as_str)
}

/// A named benchmark, as the later stages need it.
#[derive(Clone, Debug)]
pub struct Bench {
    /// Benchmark id (path below the benchmark root).
    pub id: String,
    /// Its logic: the division.
    pub logic: String,
    /// The named file, relative to the campaign's `named/` folder.
    pub output: String,
    /// Prefix of the names coreval gave.
    pub prefix: String,
    /// A: number of named top-level assertions.
    pub assertions: u64,
    /// Declared `:status`, if any.
    pub status: Option<String>,
    /// Names of the top-level assertions (normal form).
    pub top_level: HashSet<String>,
    /// Names of nested `:named` terms.
    pub nested: HashSet<String>,
    /// The descrambling map of a scrambled benchmark, relative to `named/`.
    pub descramble: Option<String>,
}

impl Bench {
    fn from_entry(e: IndexEntry) -> Option<Bench> {
        if e.outcome != Outcome::Named {
            return None;
        }
        let top_level = e.top_level_names().into_iter().collect();
        Some(Bench {
            logic: e.logic.clone().unwrap_or_default(),
            output: e.output.clone()?,
            prefix: e.prefix.clone().unwrap_or_default(),
            assertions: e.assertions as u64,
            status: e.status.clone(),
            nested: e.nested_names.iter().cloned().collect(),
            descramble: e.descramble.clone(),
            top_level,
            id: e.id,
        })
    }
}

/// The named benchmarks of a campaign (eligible entries of the index whose
/// output is a safe path below `named/`, see [`crate::safepath`]).
pub fn read_index(c: &Campaign) -> Result<Vec<Bench>> {
    let path = c.named_dir().join(INDEX_FILE);
    let (entries, report): (Vec<IndexEntry>, _) = journal::read_all(&path)?;
    for w in report.warnings(&path) {
        journal::warn_once(w);
    }
    let mut benches = Vec::new();
    for e in entries {
        // The index is data on disk: its paths must stay inside `named/`.
        if let Some(Err(err)) = e.output.as_deref().map(crate::safepath::check) {
            journal::warn_once(format!(
                "{}: benchmark {:?} skipped: {err}",
                path.display(),
                e.id
            ));
            continue;
        }
        benches.extend(Bench::from_entry(e));
    }
    Ok(benches)
}

/// The runner spec of one job: `want_cores` adds the definition's core
/// options (solvers under test), checkers run without them.
pub fn spec_for(
    def: &SolverDef,
    file: &Path,
    c: &Campaign,
    time: std::time::Duration,
    want_cores: bool,
) -> RunSpec {
    let (program, args) = def.command(&checkers::Invocation {
        file,
        timeout: time,
        seed: 0,
        memory_mb: c.memory.map(|m| m / (1024 * 1024)),
        want_cores,
    });
    RunSpec {
        program,
        args,
        env: Vec::new(),
        workdir: None,
        wall_limit: time,
        grace: c.grace,
        memory_limit: c.memory,
        output_cap: c.output_cap,
        pid_dir: Some(c.pid_dir()),
    }
}

/// Whether a run died of the memory limit (RLIMIT_AS failures show as
/// allocation errors, a cgroup as SIGKILL at the limit).
pub fn is_memout(out: &RunOutcome, limit: Option<u64>) -> bool {
    let Some(limit) = limit else { return false };
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
) -> RunRecord {
    let parsed = answer::parse_output(&out.stdout);
    let mut parsed = parsed;
    if out.stdout_dropped > 0 {
        parsed.flag(answer::OutputFlag::Truncated);
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
    RunRecord {
        solver: solver.to_string(),
        benchmark: benchmark.to_string(),
        answer,
        core,
        flags,
        errors: parsed.errors,
        exit: match &out.exit {
            Exit::Exited(c) => format!("exit {c}"),
            Exit::Signaled(s) => format!("signal {s}"),
            Exit::FailedToStart(m) => format!("failed to start: {m}"),
        },
        timed_out: out.timed_out,
        memout,
        late_answer,
        wall: out.wall,
        cpu: out.cpu,
        max_rss: out.max_rss,
        stdout_dropped: out.stdout_dropped,
        solver_version: version,
    }
}

/// The kebab-case name of an output flag, as in the journals.
pub fn flag_name(f: &answer::OutputFlag) -> String {
    serde_json::to_value(f)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// What a solve pass did.
#[derive(Debug, Default, Clone)]
pub struct SolveSummary {
    pub total_pairs: usize,
    pub already_done: usize,
    pub ran: usize,
    pub interrupted: bool,
}

/// Whether a solver is entered in a benchmark's division: its definition
/// supports the logic with cores (an inline command: every division).
pub fn entered(s: &SolverUnderTest, e: &Bench) -> bool {
    s.def.supports(&e.logic) && s.def.supports_cores(&e.logic)
}

/// Run the solve stage of a campaign. `filter` selects which pairs this
/// process owns (all of them, or one shard).
pub fn solve(
    c: &Campaign,
    filter: &dyn Fn(&str, &str) -> bool,
    cancel: &AtomicBool,
) -> Result<SolveSummary> {
    let defs = checkers::load_dir(&checkers_dir(c))?;
    let solvers = solvers_under_test(c, &defs)?;
    let index = read_index(c)?;
    let journal_path = c.journal_path(RUNS);
    let done: Vec<RunRecord> = c.read_journal(RUNS)?;
    let done: HashSet<(String, String)> =
        done.into_iter().map(|r| (r.solver, r.benchmark)).collect();
    reap_orphans(c);
    let mut todo = Vec::new();
    let mut summary = SolveSummary::default();
    for s in &solvers {
        for e in &index {
            if !filter(&s.name, &e.id) || !entered(s, e) {
                continue;
            }
            summary.total_pairs += 1;
            if done.contains(&(s.name.clone(), e.id.clone())) {
                summary.already_done += 1;
            } else {
                todo.push((s, e));
            }
        }
    }
    if todo.is_empty() {
        return Ok(summary);
    }
    let versions: HashMap<&str, Option<String>> = solvers
        .iter()
        .map(|s| {
            (
                s.name.as_str(),
                if s.def.version_command.is_empty() {
                    None
                } else {
                    s.def.probe_version()
                },
            )
        })
        .collect();
    let journal = Journal::open(&journal_path)?;
    let bar = crate::progress::bar("solve", todo.len() as u64);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(c.jobs)
        .build()
        .context("cannot start worker threads")?;
    let named = c.named_dir();
    // After a failed append (disk full…) no new run starts: its record could
    // not be kept either.
    let failed = AtomicBool::new(false);
    let results: Vec<Result<bool>> = pool.install(|| {
        todo.par_iter()
            .map(|(s, e)| {
                if cancel.load(std::sync::atomic::Ordering::SeqCst)
                    || failed.load(std::sync::atomic::Ordering::SeqCst)
                {
                    return Ok(false);
                }
                let file = named.join(&e.output);
                let spec = spec_for(&s.def, &file, c, c.time, true);
                let out = runner::run(&spec, cancel);
                if out.cancelled {
                    return Ok(false);
                }
                let memout = is_memout(&out, c.memory);
                let rec = record(
                    &s.name,
                    &e.id,
                    &out,
                    memout,
                    versions[s.name.as_str()].clone(),
                );
                if let Err(err) = journal.append(&rec) {
                    failed.store(true, std::sync::atomic::Ordering::SeqCst);
                    return Err(err);
                }
                bar.inc(1);
                Ok(true)
            })
            .collect()
    });
    bar.finish_and_clear();
    for r in results {
        if r? {
            summary.ran += 1;
        }
    }
    summary.interrupted = cancel.load(std::sync::atomic::Ordering::SeqCst);
    Ok(summary)
}

/// Kill the solver and checker process groups that a killed coreval left
/// running in this campaign (see [`runner::reap_orphans`]); every stage that
/// starts processes calls it first.
pub fn reap_orphans(c: &Campaign) {
    let killed = runner::reap_orphans(&c.pid_dir());
    if killed > 0 {
        eprintln!("note: killed {killed} solver process group(s) left over by an interrupted run");
    }
}

/// The definitions folder of a campaign.
pub fn checkers_dir(c: &Campaign) -> PathBuf {
    match &c.config.checkers_dir {
        Some(d) if d.is_absolute() => d.clone(),
        Some(d) => c.dir.join(d),
        None => checkers::default_dir(),
    }
}
