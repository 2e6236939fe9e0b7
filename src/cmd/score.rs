//! `coreval score`: import results, score them under a rules edition, write
//! the reports. The stages are library calls (`import::starexec`,
//! `score::score_pairs`, `report::write_all`), so scoring a campaign's
//! records later is the same two calls on other input.

use crate::cmd::exit;
use crate::import::{starexec, Import};
use crate::report::{self, Exporter, Outputs};
use crate::score::participants::Participants;
use crate::score::rules::{Edition, FamilyDef};
use crate::score::{score_pairs, ScoreOptions};
use anyhow::{bail, Result};
use std::io::Write;
use std::path::PathBuf;

/// Import problems listed one by one in the report; the rest are counted.
const LISTED_ISSUES: usize = 50;

/// Arguments of `coreval score`.
#[derive(clap::Args, Debug)]
pub struct ScoreArgs {
    /// A StarExec job-results CSV of the unsat-core track (repeatable).
    #[arg(long, value_name = "CSV", required = true)]
    pub starexec: Vec<PathBuf>,
    /// The rules edition to score by.
    #[arg(long, value_name = "PRESET")]
    pub rules: Edition,
    /// Participants table: solver (as in the data), team, competing
    /// (yes/no), display name. Without it every solver competes as its
    /// own team.
    #[arg(long, value_name = "CSV")]
    pub participants: Option<PathBuf>,
    /// Family definition (default: the edition's; 2016–2018 `directory`).
    #[arg(long, value_name = "first-folder|directory")]
    pub family: Option<FamilyDef>,
    /// Override the edition's time limit T, in seconds.
    #[arg(long, value_name = "SECONDS")]
    pub time_limit: Option<f64>,
    /// Re-judge checked cores from the checkers' answers under the edition's
    /// validation rule instead of the archive's verdict.
    #[arg(long)]
    pub rejudge: bool,
    /// Write the JSON report here.
    #[arg(long, value_name = "OUT")]
    pub json: Option<PathBuf>,
    /// Write one CSV row per pair here.
    #[arg(long, value_name = "OUT")]
    pub csv: Option<PathBuf>,
    /// Write Markdown tables here.
    #[arg(long, value_name = "OUT")]
    pub markdown: Option<PathBuf>,
    /// Write a self-contained HTML page here.
    #[arg(long, value_name = "OUT")]
    pub html: Option<PathBuf>,
}

/// Run `coreval score`. With no output file, prints Markdown to stdout.
pub fn run(args: ScoreArgs) -> Result<u8> {
    let mut rules = args.rules.rules();
    if let Some(f) = args.family {
        rules.family = f;
    }
    if let Some(t) = args.time_limit {
        if !(t.is_finite() && t > 0.0) {
            bail!("--time-limit must be a positive number of seconds, not {t}");
        }
        rules.time_limit = t;
    }
    let participants = match &args.participants {
        Some(p) => Participants::load(p)?,
        None => Participants::none(),
    };
    let mut import = Import::default();
    for path in &args.starexec {
        import.extend(starexec::import_file(path)?);
    }
    let mut warnings: Vec<String> = import
        .issues
        .iter()
        .take(LISTED_ISSUES)
        .map(|i| i.to_string())
        .collect();
    if import.issues.len() > LISTED_ISSUES {
        warnings.push(format!(
            "… and {} more import problems",
            import.issues.len() - LISTED_ISSUES
        ));
    }
    for w in &warnings {
        eprintln!("warning: {w}");
    }
    let options = ScoreOptions {
        participants,
        rejudge: args.rejudge,
        warnings,
    };
    let report = score_pairs(&import.pairs, &rules, &options);
    let outputs = Outputs {
        json: args.json,
        csv: args.csv,
        markdown: args.markdown,
        html: args.html,
    };
    if outputs.is_empty() {
        std::io::stdout().write_all(&report::markdown::Markdown.render(&report)?)?;
    } else {
        report::write_all(&report, &outputs)?;
    }
    eprintln!(
        "scored {} pairs in {} divisions under {} (family: {})",
        report.pairs,
        report.divisions.len(),
        report.edition,
        report.family
    );
    Ok(exit::OK)
}
