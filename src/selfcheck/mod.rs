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
//! [`junit`] writes them for CI.

pub mod incremental;
pub mod inputs;
pub mod junit;
pub mod outcome;
pub mod rehearsal;
pub mod repro;
pub mod setup;
pub mod team;
mod words;

use setup::{no_checker, own_team_origin, select_checkers};
pub use setup::{verdict_options, Setup};
use words::{origin_for_people, shown_command};
pub use words::{printable, solver_command, split_command};

use crate::campaign::ledger::index::{IndexEntry, Outcome as NameOutcome};
use crate::campaign::ledger::records::{RunRecord, RUNS};
use crate::campaign::setup::context::{self, Definitions};
use crate::campaign::setup::{Campaign, Check, ConfigFile, Limits, Naming, Score, SolverEntry};
use crate::campaign::verdict::pair::{PairVerdict, Verdict};
use crate::campaign::verdict::policy::Policy;
use crate::checkers;
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
    /// Scramble every benchmark with this seed before naming (one variant
    /// of the competition rehearsal, [`rehearsal`]).
    pub scramble_seed: Option<u32>,
    /// Where failing and undecided cores are kept; default
    /// [`repro::DEFAULT_KEEP`] in the current folder.
    pub keep: Option<PathBuf>,
    /// MB of each output stream kept per run; default the campaign's.
    pub output_cap_mb: Option<u64>,
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

/// Validate the options, then call `started` with the setup (before any
/// solver runs), `warn` for each warning as it comes and `decided` with
/// each benchmark's result as soon as it is final (an incremental script's
/// once its run is judged; a single-query benchmark's once the check stage
/// has ended and its details are gathered), in that order, not argument
/// order ([`Report::results`] is). `Err` is for usage and tool errors only;
/// every solver misbehaviour is a result.
pub fn run(
    opts: &Options,
    cancel: &AtomicBool,
    started: &mut dyn FnMut(&Setup),
    warn: &mut dyn FnMut(String),
    decided: &mut dyn FnMut(&BenchResult),
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
    // Loaded once, here: the team and the checkers are chosen from them,
    // and both loads of the campaign below take them as they are.
    let dir_defs = std::path::absolute(&dir_defs)?;
    let definitions = Definitions::load(&dir_defs)
        .with_context(|| format!("checker definitions in {}", dir_defs.display()))?;
    let defs = definitions.all();
    let runs = checkers::identity::runs_words(&command, defs);
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
    let checkers = select_checkers(defs, &opts.checkers, &dir_defs)?;
    let mut incremental_inputs = Vec::new();
    let mut single = Vec::new();
    let mut order: Vec<String> = Vec::new();
    for i in inputs::collect(&opts.benchmarks, warn)? {
        order.push(i.shown.clone());
        match crate::incremental::commands(&i.source) {
            Some(cmds) => incremental_inputs.push((i, cmds)),
            None => single.push(i),
        }
    }
    let inputs = single;

    let (_temp, dir) = inputs::work_folder(opts.workdir.as_deref(), "coreval-selfcheck-")?;
    std::fs::create_dir_all(dir.join("benchmarks"))?;
    inputs::place(&inputs, &dir.join("benchmarks"))?;
    // The author's solver runs where selfcheck was started: relative paths
    // in its command work as they do in the author's shell.
    let here = std::env::current_dir().context("cannot read the current folder")?;
    let solvers = vec![SolverEntry {
        name: SOLVER_NAME.into(),
        definition: None,
        command: Some(command.clone()),
        team: Some(team.clone()),
        args: Vec::new(),
        answer_stream: opts.answer_stream,
        workdir: Some(here),
        teams: Vec::new(),
        cached: false,
        observe: true,
    }];
    let mut config = ConfigFile {
        benchmarks: "benchmarks".into(),
        checkers_dir: Some(dir_defs.clone()),
        jobs: opts.jobs,
        cache: None,
        naming: Naming {
            prefix: String::new(),
            named_policy: crate::benchmark::NamedPolicy::Keep,
            min_assertions: 1,
            allow_no_status: true,
            accept_any_status: true,
            scramble_seed: opts.scramble_seed,
            ..Naming::default()
        },
        limits: Limits {
            time: Some(opts.timeout),
            checker_time: opts.checker_timeout,
            output_cap_mb: opts
                .output_cap_mb
                .unwrap_or(Limits::default().output_cap_mb),
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
            ..Check::default()
        },
        score: Score::default(),
        solvers,
    };
    let c = Campaign::from_config(&dir, config.clone())?;
    let inline = crate::campaign::setup::solvers::inline_def(&c, SOLVER_NAME, &team, &command)?;
    if let Some(why) = inline.missing() {
        bail!("--solver: {why}");
    }
    // The folder is new: the lock only keeps a second coreval out of it.
    let _lock = crate::lock::acquire_in(&dir, false, cancel)?;
    let quiet = &crate::pipeline::Quiet;
    // Solve first: the checkers' programs seen running in the solver's
    // process tree join its team before any core is checked. Incremental
    // scripts alone: nothing to name or solve here (they run as written in
    // `incremental::check_all`).
    let stages = |name: bool, check: bool| crate::pipeline::Stages {
        name,
        solve: !check,
        check,
        score: false,
    };
    let ctx =
        context::Context::load_with(c, stages(!inputs.is_empty(), false), definitions.clone())?;
    let declared = ctx
        .solver(SOLVER_NAME)
        .context("no solver under test")?
        .runs
        .clone();
    let solved = match inputs.is_empty() {
        true => None,
        false => Some(crate::pipeline::run(&ctx, None, None, cancel, quiet)?),
    };
    let runs: Vec<RunRecord> = match solved {
        Some(_) => ctx.campaign.read_journal(RUNS)?,
        None => Vec::new(),
    };
    let (seen, seen_teams) = team::seen(&runs, SOLVER_NAME, defs, &declared);
    // The references are chosen once the team is known: none of the teams
    // declared, named by the command or seen running in its process tree.
    let mut teams = ctx
        .solver(SOLVER_NAME)
        .context("no solver under test")?
        .teams
        .clone();
    for t in &seen_teams {
        if !teams.contains(t) {
            teams.push(t.clone());
        }
    }
    config.solvers[0].teams = seen_teams;
    let references = match opts.references {
        true => team::references(&checkers, &teams),
        false => Vec::new(),
    };
    config
        .solvers
        .extend(references.iter().map(|k| SolverEntry {
            name: format!("{REFERENCE_PREFIX}{}", k.name),
            definition: Some(k.name.clone()),
            command: None,
            team: None,
            args: Vec::new(),
            answer_stream: None,
            workdir: None,
            teams: Vec::new(),
            // A reference's run is the same from one selfcheck to the next.
            cached: true,
            observe: false,
        }));
    // The references solve now (the author's runs are done).
    let refs_interrupted = match (&solved, references.is_empty()) {
        (Some(s), false) if !s.interrupted => {
            let solve_refs = context::Context::load_with(
                Campaign::from_config(&dir, config.clone())?,
                stages(false, false),
                definitions.clone(),
            )?;
            crate::pipeline::run(&solve_refs, None, None, cancel, quiet)?.interrupted
        }
        _ => false,
    };
    // Its notes are the setup's (`runs`, `excluded`).
    let ctx = context::Context::load_with(
        Campaign::from_config(&dir, config)?,
        stages(false, true),
        definitions,
    )?;
    let c = &ctx.campaign;
    let mut author = ctx
        .solver(SOLVER_NAME)
        .context("no solver under test")?
        .clone();
    author.runs.extend(seen);
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
        team_how: team::how(opts.team.is_some(), &author.runs),
        runs: author.runs.clone(),
        excluded,
        checkers: checkers.iter().map(|k| k.name.clone()).collect(),
        references: references.iter().map(|k| k.name.clone()).collect(),
        policy: opts.policy,
        benchmarks: inputs.len() + incremental_inputs.len(),
        minimality_budget: opts.minimality.then_some(opts.minimality_budget),
        checkers_dir: dir_defs.clone(),
        options: verdict_options(opts, &dir_defs),
    };
    started(&setup);
    let incremental_results = incremental::check_all(
        &incremental_inputs,
        &incremental::Setting {
            author: &author,
            checkers: &checkers,
            policy: opts.policy,
            timeout: opts.timeout,
            checker_timeout: opts.checker_timeout,
            dir: &dir.join("incremental"),
            keep: &repro::keep_dir(opts.keep.as_deref()),
            solver_words: &opts.solver,
        },
        cancel,
        decided,
    )?;
    let incremental_kept = incremental_results
        .iter()
        .any(|r| r.outcome != Outcome::Passed)
        .then(|| repro::keep_dir(opts.keep.as_deref()));
    let Some(solved) = solved else {
        return Ok(Report {
            setup,
            results: incremental_results,
            elapsed: start.elapsed().as_secs_f64(),
            interrupted: cancel.load(std::sync::atomic::Ordering::Relaxed),
            workdir: opts.workdir.clone(),
            scrambled: HashMap::new(),
            kept: incremental_kept,
        });
    };
    let named = solved.name.context("the name stage did not run")?;

    let done = match solved.interrupted || refs_interrupted {
        true => crate::pipeline::Summary {
            interrupted: true,
            ..Default::default()
        },
        false => crate::pipeline::run(&ctx, None, None, cancel, quiet)?,
    };
    let entries: HashMap<&str, &IndexEntry> =
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
    let interrupted = solved.interrupted || refs_interrupted || done.interrupted;
    let mut report = Report {
        setup,
        results: Vec::new(),
        elapsed: 0.0,
        interrupted,
        workdir: opts.workdir.clone(),
        scrambled: HashMap::new(),
        kept: incremental_kept,
    };
    if interrupted {
        return Ok(report);
    }
    let pairs = done.pairs.unwrap_or_default();
    let keep = repro::keep_dir(opts.keep.as_deref());
    let repro = repro::Repro {
        keep: &keep,
        campaign: &c,
        solver_words: &opts.solver,
        author: &author,
        checkers: &checkers,
    };
    // Every run, the references' included (they solved after `runs` was read).
    let all_runs: Vec<RunRecord> = c.read_journal(RUNS)?;
    let run_of: HashMap<(&str, &str), &RunRecord> = runs
        .iter()
        .map(|r| ((r.solver.as_str(), r.benchmark.as_str()), r))
        .collect();
    // A reference of a team seen running in the solver's process tree
    // (known only after solving) confirms nothing of the solver's.
    let independent_reference = |solver: &str| {
        let name = solver.strip_prefix(REFERENCE_PREFIX);
        checkers
            .iter()
            .any(|k| name == Some(k.name.as_str()) && !author.same_team(k))
    };
    for i in &inputs {
        let Some(entry) = entries.get(i.id.as_str()) else {
            bail!("{}: missing from the naming index", i.shown)
        };
        let mine = pairs
            .iter()
            .find(|p| p.pair.solver == SOLVER_NAME && p.pair.benchmark == i.id);
        let refs: Vec<&PairVerdict> = pairs
            .iter()
            .filter(|p| p.pair.benchmark == i.id && independent_reference(&p.pair.solver))
            .collect();
        let run = run_of.get(&(SOLVER_NAME, i.id.as_str())).copied();
        let author_pair = match (mine, run) {
            (Some(p), Some(run)) => Some(Pair {
                verdict: p,
                run,
                no_checker: no_checker(&checkers, &author, entry.logic.as_deref().unwrap_or("")),
            }),
            _ => None,
        };
        if opts.scramble_seed.is_some() {
            let s = rehearsal::Scrambled {
                original_core: mine.and_then(|p| p.original_core.clone()),
                named_file: entry.output.as_ref().map(|o| c.named_dir().join(o)),
            };
            report.scrambled.insert(i.shown.clone(), s);
        }
        let mut r = outcome::classify(
            i,
            entry,
            author_pair,
            &refs,
            &opts.policy.to_string(),
            opts.strict,
        );
        for d in r.details.iter_mut() {
            *d = origin_for_people(d, &dir);
        }
        if let Some(b) = r.best_known.as_mut() {
            b.origin = origin_for_people(&b.origin, &dir);
        }
        // A best-known core of the solver's own team is no reference.
        if r.best_known
            .as_ref()
            .is_some_and(|b| own_team_origin(&b.origin, &checkers, &author))
        {
            r.best_known = None;
            r.details.retain(|d| !d.starts_with("best-known core:"));
        }
        if let (Some(v), Some(core), Some(out)) =
            (mine, run.and_then(|r| r.core.as_ref()), &entry.output)
        {
            let at = repro.original_place(entry, i);
            r.details.extend(crate::explain::for_pair(
                c,
                v,
                core,
                &c.named_dir().join(out),
                &checkers,
                &at,
                cancel,
            ));
        }
        if let (Some(run), true) = (run, r.outcome != Outcome::Passed) {
            r.details.extend(repro.details(i, entry, run, mine)?);
            // A `sat` FAIL rests on a reference's validated core: its run too.
            let sat = mine.is_some_and(|p| p.pair.verdict == Verdict::SatAnswer);
            if let (true, Outcome::Failed, Some(b)) = (sat, r.outcome, &r.best) {
                let name = format!("{REFERENCE_PREFIX}{}", b.solver);
                let found = (
                    ctx.solver(&name),
                    all_runs
                        .iter()
                        .find(|x| x.solver == name && x.benchmark == i.id),
                    refs.iter().find(|p| p.pair.solver == name),
                );
                if let (Some(who), Some(its_run), Some(its_verdict)) = found {
                    r.details
                        .extend(repro.other_run(i, entry, who, its_run, its_verdict)?);
                }
            }
            report.kept = Some(keep.clone());
        }
        decided(&r);
        report.results.push(r);
    }
    report.results.extend(incremental_results);
    report
        .results
        .sort_by_key(|r| order.iter().position(|s| *s == r.path));
    report.elapsed = start.elapsed().as_secs_f64();
    Ok(report)
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
