//! `coreval solve <CAMPAIGN>`: run the solvers under test on the named
//! benchmarks, appending one record per finished pair to `runs.jsonl`.

use crate::campaign::Campaign;
use crate::exit;
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
}

/// Load a campaign and apply a `--jobs` override.
pub fn load(dir: &std::path::Path, jobs: Option<usize>) -> Result<Campaign> {
    let mut c = Campaign::load(dir)?;
    if let Some(j) = jobs.filter(|j| *j > 0) {
        c.jobs = j;
    }
    Ok(c)
}

pub fn run(args: SolveArgs) -> Result<u8> {
    let c = load(&args.campaign, args.jobs)?;
    crate::interrupt::install();
    let s = crate::solve::solve(&c, &|_, _| true, crate::interrupt::flag())?;
    eprintln!(
        "solve: {} pairs, {} already done, {} run now{}",
        s.total_pairs,
        s.already_done,
        s.ran,
        if s.interrupted {
            " (interrupted: re-run to continue)"
        } else {
            ""
        }
    );
    Ok(if s.interrupted {
        exit::INTERRUPTED
    } else {
        exit::OK
    })
}
