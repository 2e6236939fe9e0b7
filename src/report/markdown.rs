//! The Markdown report: the warnings and a campaign's facts first
//! ([`super::facts`]), then per division one table per mode (rank, solver,
//! errors, reduction, CPU, wall, timeouts, memouts), then the track-wide
//! recognitions. Suitable for a README or a web page.

use super::{fmt_num, Exporter, ScoreReport};
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

fn mode_table(out: &mut String, title: &str, m: &ModeScore) {
    let winner = m
        .winner
        .as_ref()
        .and_then(|w| m.solvers.iter().find(|s| &s.solver == w))
        .map_or("none".to_string(), |s| cell(&s.display));
    let _ = writeln!(out, "### {title} (winner: {winner})\n");
    out.push_str("| rank | solver | competing | errors | reduction | CPU time | wall time | timeouts | memouts |\n");
    out.push_str("|---:|---|---|---:|---:|---:|---:|---:|---:|\n");
    for s in &m.solvers {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {:.3} | {:.3} | {} | {} |",
            s.rank,
            cell(&s.display),
            if s.competing { "yes" } else { "no" },
            fmt_num(s.errors),
            fmt_num(s.correct),
            s.cpu,
            s.wall,
            s.timeouts,
            s.memouts
        );
    }
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
            out.push_str("| mode | solver | won | divisions |\n|---|---|---:|---|\n");
        }
        for (mode, list) in [("sequential", &won.sequential), ("parallel", &won.parallel)] {
            for w in list {
                let _ = writeln!(
                    out,
                    "| {mode} | {} | {} | {} |",
                    cell(&w.display),
                    w.won,
                    cell(&w.divisions.join(", "))
                );
            }
        }
        out.push('\n');
    }
    if let Some(lead) = &r.biggest_lead {
        out.push_str("## Biggest lead\n\n| mode | division | first | second | score | time |\n|---|---|---|---|---:|---:|\n");
        for (mode, list) in [
            ("sequential", &lead.sequential),
            ("parallel", &lead.parallel),
        ] {
            for l in list {
                let _ = writeln!(
                    out,
                    "| {mode} | {} | {} | {} | {:.6} | {:.6} |",
                    cell(&l.division),
                    cell(&l.first_display),
                    cell(&l.second_display),
                    l.score,
                    l.time
                );
            }
        }
        out.push('\n');
    }
    if let Some(c) = &r.largest_contribution {
        out.push_str("## Largest contribution\n\n| mode | division | solver | score | time |\n|---|---|---|---:|---:|\n");
        for (mode, list) in [("sequential", &c.sequential), ("parallel", &c.parallel)] {
            for e in list {
                let _ = writeln!(
                    out,
                    "| {mode} | {} | {} | {:.6} | {:.6} |",
                    cell(&e.division),
                    cell(&e.display),
                    e.score,
                    e.time
                );
            }
        }
        out.push('\n');
    }
    if let Some(b) = &r.best_overall {
        out.push_str("## Best overall\n\n| mode | solver | competing | score | divisions |\n|---|---|---|---:|---:|\n");
        for (mode, list) in [("sequential", &b.sequential), ("parallel", &b.parallel)] {
            for o in list {
                let _ = writeln!(
                    out,
                    "| {mode} | {} | {} | {:.6} | {} |",
                    cell(&o.display),
                    if o.competing { "yes" } else { "no" },
                    o.score,
                    o.divisions
                );
            }
        }
        out.push('\n');
    }
}

/// Minimality and best-known figures per solver (campaigns that asked).
fn beyond(out: &mut String, rows: &[crate::score::result::SolverBeyond]) {
    if rows.is_empty() {
        return;
    }
    out.push_str("## Beyond the track: minimality and best-known cores\n\n");
    out.push_str("| solver | minimal | redundant | minimality unknown | removable members | compared to best-known | at best-known | reduction | best-known reduction | size gap |\n");
    out.push_str("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for r in rows {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            cell(&r.solver),
            r.minimal,
            r.redundant,
            r.minimality_unknown,
            r.removable_members,
            r.compared,
            r.at_best_known,
            r.reduction,
            r.best_known_reduction,
            r.size_gap
        );
    }
    out.push('\n');
}

/// How each solver's refutations stand (campaigns whose checkers said sat).
fn refutations(out: &mut String, rows: &[crate::score::result::SolverRefutations]) {
    if rows.is_empty() {
        return;
    }
    out.push_str("## Refutations and their certification

");
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

impl Exporter for Markdown {
    fn render(&self, report: &ScoreReport) -> Result<Vec<u8>> {
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
        super::validators::markdown(&mut out, report, cell);
        Ok(out.into_bytes())
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
