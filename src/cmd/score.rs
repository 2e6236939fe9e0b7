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
//!
//! Both paths also hand the scored pairs back to the competition's tools
//! (`crate::export`): `--smtcomp-json DIR` and `--benchexec-xml DIR`,
//! their folders checked writable before any work.

use crate::benchmark::analyze;
use crate::campaign::ledger::loaded::open;
use crate::campaign::verdict::pair::PairRecord;
use crate::cmd::{exit, writable};
use crate::export::{self, Scored};
use crate::import::benchexec::{self, BenchExecOptions};
use crate::import::folder::{self, FolderOptions};
use crate::import::{smtcomp, starexec, BenchmarkInfo, Exclusions, Import};
use crate::pipeline::{self, Quiet, Stages};
use crate::report::{self, Exporter};
use crate::score::division_map::DivisionMap;
use crate::score::participants::Participants;
use crate::score::rules::Edition;
use crate::score::{score_pairs, ScoreOptions};
use anyhow::{bail, Context, Result};
use rustc_hash::FxHashMap as HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};

pub use super::score_args::ScoreArgs;

/// Import problems listed one by one in the report; the rest are counted.
const LISTED_ISSUES: usize = 50;

/// Run `coreval score`. With no output file, prints Markdown to stdout.
pub fn run(args: ScoreArgs) -> Result<u8> {
    if let Some(t) = args.time_limit {
        if !(t.is_finite() && t > 0.0) {
            bail!("--time-limit must be a positive number of seconds, not {t}");
        }
    }
    if let Some(preset) = &args.answers {
        if args.exports() {
            bail!("--smtcomp-json and --benchexec-xml export unsat-core results; --answers scores the answer tracks");
        }
        return super::answers::run(&args, preset);
    }
    check_exports(&args)?;
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
    let mut c = crate::pipeline::load(dir, None, None)?;
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
    let Some((mut ctx, _lock)) = open(c, stages, dir, false, &no_cancel)? else {
        bail!("{}: nothing to score", dir.display());
    };
    ctx.score_partial = args.partial;
    let c = &ctx.campaign;
    let s = pipeline::run(
        &ctx,
        &pipeline::Options {
            outputs: (!outputs.is_empty()).then_some(&outputs),
            ..Default::default()
        },
        &no_cancel,
        &Quiet,
    )?;
    let Some(report) = s.report else {
        bail!("{}: nothing to score", dir.display());
    };
    if args.exports() {
        // Scrambled benchmarks go by their originals, as in the reports.
        let judged = s.pairs.as_deref().unwrap_or_default();
        let originals = pipeline::originals(&c.benchmarks, judged);
        let renamed = pipeline::by_originals(judged.iter().map(|p| &p.pair), &originals);
        let pairs: Vec<&PairRecord> = renamed.iter().collect();
        let index = crate::campaign::ledger::index::read_index(c)?;
        let declared: HashMap<&str, &str> = index
            .iter()
            .filter_map(|b| {
                let id = b.id.as_str();
                let id = originals.get(id).map_or(id, |o| o.as_ref());
                Some((id, b.status.as_deref()?))
            })
            .collect();
        let status = |p: &PairRecord| {
            declared
                .get(p.benchmark.as_str())
                .map(|s| s.to_string())
                .or_else(|| p.expected.as_deref().map(Into::into))
        };
        let name = dir
            .file_name()
            .map_or_else(|| "campaign".into(), |n| n.to_string_lossy().into_owned());
        write_exports(
            args,
            &Scored {
                pairs: &pairs,
                rules: &ctx.rules,
                rejudge: false,
                status: &status,
                facts: report.facts.as_ref(),
                name: &name,
            },
        )?;
    }
    // The warnings were said as the stage found them, once each.
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
            .filter(|p| p.verdict == crate::campaign::verdict::pair::Verdict::Unchecked)
            .count();
        if unchecked > 0 {
            warnings.push(format!(
                "{unchecked} imported cores are unchecked and score no reduction: check them in a campaign (`coreval run`)"
            ));
        }
    }
    for path in &args.exclude {
        let text = crate::store::regular::read_to_string(path)
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
    if args.partial {
        bail!("--partial applies to a campaign (records of another configuration); imported data has none");
    }
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
    if outputs.is_empty() && !args.exports() {
        crate::cmd::out::stdout().write_all(&report::markdown::Markdown.render(&report)?)?;
    } else {
        report::write_all(&report, &outputs)?;
    }
    let pairs: Vec<&PairRecord> = import.pairs.iter().collect();
    write_exports(
        &args,
        &Scored {
            pairs: &pairs,
            rules: &rules,
            rejudge: args.rejudge,
            status: &|p: &PairRecord| p.expected.as_deref().map(Into::into),
            facts: None,
            name: "imported",
        },
    )?;
    eprintln!(
        "scored {} pairs in {} divisions under {} (family: {})",
        report.pairs,
        report.divisions.len(),
        report.edition,
        report.family
    );
    Ok(exit::OK)
}

/// The export folders checked writable (or makeable) before any work.
fn check_exports(args: &ScoreArgs) -> Result<()> {
    let mut checks = Vec::new();
    if let Some(d) = &args.smtcomp_json {
        checks.push(("--smtcomp-json", d.as_path(), writable::folder(d)));
    }
    if let Some(d) = &args.benchexec_xml {
        checks.push(("--benchexec-xml", d.as_path(), writable::folder(d)));
    }
    writable::all(&checks)
}

/// The exports asked for, each said on stderr.
fn write_exports(args: &ScoreArgs, scored: &Scored) -> Result<()> {
    if let Some(dir) = &args.smtcomp_json {
        let w = export::smtcomp_json::write(dir, scored)?;
        if w.merged > 0 {
            eprintln!(
                "warning: {} benchmark ids differ only above their logic folder and are listed once in {}",
                w.merged,
                w.benchmarks.display()
            );
        }
        eprintln!(
            "smtcomp tool files: {} result rows in {}, {} benchmarks in {}",
            w.rows,
            w.results.display(),
            w.listed,
            w.benchmarks.display()
        );
    }
    if let Some(dir) = &args.benchexec_xml {
        let files = export::benchexec_xml::write(dir, scored)?;
        eprintln!(
            "BenchExec result files: {} in {}",
            files.len(),
            dir.display()
        );
    }
    Ok(())
}

fn edition_names() -> String {
    Edition::ALL.map(|e| e.name()).join(", ")
}
