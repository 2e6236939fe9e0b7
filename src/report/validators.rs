//! The validators of each division (`[check] validators_from`), one table
//! that the Markdown and HTML reports both render: per division the sound
//! single-query participants that validated its cores, and the checkers
//! left out (a wrong single-query answer there, or no result there).

use crate::score::result::ScoreReport;
use std::fmt::Write;

/// The table's columns.
pub const HEAD: [&str; 4] = [
    "division",
    "validators",
    "unsound (left out)",
    "no result (left out)",
];

/// The title, naming the results file.
pub fn title(report: &ScoreReport) -> String {
    format!(
        "Validators by soundness (single-query results {})",
        report.validators_from.as_deref().unwrap_or("-")
    )
}

/// One row per division.
pub fn rows(report: &ScoreReport) -> Vec<Vec<String>> {
    let list = |v: &[String]| {
        if v.is_empty() {
            "none".to_string()
        } else {
            v.join(", ")
        }
    };
    report
        .validators
        .iter()
        .map(|d| {
            vec![
                d.division.clone(),
                list(&d.validators),
                list(&d.unsound),
                list(&d.absent),
            ]
        })
        .collect()
}

/// The Markdown section (nothing without validators by soundness);
/// `cell` escapes text for a table cell.
pub fn markdown(out: &mut String, report: &ScoreReport, cell: fn(&str) -> String) {
    if report.validators.is_empty() {
        return;
    }
    let _ = writeln!(out, "## {}\n", cell(&title(report)));
    let _ = writeln!(out, "| {} |\n|---|---|---|---|", HEAD.join(" | "));
    for r in rows(report) {
        let cells: Vec<String> = r.iter().map(|c| cell(c)).collect();
        let _ = writeln!(out, "| {} |", cells.join(" | "));
    }
    out.push('\n');
}
