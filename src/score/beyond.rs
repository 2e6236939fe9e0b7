//! Per-solver figures beyond the track rules, from the judged pairs of a
//! campaign: how many of its validated cores are subset-minimal, redundant
//! or undecided (`[check] minimality`), and how far its validated cores are
//! from the best-known cores of their benchmarks (`[check] best_known`).

use crate::campaign::verdict::certification::{Certification, Refutation};
use crate::campaign::verdict::minimality::Status;
use crate::campaign::verdict::pair::{PairVerdict, Verdict};
use crate::score::result::SolverBeyond;
use std::collections::BTreeMap;

/// One row per solver with a tested or compared core, by name; empty when
/// neither check ran.
pub fn per_solver(pairs: &[PairVerdict]) -> Vec<SolverBeyond> {
    let mut rows: BTreeMap<&str, SolverBeyond> = BTreeMap::new();
    for p in pairs {
        if p.pair.verdict != Verdict::Validated
            || (p.details.minimality.is_none() && p.details.best_known.is_none())
        {
            continue;
        }
        let row = rows.entry(&p.pair.solver).or_insert_with(|| SolverBeyond {
            solver: p.pair.solver.to_string(),
            ..SolverBeyond::default()
        });
        if let Some(m) = &p.details.minimality {
            match m.status {
                Status::Minimal => row.minimal += 1,
                Status::Redundant => row.redundant += 1,
                Status::Unknown => row.minimality_unknown += 1,
            }
            row.removable_members += m.redundant.len() as u64;
        }
        if let (Some(b), Some(k)) = (&p.details.best_known, p.pair.core_size) {
            row.compared += 1;
            row.at_best_known += u64::from(k <= b.size);
            row.reduction += p.pair.assertions.saturating_sub(k);
            row.best_known_reduction += b.reduction;
            row.size_gap += k.saturating_sub(b.size);
        }
    }
    rows.into_values().collect()
}

/// One row per solver with a refuted core or a model-rejected `sat` on one
/// of its cores, by name.
pub fn refutations(pairs: &[PairVerdict]) -> Vec<crate::score::result::SolverRefutations> {
    let mut rows: BTreeMap<&str, crate::score::result::SolverRefutations> = BTreeMap::new();
    for p in pairs {
        let rejected = p
            .details
            .certifications
            .values()
            .any(|c| matches!(c, Certification::ModelRejected { .. }));
        if p.pair.verdict != Verdict::Refuted && !rejected {
            continue;
        }
        let row = rows.entry(&p.pair.solver).or_default();
        row.solver = p.pair.solver.to_string();
        row.model_rejected += u64::from(rejected);
        if p.pair.verdict == Verdict::Refuted {
            row.refuted += 1;
            match p.details.refutation {
                Some(Refutation::Certified) => row.certified += 1,
                _ => row.uncertified += 1,
            }
        }
    }
    rows.into_values().collect()
}

/// The `sat` answers on benchmarks not known to be unsat, by solver and
/// benchmark (`status`: each benchmark's declared status, by id).
pub fn unconfirmed_sats(
    pairs: &[PairVerdict],
    status: &dyn Fn(&str) -> Option<String>,
) -> Vec<crate::score::result::UnconfirmedSat> {
    let mut out: Vec<_> = pairs
        .iter()
        .filter(|p| p.pair.verdict == Verdict::SatUnconfirmed)
        .map(|p| crate::score::result::UnconfirmedSat {
            solver: p.pair.solver.to_string(),
            benchmark: p.pair.benchmark.to_string(),
            status: status(&p.pair.benchmark),
        })
        .collect();
    out.sort_by(|a, b| (&a.solver, &a.benchmark).cmp(&(&b.solver, &b.benchmark)));
    out
}
