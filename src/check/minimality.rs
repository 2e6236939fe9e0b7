//! The subset-minimality check (`[check] minimality = true`, `coreval check
//! --minimality`): after validation, every validated core's members are
//! taken out one at a time; the core minus the member is rebuilt
//! ([`crate::rebuild`]) and put to the checkers that count for the pair
//! (same independence and decision policy, see
//! [`crate::campaign::verdict::minimality`] for the rule). Identical cores (by
//! hash, per benchmark) are tested once, with one budget of checker time
//! (`minimality_budget` seconds); the answers are journaled in
//! `minimality-checks.jsonl` and cached across campaigns like validation's,
//! and each pair's outcome in `minimality.jsonl`. A pair already tested
//! with the same budget is not tested again.

use super::ask::{parallel, rebuild, validated, AskStats, Asker, Validated};
use crate::campaign::ledger::Loaded;
use crate::campaign::setup::selection::tally;
use crate::campaign::verdict::minimality::{
    removal, Minimality, MinimalityRecord, Removal, Status, MINIMALITY, MINIMALITY_CHECKS,
};
use crate::campaign::verdict::policy::CheckAnswer;
use crate::checkers::SolverDef;
use crate::store::journal::Journal;
use anyhow::Result;
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::AtomicBool;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// What a minimality pass did.
#[derive(Clone, Debug, Default, Serialize)]
pub struct MinimalitySummary {
    /// Validated pairs tested in this pass.
    pub pairs: usize,
    /// Distinct cores among them.
    pub cores: usize,
    pub minimal: usize,
    pub redundant: usize,
    pub unknown: usize,
    /// Checker runs, cache hits and runs cut by the budget.
    pub asked: AskStats,
}

/// Test the validated cores of `l` not yet tested with this budget.
pub fn run(
    l: &Loaded,
    filter: &dyn Fn(&str) -> bool,
    cancel: &AtomicBool,
) -> Result<MinimalitySummary> {
    let c = l.campaign;
    let budget = c.config.check.minimality_budget;
    let asker = Asker::open(l, MINIMALITY_CHECKS, cancel)?;
    let done: Vec<MinimalityRecord> = c.read_journal(MINIMALITY)?;
    let tested: std::collections::HashSet<(&str, &str, &str)> = done
        .iter()
        .filter(|r| r.budget == budget)
        .map(|r| {
            (
                r.solver.as_str(),
                r.benchmark.as_str(),
                r.core_hash.as_str(),
            )
        })
        .collect();
    let todo: Vec<Validated> = validated(l, &asker, filter)?
        .into_iter()
        .filter(|v| {
            !tested.contains(&(v.solver.name.as_str(), v.bench.id.as_str(), v.hash.as_str()))
        })
        .collect();
    let mut groups: BTreeMap<(&str, &str), Vec<&Validated>> = BTreeMap::new();
    for v in &todo {
        groups
            .entry((v.hash.as_str(), v.bench.id.as_str()))
            .or_default()
            .push(v);
    }
    let groups: Vec<Vec<&Validated>> = groups.into_values().collect();
    let journal = Journal::open(&c.journal_path(MINIMALITY))?;
    let records = Mutex::new(Vec::new());
    let bar = l.say.bar("minimality", groups.len() as u64);
    parallel(c.jobs, &groups, &|g: &Vec<&Validated>| {
        let deadline = Instant::now() + Duration::from_secs_f64(budget);
        let recs = test_core(&asker, g, deadline, budget)?;
        if cancel.load(std::sync::atomic::Ordering::SeqCst) {
            return Ok(()); // cut by Ctrl-C, not by the budget: tested again next time
        }
        journal.append_all(&recs)?;
        records.lock().unwrap().extend(recs);
        bar.inc(1);
        Ok(())
    })?;
    bar.finish_and_clear();
    let records = records.into_inner().unwrap();
    let count = |s: Status| records.iter().filter(|r| r.minimality.status == s).count();
    Ok(MinimalitySummary {
        pairs: records.len(),
        cores: groups.len(),
        minimal: count(Status::Minimal),
        redundant: count(Status::Redundant),
        unknown: count(Status::Unknown),
        asked: asker.finish(),
    })
}

/// Test one core (the pairs of `group` share it) member by member.
fn test_core(
    asker: &Asker,
    group: &[&Validated],
    deadline: Instant,
    budget: f64,
) -> Result<Vec<MinimalityRecord>> {
    let c = asker.c;
    let first = group[0];
    let check = &c.config.check;
    let selections: Vec<Vec<&SolverDef>> = group
        .iter()
        .map(|v| asker.select(&v.bench.logic, v.solver))
        .collect();
    let mut union: Vec<&SolverDef> = Vec::new();
    for k in selections.iter().flatten() {
        if !union.iter().any(|x| x.name == k.name) {
            union.push(k);
        }
    }
    let outcome = |answers: &HashMap<&str, CheckAnswer>, i: usize| {
        let (t, remaining, producer) = tally(answers, &selections[i], group[i].solver);
        removal(check.policy, &t, remaining, producer, check.early_stop)
    };
    let mut removals: Vec<Vec<(String, Removal)>> = vec![Vec::new(); group.len()];
    for member in &first.core {
        let rest: Vec<String> = first
            .core
            .iter()
            .filter(|n| *n != member)
            .cloned()
            .collect();
        let hash = rebuild(c, first.bench, &rest)?;
        let decided =
            |a: &HashMap<&str, CheckAnswer>| (0..group.len()).all(|i| outcome(a, i).is_some());
        let (answers, _) = asker.ask(&hash, &union, deadline, &decided)?;
        let view: HashMap<&str, CheckAnswer> =
            answers.iter().map(|(k, a)| (k.as_str(), *a)).collect();
        for (i, r) in removals.iter_mut().enumerate() {
            r.push((
                member.clone(),
                outcome(&view, i).unwrap_or(Removal::Undecided),
            ));
        }
    }
    Ok(group
        .iter()
        .zip(removals)
        .map(|(v, r)| MinimalityRecord {
            solver: v.solver.name.clone(),
            benchmark: v.bench.id.to_string(),
            core_hash: v.hash.clone(),
            budget,
            minimality: Minimality::fold(&r),
        })
        .collect())
}
