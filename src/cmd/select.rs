//! `coreval select`: the unsat-core track's benchmark selection of an
//! edition (2024 to 2026, [`crate::select`]) applied to a benchmark list,
//! written as the list of ids a campaign takes (`benchmark_list`).
//!
//! The output file is checked before anything is read; the report goes to
//! stdout (and, with `--report`, as JSON to a file).

use crate::cmd::{exit, writable};
use crate::select::{self, input, Options};
use crate::{outln, score::rules::Edition};
use anyhow::{Context, Result};
use clap::Args;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct SelectArgs {
    /// The benchmarks: the smtcomp tool's list (`benchmarks-YYYY.json[.gz]`), or a folder of
    /// .smt2 files below their logic folders (status, logic and assertions read from each).
    pub benchmarks: PathBuf,
    /// The edition whose selection applies: smtcomp-2024, smtcomp-2025 or smtcomp-2026.
    #[arg(long, value_name = "PRESET")]
    pub rules: Edition,
    /// The competition's seed, used for every random step (not the smtcomp tool's sampler:
    /// another sample than the tool's for the same seed).
    #[arg(long)]
    pub seed: u32,
    /// Single-query results of the year (`results-sq-YYYY.json[.gz]`, repeatable): their
    /// `unsat` answers admit benchmarks of unknown status, `sat` and `unsat` on one benchmark
    /// drop it.
    #[arg(long, value_name = "JSON")]
    pub results: Vec<PathBuf>,
    /// Keep a benchmark with both `sat` and `unsat` single-query answers (the rules allow it;
    /// the smtcomp tool drops it, and so does coreval without this flag).
    #[arg(long)]
    pub keep_conflicts: bool,
    /// Where to write the selected ids, one a line, sorted (a campaign's `benchmark_list`).
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// Also write the report (counts per logic, totals, exclusions) as JSON to this file.
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
}

pub fn run(args: SelectArgs) -> Result<u8> {
    let mut checks = vec![("--out", args.out.as_path(), writable::file(&args.out))];
    if let Some(r) = &args.report {
        checks.push(("--report", r.as_path(), writable::file(r)));
    }
    writable::all(&checks)?;
    let read = input::benchmarks(&args.benchmarks)?;
    let answers = input::answers(&args.results)?;
    let opts = Options {
        edition: args.rules,
        seed: args.seed,
        keep_conflicts: args.keep_conflicts,
    };
    let selection = select::select(&read.candidates, read.unusable, &answers, &opts)?;
    let mut text = String::new();
    for id in &selection.picked {
        text.push_str(id);
        text.push('\n');
    }
    crate::store::journal::write_atomic(&args.out, text.as_bytes())
        .with_context(|| format!("cannot write {}", args.out.display()))?;
    if let Some(r) = &args.report {
        let json = serde_json::to_vec_pretty(&selection)?;
        crate::store::journal::write_atomic(r, &json)
            .with_context(|| format!("cannot write {}", r.display()))?;
    }
    crate::out!("{}", selection.text())?;
    outln!(
        "{} benchmarks selected, written to {}",
        selection.picked.len(),
        args.out.display()
    )?;
    Ok(exit::OK)
}
