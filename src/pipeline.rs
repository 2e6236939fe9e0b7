//! The stages of a campaign as library calls, in order: name → solve →
//! check → verdicts → score → reports. `coreval run` calls them one after
//! the other; each resumes from the journals, so a re-run after a kill
//! redoes nothing that finished.

use crate::campaign::pair::PairVerdict;
use crate::campaign::Campaign;
use crate::name::{name_tree, NameOptions, NameSummary, TreeOptions};
use crate::report::{self, Outputs};
use crate::score::participants::Participants;
use crate::score::result::ScoreReport;
use crate::score::rules::{Edition, FamilyDef, Rules};
use crate::score::{score_pairs, ScoreOptions};
use anyhow::{anyhow, Context, Result};
use clap::ValueEnum;
use std::path::PathBuf;

/// A rules edition by name (`smtcomp-2019`…).
pub fn edition(name: &str) -> Result<Edition> {
    Edition::from_str(name, false).map_err(|_| {
        let known: Vec<String> = Edition::value_variants()
            .iter()
            .filter_map(|e| e.to_possible_value())
            .map(|v| v.get_name().to_string())
            .collect();
        anyhow!(
            "unknown rules edition '{name}': expected one of {}",
            known.join(", ")
        )
    })
}

/// A family definition by name (`first-folder`, `directory`).
pub fn family(name: &str) -> Result<FamilyDef> {
    FamilyDef::from_str(name, false).map_err(|_| {
        anyhow!("unknown family definition '{name}': expected first-folder or directory")
    })
}

/// Stage 1: name the campaign's benchmarks into `named/` (resumable).
pub fn name(c: &Campaign) -> Result<NameSummary> {
    let n = &c.config.naming;
    let opts = TreeOptions {
        name: NameOptions {
            prefix: (!n.prefix.is_empty()).then(|| n.prefix.clone()),
            policy: crate::benchmark::Policy {
                min_assertions: n.min_assertions as usize,
                allow_no_status: n.allow_no_status,
                named: n.named_policy,
                accept_any_status: n.accept_any_status,
            },
            strict: false,
            known_status: None,
        },
        scramble: n
            .scramble_seed
            .map(|seed| crate::scramble::ScrambleOptions {
                seed,
                commute: n.scramble_commute,
                ..Default::default()
            }),
        jobs: Some(c.jobs),
        progress: std::io::IsTerminal::is_terminal(&std::io::stderr()),
    };
    name_tree(&c.benchmarks, &c.named_dir(), &opts)
        .with_context(|| format!("naming the benchmarks of {}", c.benchmarks.display()))
}

/// The rules of a campaign: its edition, with the campaign's own time limit.
pub fn rules(c: &Campaign) -> Result<Rules> {
    let mut rules = edition(&c.config.score.rules)?.rules();
    rules.time_limit = c.time.as_secs_f64();
    if let Some(f) = &c.config.score.family {
        rules.family = family(f)?;
    }
    Ok(rules)
}

/// The default report files of a campaign, under `reports/`.
pub fn default_outputs(c: &Campaign) -> Outputs {
    let dir = c.reports_dir();
    Outputs {
        json: Some(dir.join("scores.json")),
        csv: Some(dir.join("pairs.csv")),
        markdown: Some(dir.join("report.md")),
        html: Some(dir.join("report.html")),
    }
}

/// Stages 4–5: verdicts from the journals, scores, and the reports (plus
/// `reports/pairs.jsonl`, every pair with the evidence behind its verdict).
pub fn score(c: &Campaign, outputs: &Outputs) -> Result<(Vec<PairVerdict>, ScoreReport)> {
    let pairs = crate::judge::collect(c)?;
    let participants = match &c.config.score.participants {
        Some(p) => Participants::load(&c.dir.join(p))?,
        None => Participants::none(),
    };
    let options = ScoreOptions {
        participants,
        rejudge: false,
        warnings: Vec::new(),
    };
    let records: Vec<_> = pairs.iter().map(|p| p.pair.clone()).collect();
    let report = score_pairs(&records, &rules(c)?, &options);
    let mut lines = Vec::new();
    for p in &pairs {
        serde_json::to_writer(&mut lines, p)?;
        lines.push(b'\n');
    }
    crate::journal::write_atomic(&c.reports_dir().join("pairs.jsonl"), &lines)?;
    report::write_all(&report, outputs)?;
    Ok((pairs, report))
}

/// Where the HTML report of a campaign is.
pub fn html_report(c: &Campaign) -> PathBuf {
    c.reports_dir().join("report.html")
}
