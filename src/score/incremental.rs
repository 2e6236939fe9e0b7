//! The per-solver figures of incremental and assumption scripts
//! (`[naming] incremental`), from their judged pairs
//! ([`crate::incremental::verdict`]); these pairs stay out of every
//! division's score.

use crate::incremental::verdict::IncrementalPair;
use crate::score::result::SolverIncremental;
use std::collections::BTreeMap;

/// One row per solver with an incremental pair, by name.
pub fn per_solver(pairs: &[IncrementalPair]) -> Vec<SolverIncremental> {
    let mut rows: BTreeMap<&str, SolverIncremental> = BTreeMap::new();
    for p in pairs {
        let row = rows.entry(&p.solver).or_insert_with(|| SolverIncremental {
            solver: p.solver.clone(),
            ..SolverIncremental::default()
        });
        let (answers, validated) = p.counts();
        row.scripts += 1;
        row.unsat_answers += answers as u64;
        row.validated += validated as u64;
        if p.verdict.is_failure() {
            row.failed += 1;
            let line = p.line.map(|l| format!(":{l}")).unwrap_or_default();
            row.failures
                .push(format!("{}{line}: {}", p.benchmark, p.verdict.label()));
        }
    }
    rows.into_values().collect()
}
