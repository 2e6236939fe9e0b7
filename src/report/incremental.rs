//! The report's table of incremental and assumption cores ("Incremental
//! and assumption cores": per solver, scripts, unsat answers with a core,
//! validated, failed and the failing queries), for the Markdown and the
//! HTML report.

use super::table::{Cell, Column, Mark, Row, Show, Table};
use crate::score::result::SolverIncremental;

/// The section's title.
pub const TITLE: &str = "Incremental and assumption cores";

/// What the section says before its table.
pub const NOTE: &str = "Scripts with push/pop, several check-sat or check-sat-assuming, judged \
    query by query (every unsat answer's core or unsat assumptions checked); not part of any \
    division's score.";

pub fn table(rows: &[SolverIncremental]) -> Table {
    let col = |head, numeric| Column {
        head,
        numeric,
        show: Show::Both,
    };
    let num = |n: u64| Cell {
        text: n.to_string(),
        sort: Some(n as f64),
        title: None,
    };
    Table {
        columns: vec![
            col("solver", false),
            col("scripts", true),
            col("unsat answers with a core", true),
            col("validated", true),
            col("refuted/ill-formed", true),
            col("failing queries", false),
        ],
        rows: rows
            .iter()
            .map(|r| Row {
                cells: vec![
                    Cell {
                        text: r.solver.clone(),
                        sort: None,
                        title: None,
                    },
                    num(r.scripts),
                    num(r.unsat_answers),
                    num(r.validated),
                    num(r.failed),
                    Cell {
                        text: r.failures.join("; "),
                        sort: None,
                        title: None,
                    },
                ],
                mark: Mark::Plain,
            })
            .collect(),
    }
}
