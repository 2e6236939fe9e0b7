//! `coreval check <CAMPAIGN>`: rebuild and check every reported core not
//! yet decided, then print the verdict counts.

use crate::cmd::exit;
use crate::pipeline::Stages;
use anyhow::Result;
use clap::Args;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct CheckArgs {
    /// The campaign folder (holding campaign.toml).
    pub campaign: PathBuf,
    /// Parallel checker runs (default: the config's `jobs`, 0 = cores).
    #[arg(long, short)]
    pub jobs: Option<usize>,
    /// Run every selected checker on every core (no early stop).
    #[arg(long)]
    pub all_checkers: bool,
    /// Check only shard I of N (0-based), by benchmark id; journals go to
    /// `shards/I-of-N/` (see `coreval merge`).
    #[arg(long, value_name = "I/N")]
    pub shard: Option<crate::slurm::shard::Shard>,
    /// When another coreval is working on these journals, wait for it.
    #[arg(long)]
    pub wait: bool,
    /// Also test every validated core for subset-minimality (as
    /// `[check] minimality = true`).
    #[arg(long)]
    pub minimality: bool,
    /// Seconds of checker time per distinct core for `--minimality`
    /// (default: the config's `minimality_budget`).
    #[arg(long, value_name = "SECONDS")]
    pub minimality_budget: Option<f64>,
}

pub fn run(args: CheckArgs) -> Result<u8> {
    let mut c = crate::pipeline::load(&args.campaign, args.jobs, args.shard)?;
    if args.all_checkers {
        c.config.check.early_stop = false;
    }
    c.config.check.minimality |= args.minimality;
    if let Some(b) = args.minimality_budget {
        if !(b.is_finite() && (0.0..1e9).contains(&b)) {
            anyhow::bail!("--minimality-budget must be a non-negative number of seconds, not {b}");
        }
        c.config.check.minimality_budget = b;
    }
    let stages = Stages {
        check: true,
        ..Stages::default()
    };
    let Some(done) = super::solve::run_stage(c, stages, &args.campaign, args.shard, args.wait)?
    else {
        return Ok(exit::OK);
    };
    let own = done.undone() > 0;
    let s = done.check.unwrap_or_default();
    print_check_summary(&s, &done.tally.unwrap_or_default());
    let pairs = done.pairs.unwrap_or_default();
    Ok(if done.interrupted {
        exit::INTERRUPTED
    } else if own {
        exit::TOOL_ERROR
    } else if pairs.iter().any(|p| p.pair.verdict.is_failure()) {
        exit::FAILURES
    } else {
        exit::OK
    })
}

/// Verdict counts, dedupe ratio, cache hits, early stop and disputes.
pub fn print_check_summary(s: &crate::check::CheckSummary, tally: &crate::report::stamp::Tally) {
    let counts = &tally.kinds;
    let verdicts: Vec<String> = counts.iter().map(|(k, n)| format!("{k} {n}")).collect();
    eprintln!("verdicts: {}", verdicts.join(", "));
    let dedupe = if s.distinct > 0 {
        s.cores as f64 / s.distinct as f64
    } else {
        1.0
    };
    eprintln!(
        "check: {} cores, {} distinct (dedupe {:.2}x), {} checker runs ({:.1} s CPU), {} cache hits, early stop skipped {} and stopped {} jobs{}",
        s.cores,
        s.distinct,
        dedupe,
        s.ran,
        s.cpu,
        s.cache_hits,
        s.skipped,
        s.killed,
        if s.interrupted { " (interrupted: re-run to continue)" } else { "" }
    );
    if s.not_applicable > 0 {
        eprintln!(
            "check: {} core(s) not given to a checker that rejects a command they need (journaled as not-applicable)",
            s.not_applicable
        );
    }
    if s.failed_to_start > 0 {
        eprintln!(
            "check: {} checker run(s) could not start; those answers are missing",
            s.failed_to_start
        );
    }
    if let Some(m) = &s.minimality {
        eprintln!(
            "minimality: {} validated core(s) tested ({} distinct): {} minimal, {} redundant, {} unknown; {} checker runs ({:.1} s CPU), {} cache hits, {} cut by the budget",
            m.pairs, m.cores, m.minimal, m.redundant, m.unknown, m.asked.ran, m.asked.cpu, m.asked.cache_hits, m.asked.cut
        );
    }
    if let Some(b) = &s.best {
        eprintln!(
            "best-known cores: {} benchmark(s), {} from the cache, {} shrunk, {} written to the cache, {} cached core(s) not validated here; {} checker runs ({:.1} s CPU)",
            b.benchmarks, b.from_cache, b.shrunk, b.cached, b.rejected, b.asked.ran, b.asked.cpu
        );
    }
    let refuted = tally.kinds.get("refuted").copied().unwrap_or(0);
    if s.certified_sats > 0 || refuted > 0 {
        eprintln!(
            "certification: {} sat answer(s) asked for their models now ({:.1} s CPU); refuted cores: {} certified, {} uncertified",
            s.certified_sats,
            s.certification_cpu,
            tally.certified,
            refuted - tally.certified
        );
    }
    for (benchmark, solver, answers) in &tally.disputed {
        eprintln!(
            "DISPUTED: checkers disagree on the core of {benchmark} from {solver}: {answers} (a checker is unsound)"
        );
    }
    if tally.pending > 0 {
        eprintln!(
            "note: {} pair(s) still wait for checks; re-run `coreval check`",
            tally.pending
        );
    }
}
