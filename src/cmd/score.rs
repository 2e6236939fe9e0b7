//! `coreval score`: import results, score them under a rules edition, write
//! the reports. The stages are library calls (`import::*`,
//! `score::score_pairs`, `report::write_all`); `coreval score CAMPAIGN` runs
//! a campaign's score stage (`pipeline::run`) on its judged records.
//!
//! Inputs, any number combined: StarExec job CSVs (`--starexec`, repeatable),
//! the `smtcomp` tool's results with its benchmark list
//! (`--smtcomp-results` + `--smtcomp-benchmarks`), BenchExec result XML
//! (`--benchexec`) and plain output folders (`--folder`), the last two with
//! `--benchmarks DIR` for the logic and assertion count of each benchmark.
//! `--exclude FILE` drops the listed benchmarks before scoring.

use crate::benchmark::analyze;
use crate::campaign::context::open;
use crate::cmd::exit;
use crate::import::benchexec::{self, BenchExecOptions};
use crate::import::folder::{self, FolderOptions};
use crate::import::{smtcomp, starexec, BenchmarkInfo, Exclusions, Import};
use crate::pipeline::{self, Quiet, Stages};
use crate::report::{self, Exporter, Outputs};
use crate::score::division_map::DivisionMap;
use crate::score::participants::Participants;
use crate::score::rules::{Edition, FamilyDef, StatusMismatch};
use crate::score::{score_pairs, ScoreOptions};
use anyhow::{bail, Context, Result};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Import problems listed one by one in the report; the rest are counted.
const LISTED_ISSUES: usize = 50;

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

impl ScoreArgs {
    fn outputs(&self) -> Outputs {
        Outputs {
            json: self.json.clone(),
            csv: self.csv.clone(),
            markdown: self.markdown.clone(),
            html: self.html.clone(),
        }
    }

    fn imports_data(&self) -> bool {
        !(self.starexec.is_empty()
            && self.smtcomp_results.is_none()
            && self.benchexec.is_empty()
            && self.folder.is_empty())
    }
}

/// Run `coreval score`. With no output file, prints Markdown to stdout.
pub fn run(args: ScoreArgs) -> Result<u8> {
    if let Some(t) = args.time_limit {
        if !(t.is_finite() && t > 0.0) {
            bail!("--time-limit must be a positive number of seconds, not {t}");
        }
    }
    if let Some(preset) = &args.answers {
        return super::answers::run(&args, preset);
    }
    match &args.campaign {
        Some(dir) if args.imports_data() => bail!(
            "{}: a campaign is scored from its own records; give either CAMPAIGN or imported data",
            dir.display()
        ),
        Some(dir) => score_campaign(dir, &args),
        None if !args.imports_data() => bail!(
            "nothing to score: give a CAMPAIGN folder, or --starexec, --smtcomp-results, --benchexec or --folder"
        ),
        None => score_imports(args),
    }
}

/// `coreval score CAMPAIGN`: the campaign's score stage, with overrides.
fn score_campaign(dir: &Path, args: &ScoreArgs) -> Result<u8> {
    if !args.exclude.is_empty()
        || args.rejudge
        || args.time_limit.is_some()
        || args.status_mismatch.is_some()
    {
        bail!("--exclude, --rejudge, --time-limit and --status-mismatch apply to imported data; a campaign takes them from campaign.toml");
    }
    let mut c = super::solve::load(dir, None, None)?;
    let abs = |p: &PathBuf| std::path::absolute(p).unwrap_or_else(|_| p.clone());
    if let Some(e) = args.rules {
        c.edition = e;
    }
    if let Some(f) = args.family {
        c.family = Some(f);
    }
    if let Some(p) = &args.participants {
        c.config.score.participants = Some(abs(p));
    }
    if let Some(p) = &args.divisions {
        c.config.score.divisions = Some(abs(p));
    }
    let outputs = args.outputs();
    let stages = Stages {
        name: false,
        solve: false,
        check: false,
        score: true,
    };
    let no_cancel = std::sync::atomic::AtomicBool::new(false);
    let Some((ctx, _lock)) = open(c, stages, dir, false, &no_cancel)? else {
        bail!("{}: nothing to score", dir.display());
    };
    let c = &ctx.campaign;
    let s = pipeline::run(
        &ctx,
        None,
        (!outputs.is_empty()).then_some(&outputs),
        &no_cancel,
        &mut Quiet,
    )?;
    let Some(report) = s.report else {
        bail!("{}: nothing to score", dir.display());
    };
    for w in &report.warnings {
        eprintln!("warning: {w}");
    }
    eprintln!(
        "scored {} pairs in {} divisions under {}; reports: {}",
        report.pairs,
        report.divisions.len(),
        report.edition,
        if outputs.is_empty() {
            c.reports_dir().display().to_string()
        } else {
            "as given".to_string()
        }
    );
    Ok(exit::OK)
}

/// The benchmark tree as a lookup: logic and named assertions of an id.
fn tree_lookup(root: &Path) -> impl Fn(&str) -> Option<BenchmarkInfo> + '_ {
    move |id: &str| {
        let info = analyze(&root.join(id)).ok()?;
        Some(BenchmarkInfo {
            division: info.logic?,
            assertions: info.top_level_names.len().max(info.assertions) as u64,
        })
    }
}

/// Every imported input, then the exclusion lists.
fn import_all(args: &ScoreArgs, warnings: &mut Vec<String>) -> Result<Import> {
    let mut import = Import::default();
    for path in &args.starexec {
        import.extend(starexec::import_file(path)?);
    }
    if let (Some(r), Some(b)) = (&args.smtcomp_results, &args.smtcomp_benchmarks) {
        import.extend(smtcomp::import_files(r, b)?);
    }
    if let Some(root) = &args.benchmarks {
        let lookup = tree_lookup(root);
        for xml in &args.benchexec {
            let opts = BenchExecOptions {
                solver: None,
                logs: None,
                lookup: &lookup,
            };
            import.extend(benchexec::import_file(xml, &opts)?);
        }
        for dir in &args.folder {
            import.extend(folder::import_dir(dir, &FolderOptions { lookup: &lookup })?);
        }
        let unchecked = import
            .pairs
            .iter()
            .filter(|p| p.verdict == crate::campaign::pair::Verdict::Unchecked)
            .count();
        if unchecked > 0 {
            warnings.push(format!(
                "{unchecked} imported cores are unchecked and score no reduction: check them in a campaign (`coreval run`)"
            ));
        }
    }
    for path in &args.exclude {
        let text = crate::regular::read_to_string(path)
            .with_context(|| format!("cannot read exclusion list {}", path.display()))?;
        let list = Exclusions::parse(&text);
        let (pairs, benchmarks) = import.exclude(&list);
        warnings.push(format!(
            "{}: {} listed benchmarks, {benchmarks} of them in the data; {pairs} pairs left out",
            path.display(),
            list.len()
        ));
    }
    Ok(import)
}

/// Score imported data.
fn score_imports(args: ScoreArgs) -> Result<u8> {
    let Some(edition) = args.rules else {
        bail!(
            "--rules PRESET is required with imported data (one of: {})",
            edition_names()
        );
    };
    let mut rules = edition.rules();
    if let Some(f) = args.family {
        rules.family = f;
    }
    if let Some(t) = args.time_limit {
        rules.time_limit = t;
    }
    if let Some(c) = args.status_mismatch {
        rules.status_mismatch = c;
    }
    let participants = match &args.participants {
        Some(p) => Participants::load(p)?,
        None => Participants::none(),
    };
    let divisions = DivisionMap::for_rules(&rules, args.divisions.as_deref())?;
    let mut notes = Vec::new();
    let import = import_all(&args, &mut notes)?;
    let mut warnings: Vec<String> = pipeline::limit_warning(&rules).into_iter().collect();
    warnings.extend(
        import
            .issues
            .iter()
            .take(LISTED_ISSUES)
            .map(|i| i.to_string()),
    );
    if import.issues.len() > LISTED_ISSUES {
        warnings.push(format!(
            "… and {} more import problems",
            import.issues.len() - LISTED_ISSUES
        ));
    }
    warnings.extend(notes);
    let options = ScoreOptions {
        participants,
        rejudge: args.rejudge,
        warnings,
        divisions,
    };
    let report = score_pairs(&import.pairs, &rules, &options);
    for w in &report.warnings {
        eprintln!("warning: {w}");
    }
    let outputs = args.outputs();
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

fn edition_names() -> String {
    Edition::ALL.map(|e| e.name()).join(", ")
}
