//! The arguments of `coreval score` (see `score.rs`), shared with the
//! answer-track scorer (`answers.rs`) that `--answers` selects.

use crate::report::Outputs;
use crate::score::rules::{Edition, FamilyDef, StatusMismatch};
use std::path::PathBuf;

/// Arguments of `coreval score`.
#[derive(clap::Args, Debug)]
pub struct ScoreArgs {
    /// A campaign folder: score its judged records (its `[score]` settings,
    /// overridden by the options below), reports under `reports/` unless
    /// output files are given. Not combined with imported data.
    #[arg(value_name = "CAMPAIGN")]
    pub campaign: Option<PathBuf>,
    /// A StarExec job-results CSV of the unsat-core track (repeatable; the
    /// jobs of one edition are scored together).
    #[arg(long, value_name = "CSV")]
    pub starexec: Vec<PathBuf>,
    /// The `smtcomp` tool's results file (`results-uc-YYYY.json[.gz]`).
    #[arg(long, value_name = "JSON", requires = "smtcomp_benchmarks")]
    pub smtcomp_results: Option<PathBuf>,
    /// The `smtcomp` tool's benchmark list (`benchmarks-YYYY.json[.gz]`),
    /// for each benchmark's number of assertions.
    #[arg(long, value_name = "JSON", requires = "smtcomp_results")]
    pub smtcomp_benchmarks: Option<PathBuf>,
    /// A BenchExec result XML or `.xml.bz2` (repeatable), its logs in the
    /// `.logfiles` folder or `.logfiles.zip` beside it; needs `--benchmarks`.
    #[arg(long, value_name = "XML", requires = "benchmarks")]
    pub benchexec: Vec<PathBuf>,
    /// A plain folder of outputs, `<solver>/<benchmark id>.out`
    /// (repeatable); needs `--benchmarks`.
    #[arg(long, value_name = "DIR", requires = "benchmarks")]
    pub folder: Vec<PathBuf>,
    /// The benchmark tree the BenchExec and folder ids are relative to
    /// (their logic and named-assertion count are read from the files).
    #[arg(long, value_name = "DIR")]
    pub benchmarks: Option<PathBuf>,
    /// Leave out the benchmarks listed in FILE (one path per line, relative
    /// to the logic's parent folder, as in the 2020 exclusion lists).
    #[arg(long, value_name = "FILE")]
    pub exclude: Vec<PathBuf>,
    /// The rules edition to score by (a campaign: its `[score] rules`).
    #[arg(long, value_name = "PRESET")]
    pub rules: Option<Edition>,
    /// Score `sat`/`unsat` answers instead of cores, under an answer-track
    /// preset: `smtcomp-2005`, `main-2015` … `main-2018`, `sq-2019` …
    /// `sq-2026`, `chccomp-2018` (the data: `--starexec` job CSVs of the
    /// main or single-query track).
    #[arg(long, value_name = "PRESET")]
    pub answers: Option<String>,
    /// Logic → division map (TOML `[divisions]`); default: the edition's own
    /// from 2021, none before (a division is a logic).
    #[arg(long, value_name = "FILE")]
    pub divisions: Option<PathBuf>,
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
    /// What an answer contradicting the benchmark's expected status is
    /// worth: `error` (rules text; 2016–2018, 2024 on) or `no-score` (the
    /// 2019–2023 scoring program, which the published pages of those years
    /// show). Default: the edition's.
    #[arg(long, value_name = "error|no-score")]
    pub status_mismatch: Option<StatusMismatch>,
    /// Re-judge checked cores from the checkers' answers under the edition's
    /// validation rule instead of the archive's verdict.
    #[arg(long)]
    pub rejudge: bool,
    /// With CAMPAIGN: score even though the journals hold records of
    /// another configuration that `coreval run` would redo (they are left
    /// out, so the reports have fewer pairs); without it such a score is
    /// refused and the reports stay as they were.
    #[arg(long)]
    pub partial: bool,
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
    /// Also write the scored pairs as the `smtcomp` tool's files,
    /// DIR/results-uc-YYYY.json.gz and DIR/benchmarks-YYYY.json.gz (YYYY:
    /// the rules edition's year), for the tool to score.
    #[arg(long, value_name = "DIR")]
    pub smtcomp_json: Option<PathBuf>,
    /// Also write one BenchExec result file per solver,
    /// DIR/<solver>.results.<edition>.xml.bz2, for BenchExec's
    /// table-generator.
    #[arg(long, value_name = "DIR")]
    pub benchexec_xml: Option<PathBuf>,
}

impl ScoreArgs {
    pub(super) fn outputs(&self) -> Outputs {
        Outputs {
            json: self.json.clone(),
            csv: self.csv.clone(),
            markdown: self.markdown.clone(),
            html: self.html.clone(),
        }
    }

    /// Whether an export to the competition's tools was asked for.
    pub(super) fn exports(&self) -> bool {
        self.smtcomp_json.is_some() || self.benchexec_xml.is_some()
    }

    pub(super) fn imports_data(&self) -> bool {
        !(self.starexec.is_empty()
            && self.smtcomp_results.is_none()
            && self.benchexec.is_empty()
            && self.folder.is_empty())
    }
}
