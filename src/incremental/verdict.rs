//! The verdict on an incremental (solver, script) pair of a campaign, from
//! its run, its [`QueryRecord`] and the checkers' answers on the check
//! scripts: every `unsat` answer's core (or unsat-assumption set) is
//! decided on its own ([`QueryVerdict`]), then folded into one
//! [`IncrementalVerdict`] for the pair: validated only when every such
//! answer is validated, a failure when any is refuted or ill-formed, has
//! no core, or when the output contradicts the script — another answer
//! than a query's, a `sat` (`unsat`) where the script declares
//! `:status unsat` (`sat`) before the query, or a `sat` where another
//! solver's core on the same query was validated (a proof of unsat).
//!
//! A query is validated only with an independent `unsat` (the solver's
//! team left out, the campaign's `[check] policy` deciding), as in
//! `coreval selfcheck`. These pairs are not in the track's scores.

use super::record::{QueryAnswer, QueryCheck, QueryRecord, INCREMENTAL};
use super::script::against_status;
use crate::campaign::ledger::records::{CheckRecord, RunRecord};
use crate::campaign::ledger::Loaded;
use crate::campaign::verdict::certification::{Certification, Refutation};
use crate::campaign::verdict::policy::{CheckAnswer, Decision};
use anyhow::Result;
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};

/// The verdict on an incremental pair, and on each of its `unsat`
/// answers with a core or assumptions (a query is `Validated`, `Refuted`,
/// `NotValidated`, `IllFormed` or `NoCore`). Written as its label, as a
/// single-query pair's verdict is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IncrementalVerdict {
    /// Every `unsat` answer's core or assumption set validated.
    Validated,
    /// A core or assumption set the checkers found satisfiable.
    Refuted,
    /// A core naming what is not in scope, an answer that is not an
    /// assumption (the label says which).
    IllFormed {
        label: String,
    },
    /// `unsat` followed by an error where the core should be.
    NoCore,
    /// Output that contradicts the script (see the module documentation).
    Contradiction,
    /// The output is not S-expressions.
    IllFormedOutput,
    /// Some answer's check undecided (no independent `unsat`).
    NotValidated,
    /// The output ended early (time limit, crash) with nothing failed.
    Timeout,
    NoAnswer,
    /// No `unsat` answer with a core or assumptions.
    NoUnsatQuery,
}

impl IncrementalVerdict {
    /// A wrong answer: what the exit code and the reports count as failures.
    pub fn is_failure(&self) -> bool {
        matches!(
            self,
            Self::Refuted
                | Self::IllFormed { .. }
                | Self::NoCore
                | Self::Contradiction
                | Self::IllFormedOutput
        )
    }

    /// `validated`, `ill-formed:popped-scope`, …
    pub fn label(&self) -> String {
        match self {
            Self::Validated => "validated".into(),
            Self::Refuted => "refuted".into(),
            Self::IllFormed { label } => format!("ill-formed:{label}"),
            Self::NoCore => "unsat-no-core".into(),
            Self::Contradiction => "contradiction".into(),
            Self::IllFormedOutput => "ill-formed-output".into(),
            Self::NotValidated => "not-validated".into(),
            Self::Timeout => "timeout".into(),
            Self::NoAnswer => "no-answer".into(),
            Self::NoUnsatQuery => "no-unsat-query".into(),
        }
    }
}

impl IncrementalVerdict {
    /// The verdict a label names ([`IncrementalVerdict::label`]'s inverse),
    /// as `coreval diff` reads `pairs.jsonl`.
    pub fn from_label(label: &str) -> Option<Self> {
        if let Some(l) = label.strip_prefix("ill-formed:") {
            return Some(Self::IllFormed { label: l.into() });
        }
        [
            Self::Validated,
            Self::Refuted,
            Self::NoCore,
            Self::Contradiction,
            Self::IllFormedOutput,
            Self::NotValidated,
            Self::Timeout,
            Self::NoAnswer,
            Self::NoUnsatQuery,
        ]
        .into_iter()
        .find(|v| v.label() == label)
    }
}

impl Serialize for IncrementalVerdict {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.label())
    }
}

/// One `unsat` answer with its core or assumptions, decided.
#[derive(Clone, Debug, Serialize)]
pub struct QueryVerdict {
    /// Line of the query in the named script.
    pub line: u64,
    pub asked: String,
    pub answer: String,
    /// `validated`, `refuted`, `not-validated`, `ill-formed:LABEL`,
    /// `unsat-no-core`.
    pub verdict: IncrementalVerdict,
    /// Why, for an ill-formed answer or one without a core, or a dispute.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
    /// The check script, relative to the campaign.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// The counted answers of the selected checkers.
    pub checkers: BTreeMap<String, CheckAnswer>,
    /// For a refutation: `certified` or `uncertified`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refutation: Option<Refutation>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// One incremental pair: a row of `pairs.jsonl` with `"incremental": true`.
#[derive(Clone, Debug, Serialize)]
pub struct IncrementalPair {
    pub solver: String,
    pub benchmark: String,
    pub logic: String,
    pub incremental: bool,
    pub verdict: IncrementalVerdict,
    /// The failing query's line, when the verdict rests on one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u64>,
    pub queries: Vec<QueryVerdict>,
    /// Every query's answer (`sat`, `unsat`, `unknown`…), with the status
    /// declared before it.
    pub answers: Vec<QueryAnswer>,
    /// Contradictions and other remarks on the output, one line each.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub flags: Vec<String>,
    pub wall: f64,
    pub cpu: f64,
    /// What produced the run (as in `runs.jsonl`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provenance: Option<crate::campaign::ledger::produced::Provenance>,
}

impl IncrementalPair {
    /// Unsat answers with a core or assumptions, and those validated.
    pub fn counts(&self) -> (usize, usize) {
        let ok = self
            .queries
            .iter()
            .filter(|q| q.verdict == IncrementalVerdict::Validated);
        (self.queries.len(), ok.count())
    }
}

/// Every incremental pair of the campaign, in (solver, benchmark) order.
pub fn collect(l: &Loaded) -> Result<Vec<IncrementalPair>> {
    let c = l.campaign;
    if !l.index.iter().any(|e| e.incremental) {
        return Ok(Vec::new());
    }
    let runs: Vec<RunRecord> = crate::campaign::ledger::current::runs(l)?;
    let records: Vec<QueryRecord> = c.read_journal(INCREMENTAL)?;
    let checks: Vec<CheckRecord> = crate::campaign::ledger::current::checks(l)?;
    let answered = checks.iter().map(|k| k.checker.as_str()).collect();
    let checkers = crate::campaign::setup::selection::verdict_checkers(c, l.defs, &answered);
    let mut answers: HashMap<&str, BTreeMap<&str, &CheckRecord>> = HashMap::new();
    for k in &checks {
        answers
            .entry(k.hash.as_str())
            .or_default()
            .insert(k.checker.as_str(), k);
    }
    let by_source: HashMap<(&str, &str, &str), &QueryRecord> = records
        .iter()
        .map(|r| {
            (
                (r.solver.as_str(), r.benchmark.as_str(), r.source.as_str()),
                r,
            )
        })
        .collect();
    let mut out = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for r in &runs {
        let (Some(s), Some(e)) = (l.solver(&r.solver), l.bench(&r.benchmark)) else {
            continue;
        };
        if !e.incremental || !seen.insert((r.solver.as_str(), r.benchmark.as_str())) {
            continue;
        }
        let mut p = IncrementalPair {
            solver: r.solver.clone(),
            benchmark: r.benchmark.clone(),
            logic: e.logic.to_string(),
            incremental: true,
            verdict: IncrementalVerdict::NoAnswer,
            line: None,
            queries: Vec::new(),
            answers: Vec::new(),
            flags: Vec::new(),
            wall: r.wall,
            cpu: r.cpu,
            provenance: r
                .provenance
                .as_deref()
                .and_then(|p| l.current.inline(p, Some(&r.benchmark))),
        };
        let transcript = r.transcript.as_deref().unwrap_or("");
        let source = super::record::source(l.current.bench_hash(&e.id), transcript);
        let Some(q) = by_source.get(&(r.solver.as_str(), r.benchmark.as_str(), source.as_str()))
        else {
            p.flags
                .push("not matched to its script yet: run the check stage".into());
            out.push(p);
            continue;
        };
        let sel = crate::campaign::setup::selection::select(
            &checkers,
            &e.logic,
            s,
            c.config.check.independent,
            l.ctx.validators.as_ref(),
        );
        for entry in &q.queries {
            let mut v = QueryVerdict {
                line: entry.line,
                asked: entry.asked.clone(),
                answer: entry.answer.clone(),
                verdict: IncrementalVerdict::NotValidated,
                why: None,
                file: None,
                checkers: BTreeMap::new(),
                refutation: None,
                notes: entry.notes.clone(),
            };
            match &entry.check {
                QueryCheck::IllFormed { label, why } => {
                    v.verdict = IncrementalVerdict::IllFormed {
                        label: label.clone(),
                    };
                    v.why = Some(why.clone());
                }
                QueryCheck::NoCore { why } => {
                    v.verdict = IncrementalVerdict::NoCore;
                    v.why = Some(why.clone());
                }
                QueryCheck::Script { hash } => {
                    v.file = Some(format!("cores/{hash}.smt2"));
                    let mine = answers.get(hash.as_str());
                    let counted: HashMap<&str, CheckAnswer> = sel
                        .iter()
                        .filter_map(|k| {
                            let rec = mine?.get(k.name.as_str())?;
                            Some((k.name.as_str(), rec.counted(c.config.check.policy)))
                        })
                        .collect();
                    let (t, _, _) = crate::campaign::setup::selection::tally(&counted, &sel, s);
                    v.checkers = counted.iter().map(|(k, a)| (k.to_string(), *a)).collect();
                    let decision = c.config.check.policy.decide(&t);
                    v.verdict = if decision == Decision::Refuted {
                        let sats = counted
                            .iter()
                            .filter(|(_, a)| **a == CheckAnswer::Sat)
                            .filter_map(|(k, _)| mine?.get(k))
                            .map(|rec| rec.certification.clone());
                        let sats: Vec<Option<Certification>> = sats.collect();
                        v.refutation = Some(Refutation::of(sats.iter()));
                        IncrementalVerdict::Refuted
                    } else if decision == Decision::Validated && t.unsat > 0 {
                        IncrementalVerdict::Validated
                    } else {
                        IncrementalVerdict::NotValidated
                    };
                }
            }
            p.queries.push(v);
        }
        p.answers = q.answers.clone();
        fold(&mut p, q, r);
        out.push(p);
    }
    proofs_of_unsat(&mut out);
    out.sort_by(|a, b| (&a.solver, &a.benchmark).cmp(&(&b.solver, &b.benchmark)));
    Ok(out)
}

/// The pair's verdict from its queries, the record's faults and the run.
fn fold(p: &mut IncrementalPair, q: &QueryRecord, r: &RunRecord) {
    let declared =
        |a: &&QueryAnswer| against_status(a.line, &a.answer, a.status.as_deref()).is_some();
    for f in &q.faults {
        p.flags
            .push(format!("output does not match the script: {f}"));
    }
    p.flags.extend(
        q.answers
            .iter()
            .filter_map(|a| against_status(a.line, &a.answer, a.status.as_deref())),
    );
    if let Some(line) = q.cut_at {
        let how = if r.timed_out {
            "time limit".to_string()
        } else {
            crate::campaign::ledger::records::exit_text::format(&r.exit)
        };
        p.flags
            .push(format!("the output ended before line {line} ({how})"));
    }
    let first = |pred: &dyn Fn(&IncrementalVerdict) -> bool| {
        p.queries
            .iter()
            .find(|v| pred(&v.verdict))
            .map(|v| (v.verdict.clone(), v.line))
    };
    // The first failing query decides, refutations before ill-formed
    // answers before missing cores.
    let failing = first(&|v| *v == IncrementalVerdict::Refuted)
        .or_else(|| first(&|v| matches!(v, IncrementalVerdict::IllFormed { .. })))
        .or_else(|| first(&|v| *v == IncrementalVerdict::NoCore));
    let contradicted = !q.faults.is_empty() || q.answers.iter().any(|a| declared(&a));
    let (verdict, line) = if let Some(ill) = &q.ill_formed_output {
        p.flags
            .push(format!("the output is not S-expressions: {ill}"));
        (IncrementalVerdict::IllFormedOutput, None)
    } else if let Some((v, line)) = failing {
        (v, Some(line))
    } else if contradicted {
        let line = q.answers.iter().find(declared).map(|a| a.line);
        (IncrementalVerdict::Contradiction, line)
    } else if q.cut_at.is_some() || r.stdout_dropped > 0 {
        let v = if r.timed_out {
            IncrementalVerdict::Timeout
        } else {
            IncrementalVerdict::NoAnswer
        };
        (v, q.cut_at)
    } else if p.queries.is_empty() {
        (IncrementalVerdict::NoUnsatQuery, None)
    } else if p
        .queries
        .iter()
        .all(|v| v.verdict == IncrementalVerdict::Validated)
    {
        (IncrementalVerdict::Validated, None)
    } else {
        let line = first(&|v| *v != IncrementalVerdict::Validated).map(|(_, line)| line);
        (IncrementalVerdict::NotValidated, line)
    };
    p.verdict = verdict;
    p.line = line;
}

/// A `sat` answer on a query of a script where another solver's core on
/// the same query (same line of the same named script) was validated is
/// a contradiction: that core proves the query unsat.
fn proofs_of_unsat(pairs: &mut [IncrementalPair]) {
    let mut proved: HashMap<(String, u64), String> = HashMap::new();
    for p in pairs.iter() {
        for q in p
            .queries
            .iter()
            .filter(|q| q.verdict == IncrementalVerdict::Validated)
        {
            proved
                .entry((p.benchmark.clone(), q.line))
                .or_insert_with(|| p.solver.clone());
        }
    }
    for p in pairs.iter_mut() {
        let mut first = None;
        for a in p.answers.iter().filter(|a| a.answer == "sat") {
            let Some(other) = proved.get(&(p.benchmark.clone(), a.line)) else {
                continue;
            };
            if *other == p.solver {
                continue;
            }
            p.flags.push(format!(
                "line {}: sat, but {other}'s core on this query was validated (unsat)",
                a.line
            ));
            first.get_or_insert(a.line);
        }
        if let (Some(line), false) = (first, p.verdict.is_failure()) {
            p.verdict = IncrementalVerdict::Contradiction;
            p.line = Some(line);
        }
    }
}
