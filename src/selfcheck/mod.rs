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
//! Reference reductions: every selected checker that produces cores also
//! runs as a solver under test (`ref-<name>`), its cores validated the same
//! way, so each benchmark reports the best validated reduction among them
//! beside the author's, and the benchmark's best-known core (from the
//! cache shared with every campaign, validated here first) is the
//! reference the author's core is measured against. With `--minimality`
//! the author's validated cores are tested for subset-minimality.
//! [`outcome`] turns the verdicts into test outcomes,
//! [`junit`] writes them for CI.

pub mod inputs;
pub mod junit;
pub mod outcome;

use crate::campaign::index::Outcome as NameOutcome;
use crate::campaign::pair::PairVerdict;
use crate::campaign::policy::Policy;
use crate::campaign::records::RunRecord;
use crate::campaign::solvers::SolverUnderTest;
use crate::campaign::{Campaign, Check, ConfigFile, Limits, Naming, Score, SolverEntry};
use crate::checkers::{self, SolverDef};
use anyhow::{bail, Context, Result};
use outcome::{BenchResult, Outcome, Pair, REFERENCE_PREFIX};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
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
}

/// The run settings, for the report header and the JUnit properties.
#[derive(Clone, Debug)]
pub struct Setup {
    pub solver: String,
    /// The solver's teams (the first is the declared or default one).
    pub team: String,
    /// The checker definitions the command runs, each with why.
    pub runs: Vec<(String, String)>,
    /// Selected checkers left out as the solver's own team.
    pub excluded: Vec<String>,
    pub checkers: Vec<String>,
    pub references: Vec<String>,
    pub policy: Policy,
    pub benchmarks: usize,
    /// The minimality check's budget per core, when it is on.
    pub minimality_budget: Option<f64>,
}

impl Setup {
    /// (name, value) pairs for JUnit `<properties>`.
    pub fn properties(&self) -> Vec<(String, String)> {
        vec![
            ("solver".into(), self.solver.clone()),
            ("team".into(), self.team.clone()),
            ("excluded-checkers".into(), self.excluded.join(",")),
            ("checkers".into(), self.checkers.join(",")),
            ("references".into(), self.references.join(",")),
            ("policy".into(), self.policy.to_string()),
            (
                "minimality".into(),
                match self.minimality_budget {
                    Some(b) => format!("on (budget {b} s per core)"),
                    None => "off".into(),
                },
            ),
        ]
    }
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
}

impl Report {
    pub fn count(&self, o: Outcome) -> usize {
        self.results.iter().filter(|r| r.outcome == o).count()
    }
}

/// Validate the options, then call `started` with the setup (before any
/// solver runs) and `warn` for each warning as it comes. `Err` is for usage
/// and tool errors only; every solver misbehaviour is a result.
pub fn run(
    opts: &Options,
    cancel: &AtomicBool,
    started: &mut dyn FnMut(&Setup),
    warn: &mut dyn FnMut(String),
) -> Result<Report> {
    let start = Instant::now();
    for (what, v) in [
        ("--timeout", opts.timeout),
        ("--checker-timeout", opts.checker_timeout),
    ] {
        if !(v.is_finite() && v > 0.0 && v < 1e7) {
            bail!("{what} must be a positive number of seconds, not {v}");
        }
    }
    if !(opts.minimality_budget.is_finite() && (0.0..1e9).contains(&opts.minimality_budget)) {
        bail!(
            "--minimality-budget must be a non-negative number of seconds, not {}",
            opts.minimality_budget
        );
    }
    let command = solver_command(&opts.solver)?;
    let dir_defs = opts
        .checkers_dir
        .clone()
        .unwrap_or_else(checkers::default_dir);
    let defs = checkers::load_dir(&dir_defs)?;
    let runs = checkers::identity::runs_words(&command, &defs);
    let team = match &opts.team {
        Some(t) if t.trim().is_empty() || t.chars().any(char::is_control) => {
            bail!("--team must be a non-empty name without control characters")
        }
        Some(t) => t.clone(),
        None => match runs
            .first()
            .and_then(|(k, _)| defs.iter().find(|d| &d.name == k))
        {
            Some(d) => d.team.clone(),
            None => Path::new(&command[0])
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
        },
    };
    let checkers = select_checkers(&defs, &opts.checkers)?;
    let inputs = inputs::collect(&opts.benchmarks, warn)?;

    let (_temp, dir) = match &opts.workdir {
        Some(d) => {
            if d.exists()
                && std::fs::read_dir(d)
                    .map(|mut r| r.next().is_some())
                    .unwrap_or(true)
            {
                bail!("--workdir {} must be a new or empty folder", d.display());
            }
            std::fs::create_dir_all(d).with_context(|| format!("cannot create {}", d.display()))?;
            (None, d.clone())
        }
        None => {
            let t = tempfile::Builder::new()
                .prefix("coreval-selfcheck-")
                .tempdir()
                .context("cannot create a temporary folder")?;
            let p = t.path().to_path_buf();
            (Some(t), p)
        }
    };
    inputs::place(&inputs, &dir.join("benchmarks"))?;
    let references: Vec<&SolverDef> = if opts.references {
        checkers.iter().filter(|k| k.produces_cores).collect()
    } else {
        Vec::new()
    };
    let mut solvers = vec![SolverEntry {
        name: SOLVER_NAME.into(),
        definition: None,
        command: Some(command.clone()),
        team: Some(team.clone()),
        args: Vec::new(),
        answer_stream: opts.answer_stream,
    }];
    solvers.extend(references.iter().map(|k| SolverEntry {
        name: format!("{REFERENCE_PREFIX}{}", k.name),
        definition: Some(k.name.clone()),
        command: None,
        team: None,
        args: Vec::new(),
        answer_stream: None,
    }));
    let config = ConfigFile {
        benchmarks: "benchmarks".into(),
        checkers_dir: Some(std::path::absolute(&dir_defs)?),
        jobs: opts.jobs,
        cache: None,
        naming: Naming {
            prefix: String::new(),
            named_policy: crate::benchmark::NamedPolicy::Keep,
            min_assertions: 1,
            allow_no_status: true,
            accept_any_status: true,
            ..Naming::default()
        },
        limits: Limits {
            time: Some(opts.timeout),
            checker_time: opts.checker_timeout,
            ..Limits::default()
        },
        check: Check {
            checkers: checkers.iter().map(|k| k.name.clone()).collect(),
            policy: opts.policy,
            independent: true,
            early_stop: true,
            minimality: opts.minimality,
            minimality_budget: opts.minimality_budget,
            best_known: true,
            shrink_budget: 0.0,
        },
        score: Score::default(),
        solvers,
    };
    let c = Campaign::from_config(&dir, config)?;
    let inline = crate::campaign::solvers::inline_def(&c, SOLVER_NAME, &team, &command)?;
    if let Some(why) = inline.missing() {
        bail!("--solver: {why}");
    }
    let stages = crate::pipeline::Stages {
        name: true,
        solve: true,
        check: true,
        score: false,
    };
    // Its notes are the setup's (`runs`, `excluded`); the folder is new.
    let ctx = crate::campaign::context::Context::load(c, stages)?;
    let _lock = crate::lock::acquire_in(&ctx.campaign.dir, false, cancel)?;
    let c = &ctx.campaign;
    let author = ctx.solver(SOLVER_NAME).context("no solver under test")?;
    let excluded: Vec<String> = checkers
        .iter()
        .filter(|k| author.same_team(k))
        .map(|k| k.name.clone())
        .collect();
    if excluded.len() == checkers.len() {
        warn(format!(
            "every selected checker ({}) is of the solver's team {}: no core can be validated; \
             install or select an independent checker (--checkers)",
            excluded.join(", "),
            author.teams.join(", ")
        ));
    }
    let setup = Setup {
        solver: shown_command(&opts.solver),
        team: author.teams.join(", "),
        runs: author.runs.clone(),
        excluded,
        checkers: checkers.iter().map(|k| k.name.clone()).collect(),
        references: references.iter().map(|k| k.name.clone()).collect(),
        policy: opts.policy,
        benchmarks: inputs.len(),
        minimality_budget: opts.minimality.then_some(opts.minimality_budget),
    };
    started(&setup);

    let done = crate::pipeline::run(&ctx, None, None, cancel, &mut crate::pipeline::Quiet)?;
    let named = done.name.context("the name stage did not run")?;
    let entries: HashMap<&str, &crate::campaign::index::IndexEntry> =
        named.entries.iter().map(|e| (e.id.as_str(), e)).collect();
    for i in &inputs {
        if let Some(e) = entries
            .get(i.id.as_str())
            .filter(|e| e.outcome == NameOutcome::Named)
        {
            for w in inputs::warnings(i, e) {
                warn(w);
            }
        }
    }
    let interrupted = done.interrupted;
    let mut report = Report {
        setup,
        results: Vec::new(),
        elapsed: 0.0,
        interrupted,
        workdir: opts.workdir.clone(),
    };
    if interrupted {
        return Ok(report);
    }
    let pairs = done.pairs.unwrap_or_default();
    let runs: Vec<RunRecord> = c.read_journal(crate::campaign::records::RUNS)?;
    let run_of: HashMap<(&str, &str), &RunRecord> = runs
        .iter()
        .map(|r| ((r.solver.as_str(), r.benchmark.as_str()), r))
        .collect();
    for i in &inputs {
        let Some(entry) = entries.get(i.id.as_str()) else {
            bail!("{}: missing from the naming index", i.shown)
        };
        let mine = pairs
            .iter()
            .find(|p| p.pair.solver == SOLVER_NAME && p.pair.benchmark == i.id);
        let refs: Vec<&PairVerdict> = pairs
            .iter()
            .filter(|p| p.pair.benchmark == i.id && p.pair.solver.starts_with(REFERENCE_PREFIX))
            .collect();
        let core_file = mine
            .and_then(|p| p.core_hash.as_ref())
            .map(|h| c.cores_dir().join(format!("{h}.smt2")));
        let author_pair = match (mine, run_of.get(&(SOLVER_NAME, i.id.as_str()))) {
            (Some(p), Some(run)) => Some(Pair {
                verdict: p,
                run,
                no_checker: no_checker(&checkers, &author, entry.logic.as_deref().unwrap_or("")),
                core_file: opts.workdir.as_ref().and(core_file.as_deref()),
            }),
            _ => None,
        };
        report.results.push(outcome::classify(
            i,
            entry,
            author_pair,
            &refs,
            &opts.policy.to_string(),
            opts.strict,
        ));
    }
    report.elapsed = start.elapsed().as_secs_f64();
    Ok(report)
}

/// The solver command's words: `{file}` required, a relative program path
/// made absolute (solvers run in their own working folders).
pub fn solver_command(words: &[String]) -> Result<Vec<String>> {
    let Some(program) = words.first() else {
        bail!("--solver is empty")
    };
    if !words.iter().any(|w| w.contains("{file}")) {
        bail!("--solver needs a {{file}} argument where the benchmark goes, e.g. --solver 'mysolver --cores {{file}}'");
    }
    let mut out = words.to_vec();
    if program.contains('/') && !Path::new(program).is_absolute() {
        out[0] = std::path::absolute(program)?.to_string_lossy().into_owned();
    }
    Ok(out)
}

/// The command for people: words joined by spaces, quoted only when needed.
fn shown_command(words: &[String]) -> String {
    let shown: Vec<String> = words
        .iter()
        .map(|w| {
            if w.is_empty() || w.contains(|c: char| c.is_whitespace() || "'\"\\$`".contains(c)) {
                shlex::try_quote(w)
                    .map(|q| q.into_owned())
                    .unwrap_or_else(|_| w.clone())
            } else {
                w.clone()
            }
        })
        .collect();
    shown.join(" ")
}

/// Split a `--solver` string into words the POSIX shell way, without a shell.
pub fn split_command(s: &str) -> Result<Vec<String>> {
    match shlex::split(s) {
        Some(w) if !w.is_empty() => Ok(w),
        Some(_) => bail!("--solver is empty"),
        None => bail!("--solver: unbalanced quotes or a trailing backslash in {s:?}"),
    }
}

/// The named checkers (each must exist and be installed), or every installed one.
fn select_checkers(defs: &[SolverDef], names: &[String]) -> Result<Vec<SolverDef>> {
    let picked: Vec<SolverDef> = if names.is_empty() {
        defs.iter().filter(|d| d.is_installed()).cloned().collect()
    } else {
        let mut out = Vec::new();
        for n in names {
            let Some(d) = defs.iter().find(|d| &d.name == n) else {
                let known: Vec<&str> = defs.iter().map(|d| d.name.as_str()).collect();
                bail!(
                    "--checkers: no definition '{n}' (known: {})",
                    known.join(", ")
                );
            };
            if let Some(why) = d.missing() {
                bail!(
                    "--checkers: '{n}' is not installed ({why}); {}",
                    d.install_hint
                );
            }
            if !out.iter().any(|x: &SolverDef| x.name == d.name) {
                out.push(d.clone());
            }
        }
        out
    };
    if picked.is_empty() {
        bail!("no checker is installed: run `bash checkers/install.sh` (see `coreval checkers`)");
    }
    Ok(picked)
}

/// Whether no checker independent of the author's team handles `logic`.
fn no_checker(checkers: &[SolverDef], author: &SolverUnderTest, logic: &str) -> bool {
    crate::campaign::selection::select(checkers, logic, author, true).is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

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
