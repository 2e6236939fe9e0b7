//! `coreval run <CAMPAIGN>`: name → solve → check → score → reports in one
//! command, each stage resuming where it stopped, then a final summary.

use crate::campaign::ledger::loaded::open;
use crate::check::CheckSummary;
use crate::cmd::exit;
use crate::name::NameSummary;
use crate::pipeline::{self, Observer, Stages};
use crate::report::stamp::Tally;
use crate::solve::SolveSummary;
use anyhow::Result;
use clap::{Args, ValueEnum};
use std::path::PathBuf;

/// A stage of the pipeline.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, ValueEnum)]
pub enum Stage {
    Name,
    Solve,
    Check,
    Score,
}

#[derive(Args, Debug)]
pub struct RunArgs {
    /// The campaign folder (holding campaign.toml).
    pub campaign: PathBuf,
    /// Parallel jobs (default: the config's `jobs`, 0 = cores).
    #[arg(long, short)]
    pub jobs: Option<usize>,
    /// Run only this stage.
    #[arg(long, value_enum)]
    pub stage: Option<Stage>,
    /// Run every selected checker on every core (no early stop).
    #[arg(long)]
    pub all_checkers: bool,
    /// When another coreval is working on this campaign, wait for it to
    /// end instead of stopping.
    #[arg(long)]
    pub wait: bool,
}

pub fn run(args: RunArgs) -> Result<u8> {
    let mut c = crate::pipeline::load(&args.campaign, args.jobs, None)?;
    if args.all_checkers {
        c.config.check.early_stop = false;
    }
    crate::cmd::interrupt::install();
    let wants = |s: Stage| args.stage.is_none_or(|only| only == s);
    let stages = Stages {
        name: wants(Stage::Name),
        solve: wants(Stage::Solve),
        check: wants(Stage::Check),
        score: wants(Stage::Score),
    };
    let flag = crate::cmd::interrupt::flag();
    let Some((ctx, _lock)) = open(c, stages, &args.campaign, args.wait, flag)? else {
        return Ok(exit::OK);
    };
    let c = &ctx.campaign;
    let root = c.shown(&c.benchmarks);
    let lines = Lines { root: &root };
    // Counts only: neither every pair nor the named entries are kept.
    let options = pipeline::Options {
        keep_pairs: false,
        keep_named: false,
        ..Default::default()
    };
    let s = pipeline::run(&ctx, &options, crate::cmd::interrupt::flag(), &lines)?;
    if s.interrupted {
        eprintln!(
            "interrupted: the journals are consistent; run the same command again to continue"
        );
        return Ok(exit::INTERRUPTED);
    }
    // A benchmark that could not be named (malformed, unreadable) fails
    // the run, as docs/reference.md's "Exit codes" say.
    // So does a BenchExec run that could not be imported (bad input).
    let unnamed = s.name.as_ref().is_some_and(|n| n.has_failures())
        || s.solve.as_ref().is_some_and(|x| x.not_imported > 0);
    // Work left undone for coreval's own fault is the tool's error.
    let own = s.undone() > 0;
    let (Some(tally), true) = (&s.tally, s.report.is_some() || s.reports_current) else {
        return Ok(if own {
            exit::TOOL_ERROR
        } else if unnamed {
            exit::FAILURES
        } else {
            exit::OK
        });
    };
    crate::process::trace::phase("ran");
    print_summary(tally);
    let kept = if s.reports_current {
        " (current: nothing they are made from changed, not written again)"
    } else {
        ""
    };
    eprintln!("reports: {}{kept}", c.shown(&c.reports_dir()).display());
    let html = c.shown(&pipeline::html_report(c));
    eprintln!("HTML report: {}", html.display());
    for p in &tally.incremental_failures {
        let line = p.line.map(|l| format!(" (line {l})")).unwrap_or_default();
        eprintln!(
            "incremental: {} on {}: {}{line}",
            p.solver, p.benchmark, p.label
        );
    }
    Ok(if own {
        exit::TOOL_ERROR
    } else if unnamed || tally.failed() {
        exit::FAILURES
    } else {
        exit::OK
    })
}

/// A line per stage as it ends, on stderr; the stages' messages as they
/// come (`warning: TEXT`, the progress bar suspended: the default of
/// [`Observer::message`]).
struct Lines<'a> {
    root: &'a std::path::Path,
}

impl Observer for Lines<'_> {
    fn named(&self, n: &NameSummary) {
        for (path, why) in &n.skipped_links {
            eprintln!("{}: not followed: {why}", path.display());
        }
        for e in &n.entries {
            for m in e.messages(self.root, crate::benchmark::Settings::Campaign) {
                eprintln!("{m}");
            }
        }
        eprintln!("name: {}", n.line());
    }

    fn solved(&self, s: &SolveSummary) {
        super::solve::print_solve_summary(s);
    }

    fn checked(&self, k: &CheckSummary, tally: &Tally) {
        super::check::print_check_summary(k, tally);
    }
}

/// Pairs, verdict counts and failures per solver.
fn print_summary(tally: &Tally) {
    eprintln!("{} pairs", tally.pairs);
    for (solver, counts) in &tally.per_solver {
        let parts: Vec<String> = counts.iter().map(|(k, n)| format!("{k} {n}")).collect();
        eprintln!("  {solver:<16} {}", parts.join(", "));
    }
}
