//! `coreval lint ROOT|FILE…`: strict SMT-LIB 2.6 validation of every
//! command of every benchmark (see [`crate::smtlib::lint`]), and of the
//! scope of every symbol and sort it uses (see [`crate::scope`]). Prints
//! `file:line:column: message` per error; exit code 1 when any file has an
//! error.

use crate::benchmark::discover;
use crate::cmd::exit;
use crate::scope::strict_file;
use anyhow::Result;
use clap::Args;
use rayon::prelude::*;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct LintArgs {
    /// Benchmark folders (searched for .smt2 files) or files.
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// Errors reported per file at most.
    #[arg(long, default_value_t = 20)]
    pub max_errors: usize,
    /// Files checked in parallel (default: one per core).
    #[arg(short, long)]
    pub jobs: Option<usize>,
}

pub fn run(args: LintArgs) -> Result<u8> {
    let mut files = Vec::new();
    for p in &args.paths {
        files.extend(discover(p)?.files.into_iter().map(|f| f.path));
    }
    let check = || -> Vec<(PathBuf, Result<Vec<String>>)> {
        files
            .par_iter()
            .map(|f| {
                let errors = strict_file(f, args.max_errors.max(1))
                    .map(|es| es.iter().map(|e| e.in_file(f)).collect());
                (f.clone(), errors)
            })
            .collect()
    };
    let results = match args.jobs {
        Some(n) => rayon::ThreadPoolBuilder::new()
            .num_threads(crate::process::jobs::noted(n))
            .build()?
            .install(check),
        None => check(),
    };
    let (mut bad, mut count) = (0, 0);
    for (file, r) in &results {
        match r {
            Ok(errors) if errors.is_empty() => {}
            Ok(errors) => {
                bad += 1;
                count += errors.len();
                for e in errors {
                    eprintln!("{e}");
                }
            }
            Err(e) => {
                bad += 1;
                count += 1;
                eprintln!("{}: {e:#}", file.display());
            }
        }
    }
    crate::outln!(
        "{} files: {} valid, {bad} with errors ({count} errors shown)",
        results.len(),
        results.len() - bad
    )?;
    Ok(if bad > 0 { exit::FAILURES } else { exit::OK })
}
