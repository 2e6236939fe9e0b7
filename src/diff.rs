//! Comparing two runs: a release's selfcheck (`selfcheck --json OUT`) or
//! campaign (`reports/pairs.jsonl`) against the next one. [`compare`]
//! lists new failures, fixed failures, answers that changed, cores that
//! grew or shrank (per benchmark and in total); the command's exit code
//! says whether NEW fails where OLD did not ([`Diff::regressed`]).
//!
//! A selfcheck run is keyed by benchmark path, a campaign's pair by
//! `SOLVER BENCHMARK`; a key in one run only is listed as added or gone.

use crate::campaign::verdict::pair::{PairVerdict, Verdict};
use crate::selfcheck::outcome::{BenchResult, Outcome};
use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// What `selfcheck --json` writes.
#[derive(Serialize)]
pub struct RunFile<'a> {
    /// `selfcheck`, so that a reader can tell the file.
    pub coreval: &'static str,
    pub version: &'static str,
    pub solver: &'a str,
    pub elapsed: f64,
    pub results: &'a [BenchResult],
}

/// One benchmark (or pair) of a run, as compared.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct Entry {
    pub verdict: String,
    pub failed: bool,
    pub core_size: Option<u64>,
    pub core: Option<Vec<String>>,
    pub time: Option<f64>,
}

/// A run: its entries by key.
pub type Run = BTreeMap<String, Entry>;

/// Read a `selfcheck --json` file, or a campaign folder's
/// `reports/pairs.jsonl`.
pub fn load(path: &Path) -> Result<Run> {
    if path.is_dir() {
        return load_campaign(path);
    }
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    #[derive(Deserialize)]
    struct File {
        coreval: String,
        results: Vec<serde_json::Value>,
    }
    let f: File = serde_json::from_str(&text).with_context(|| {
        format!(
            "{}: not a `coreval selfcheck --json` file nor a campaign folder",
            path.display()
        )
    })?;
    if f.coreval != "selfcheck" {
        bail!(
            "{}: written by coreval {}, not by selfcheck",
            path.display(),
            f.coreval
        );
    }
    let mut out = Run::new();
    for (i, r) in f.results.iter().enumerate() {
        let field = |k: &str| r.get(k).cloned().unwrap_or(serde_json::Value::Null);
        let (Some(key), Some(verdict)) = (
            field("path").as_str().map(str::to_string),
            field("verdict").as_str().map(str::to_string),
        ) else {
            bail!(
                "{}: result {} has no path or verdict",
                path.display(),
                i + 1
            );
        };
        let failed = field("outcome").as_str() == Some("failed");
        out.insert(
            key,
            Entry {
                verdict,
                failed,
                core_size: field("core_size").as_u64(),
                core: serde_json::from_value(field("core")).unwrap_or(None),
                time: field("time").as_f64(),
            },
        );
    }
    Ok(out)
}

fn load_campaign(dir: &Path) -> Result<Run> {
    let path = dir.join("reports/pairs.jsonl");
    let text = std::fs::read_to_string(&path).with_context(|| {
        format!(
            "cannot read {} (score the campaign first: coreval score)",
            path.display()
        )
    })?;
    let mut out = Run::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        // Incremental pairs have rows of their own shape: not compared.
        let Ok(p) = serde_json::from_str::<PairVerdict>(line) else {
            continue;
        };
        out.insert(
            format!("{} {}", p.pair.solver, p.pair.benchmark),
            Entry {
                verdict: p.pair.verdict.label(),
                failed: p.pair.verdict.is_failure(),
                core_size: p.pair.core_size,
                core: p
                    .pair
                    .core
                    .as_ref()
                    .map(|c| c.iter().map(|n| n.to_string()).collect()),
                time: Some(p.pair.wall),
            },
        );
    }
    Ok(out)
}

/// The answer behind a verdict label (`validated` → `unsat`).
pub fn answer_of(verdict: &str) -> &str {
    match Verdict::from_label(verdict) {
        Some(Verdict::SatAnswer) => "sat",
        Some(Verdict::Unknown) => "unknown",
        Some(Verdict::NoAnswer | Verdict::Unchecked) => "no answer",
        Some(_) => "unsat",
        None => match verdict {
            "sat-confirmed" | "sat-unconfirmed" => "sat",
            "undecided" | "no-checker" | "unsat-on-sat" | "truncated-output" => "unsat",
            "timeout" | "memout" | "error" | "no-answer" | "unknown" => verdict,
            other => other,
        },
    }
}

/// What changed from one run to the next.
#[derive(Clone, Debug, Default)]
pub struct Diff {
    /// Failing in NEW, not failing (or absent) in OLD: (key, old verdict, new verdict).
    pub new_failures: Vec<(String, String, String)>,
    pub fixed: Vec<(String, String, String)>,
    /// The answer changed: (key, old answer, new answer).
    pub answers: Vec<(String, String, String)>,
    /// Core size changed, both known: (key, old, new).
    pub cores: Vec<(String, u64, u64)>,
    pub added: Vec<String>,
    pub gone: Vec<String>,
}

impl Diff {
    /// NEW fails where OLD did not.
    pub fn regressed(&self) -> bool {
        !self.new_failures.is_empty()
    }

    /// The report, one fact a line.
    pub fn lines(&self) -> Vec<String> {
        let mut out = Vec::new();
        let mut section = |title: &str, rows: Vec<String>| {
            out.push(format!("{title}: {}", rows.len()));
            out.extend(rows.into_iter().map(|r| format!("  {r}")));
        };
        section(
            "new failures",
            self.new_failures
                .iter()
                .map(|(k, o, n)| format!("{k}: {o} -> {n}"))
                .collect(),
        );
        section(
            "fixed failures",
            self.fixed
                .iter()
                .map(|(k, o, n)| format!("{k}: {o} -> {n}"))
                .collect(),
        );
        section(
            "answers changed",
            self.answers
                .iter()
                .map(|(k, o, n)| format!("{k}: {o} -> {n}"))
                .collect(),
        );
        let grew: Vec<&(String, u64, u64)> = self.cores.iter().filter(|(_, o, n)| n > o).collect();
        let shrank: Vec<&(String, u64, u64)> =
            self.cores.iter().filter(|(_, o, n)| n < o).collect();
        let total = |v: &[&(String, u64, u64)]| -> (u64, u64) {
            v.iter().fold((0, 0), |(a, b), (_, o, n)| (a + o, b + n))
        };
        for (title, v) in [("cores grew", grew), ("cores shrank", shrank)] {
            let (o, n) = total(&v);
            let rows = v
                .iter()
                .map(|(k, o, n)| format!("{k}: {o} -> {n}"))
                .collect();
            section(&format!("{title} (in total {o} -> {n} names)"), rows);
        }
        if !self.added.is_empty() || !self.gone.is_empty() {
            section("only in NEW", self.added.clone());
            section("only in OLD", self.gone.clone());
        }
        out
    }
}

/// Compare run `old` with run `new`.
pub fn compare(old: &Run, new: &Run) -> Diff {
    let mut d = Diff::default();
    for (k, n) in new {
        let Some(o) = old.get(k) else {
            d.added.push(k.clone());
            if n.failed {
                d.new_failures
                    .push((k.clone(), "absent".into(), n.verdict.clone()));
            }
            continue;
        };
        match (o.failed, n.failed) {
            (false, true) => d
                .new_failures
                .push((k.clone(), o.verdict.clone(), n.verdict.clone())),
            (true, false) => d
                .fixed
                .push((k.clone(), o.verdict.clone(), n.verdict.clone())),
            _ => {}
        }
        let (a, b) = (answer_of(&o.verdict), answer_of(&n.verdict));
        if a != b {
            d.answers.push((k.clone(), a.to_string(), b.to_string()));
        }
        if let (Some(x), Some(y)) = (o.core_size, n.core_size) {
            if x != y {
                d.cores.push((k.clone(), x, y));
            }
        }
    }
    d.gone = old
        .keys()
        .filter(|k| !new.contains_key(*k))
        .cloned()
        .collect();
    d
}

/// A selfcheck's results as a run (for `--baseline`, without a file).
pub fn of_results(results: &[BenchResult]) -> Run {
    results
        .iter()
        .map(|r| {
            (
                r.path.clone(),
                Entry {
                    verdict: r.verdict.clone(),
                    failed: r.outcome == Outcome::Failed,
                    core_size: r.core_size,
                    core: r.core.clone(),
                    time: r.time,
                },
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(verdict: &str, failed: bool, core: Option<u64>) -> Entry {
        Entry {
            verdict: verdict.into(),
            failed,
            core_size: core,
            core: None,
            time: None,
        }
    }

    #[test]
    fn failures_answers_and_cores_are_compared() {
        let old: Run = [
            ("a".to_string(), e("validated", false, Some(3))),
            ("b".into(), e("refuted", true, Some(2))),
            ("c".into(), e("validated", false, Some(4))),
            ("gone".into(), e("validated", false, Some(1))),
        ]
        .into();
        let new: Run = [
            ("a".to_string(), e("refuted", true, Some(2))),
            ("b".into(), e("validated", false, Some(3))),
            ("c".into(), e("sat", true, None)),
        ]
        .into();
        let d = compare(&old, &new);
        assert!(d.regressed());
        let names: Vec<&str> = d.new_failures.iter().map(|x| x.0.as_str()).collect();
        assert_eq!(names, ["a", "c"]);
        assert_eq!(d.fixed.len(), 1);
        assert_eq!(d.answers, [("c".into(), "unsat".into(), "sat".into())]);
        assert_eq!(d.cores, [("a".into(), 3, 2), ("b".into(), 2, 3)]);
        assert_eq!(d.gone, ["gone"]);
        let text = d.lines().join("\n");
        assert!(
            text.contains("cores grew (in total 2 -> 3 names): 1"),
            "{text}"
        );
        assert!(!compare(&new, &new).regressed());
    }
}
