//! Which checkers count for a pair: those configured and installed, those
//! whose definitions support the benchmark's logic, minus the producing
//! solver's team when checking is independent, minus (`[check]
//! validators_from`) those that are no validators of its division; and how their answers so
//! far tally. The check stage uses it to schedule, the judge to decide.

use super::config::Campaign;
use super::solvers::SolverUnderTest;
use super::validators::Validators;
use crate::campaign::verdict::policy::{decided_early, CheckAnswer, Decision, Policy, Tally};
use crate::checkers::SolverDef;
use anyhow::{Context, Result};
use std::collections::{HashMap, HashSet};

/// The checkers a pair's core goes to (`validators`: the campaign's
/// validators by soundness, when it has them).
pub fn select<'a>(
    checkers: &'a [SolverDef],
    logic: &str,
    solver: &SolverUnderTest,
    independent: bool,
    validators: Option<&Validators>,
) -> Vec<&'a SolverDef> {
    checkers
        .iter()
        .filter(|k| left_out(k, logic, solver, independent, validators).is_none())
        .collect()
}

/// Why checker `k` is none of a pair's checkers (`None`: it is one), in
/// words for the reports: the solver's own team (and which part of its
/// identity, [`super::team::Why`]), no validator of the
/// division, or a logic it does not support.
pub fn left_out(
    k: &SolverDef,
    logic: &str,
    solver: &SolverUnderTest,
    independent: bool,
    validators: Option<&Validators>,
) -> Option<&'static str> {
    if !k.supports(logic) {
        Some("left out: does not support the logic")
    } else if let Some(why) = solver.own_team(k).filter(|_| independent) {
        Some(why.left_out())
    } else if validators.is_some_and(|v| !v.allows(&k.name, logic)) {
        Some("left out: no validator of the division")
    } else {
        None
    }
}

/// Whether the producing solver is this checker (the 2017 self-check clause).
pub fn is_producer(solver: &SolverUnderTest, checker: &SolverDef) -> bool {
    solver.definition.as_deref() == Some(checker.name.as_str())
}

/// Tally of the answers available for one pair, and how many of its
/// checkers have not answered (and whether the producer is among them).
/// A `not-applicable` checker is neither counted nor waited for.
pub fn tally<S: std::hash::BuildHasher>(
    answers: &HashMap<&str, CheckAnswer, S>,
    selected: &[&SolverDef],
    solver: &SolverUnderTest,
) -> (Tally, u32, bool) {
    let mut t = Tally::default();
    let mut remaining = 0;
    let mut producer_pending = false;
    for k in selected {
        match answers.get(k.name.as_str()) {
            Some(a) => t.add(*a, is_producer(solver, k)),
            None => {
                remaining += 1;
                producer_pending |= is_producer(solver, k);
            }
        }
    }
    (t, remaining, producer_pending)
}

/// The tally of a pair's answers so far and the policy's decision, when
/// they fix it (all answered, or early: the rest cannot change it).
pub fn decision<S: std::hash::BuildHasher>(
    policy: Policy,
    answers: &HashMap<&str, CheckAnswer, S>,
    selected: &[&SolverDef],
    solver: &SolverUnderTest,
) -> (Tally, Option<Decision>) {
    let (t, remaining, producer_pending) = tally(answers, selected, solver);
    let d = if remaining == 0 {
        Some(policy.decide(&t))
    } else {
        decided_early(policy, &t, remaining, producer_pending)
    };
    (t, d)
}

/// The checker definitions a campaign uses: the named ones, or every
/// installed definition. A named checker that is not installed is an error
/// that says what is missing and how to install it.
pub fn configured_checkers(c: &Campaign, defs: &[SolverDef]) -> Result<Vec<SolverDef>> {
    let names = &c.config.check.checkers;
    if names.is_empty() {
        return Ok(defs.iter().filter(|d| d.is_installed()).cloned().collect());
    }
    names
        .iter()
        .map(|n| {
            let d = defs.iter().find(|d| &d.name == n).with_context(|| {
                let known: Vec<&str> = defs.iter().map(|d| d.name.as_str()).collect();
                format!(
                    "check.checkers: no definition '{n}' (known: {})",
                    known.join(", ")
                )
            })?;
            if let Some(why) = d.missing() {
                anyhow::bail!(
                    "checker '{n}' (check.checkers) is not installed: {why}; to install: {}",
                    d.install_hint
                );
            }
            Ok(d.clone())
        })
        .collect()
}

/// The checkers the verdicts count, which need not be runnable here: the
/// named ones (installed or not), or every installed definition plus those
/// that answered in this campaign (`answered`).
pub fn verdict_checkers(
    c: &Campaign,
    defs: &[SolverDef],
    answered: &HashSet<&str>,
) -> Vec<SolverDef> {
    let names = &c.config.check.checkers;
    defs.iter()
        .filter(|d| {
            if names.is_empty() {
                d.is_installed() || answered.contains(d.name.as_str())
            } else {
                names.contains(&d.name)
            }
        })
        .cloned()
        .collect()
}
