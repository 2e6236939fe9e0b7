//! `coreval shrink CAMPAIGN SOLVER BENCHMARK`: the failing pair of a scored
//! campaign reduced to a small benchmark on which the solver still fails
//! the same way ([`crate::shrink`]); and the hidden `coreval shrink-judge
//! SPEC FILE`, ddSMT's test command (exit 0 when FILE still fails as SPEC
//! says, 1 when not, 2 on a tool error).

use crate::campaign::verdict::pair::PairVerdict;
use crate::cmd::exit;
use crate::shrink::oracle::{Judge, Spec};
use anyhow::{bail, Context, Result};
use clap::Args;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct ShrinkArgs {
    /// The campaign folder (scored: reports/pairs.jsonl is read).
    pub campaign: PathBuf,
    /// The solver under test, as named in campaign.toml.
    pub solver: String,
    /// The benchmark id (its path below the campaign's benchmarks).
    pub benchmark: String,
    /// Seconds of work at most.
    #[arg(long, value_name = "SECONDS", default_value_t = crate::shrink::DEFAULT_TIME)]
    pub shrink_time: f64,
    /// Where to write the reproducer (default
    /// CAMPAIGN/reproducers/<benchmark>.<solver>.smt2).
    #[arg(long, value_name = "PATH")]
    pub out: Option<PathBuf>,
}

pub fn run(args: ShrinkArgs) -> Result<u8> {
    if !(args.shrink_time.is_finite() && args.shrink_time > 0.0) {
        bail!("--shrink-time must be a positive number of seconds");
    }
    let c = crate::campaign::setup::Campaign::load(&args.campaign)?;
    let pairs = args.campaign.join("reports/pairs.jsonl");
    let text = std::fs::read_to_string(&pairs).with_context(|| {
        format!(
            "cannot read {} (run or score the campaign first)",
            pairs.display()
        )
    })?;
    let Some(p) = text
        .lines()
        .filter_map(|l| serde_json::from_str::<PairVerdict>(l).ok())
        .find(|p| *p.pair.solver == *args.solver && *p.pair.benchmark == *args.benchmark)
    else {
        bail!(
            "{}: no pair ({}, {})",
            pairs.display(),
            args.solver,
            args.benchmark
        );
    };
    let kind = p.pair.verdict.label();
    crate::outln!("{} on {}: {kind}", args.solver, args.benchmark)?;
    if !p.pair.verdict.is_failure() || !crate::shrink::oracle::supported(&kind) {
        bail!("the pair's verdict is {kind}: only refuted, sat and ill-formed pairs are shrunk");
    }
    let dir = crate::campaign::setup::solvers::checkers_dir(&c);
    let defs = crate::checkers::load_dir(&dir)?;
    let solvers = crate::campaign::setup::solvers::solvers_under_test(&c, &defs)?;
    let Some(s) = solvers.iter().find(|s| s.name == args.solver) else {
        bail!("no solver {} in {}", args.solver, args.campaign.display());
    };
    if let Some(b) = &s.benchexec {
        bail!(
            "solver {}: its runs were imported ({}); there is no command here to run it again, so its failures cannot be shrunk",
            args.solver,
            b.describe()
        );
    }
    // The campaign's checkers (none listed: every definition), those of
    // other teams that are installed.
    let listed = &c.config.check.checkers;
    let checkers: Vec<String> = defs
        .iter()
        .filter(|d| listed.is_empty() || listed.contains(&d.name))
        .filter(|d| d.is_installed() && !s.same_team(d))
        .map(|d| d.name.clone())
        .collect();
    let original_path = c.benchmarks.join(&args.benchmark);
    let original = std::fs::read(&original_path)
        .with_context(|| format!("cannot read {}", original_path.display()))?;
    let out = args.out.clone().unwrap_or_else(|| {
        let stem = args
            .benchmark
            .strip_suffix(".smt2")
            .unwrap_or(&args.benchmark);
        args.campaign
            .join("reproducers")
            .join(format!("{stem}.{}.smt2", args.solver))
    });
    let spec = Spec {
        solver: s.def.clone(),
        workdir: std::path::absolute(s.workdir.as_deref().unwrap_or(&args.campaign))?,
        answer_stream: s.def.answer_stream,
        checkers_dir: std::path::absolute(&dir)?,
        checkers,
        solver_time: c.time.as_secs_f64(),
        checker_time: c.checker_time.as_secs_f64(),
        kind: kind.clone(),
        logic: None,
        strict: false,
    };
    let settings = crate::shrink::Settings {
        time: args.shrink_time,
        coreval: std::env::current_exe()?,
        checkers_dir: std::path::absolute(&dir)?,
    };
    crate::cmd::interrupt::install();
    let cancel = crate::cmd::interrupt::flag();
    match crate::shrink::shrink(&original, spec, &out, &settings, cancel) {
        Ok(done) => {
            crate::outln!("{}", done.line())?;
            for n in &done.notes {
                crate::outln!("{n}")?;
            }
            Ok(exit::OK)
        }
        Err(why) => {
            eprintln!("error: no reproducer: {why} (the verdict stays {kind})");
            Ok(exit::TOOL_ERROR)
        }
    }
}

#[derive(Args, Debug)]
pub struct ShrinkJudgeArgs {
    /// The judgement's settings (JSON, written by the shrinker).
    pub spec: PathBuf,
    /// The candidate benchmark.
    pub file: PathBuf,
}

/// 0: FILE still fails as SPEC says; 1: it does not; 2: tool error.
pub fn judge(args: ShrinkJudgeArgs) -> Result<u8> {
    let judge = Judge::load(&args.spec)?;
    let bytes = std::fs::read(&args.file)
        .with_context(|| format!("cannot read {}", args.file.display()))?;
    let never = std::sync::atomic::AtomicBool::new(false);
    Ok(match judge.judge(&bytes, &never)?.fails {
        true => exit::OK,
        false => exit::FAILURES,
    })
}
