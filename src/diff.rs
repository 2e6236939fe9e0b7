//! Comparing two runs: a release's selfcheck (`selfcheck --json OUT`) or
//! campaign (`reports/pairs.jsonl`, incremental pairs included) against
//! the next one. [`compare`] counts every change of verdict by its kind
//! (`validated -> not-validated: 56`) and lists each changed pair under
//! what the change did to it ([`Standing`]: failed, neither, passed): new
//! failures, fixed failures, no longer passing, now passing, other verdict
//! changes; then answers that changed, cores that grew or shrank (per
//! benchmark and in total). The command's exit code says whether NEW is
//! worse somewhere ([`Diff::regressed`]): a pair fails that did not, or
//! no longer passes.
//!
//! A selfcheck run is keyed by benchmark path, a campaign's pair by
//! `SOLVER BENCHMARK`; a key in one run only is listed as added or gone.

use crate::campaign::verdict::pair::{PairVerdict, Verdict};
use crate::incremental::verdict::IncrementalVerdict;
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

/// What a verdict is worth, worst first: a pair that gets worse from
/// one run to the next is a regression.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Standing {
    /// A wrong answer ([`Verdict::is_failure`], selfcheck's `failed`).
    Failed,
    /// Neither right nor wrong: a core not validated (nor refuted), no
    /// answer, `unknown`, a timeout (selfcheck's `skipped`).
    Neither,
    /// A validated core (selfcheck's `passed`).
    Passed,
}

impl Standing {
    /// A campaign's verdict's standing: passed when validated.
    fn of_verdict(validated: bool, failure: bool) -> Standing {
        match (validated, failure) {
            (true, _) => Standing::Passed,
            (_, true) => Standing::Failed,
            _ => Standing::Neither,
        }
    }
}

/// One benchmark (or pair) of a run, as compared.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct Entry {
    pub verdict: String,
    pub standing: Standing,
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
        let standing = match field("outcome").as_str() {
            Some("passed") => Standing::Passed,
            Some("failed") => Standing::Failed,
            _ => Standing::Neither,
        };
        out.insert(
            key,
            Entry {
                verdict,
                standing,
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
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let (key, entry) =
            campaign_entry(line).with_context(|| format!("{}:{}", path.display(), i + 1))?;
        out.insert(key, entry);
    }
    Ok(out)
}

/// A row of `pairs.jsonl`: a pair, or an incremental pair
/// (`"incremental": true`, its verdict folded over its queries).
fn campaign_entry(line: &str) -> Result<(String, Entry)> {
    #[derive(Deserialize)]
    struct Incremental {
        solver: String,
        benchmark: String,
        incremental: bool,
        verdict: String,
        wall: f64,
    }
    if let Ok(p) = serde_json::from_str::<Incremental>(line) {
        if p.incremental {
            let Some(v) = IncrementalVerdict::from_label(&p.verdict) else {
                bail!("no incremental verdict is called {:?}", p.verdict);
            };
            let standing = Standing::of_verdict(v == IncrementalVerdict::Validated, v.is_failure());
            let entry = Entry {
                verdict: p.verdict,
                standing,
                core_size: None,
                core: None,
                time: Some(p.wall),
            };
            return Ok((format!("{} {}", p.solver, p.benchmark), entry));
        }
    }
    let p = serde_json::from_str::<PairVerdict>(line).context("not a pair of coreval score")?;
    let v = &p.pair.verdict;
    let entry = Entry {
        verdict: v.label(),
        standing: Standing::of_verdict(*v == Verdict::Validated, v.is_failure()),
        core_size: p.pair.core_size,
        core: p
            .pair
            .core
            .as_ref()
            .map(|c| c.iter().map(|n| n.to_string()).collect()),
        time: Some(p.pair.wall),
    };
    Ok((format!("{} {}", p.pair.solver, p.pair.benchmark), entry))
}

/// The answer behind a verdict label (`validated` → `unsat`).
pub fn answer_of(verdict: &str) -> &str {
    match Verdict::from_label(verdict) {
        Some(Verdict::SatAnswer | Verdict::SatUnconfirmed) => "sat",
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

/// A pair whose verdict changed: (key, old verdict, new verdict); the old
/// one is `absent` for a key only in NEW.
pub type Change = (String, String, String);

/// What changed from one run to the next. Every change of verdict of a
/// key in both runs is in exactly one of the five lists of changes, by
/// what it did to the pair's [`Standing`].
#[derive(Clone, Debug, Default)]
pub struct Diff {
    /// Keys in both runs.
    pub both: usize,
    /// Failing in NEW, not failing (or absent) in OLD.
    pub new_failures: Vec<Change>,
    /// Failing in OLD, not in NEW.
    pub fixed: Vec<Change>,
    /// Passed in OLD, neither passed nor failed in NEW (`validated ->
    /// not-validated`, a validated core now a timeout): a regression.
    pub no_longer_passing: Vec<Change>,
    /// Neither in OLD, passed in NEW.
    pub now_passing: Vec<Change>,
    /// Another verdict of the same standing (`refuted -> sat`,
    /// `unknown -> no-answer`).
    pub other_verdicts: Vec<Change>,
    /// The answer changed: (key, old answer, new answer).
    pub answers: Vec<(String, String, String)>,
    /// Core size changed, both known: (key, old, new).
    pub cores: Vec<(String, u64, u64)>,
    pub added: Vec<String>,
    pub gone: Vec<String>,
}

impl Diff {
    /// NEW is worse somewhere: a pair fails that did not fail in OLD, or
    /// one that passed in OLD no longer passes.
    pub fn regressed(&self) -> bool {
        !self.new_failures.is_empty() || !self.no_longer_passing.is_empty()
    }

    /// Why [`Diff::regressed`], a line per reason (none when it did not).
    pub fn regressions(&self) -> Vec<&'static str> {
        let mut out = Vec::new();
        if !self.new_failures.is_empty() {
            out.push("NEW fails where OLD did not");
        }
        if !self.no_longer_passing.is_empty() {
            out.push("NEW no longer passes where OLD passed");
        }
        out
    }

    /// Every change of verdict of a key in both runs, counted by kind
    /// (`validated -> not-validated`), the most frequent first.
    pub fn verdict_changes(&self) -> Vec<(String, usize)> {
        let mut count = BTreeMap::<String, usize>::new();
        let all = (self.new_failures.iter())
            .chain(&self.fixed)
            .chain(&self.no_longer_passing)
            .chain(&self.now_passing)
            .chain(&self.other_verdicts);
        for (k, o, n) in all {
            if o != n && !self.added.contains(k) {
                *count.entry(format!("{o} -> {n}")).or_default() += 1;
            }
        }
        let mut out: Vec<(String, usize)> = count.into_iter().collect();
        out.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        out
    }

    /// The report, one fact a line.
    pub fn lines(&self) -> Vec<String> {
        let mut out = Vec::new();
        let changes = self.verdict_changes();
        let changed: usize = changes.iter().map(|c| c.1).sum();
        out.push(format!(
            "verdicts changed: {changed} of {} in both runs",
            self.both
        ));
        out.extend(changes.iter().map(|(kind, n)| format!("  {kind}: {n}")));
        let mut section = |title: &str, rows: Vec<String>| {
            out.push(format!("{title}: {}", rows.len()));
            out.extend(rows.into_iter().map(|r| format!("  {r}")));
        };
        let each = |v: &[Change]| -> Vec<String> {
            v.iter()
                .map(|(k, o, n)| format!("{k}: {o} -> {n}"))
                .collect()
        };
        section("new failures", each(&self.new_failures));
        section("fixed failures", each(&self.fixed));
        section("no longer passing", each(&self.no_longer_passing));
        section("now passing", each(&self.now_passing));
        section("other verdict changes", each(&self.other_verdicts));
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
    use Standing::*;
    let mut d = Diff::default();
    for (k, n) in new {
        let Some(o) = old.get(k) else {
            d.added.push(k.clone());
            if n.standing == Failed {
                d.new_failures
                    .push((k.clone(), "absent".into(), n.verdict.clone()));
            }
            continue;
        };
        d.both += 1;
        let change = (k.clone(), o.verdict.clone(), n.verdict.clone());
        let list = match (o.standing, n.standing) {
            (was, Failed) if was != Failed => Some(&mut d.new_failures),
            (Failed, now) if now != Failed => Some(&mut d.fixed),
            (Passed, Neither) => Some(&mut d.no_longer_passing),
            (Neither, Passed) => Some(&mut d.now_passing),
            _ if o.verdict != n.verdict => Some(&mut d.other_verdicts),
            _ => None,
        };
        if let Some(list) = list {
            list.push(change);
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
                    standing: match r.outcome {
                        Outcome::Passed => Standing::Passed,
                        Outcome::Failed => Standing::Failed,
                        Outcome::Skipped => Standing::Neither,
                    },
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
    use Standing::*;

    fn e(verdict: &str, standing: Standing, core: Option<u64>) -> Entry {
        Entry {
            verdict: verdict.into(),
            standing,
            core_size: core,
            core: None,
            time: None,
        }
    }

    #[test]
    fn failures_answers_and_cores_are_compared() {
        let old: Run = [
            ("a".to_string(), e("validated", Passed, Some(3))),
            ("b".into(), e("refuted", Failed, Some(2))),
            ("c".into(), e("validated", Passed, Some(4))),
            ("gone".into(), e("validated", Passed, Some(1))),
        ]
        .into();
        let new: Run = [
            ("a".to_string(), e("refuted", Failed, Some(2))),
            ("b".into(), e("validated", Passed, Some(3))),
            ("c".into(), e("sat", Failed, None)),
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

    #[test]
    fn every_change_of_verdict_is_counted_and_a_lost_pass_is_a_regression() {
        let old: Run = [
            ("a".to_string(), e("validated", Passed, Some(3))),
            ("b".into(), e("validated", Passed, Some(3))),
            ("c".into(), e("unknown", Neither, None)),
            ("d".into(), e("refuted", Failed, Some(2))),
            ("e".into(), e("not-validated", Neither, Some(2))),
            ("same".into(), e("not-validated", Neither, Some(2))),
        ]
        .into();
        let new: Run = [
            ("a".to_string(), e("not-validated", Neither, Some(3))),
            ("b".into(), e("not-validated", Neither, Some(3))),
            ("c".into(), e("no-answer", Neither, None)),
            ("d".into(), e("sat", Failed, None)),
            ("e".into(), e("validated", Passed, Some(2))),
            ("same".into(), e("not-validated", Neither, Some(2))),
        ]
        .into();
        let d = compare(&old, &new);
        assert!(d.new_failures.is_empty() && d.fixed.is_empty());
        assert!(d.regressed(), "validated -> not-validated loses the pass");
        assert_eq!(d.regressions(), ["NEW no longer passes where OLD passed"]);
        assert_eq!(d.no_longer_passing.len(), 2);
        assert_eq!(d.now_passing.len(), 1);
        assert_eq!(d.other_verdicts.len(), 2);
        assert_eq!(
            d.verdict_changes(),
            [
                ("validated -> not-validated".to_string(), 2),
                ("not-validated -> validated".into(), 1),
                ("refuted -> sat".into(), 1),
                ("unknown -> no-answer".into(), 1),
            ]
        );
        let text = d.lines().join("\n");
        assert!(
            text.starts_with("verdicts changed: 5 of 6 in both runs\n"),
            "{text}"
        );
        assert!(
            text.contains("no longer passing: 2\n  a: validated -> not-validated\n"),
            "{text}"
        );
        // Backwards a and b pass again; e's pass is lost.
        let back = compare(&new, &old);
        assert_eq!(back.now_passing.len(), 2);
        assert_eq!(back.no_longer_passing.len(), 1);
        assert!(!compare(&old, &old).regressed());
    }
}
