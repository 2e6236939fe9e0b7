//! The per-pair CSV report: one row per (solver, benchmark) pair with the
//! recorded and scored verdict, the status, the checkers' tally, both modes'
//! ⟨e, n, c, w⟩ with their timeout/memout/discarded flags, the weight, and
//! the gap to the benchmark's best validated reduction, and whether the run
//! contradicted itself (`contradiction`); `division` is the division the
//! pair was ranked in, `logic` its benchmark's logic.

use super::{Exporter, ScoreReport};
use crate::score::result::PairRow;
use anyhow::Result;

/// CSV exporter.
pub struct PairsCsv;

const HEADER: &[&str] = &[
    "division",
    "solver",
    "benchmark",
    "family",
    "weight",
    "assertions",
    "core_size",
    "verdict",
    "scored_verdict",
    "status",
    "checks_sat",
    "checks_unsat",
    "checks_unknown",
    "seq_e",
    "seq_n",
    "seq_cpu",
    "seq_wall",
    "seq_timeout",
    "seq_discarded",
    "par_e",
    "par_n",
    "par_cpu",
    "par_wall",
    "par_timeout",
    "par_discarded",
    "memout",
    "best_reduction",
    "gap",
    "origin",
    "contradiction",
    "logic",
];

fn row(r: &PairRow) -> Vec<String> {
    let opt = |x: Option<u64>| x.map(|v| v.to_string()).unwrap_or_default();
    let check = |f: fn(&(u32, u32, u32)) -> u32| {
        r.checks
            .as_ref()
            .map(|c| f(c).to_string())
            .unwrap_or_default()
    };
    let b = |x: bool| u8::from(x).to_string();
    vec![
        r.division.to_string(),
        r.solver.to_string(),
        r.benchmark.to_string(),
        r.family.to_string(),
        format!("{:.9}", r.weight),
        r.assertions.to_string(),
        opt(r.core_size),
        r.verdict.label(),
        r.scored_verdict.label(),
        r.status.label().to_string(),
        check(|c| c.0),
        check(|c| c.1),
        check(|c| c.2),
        r.sequential.e.to_string(),
        r.sequential.n.to_string(),
        r.sequential.cpu.to_string(),
        r.sequential.wall.to_string(),
        b(r.sequential.timeout),
        b(r.sequential.discarded),
        r.parallel.e.to_string(),
        r.parallel.n.to_string(),
        r.parallel.cpu.to_string(),
        r.parallel.wall.to_string(),
        b(r.parallel.timeout),
        b(r.parallel.discarded),
        b(r.parallel.memout),
        r.best_reduction.to_string(),
        r.gap.to_string(),
        r.origin.as_deref().unwrap_or_default().to_string(),
        r.contradiction
            .map_or_else(String::new, |c| c.label().to_string()),
        r.logic.to_string(),
    ]
}

impl Exporter for PairsCsv {
    fn write_to(&self, report: &ScoreReport, out: &mut dyn std::io::Write) -> Result<()> {
        let mut w = csv::Writer::from_writer(out);
        w.write_record(HEADER)?;
        for r in &report.pair_rows {
            w.write_record(row(r))?;
        }
        w.flush()?;
        Ok(())
    }
}
