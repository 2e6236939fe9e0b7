//! `coreval score --answers PRESET`: score `sat`/`unsat` answers (a
//! campaign's solve stage, or StarExec job CSVs of SMT-COMP's main or
//! single-query track, given with `--starexec`) as the answer tracks did (`score::answers`), and write the
//! same reports as for cores; the JSON rows add solved `sat` and `unsat`.

use crate::campaign::ledger::loaded::open;
use crate::campaign::ledger::Loaded;
use crate::campaign::setup::context::Stages;
use crate::cmd::exit;
use crate::cmd::score_args::ScoreArgs;
use crate::import::answers;
use crate::report::{self, Exporter, Outputs};
use crate::score::answers::{score_answers, AnswerPreset, AnswerRecord};
use crate::score::division_map::DivisionMap;
use crate::score::participants::Participants;
use crate::score::ScoreOptions;
use anyhow::{bail, Result};
use std::io::Write;
use std::path::Path;

/// Score answer-track data under `preset` (the name given to `--answers`).
pub fn run(args: &ScoreArgs, preset: &str) -> Result<u8> {
    let preset = AnswerPreset::parse(preset)?;
    if args.smtcomp_results.is_some()
        || !args.benchexec.is_empty()
        || !args.folder.is_empty()
        || args.rules.is_some()
        || args.rejudge
        || args.status_mismatch.is_some()
        || !args.exclude.is_empty()
    {
        bail!("--answers scores a campaign's answers (CAMPAIGN) or StarExec job CSVs of an answer track (--starexec); it takes no --smtcomp-results, --benchexec, --folder, --rules, --rejudge, --status-mismatch or --exclude");
    }
    let mut warnings = Vec::new();
    let (mut records, campaign_time) = match (&args.campaign, args.starexec.is_empty()) {
        (Some(_), false) => bail!("--answers: give either CAMPAIGN or --starexec CSV, not both"),
        (None, true) => bail!(
            "--answers {}: give a campaign folder or the job CSV with --starexec CSV",
            preset.name()
        ),
        (Some(dir), true) => {
            let (records, time) = campaign_answers(dir)?;
            (records, Some(time))
        }
        (None, false) => (Vec::new(), None),
    };
    for path in &args.starexec {
        let i = answers::starexec_file(path)?;
        records.extend(i.records);
        warnings.extend(i.issues.iter().take(50).map(|i| i.to_string()));
        if i.issues.len() > 50 {
            warnings.push(format!(
                "… and {} more rows skipped in {}",
                i.issues.len() - 50,
                path.display()
            ));
        }
    }
    let mut rules = preset.rules();
    if let Some(f) = args.family {
        rules.family = f;
    }
    if let Some(t) = args.time_limit.or(campaign_time) {
        rules.time_limit = t;
    }
    let options = ScoreOptions {
        participants: match &args.participants {
            Some(p) => Participants::load(p)?,
            None => Participants::none(),
        },
        rejudge: false,
        warnings,
        divisions: DivisionMap::for_rules(&rules, args.divisions.as_deref())?,
    };
    let scored = score_answers(&records, preset, &rules, options);
    let report = &scored.report;
    for w in &report.warnings {
        eprintln!("warning: {w}");
    }
    let outputs = Outputs {
        json: None,
        csv: args.csv.clone(),
        markdown: None,
        html: args.html.clone(),
    };
    if let Some(path) = &args.json {
        let mut bytes = serde_json::to_vec_pretty(&scored.to_json()?)?;
        bytes.push(b'\n');
        crate::store::journal::write_atomic(path, &bytes)?;
    }
    // the core track's tables, headed as answers: `correct` for `reduction`
    let markdown = String::from_utf8(report::markdown::Markdown.render(report)?)?
        .replacen("# Unsat-core scores", "# Answer scores", 1)
        .replace("| errors | reduction |", "| errors | correct |");
    match &args.markdown {
        Some(path) => crate::store::journal::write_atomic(path, markdown.as_bytes())?,
        None if outputs.is_empty() && args.json.is_none() => {
            crate::cmd::out::stdout().write_all(markdown.as_bytes())?
        }
        None => {}
    }
    report::write_all(report, &outputs)?;
    eprintln!(
        "scored {} answers in {} divisions under {}",
        report.pairs,
        report.divisions.len(),
        report.edition
    );
    Ok(exit::OK)
}

/// The current answers of a campaign's solve stage, and its time limit
/// (its records of another configuration are never scored).
fn campaign_answers(dir: &Path) -> Result<(Vec<AnswerRecord>, f64)> {
    let c = crate::pipeline::load(dir, None, None)?;
    let stages = Stages {
        score: true,
        ..Stages::default()
    };
    let no_cancel = std::sync::atomic::AtomicBool::new(false);
    let Some((ctx, _lock)) = open(c, stages, dir, false, &no_cancel)? else {
        bail!("{}: nothing to score", dir.display());
    };
    let l = Loaded::new(&ctx)?;
    let time = ctx.campaign.time.as_secs_f64();
    Ok((crate::score::answers::campaign::answers(&l)?, time))
}
