//! Reference solvers' cores (`[[solver]] reference`, selfcheck's
//! references), checked only where they could matter: the other solvers'
//! cores are validated first, then a reference's core only on a benchmark
//! where it could be smaller than every validated core of the others (or
//! none is validated). Elsewhere it could change neither a verdict nor the
//! benchmark's best-known core, and stays unchecked (pending).

use super::{ask, best, validate, CheckSummary};
use crate::campaign::ledger::records::RunRecord;
use crate::campaign::ledger::Loaded;
use anyhow::Result;
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};

/// Validate the campaign's cores in two passes: the other solvers', then
/// the references' that could still be a benchmark's smallest validated one.
pub(super) fn validate_in_two_passes(
    l: &Loaded,
    filter: &dyn Fn(&str) -> bool,
    cancel: &AtomicBool,
    runs: Option<Vec<RunRecord>>,
) -> Result<CheckSummary> {
    let mut first = validate(
        l,
        filter,
        &|r| !is_reference(l, r),
        true,
        cancel,
        runs.clone(),
    )?;
    let asker = ask::Asker::open(l, best::BEST_KNOWN_CHECKS, cancel)?;
    let mut smallest: HashMap<&str, usize> = HashMap::default();
    for v in ask::validated(l, &asker, filter)?
        .iter()
        .filter(|v| !v.solver.reference)
    {
        let k = smallest.entry(v.bench.id.as_str()).or_insert(usize::MAX);
        *k = (*k).min(v.core.len());
    }
    let needed = |r: &RunRecord| {
        let size = r.core.as_ref().map_or(0, |c| distinct(c));
        is_reference(l, r) && smallest.get(r.benchmark.as_str()).is_none_or(|&k| size < k)
    };
    if !cancel.load(Ordering::SeqCst) {
        first.add(&validate(l, filter, &needed, false, cancel, runs)?);
    }
    Ok(first)
}

/// Whether run `r` is a reference solver's.
fn is_reference(l: &Loaded, r: &RunRecord) -> bool {
    l.solver(&r.solver).is_some_and(|s| s.reference)
}

/// How many distinct names `core` holds (the size of its core-only benchmark).
fn distinct(core: &[String]) -> usize {
    core.iter().collect::<HashSet<_>>().len()
}
