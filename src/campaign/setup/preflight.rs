//! Preflight: the checks [`super::context::Context::load`] makes before any
//! stage runs, so that a campaign that cannot work is refused, naming the
//! config file and line.
//!
//! - at least one `[[solver]]` (for solving and checking);
//! - every solver under test can start: its program exists and is
//!   executable, a script's `#!` interpreter too, and its version command
//!   (if it has one) answers (a solver that cannot start would otherwise be
//!   journaled `failed to start` on every benchmark and rank first with no
//!   errors); a solver whose runs come from BenchExec has a readable,
//!   whole result file (a truncated `.xml.bz2` is refused) and its logs;
//! - every selected checker is known, installed and answers its version
//!   probe;
//! - (a note, not a refusal) an inline solver command that runs a checker's
//!   program is of that checker's team ([`crate::checkers::identity`]);
//! - the benchmark root holds `.smt2` files (with a hint when it holds
//!   `.SMT2` or `.smt` files instead), and every id of `benchmark_list`
//!   is one of them (each missing one with the list's line).
//!
//! Probes run in parallel. Every problem found is reported, all at once
//! ([`Problems`]), each with its `campaign.toml:LINE`: the values that
//! cannot work (a negative time limit, a solver listed twice: read by
//! [`Campaign::load_for_preflight`], which keeps them for here) beside a
//! new config's missing benchmarks, a solver that cannot start and an
//! unknown checker, in one run, not in two or three. A stage asked
//! for before the stage it needs (solving before naming) is not an error
//! but a hint: [`nothing_named`].

use super::config::Campaign;
use super::config_lines::{all_at_once, where_is, Key};
use super::solvers::{self, SolverUnderTest};
use crate::checkers::{Probe, SolverDef};
use anyhow::{anyhow, Result};
use std::path::{Path, PathBuf};

/// The problems preflight found in a campaign, each a line for the user
/// naming `campaign.toml:LINE`, its paths as the user gave them
/// ([`Campaign::shown_text`]).
pub(super) struct Problems<'a> {
    campaign: &'a Campaign,
    config: PathBuf,
    found: Vec<String>,
}

impl<'a> Problems<'a> {
    /// The problems of `campaign`, starting with its values that cannot
    /// work ([`Campaign::refused`]), so that they and every problem the
    /// checks find are reported in one run.
    pub(super) fn new(campaign: &'a Campaign) -> Self {
        Problems {
            campaign,
            config: campaign.config_file(),
            found: campaign.refused.clone(),
        }
    }

    /// Add a problem.
    pub(super) fn push(&mut self, problem: String) {
        let shown = self.campaign.shown_text(&problem);
        self.found.push(shown);
    }

    /// The value of `r`, or `None` with its error added.
    pub(super) fn check<T>(&mut self, r: Result<T>) -> Option<T> {
        r.map_err(|e| self.push(format!("{e:#}"))).ok()
    }

    /// Every problem found as one error, or `Ok` when there is none.
    pub(super) fn finish(self) -> Result<()> {
        if self.found.is_empty() {
            return Ok(());
        }
        Err(all_at_once(&self.config, self.found))
    }
}

/// One program to probe: what it is (for messages), where it is configured.
struct Subject {
    what: String,
    at: String,
    def: SolverDef,
}

/// Which stages to run. Verdicts are judged whenever checking or scoring.
#[derive(Clone, Copy, Debug, Default)]
pub struct Stages {
    pub name: bool,
    pub solve: bool,
    pub check: bool,
    pub score: bool,
}

impl Stages {
    /// Every stage.
    pub const ALL: Stages = Stages {
        name: true,
        solve: true,
        check: true,
        score: true,
    };
}

/// Refuse a campaign with nothing to run, or (naming) no benchmark.
pub(super) fn refuse_unrunnable(
    c: &Campaign,
    stages: Stages,
    config: &Path,
    problems: &mut Problems,
) {
    if (stages.solve || stages.check) && c.config.solvers.is_empty() {
        problems.push(format!(
            "{}: no [[solver]]: there is nothing to run; add one (a `[[solver]]` table with \
             `name` and `definition` or `command`, see `coreval init`)",
            config.display()
        ));
    }
    if stages.name {
        if let Some(found) = problems.check(benchmark_root(c, config)) {
            listed_benchmarks(c, config, &found, problems);
        }
    }
}

/// The solvers under test and (checking) the checkers selected among the
/// campaign's definitions `defs`; for solving and checking, every program
/// to run must start (when `probe`).
/// Notes for the user go to `notes`, what cannot work to `problems` (a
/// solver that cannot be resolved is left out of the result).
pub(super) fn resolve(
    c: &Campaign,
    defs: &[SolverDef],
    stages: Stages,
    config: &Path,
    probe: bool,
    notes: &mut Vec<String>,
    problems: &mut Problems,
) -> (Vec<SolverUnderTest>, Vec<SolverDef>) {
    let mut subjects = Vec::new();
    let mut all = Vec::new();
    for (i, s) in c.config.solvers.iter().enumerate() {
        let key = if s.definition.is_some() {
            "definition"
        } else if s.benchexec.is_some() {
            "benchexec"
        } else {
            "command"
        };
        let at = where_is(config, Key::Solver(i, key));
        let mut one = c.clone();
        one.config.solvers = vec![s.clone()];
        let resolved = solvers::solvers_under_test(&one, defs).map_err(|e| anyhow!("{at}: {e:#}"));
        let Some(mut resolved) = problems.check(resolved) else {
            continue;
        };
        if let (Some(_), Some((k, why))) = (&s.command, resolved[0].runs.first()) {
            if stages.check {
                notes.push(format!(
                    "note: {at}: solver '{}' {why} (checker {k}): it is of team {}, whose checkers do not judge its cores",
                    s.name,
                    resolved[0].teams.join(", ")
                ));
            }
        }
        // A BenchExec solver runs nothing: its result file and logs were
        // read as it was resolved.
        if stages.solve && s.benchexec.is_none() {
            subjects.push(Subject {
                what: format!("solver '{}'", s.name),
                at,
                def: resolved[0].def.clone(),
            });
        }
        all.push(resolved.remove(0));
    }
    let mut selected = Vec::new();
    if stages.check {
        let at = if c.config.check.checkers.is_empty() {
            None
        } else {
            Some(where_is(config, Key::Table("check", "checkers")))
        };
        let configured = super::selection::configured_checkers(c, defs).map_err(|e| match &at {
            Some(at) => anyhow!("{at}: {e:#}"),
            None => e,
        });
        selected = problems.check(configured).unwrap_or_default();
        for k in &selected {
            subjects.push(Subject {
                what: format!("checker '{}'", k.name),
                at: at.clone().unwrap_or_else(|| {
                    format!(
                        "{} (installed, so selected; name the checkers to use in check.checkers)",
                        k.source.display()
                    )
                }),
                def: k.clone(),
            });
        }
    }
    if probe {
        probe_all(&subjects, problems);
    }
    (all, selected)
}

/// Probe every subject in parallel; those that cannot start are problems.
fn probe_all(subjects: &[Subject], problems: &mut Problems) {
    let failures: Vec<String> = std::thread::scope(|scope| {
        let handles: Vec<_> = subjects
            .iter()
            .map(|s| scope.spawn(move || startable(&s.def).err()))
            .collect();
        subjects
            .iter()
            .zip(handles)
            .filter_map(|(s, h)| {
                let why = h
                    .join()
                    .unwrap_or_else(|_| Some("its probe panicked".into()))?;
                Some(format!("{}: {} cannot start: {why}", s.at, s.what))
            })
            .collect()
    });
    for f in failures {
        problems.push(f);
    }
}

/// Why the program of `def` cannot start, if it cannot.
pub fn startable(def: &SolverDef) -> std::result::Result<(), String> {
    if let Some(why) = def.missing() {
        return Err(if def.install_hint.is_empty() {
            why
        } else {
            format!("{why}; to install: {}", def.install_hint)
        });
    }
    if let Some(program) = def.program() {
        program_ok(&program)?;
    }
    if def.version_command.is_empty() {
        return Ok(());
    }
    match def.probe() {
        Probe::Ok { .. } => Ok(()),
        Probe::Missing { detail } => Err(detail),
        Probe::Broken { detail } => Err(format!("its version probe failed: {detail}")),
    }
}

/// The program must be something the kernel runs: an ELF binary, or a
/// script whose `#!` interpreter exists and is executable (the kernel
/// reports a missing interpreter as the script itself missing).
fn program_ok(program: &Path) -> std::result::Result<(), String> {
    // Unreadable (mode --x): nothing to inspect; the run will tell.
    let Ok(file) = crate::store::regular::open(program) else {
        return Ok(());
    };
    let mut head = Vec::with_capacity(256);
    let _ = std::io::Read::read_to_end(&mut std::io::Read::take(file, 256), &mut head);
    if head.starts_with(b"\x7fELF") {
        return Ok(());
    }
    let Some(line) = head.strip_prefix(b"#!") else {
        return Err(format!(
            "{} is neither a binary nor a script with a #! line",
            program.display()
        ));
    };
    let line = line.split(|&b| b == b'\n').next().unwrap_or_default();
    let text = String::from_utf8_lossy(line);
    let Some(interpreter) = text.split_whitespace().next() else {
        return Err(format!("{}: empty #! line", program.display()));
    };
    use std::os::unix::fs::PermissionsExt;
    let ok = std::fs::metadata(interpreter)
        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0);
    if ok {
        Ok(())
    } else {
        Err(format!(
            "{}: its interpreter {interpreter} (#! line) does not exist or is not executable",
            program.display()
        ))
    }
}

/// The ids of a missing file shown one a line; the others are counted.
const MISSING_SHOWN: usize = 20;

/// Every id of `benchmark_list` must be a benchmark found below the root
/// (`found`), and the list must name one.
fn listed_benchmarks(
    c: &Campaign,
    config: &Path,
    found: &crate::benchmark::Discovery,
    problems: &mut Problems,
) {
    let Some(list) = &c.benchmark_list else {
        return;
    };
    let at = where_is(config, Key::Table("", "benchmark_list"));
    let shown = c.shown(list);
    let listed = match super::config::benchmark_list::read(list) {
        Ok(l) => l,
        Err(e) => {
            problems.push(format!("{at}: benchmark_list: {e:#}"));
            return;
        }
    };
    if listed.is_empty() {
        problems.push(format!(
            "{at}: benchmark_list: {} names no benchmark (one id a line, relative to `benchmarks`)",
            shown.display()
        ));
        return;
    }
    let ids: std::collections::HashSet<&str> = found.files.iter().map(|f| f.id.as_str()).collect();
    let missing: Vec<_> = listed
        .iter()
        .filter(|l| !ids.contains(l.id.as_str()))
        .collect();
    let root = c.shown(&c.benchmarks);
    for l in missing.iter().take(MISSING_SHOWN) {
        problems.push(format!(
            "{at}: benchmark_list: {}:{}: {:?} has no file below {} (ids are relative to `benchmarks`)",
            shown.display(),
            l.line,
            l.id,
            root.display()
        ));
    }
    if missing.len() > MISSING_SHOWN {
        problems.push(format!(
            "{at}: benchmark_list: and {} more ids of {} have no file below {}",
            missing.len() - MISSING_SHOWN,
            shown.display(),
            root.display()
        ));
    }
}

/// The benchmark root must hold benchmarks: what it holds.
fn benchmark_root(c: &Campaign, config: &Path) -> Result<crate::benchmark::Discovery> {
    let at = || where_is(config, Key::Table("", "benchmarks"));
    let root = c.shown(&c.benchmarks);
    if !c.benchmarks.exists() {
        anyhow::bail!(
            "{}: benchmarks: {} does not exist; set `benchmarks` to the folder of your .smt2 \
             files (relative to {})",
            at(),
            root.display(),
            c.shown_dir.display()
        );
    }
    let found =
        crate::benchmark::discover(&c.benchmarks).map_err(|e| anyhow!("{}: {e:#}", at()))?;
    if !found.files.is_empty() {
        return Ok(found);
    }
    let hint = match found.near_misses.first() {
        Some(first) => format!(
            "; {} file(s) have another extension, such as {}: benchmarks must end in `.smt2` \
             (lower case); rename them",
            found.near_misses.len(),
            first.display()
        ),
        None => String::new(),
    };
    anyhow::bail!(
        "{}: no benchmark (.smt2 file) under {}{hint}",
        at(),
        root.display()
    )
}
