//! `coreval diff OLD NEW`: two `selfcheck --json` files or two campaign
//! folders compared ([`crate::diff`]); exit code 1 when NEW is worse
//! somewhere (a pair fails that did not fail in OLD, or passed in OLD and
//! no longer does), else 0. Also selfcheck's options that act on its report once
//! it is made ([`AfterSelfcheck`]): `--shrink`, `--json`, `--baseline`.

use crate::cmd::exit;
use crate::selfcheck::{Options, Report};
use anyhow::{Context, Result};
use clap::Args;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct DiffArgs {
    /// The earlier run: a `selfcheck --json` file or a campaign folder.
    pub old: PathBuf,
    /// The later run, of the same kind.
    pub new: PathBuf,
}

pub fn run(args: DiffArgs) -> Result<u8> {
    for campaign in [&args.old, &args.new].into_iter().filter(|p| p.is_dir()) {
        crate::cmd::show::refuse_stale(campaign)?;
    }
    let old = crate::diff::load(&args.old)?;
    let new = crate::diff::load(&args.new)?;
    print_diff(&crate::diff::compare(&old, &new))
}

/// Print a diff, and why it is a regression when it is; its exit code.
fn print_diff(d: &crate::diff::Diff) -> Result<u8> {
    for l in d.lines() {
        crate::outln!("{l}")?;
    }
    for why in d.regressions() {
        crate::outln!("diff: {why}")?;
    }
    Ok(if d.regressed() {
        exit::FAILURES
    } else {
        exit::OK
    })
}

/// selfcheck's options that work on its report.
#[derive(Args, Debug)]
pub struct AfterSelfcheck {
    /// Shrink each failing benchmark (refuted, sat, ill-formed) to a small
    /// reproducer on which the solver still fails the same way, kept in the
    /// --keep folder (coreval's own pass over assertions, then ddSMT).
    #[arg(long, conflicts_with_all = ["scrambles", "scramble_seeds"])]
    pub shrink: bool,
    /// Seconds of shrinking per failing benchmark.
    #[arg(long, value_name = "SECONDS", default_value_t = crate::shrink::DEFAULT_TIME, requires = "shrink")]
    pub shrink_time: f64,
    /// Write every verdict with its core, reduction and time here as JSON
    /// (for `coreval diff`).
    #[arg(long, value_name = "OUT")]
    pub json: Option<PathBuf>,
    /// Compare with this earlier `--json` file (as `coreval diff`); the
    /// exit code is then the comparison's: 1 when a benchmark fails that
    /// did not fail there, or no longer passes.
    #[arg(long, value_name = "OLD")]
    pub baseline: Option<PathBuf>,
}

impl AfterSelfcheck {
    /// `--shrink`: reproducers for the report's failures.
    pub fn shrink(&self, report: &mut Report, opts: &Options) -> Result<()> {
        if !self.shrink || report.interrupted {
            return Ok(());
        }
        if !(self.shrink_time.is_finite() && self.shrink_time > 0.0) {
            anyhow::bail!("--shrink-time must be a positive number of seconds");
        }
        let cancel = crate::cmd::interrupt::flag();
        crate::shrink::selfcheck::attach(report, opts, self.shrink_time, cancel, &|s| {
            eprintln!("{s}")
        })?;
        if cancel.load(std::sync::atomic::Ordering::Relaxed) {
            eprintln!("shrink interrupted: the verdicts below are complete, the reproducers are what was reached");
        }
        Ok(())
    }

    /// `--json` and `--baseline`: the exit code of the comparison, when one was asked.
    pub fn compare(&self, report: &Report) -> Result<Option<u8>> {
        if let Some(path) = &self.json {
            let file = crate::diff::RunFile {
                coreval: "selfcheck",
                version: env!("CARGO_PKG_VERSION"),
                solver: &report.setup.solver,
                elapsed: report.elapsed,
                results: &report.results,
            };
            crate::store::journal::write_atomic(path, &serde_json::to_vec_pretty(&file)?)
                .with_context(|| format!("--json: cannot write {}", path.display()))?;
            eprintln!("verdicts written to {}", path.display());
        }
        let Some(old) = &self.baseline else {
            return Ok(None);
        };
        crate::outln!("compared with the baseline {}:", old.display())?;
        let old = crate::diff::load(old).context("--baseline")?;
        let new = crate::diff::of_results(&report.results);
        Ok(Some(print_diff(&crate::diff::compare(&old, &new))?))
    }
}
