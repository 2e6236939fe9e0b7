//! `coreval solve <CAMPAIGN>`: run the solvers under test on the named
//! benchmarks, appending one record per finished pair to `runs.jsonl`.

use crate::campaign::ledger::loaded::open;
use crate::campaign::setup::Campaign;
use crate::cmd::exit;
use crate::pipeline::{self, Stages};
use crate::slurm::shard::Shard;
use anyhow::Result;
use clap::Args;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct SolveArgs {
    /// The campaign folder (holding campaign.toml).
    pub campaign: PathBuf,
    /// Parallel solver runs (default: the config's `jobs`, 0 = cores).
    #[arg(long, short)]
    pub jobs: Option<usize>,
    /// Run only shard I of N (0-based) of the pairs; journals go to
    /// `shards/I-of-N/` (see `coreval merge`).
    #[arg(long, value_name = "I/N")]
    pub shard: Option<Shard>,
    /// When another coreval is working on these journals, wait for it.
    #[arg(long)]
    pub wait: bool,
}

/// One stage of `c` quietly, as `coreval solve` and `coreval check` run it:
/// Ctrl-C handling, the preflight and the campaign lock, then the pipeline.
/// `None` when the preflight found nothing to do (it said why).
pub fn run_stage(
    c: Campaign,
    stages: Stages,
    campaign_arg: &std::path::Path,
    shard: Option<Shard>,
    wait: bool,
) -> Result<Option<pipeline::Summary>> {
    crate::cmd::interrupt::install();
    let flag = crate::cmd::interrupt::flag();
    let Some((ctx, _lock)) = open(c, stages, campaign_arg, wait, flag)? else {
        return Ok(None);
    };
    let done = pipeline::run(
        &ctx,
        &pipeline::Options {
            shard,
            ..Default::default()
        },
        crate::cmd::interrupt::flag(),
        &pipeline::Quiet,
    )?;
    Ok(Some(done))
}

pub fn run(args: SolveArgs) -> Result<u8> {
    let c = pipeline::load(&args.campaign, args.jobs, args.shard)?;
    let stages = Stages {
        solve: true,
        ..Stages::default()
    };
    let Some(done) = run_stage(c, stages, &args.campaign, args.shard, args.wait)? else {
        return Ok(exit::OK);
    };
    print_solve_summary(&done.solve.clone().unwrap_or_default());
    Ok(if done.interrupted {
        exit::INTERRUPTED
    } else if done.undone() > 0 {
        exit::TOOL_ERROR
    } else if done.solve.as_ref().is_some_and(|s| s.not_imported > 0) {
        exit::FAILURES
    } else {
        exit::OK
    })
}

/// `solve: N pairs, …` on stderr.
pub fn print_solve_summary(s: &crate::solve::SolveSummary) {
    eprintln!(
        "solve: {} pairs, {} already done, {} run now{}{}{}",
        s.total_pairs,
        s.already_done,
        s.ran,
        match (s.imported, s.not_imported) {
            (0, 0) => String::new(),
            (i, 0) => format!(", {i} imported from BenchExec"),
            (i, n) => format!(", {i} imported from BenchExec, {n} not importable (said above)"),
        },
        if s.undone > 0 {
            format!(
                ", {} left undone (coreval's fault: the next run does them)",
                s.undone
            )
        } else {
            String::new()
        },
        if s.interrupted {
            " (interrupted: re-run to continue)"
        } else {
            ""
        }
    );
}
