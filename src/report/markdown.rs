//! The Markdown report: the warnings and a campaign's facts first
//! ([`super::facts`]), then per division one table per mode (rank, solver,
//! errors, reduction, CPU, wall, timeouts, memouts), then the track-wide
//! recognitions; the tables are [`super::table`]'s. Suitable for a README
//! or a web page.

use super::table::{self, Show, Table};
use super::{Exporter, ScoreReport};
use crate::score::result::{DivisionScore, ModeScore, Recognitions};
use anyhow::Result;
use std::fmt::Write;

/// Markdown exporter.
pub struct Markdown;

/// Text from data (solver and division names, warnings) as Markdown: HTML
/// special characters escaped as in the HTML report (a name `<script>`
/// stays text), `|` escaped (it would end a table cell), and newlines and
/// other control characters shown as spaces (a newline would end the row).
fn cell(s: &str) -> String {
    let s: String = s
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    super::svg::esc(&s).replace('|', "\\|")
}

/// A table as Markdown: its heading row, the alignment row (numbers to
/// the right) and one line per row, every cell as text ([`cell`]).
fn table(out: &mut String, t: &Table) {
    let shown = t.shown(Show::Markdown);
    let heads: Vec<&str> = shown.iter().map(|&i| t.columns[i].head).collect();
    let _ = writeln!(out, "| {} |", heads.join(" | "));
    let align: Vec<&str> = shown
        .iter()
        .map(|&i| if t.columns[i].numeric { "---:" } else { "---" })
        .collect();
    let _ = writeln!(out, "|{}|", align.join("|"));
    for r in &t.rows {
        let cells: Vec<String> = shown.iter().map(|&i| cell(&r.cells[i].text)).collect();
        let _ = writeln!(out, "| {} |", cells.join(" | "));
    }
}

fn mode_table(out: &mut String, title: &str, m: &ModeScore) {
    let winner = m
        .winner
        .as_ref()
        .and_then(|w| m.solvers.iter().find(|s| &s.solver == w))
        .map_or("none".to_string(), |s| cell(&s.display));
    let _ = writeln!(out, "### {title} (winner: {winner})\n");
    table(out, &table::mode(m));
    out.push('\n');
}

fn division(out: &mut String, d: &DivisionScore) {
    let logics = if d.logics.len() > 1 || d.logics.first().is_some_and(|l| *l != d.name) {
        format!(" (logics {})", cell(&d.logics.join(", ")))
    } else {
        String::new()
    };
    let _ = writeln!(
        out,
        "## {}{logics} — {} benchmarks, {} families, {}\n",
        cell(&d.name),
        d.benchmarks,
        d.families,
        if d.competitive {
            "competitive"
        } else {
            "not competitive"
        }
    );
    mode_table(out, "Sequential performance", &d.sequential);
    mode_table(out, "Parallel performance", &d.parallel);
    let _ = writeln!(
        out,
        "Virtual best solver: reduction {} over {} benchmarks.\n",
        d.virtual_best.correct, d.benchmarks
    );
}

fn recognitions(out: &mut String, r: &Recognitions) {
    if let Some(won) = &r.divisions_won {
        out.push_str("## Competitive divisions won\n\n");
        if won.sequential.is_empty() && won.parallel.is_empty() {
            out.push_str("None: no competitive division has a winner.\n");
        } else {
            table(out, &table::divisions_won(won));
        }
        out.push('\n');
    }
    for (title, t) in table::later_recognitions(r) {
        let _ = writeln!(out, "## {title}\n");
        table(out, &t);
        out.push('\n');
    }
}

/// Minimality and best-known figures per solver (campaigns that asked).
fn beyond(out: &mut String, rows: &[crate::score::result::SolverBeyond]) {
    if rows.is_empty() {
        return;
    }
    out.push_str("## Beyond the track: minimality and best-known cores\n\n");
    table(out, &table::beyond(rows));
    out.push('\n');
}

/// How each solver's refutations stand (campaigns whose checkers said sat).
fn refutations(out: &mut String, rows: &[crate::score::result::SolverRefutations]) {
    if rows.is_empty() {
        return;
    }
    out.push_str(
        "## Refutations and their certification

",
    );
    out.push_str("A refutation is certified when a checker's `sat` came with a model that satisfies the core; a model-rejected `sat` never refutes under certification-aware policies (a dispute).\n\n");
    out.push_str("| solver | refuted | certified | uncertified | model-rejected sat |\n|---|---|---|---|---|\n");
    for r in rows {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} |",
            cell(&r.solver),
            r.refuted,
            r.certified,
            r.uncertified,
            r.model_rejected
        );
    }
    out.push('\n');
}

/// The `sat` answers no evidence contradicts (campaigns that have some).
fn unconfirmed(out: &mut String, rows: &[crate::score::result::UnconfirmedSat]) {
    if rows.is_empty() {
        return;
    }
    out.push_str("## `sat` answers without evidence against them\n\n");
    out.push_str("A `sat` is an error only on a benchmark known to be unsat (its status, or a validated core of it). These benchmarks are not: the answers are `sat-unconfirmed`, no error.\n\n");
    out.push_str("| solver | benchmark | declared status |\n|---|---|---|\n");
    for r in rows {
        let _ = writeln!(
            out,
            "| {} | {} | {} |",
            cell(&r.solver),
            cell(&r.benchmark),
            r.status.as_deref().map_or("none".to_string(), cell)
        );
    }
    out.push('\n');
}

impl Exporter for Markdown {
    fn write_to(&self, report: &ScoreReport, sink: &mut dyn std::io::Write) -> Result<()> {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "# Unsat-core scores ({}, family: {}, T = {} s)\n",
            report.edition, report.family, report.rules.time_limit
        );
        let _ = writeln!(
            out,
            "{} pairs scored in {} divisions{}.\n",
            report.pairs,
            report.divisions.len(),
            if report.excluded_pairs > 0 {
                format!(", {} left out (too few assertions)", report.excluded_pairs)
            } else {
                String::new()
            }
        );
        if let Some(m) = &report.division_map {
            let _ = writeln!(out, "Divisions group logics as in `{}`.\n", cell(m));
        }
        super::facts::markdown(&mut out, report, &cell);
        for d in &report.divisions {
            division(&mut out, d);
        }
        if let Some(logics) = &report.logics {
            out.push_str("# Per logic\n\n");
            for d in logics {
                division(&mut out, d);
            }
        }
        recognitions(&mut out, &report.recognitions);
        beyond(&mut out, &report.beyond);
        refutations(&mut out, &report.refutations);
        unconfirmed(&mut out, &report.unconfirmed_sats);
        if !report.incremental.is_empty() {
            let _ = writeln!(
                out,
                "## {}\n\n{}\n",
                super::incremental::TITLE,
                super::incremental::NOTE
            );
            table(&mut out, &super::incremental::table(&report.incremental));
            out.push('\n');
        }
        if !report.validators.is_empty() {
            let _ = writeln!(out, "## {}\n", cell(&super::validators::title(report)));
            table(&mut out, &table::validators(&report.validators));
            out.push('\n');
        }
        sink.write_all(out.as_bytes())?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn names_are_text_in_one_cell() {
        assert_eq!(
            super::cell("<script>a|b\nc&d"),
            "&lt;script&gt;a\\|b c&amp;d"
        );
    }
}
