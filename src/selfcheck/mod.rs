//! `coreval selfcheck`: a solver author's benchmarks and solver command in,
//! one validated verdict per benchmark out, through a temporary campaign.
//!
//! The campaign is built programmatically ([`ConfigFile`] →
//! [`Campaign::from_config`]) in a temporary folder (or `--workdir`): the
//! given files are copied under `benchmarks/` ([`inputs`]), named with
//! settings that accept what authors' files look like (no `:status`, any
//! status, one assertion, their own `:named` terms kept), and the ordinary
//! stages run: solve, check, verdicts ([`crate::pipeline`]). The solver is an
//! inline command (words, no shell); its team keeps checkers of the same
//! team off its cores: `--team`, plus the team of every checker definition
//! whose program (or wrapper script, or name) the command runs
//! ([`crate::checkers::identity`]), so `cvc5 --produce-unsat-cores` is team
//! `cvc` and never judged by cvc4, cvc5 or cvc5-py; without either, the
//! program's file name.
//!
//! Reference reductions: of the selected checkers that produce cores, the
//! first of each team other than the solver's ([`team::references`]) also
//! runs as a solver under test (`ref-<name>`), its cores validated the same
//! way, so each benchmark reports the best validated reduction among them
//! beside the author's, and the benchmark's best-known core (from the
//! cache shared with every campaign, validated here first) is the
//! reference the author's core is measured against. With `--minimality`
//! the author's validated cores are tested for subset-minimality.
//! [`outcome`] turns the verdicts into test outcomes,
//! [`junit`] writes them for CI. [`run`] is a list of stages: those up to
//! the references' runs are in `flow.rs`, the checks and the results after
//! them in `gather.rs`; [`early`] says which verdicts are final before the
//! end (the `decided:` lines of a terminal).

pub mod early;
mod flow;
mod gather;
pub mod incremental;
pub mod inputs;
pub mod junit;
pub mod outcome;
pub mod rehearsal;
pub mod repro;
pub mod setup;
pub mod team;
pub mod words;

pub use setup::{verdict_options, Setup};
pub use words::{printable, solver_command, split_command};

use crate::campaign::verdict::policy::Policy;
use anyhow::{Context, Result};
use outcome::{BenchResult, Outcome};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

/// The author's solver's name inside the temporary campaign.
pub const SOLVER_NAME: &str = "solver-under-test";

/// What to check and how.
#[derive(Clone, Debug)]
pub struct Options {
    /// The solver command as words, one of them containing `{file}`.
    pub solver: Vec<String>,
    /// The solver's team; default: the program's file name.
    pub team: Option<String>,
    /// Benchmark files or folders.
    pub benchmarks: Vec<PathBuf>,
    /// Seconds per solver run (the author's and the references').
    pub timeout: f64,
    /// Seconds per checker run.
    pub checker_timeout: f64,
    /// Parallel jobs; 0 = cores.
    pub jobs: usize,
    /// Checker definitions to use; empty = every installed one.
    pub checkers: Vec<String>,
    pub policy: Policy,
    /// Run the core-producing checkers as reference solvers.
    pub references: bool,
    /// Treat every benchmark without a validated core as a failure.
    pub strict: bool,
    /// Definitions folder; default [`checkers::default_dir`].
    pub checkers_dir: Option<PathBuf>,
    /// Keep the campaign in this folder (new or empty) instead of a temporary one.
    pub workdir: Option<PathBuf>,
    /// Where the solver prints its answers; default stdout.
    pub answer_stream: Option<crate::answer::AnswerStream>,
    /// Test the author's validated cores for subset-minimality.
    pub minimality: bool,
    /// Seconds of checker time per core for that test.
    pub minimality_budget: f64,
    /// Scramble every benchmark with this seed before naming (one variant
    /// of the competition rehearsal, [`rehearsal`]).
    pub scramble_seed: Option<u32>,
    /// Where failing and undecided cores are kept; default
    /// [`repro::DEFAULT_KEEP`] in the current folder.
    pub keep: Option<PathBuf>,
    /// MB of each output stream kept per run; default the campaign's.
    pub output_cap_mb: Option<u64>,
    /// Someone watches `decided` (a terminal): the author's cores are
    /// checked before the references run, so that their verdicts come
    /// before the references' runs ([`early`]); otherwise all cores are
    /// checked together, once (a check stage less).
    pub tell: bool,
}

/// Everything a selfcheck found.
#[derive(Clone, Debug)]
pub struct Report {
    pub setup: Setup,
    /// One per benchmark, in argument order.
    pub results: Vec<BenchResult>,
    pub elapsed: f64,
    pub interrupted: bool,
    /// The campaign folder, when kept (`--workdir`).
    pub workdir: Option<PathBuf>,
    /// With [`Options::scramble_seed`]: by result path.
    pub scrambled: HashMap<String, rehearsal::Scrambled>,
    /// The keep folder, when something was kept in it.
    pub kept: Option<PathBuf>,
}

impl Report {
    pub fn count(&self, o: Outcome) -> usize {
        self.results.iter().filter(|r| r.outcome == o).count()
    }
}

/// Validate the options, then call `started` with the setup (once the
/// solver's team is known, after its runs), `warn` for each warning as it
/// comes and `decided` with each benchmark's result as soon as its verdict
/// is final ([`early`]: a verdict that needs no checker as its run ends,
/// one that needs the checkers once the team is known and its core
/// checked, an incremental script's once its run is judged), in that
/// order, not argument order ([`Report::results`] is, with every detail).
/// `Err` is for usage and tool errors only; every solver misbehaviour is
/// a result.
pub fn run(
    opts: &Options,
    cancel: &AtomicBool,
    started: &mut dyn FnMut(&Setup),
    warn: &mut dyn FnMut(String),
    decided: &mut dyn FnMut(&BenchResult),
) -> Result<Report> {
    let start = Instant::now();
    setup::check_numbers(opts)?;
    let base = flow::Base::load(opts)?;
    let parts = flow::Parts::collect(opts, warn)?;
    let (_temp, dir) = inputs::work_folder(opts.workdir.as_deref(), "coreval-selfcheck-")?;
    let mut work = flow::Work::create(opts, &base, &parts.single, dir, cancel)?;
    // The folder is new: the lock only keeps a second coreval out of it.
    let _lock = crate::store::lock::acquire_in(&work.dir, false, cancel)?;
    let mut early = early::Early::default();
    let solved = work.solve_author(&parts.single, &mut early, decided)?;
    let team = work.observe_team(&solved);
    work.add_references(&team);
    let last = work.load(work.config.clone(), flow::stages(false, true))?;
    let mut author = last
        .solver(SOLVER_NAME)
        .context("no solver under test")?
        .clone();
    author.runs.extend(team.seen.iter().cloned());
    author.executed = team.executed.clone();
    let count = parts.single.len() + parts.incremental.len();
    let defs = (&base.checkers[..], base.dir_defs.as_path());
    let setup = Setup::of(opts, defs, &author, &team.references, count, warn);
    started(&setup);
    let a = gather::Author {
        work: &work,
        inputs: &parts.single,
        runs: &solved.runs,
        sut: &author,
    };
    // Watched, the author's cores are checked before the references run.
    if let Some(named) = solved
        .summary
        .as_ref()
        .filter(|s| opts.tell && !s.interrupted)
    {
        let first = work.load(work.author_only(), flow::stages(false, true))?;
        let entries = named.name.as_ref().map_or(&[][..], |n| &n.entries);
        gather::check_author(&first, &a, entries, &mut early, decided)?;
    }
    let refs_interrupted = work.solve_references(&solved, &team)?;
    let incremental = incremental_part(&work, &parts, &author, decided)?;
    let keep = repro::keep_dir(opts.keep.as_deref());
    let mut report = Report {
        setup,
        results: Vec::new(),
        elapsed: 0.0,
        interrupted: cancel.load(std::sync::atomic::Ordering::Relaxed),
        workdir: opts.workdir.clone(),
        scrambled: HashMap::new(),
        kept: incremental
            .iter()
            .any(|r| r.outcome != Outcome::Passed)
            .then_some(keep),
    };
    if let Some(solved_single) = solved.summary {
        gather::single(
            &last,
            &a,
            solved_single,
            refs_interrupted,
            &mut early,
            &mut report,
            warn,
            decided,
        )?;
        if report.interrupted {
            return Ok(report);
        }
    }
    report.results.extend(incremental);
    report
        .results
        .sort_by_key(|r| parts.order.iter().position(|s| *s == r.path));
    report.elapsed = start.elapsed().as_secs_f64();
    Ok(report)
}

/// The incremental scripts, each run as written and judged
/// ([`incremental::check_all`]), told as each is judged.
fn incremental_part(
    work: &flow::Work,
    parts: &flow::Parts,
    author: &crate::campaign::setup::solvers::SolverUnderTest,
    decided: &mut dyn FnMut(&BenchResult),
) -> Result<Vec<BenchResult>> {
    let opts = work.opts;
    incremental::check_all(
        &parts.incremental,
        &incremental::Setting {
            author,
            checkers: &work.base.checkers,
            policy: opts.policy,
            timeout: opts.timeout,
            checker_timeout: opts.checker_timeout,
            dir: &work.dir.join("incremental"),
            keep: &repro::keep_dir(opts.keep.as_deref()),
            solver_words: &opts.solver,
        },
        work.cancel,
        decided,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn commands_split_without_a_shell() {
        assert_eq!(
            split_command("a 'b c' \"d $X\" {file}").unwrap(),
            ["a", "b c", "d $X", "{file}"]
        );
        assert!(split_command("a 'b").is_err());
        assert!(split_command("  ").is_err());
        let abs = solver_command(&["./s.sh".into(), "{file}".into()]).unwrap();
        assert!(Path::new(&abs[0]).is_absolute() && abs[0].ends_with("/s.sh"));
        assert_eq!(
            solver_command(&["z3".into(), "{file}".into()]).unwrap()[0],
            "z3"
        );
        assert!(solver_command(&["z3".into()])
            .unwrap_err()
            .to_string()
            .contains("{file}"));
    }

    #[test]
    fn any_status_is_accepted_when_asked() {
        use crate::benchmark::{analyze, Policy as Eligibility, Reason};
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("s.smt2");
        std::fs::write(
            &f,
            "(set-info :status sat)\n(set-logic QF_UF)\n(assert true)\n(check-sat)\n",
        )
        .unwrap();
        let info = analyze(&f).unwrap();
        let strict = Eligibility {
            min_assertions: 1,
            ..Eligibility::default()
        };
        assert!(matches!(
            info.ineligibility(&strict)[..],
            [crate::benchmark::Ineligibility {
                reason: Reason::StatusNotUnsat { .. },
                ..
            }]
        ));
        let any = Eligibility {
            accept_any_status: true,
            ..strict
        };
        assert!(info.ineligibility(&any).is_empty());
    }
}
