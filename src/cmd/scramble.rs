//! `coreval scramble`: scramble one benchmark or a folder tree of them with
//! a seed, in parallel, writing each scrambled file and its descrambling
//! map (`x.smt2` → `x.smt2` + `x.descramble.json`) under the output path.
//!
//! The seed is either given (`--seed N`) or computed the way the rules say
//! from the entrants' numbers and the NYSE Composite opening value
//! (`--seed-from entrants.csv --nyse 10523.45`). Every file is scrambled
//! independently with the same seed, so the output does not depend on the
//! number of threads. A file that cannot be scrambled is reported
//! (`path:line:column: message`) and the others go on; the exit code is then
//! [`crate::cmd::exit::FAILURES`].

use crate::cmd::exit;
use crate::scramble::{self, random, ScrambleOptions};
use anyhow::{bail, Context};
use clap::Args;
use rayon::prelude::*;
use std::path::PathBuf;

#[derive(Args, Debug, Clone)]
#[command(group(clap::ArgGroup::new("seed_source").required(true).args(["seed", "seed_from"])))]
pub struct ScrambleArgs {
    /// A benchmark (.smt2) or a folder searched recursively for .smt2 files.
    pub input: PathBuf,
    /// Output file (for a file input) or folder (mirrors the input tree).
    #[arg(short, long)]
    pub output: PathBuf,
    /// Seed for srandom (the scrambler's pseudo-random numbers).
    #[arg(long)]
    pub seed: Option<u32>,
    /// CSV of entrants (columns `number`, optional `solver`, `organizer`):
    /// the seed is (sum of non-organizer numbers + NYSE) modulo 2^30.
    #[arg(long, requires = "nyse")]
    pub seed_from: Option<PathBuf>,
    /// Opening value of the NYSE Composite Index (integer part used).
    #[arg(long, requires = "seed_from")]
    pub nyse: Option<String>,
    /// The edition whose seed formula applies to --seed-from/--nyse: up to
    /// 2023 (Σ + ⌊NYSE⌋) mod 2^30 (the default), from 2024 the `smtcomp`
    /// tool's (Σ mod 2^30) + ⌊100 × NYSE⌋.
    #[arg(long, value_name = "PRESET", requires = "seed_from")]
    pub rules: Option<crate::score::rules::Edition>,
    /// Keep the original symbol names.
    #[arg(long)]
    pub no_rename: bool,
    /// Keep the order of assertions and declarations.
    #[arg(long)]
    pub no_shuffle: bool,
    /// Also permute arguments of commutative operators.
    #[arg(long)]
    pub commute: bool,
    /// Largest run of commands shuffled as a whole, in MiB.
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u64).range(1..=65536))]
    pub window_mib: u64,
    /// Worker threads (default: all cores).
    #[arg(short, long)]
    pub jobs: Option<usize>,
}

/// The seed the arguments ask for, and how it was obtained.
pub fn resolve_seed(args: &ScrambleArgs) -> anyhow::Result<(u32, String)> {
    match (&args.seed, &args.seed_from, &args.nyse) {
        (Some(s), None, _) => Ok((*s, format!("seed {s}"))),
        (None, Some(csv), Some(nyse)) => {
            let tool = args.rules.is_some_and(|e| {
                e.rules().seed == crate::score::rules::SeedFormula::ModuloThenNyse
            });
            let c = random::seed_from_entrants(csv, nyse, tool)?;
            let formula = if tool {
                format!(
                    "({} entrant numbers mod 2^30) + 100 × NYSE {nyse}",
                    c.entrants
                )
            } else {
                format!(
                    "({} entrant numbers + NYSE {}) mod 2^30",
                    c.entrants, c.nyse
                )
            };
            Ok((
                c.seed,
                format!(
                    "seed {} = {formula}, {} organizer row(s) left out",
                    c.seed, c.organizers
                ),
            ))
        }
        _ => bail!("give either --seed N or --seed-from FILE --nyse VALUE"),
    }
}

pub fn run(args: ScrambleArgs) -> anyhow::Result<u8> {
    let (seed, how) = resolve_seed(&args)?;
    let opts = ScrambleOptions {
        seed,
        shuffle: !args.no_shuffle,
        rename: !args.no_rename,
        commute: args.commute,
        prefix: None,
        window: (args.window_mib as usize) << 20,
        ..ScrambleOptions::default()
    };
    let meta = std::fs::metadata(&args.input)
        .with_context(|| format!("reading {}", args.input.display()))?;
    let jobs: Vec<(PathBuf, PathBuf)> = if meta.is_dir() {
        if args.output.starts_with(&args.input) {
            bail!(
                "the output folder {} is inside the input folder {}",
                args.output.display(),
                args.input.display()
            );
        }
        let found = crate::benchmark::discover(&args.input)?;
        for (link, why) in &found.skipped {
            eprintln!("{}: not followed: {why}", link.display());
        }
        found
            .files
            .into_iter()
            .map(|f| {
                let out = crate::store::safepath::safe_join(&args.output, &f.id)?;
                Ok((f.path, out))
            })
            .collect::<anyhow::Result<_>>()?
    } else {
        if !meta.is_file() {
            bail!(
                "{} is not a benchmark: {}, not a regular file",
                args.input.display(),
                crate::store::regular::kind(&meta)
            );
        }
        if args.output == args.input {
            bail!(
                "the output would overwrite the input {}",
                args.input.display()
            );
        }
        vec![(args.input.clone(), args.output.clone())]
    };
    for (_, out) in &jobs {
        // Creating a FIFO for writing would block until a reader comes.
        if let Some(m) = std::fs::metadata(out).ok().filter(|m| !m.is_file()) {
            bail!(
                "the output {} is {}, not a regular file",
                out.display(),
                crate::store::regular::kind(&m)
            );
        }
        if let Some(parent) = out.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("creating {}", parent.display()))?;
        }
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(crate::process::jobs::noted(args.jobs.unwrap_or(0)))
        .build()
        .context("starting worker threads")?;
    let results: Vec<Result<(), String>> = pool.install(|| {
        jobs.par_iter()
            .map(|(input, output)| {
                scramble::scramble_file(input, output, &opts)
                    .map(|_| ())
                    .map_err(|e| format!("{e:#}"))
            })
            .collect()
    });
    let mut failed = 0usize;
    for msg in results.iter().filter_map(|r| r.as_ref().err()) {
        // scramble_file's messages start with the path.
        failed += 1;
        eprintln!("error: {msg}");
    }
    eprintln!(
        "scrambled {} of {} benchmark(s) into {} ({how})",
        jobs.len() - failed,
        jobs.len(),
        args.output.display()
    );
    Ok(if failed > 0 { exit::FAILURES } else { exit::OK })
}
