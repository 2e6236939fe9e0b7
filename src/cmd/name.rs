//! `coreval name ROOT -o OUT`: the named version of every eligible
//! benchmark under ROOT, mirrored under OUT, with `OUT/index.jsonl`.
//!
//! Exit code: 0 when every benchmark was named or is merely ineligible
//! under the settings (reported, not a failure); 1 when some benchmark is
//! malformed or could not be named (e.g. a `--prefix` that clashes).

use crate::benchmark::{NamedPolicy, Policy};
use crate::campaign::ledger::index::Outcome;
use crate::cmd::exit;
use crate::name::{name_tree, NameOptions, TreeOptions};
use crate::scramble::ScrambleOptions;
use anyhow::Result;
use clap::{Args, ValueEnum};
use std::io::IsTerminal;
use std::path::PathBuf;

/// What to do with benchmarks that already name terms.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum NamedPolicyArg {
    /// Leave them out (reported as ineligible).
    Skip,
    /// Remove the existing `:named` attributes (unless a name is used as a symbol).
    Strip,
    /// Keep them: a named top-level assertion keeps its name.
    Keep,
}

#[derive(Args, Debug)]
pub struct NameArgs {
    /// Benchmark root: a folder searched for .smt2 files, or one file.
    pub root: PathBuf,
    /// Output folder (the tree is mirrored there, with index.jsonl).
    #[arg(short, long)]
    pub output: PathBuf,
    /// Fixed name prefix (`smtcomp` mimics the official names); it must
    /// not occur followed by a digit anywhere in a file. Default: chosen
    /// per file so that it cannot clash.
    #[arg(long)]
    pub prefix: Option<String>,
    /// Benchmarks that already contain `:named` terms.
    #[arg(long, value_enum, default_value = "skip")]
    pub named_policy: NamedPolicyArg,
    /// Fewest top-level assertions a benchmark must have (2 from SMT-COMP
    /// 2024 on; 1 for earlier editions).
    #[arg(long, default_value_t = 2)]
    pub min_assertions: usize,
    /// Accept benchmarks without `(set-info :status unsat)`.
    #[arg(long)]
    pub allow_no_status: bool,
    /// Also validate every command with the strict SMT-LIB 2.6 parser.
    #[arg(long)]
    pub strict: bool,
    /// Scramble every benchmark with this seed before naming it (shuffle
    /// and rename; see `coreval scramble`): solvers see only the scrambled,
    /// named file, and its descrambling map is written beside it.
    #[arg(long, value_name = "SEED")]
    pub scramble: Option<u32>,
    /// With --scramble: also permute arguments of commutative operators.
    #[arg(long, requires = "scramble")]
    pub commute: bool,
    /// Files named in parallel (default: one per core).
    #[arg(short, long)]
    pub jobs: Option<usize>,
}

impl NameArgs {
    /// The validated options.
    pub fn options(&self) -> TreeOptions<'static> {
        let named = match self.named_policy {
            NamedPolicyArg::Skip => NamedPolicy::Skip,
            NamedPolicyArg::Strip => NamedPolicy::Strip,
            NamedPolicyArg::Keep => NamedPolicy::Keep,
        };
        TreeOptions {
            name: NameOptions {
                prefix: self.prefix.clone(),
                policy: Policy {
                    min_assertions: self.min_assertions,
                    allow_no_status: self.allow_no_status,
                    named,
                    accept_any_status: false,
                    incremental: false,
                },
                strict: self.strict,
                known_status: None,
            },
            scramble: self.scramble.map(|seed| ScrambleOptions {
                seed,
                commute: self.commute,
                ..ScrambleOptions::default()
            }),
            jobs: self.jobs,
            progress: std::io::stderr().is_terminal(),
            say: crate::message::Say::stderr(),
            cancel: None,
            only: None,
        }
    }
}

pub fn run(args: NameArgs) -> Result<u8> {
    if let Some(n) = args.jobs {
        crate::process::jobs::noted(n);
    }
    let summary = name_tree(&args.root, &args.output, &args.options())?;
    for (link, why) in &summary.skipped_links {
        eprintln!("{}: not followed: {why}", link.display());
    }
    for e in summary
        .entries
        .iter()
        .filter(|e| e.outcome != Outcome::Named)
    {
        for m in e.messages(&args.root, crate::benchmark::Settings::Flags) {
            eprintln!("{m}");
        }
    }
    crate::outln!("{}", summary.line())?;
    Ok(if summary.has_failures() {
        exit::FAILURES
    } else {
        exit::OK
    })
}
