//! The HTML report's opening: an overview of pairs per verdict and solver,
//! then every pair that did not pass (refuted, ill-formed, not validated,
//! `sat` answers, disputed, pending), then the other pairs, each linked to
//! a detail view with its core, the checkers' votes (versions, exits, first
//! lines of output, how each counted or that it was left out, the model
//! behind a `sat`) and the command that repeats the solver's and each
//! checker's run. A detail view is hidden until its link makes it the
//! page's target, then it opens over the page (plain CSS `:target`, no
//! script). Everything is escaped. Every detail view comes from one
//! function, [`detail_view`], of one pair's evidence; at most
//! [`MAX_DETAILS`] are written, those to look at first, at most
//! [`MAX_PASSING_DETAILS`] of the others, within [`DETAILS_BUDGET`] bytes;
//! the table of pairs to look at lists them within [`LOOK_AT_BUDGET`]
//! bytes and says where the rest are.

use super::svg::esc;
use crate::campaign::verdict::pair::PairEvidence;
use crate::score::result::PairRow;
use std::collections::BTreeMap;
use std::fmt::Write;

/// At most this many detail views (the overview still lists every pair).
pub const MAX_DETAILS: usize = 5000;

/// At most this many detail views of pairs that passed.
pub const MAX_PASSING_DETAILS: usize = 1000;

/// At most this many bytes of detail views (a view is about 2.8 KB; one
/// of a core of thousands of names is more), and of rows of the table of
/// pairs to look at: with the rest of the page, report.html stays under
/// 10 MB whatever the number of pairs and failures.
pub const DETAILS_BUDGET: usize = 5 << 20;
pub const LOOK_AT_BUDGET: usize = 2 << 20;

/// Styles of the overview and detail views.
pub const STYLE: &str = r#"
.ov td.z{color:#bbb}.bad{color:#a00;font-weight:600}
section.detail{display:none;border:1px solid #c60;border-radius:4px;padding:4px 14px;box-shadow:0 0 0 2px #fc8,0 8px 30px #0006}
section.detail:target{display:block;position:fixed;top:2%;left:3%;right:3%;max-height:94%;overflow:auto;z-index:9;background:#fff}
pre.out{background:#f4f4f4;padding:4px 6px;margin:2px 0;max-width:380px;white-space:pre-wrap;word-break:break-all;font-size:12px}
code.cmd{font-size:12px;word-break:break-all}dl.kv dt{font-weight:600;float:left;width:9em;clear:left}dl.kv dd{margin-left:10em}
"#;

/// Pairs per solver and verdict, then the list of pairs to look at, then
/// their detail views.
pub fn overview(out: &mut String, rows: &[PairRow], evidence: &[PairEvidence]) {
    // Columns by label; each label names one verdict, failing or not.
    let mut counts: BTreeMap<&str, BTreeMap<String, usize>> = BTreeMap::new();
    let mut verdicts: BTreeMap<String, bool> = BTreeMap::new();
    for r in rows {
        let label = r.verdict.label();
        verdicts.insert(label.clone(), r.verdict.is_failure());
        *counts
            .entry(&r.solver)
            .or_default()
            .entry(label)
            .or_default() += 1;
    }
    out.push_str("<section id=\"overview\"><h2>Overview</h2>");
    if !counts.is_empty() {
        out.push_str("<table class=\"sortable ov\"><thead><tr><th>solver</th><th>pairs</th>");
        for v in verdicts.keys() {
            let _ = write!(out, "<th>{}</th>", esc(v));
        }
        out.push_str("</tr></thead><tbody>");
        for (solver, per) in &counts {
            let total: usize = per.values().sum();
            let _ = write!(
                out,
                "<tr><td>{}</td><td class=\"n\">{total}</td>",
                esc(solver)
            );
            for (v, failure) in &verdicts {
                match per.get(v) {
                    Some(n) if *failure => {
                        let _ = write!(out, "<td class=\"n bad\">{n}</td>");
                    }
                    Some(n) => {
                        let _ = write!(out, "<td class=\"n\">{n}</td>");
                    }
                    None => out.push_str("<td class=\"n z\">0</td>"),
                }
            }
            out.push_str("</tr>");
        }
        out.push_str("</tbody></table>");
    }
    let looks = evidence.iter().filter(|e| e.to_look_at).count();
    let (details, shown) = detail_views(evidence, looks);
    look_at_table(out, evidence, looks, shown);
    let shown_others = shown.saturating_sub(looks);
    if shown_others > 0 {
        let _ = write!(out, "<details><summary>Detail views of other pairs ({shown_others})</summary><p class=\"meta\">");
        for (i, e) in evidence.iter().enumerate().take(shown).skip(looks) {
            let _ = write!(
                out,
                "<a href=\"#pair-{i}\">{} on {}</a> ({}) · ",
                esc(&e.solver),
                esc(&e.benchmark),
                esc(&verdict_text(e))
            );
        }
        out.push_str("</p></details>");
    }
    // (The evidence holds those to look at and some of the others.)
    let total = rows.len().max(evidence.len());
    if total > shown {
        let _ = write!(
            out,
            "<p class=\"warn\">Detail views for {shown} of {total} pairs only (those to look at first); every pair's \
             evidence is in reports/pairs.jsonl and <code>coreval show CAMPAIGN SOLVER BENCHMARK</code>.</p>",
        );
    }
    out.push_str(&details);
    out.push_str("</section>");
}

/// The detail views written, in evidence order (those to look at first),
/// and how many: at most [`MAX_DETAILS`], at most [`MAX_PASSING_DETAILS`]
/// of pairs that passed, and no view that would take them past
/// [`DETAILS_BUDGET`] bytes.
fn detail_views(evidence: &[PairEvidence], looks: usize) -> (String, usize) {
    let limit = evidence
        .len()
        .min(looks + MAX_PASSING_DETAILS)
        .min(MAX_DETAILS);
    let mut all = String::new();
    let mut one = String::new();
    for (i, e) in evidence.iter().take(limit).enumerate() {
        one.clear();
        detail_view(&mut one, &format!("pair-{i}"), e);
        if all.len() + one.len() > DETAILS_BUDGET {
            return (all, i);
        }
        all.push_str(&one);
    }
    (all, limit)
}

/// The table of pairs to look at: a row each while the rows stay under
/// [`LOOK_AT_BUDGET`] bytes, then a line saying how many are listed and
/// where the others are; rows of the first `detailed` pairs link their
/// detail view.
fn look_at_table(out: &mut String, evidence: &[PairEvidence], looks: usize, detailed: usize) {
    if looks == 0 {
        out.push_str("<p class=\"meta\">No pair to look at: every core was validated or no checker was needed.</p>");
        return;
    }
    let _ = write!(
        out,
        "<h3>Pairs to look at ({looks})</h3><table class=\"sortable\"><thead><tr><th>solver</th><th>benchmark</th>\
         <th>verdict</th><th>answer</th><th>flags</th><th>checkers</th><th>details</th></tr></thead><tbody>",
    );
    let start = out.len();
    let mut listed = 0;
    for (i, e) in evidence.iter().enumerate().filter(|(_, e)| e.to_look_at) {
        if out.len() - start > LOOK_AT_BUDGET {
            break;
        }
        look_at_row(out, i, e, i < detailed);
        listed += 1;
    }
    out.push_str("</tbody></table>");
    if listed < looks {
        let _ = write!(
            out,
            "<p class=\"warn\">The first {listed} of {looks} pairs to look at are listed, so that this page stays \
             small enough to open; every one is in reports/pairs.jsonl and reports/pairs.csv, \
             and <code>coreval show CAMPAIGN SOLVER BENCHMARK</code> prints its evidence.</p>",
        );
    }
}

/// One row of the table of pairs to look at.
fn look_at_row(out: &mut String, i: usize, e: &PairEvidence, detailed: bool) {
    let votes: Vec<String> = e
        .checkers
        .iter()
        .map(|k| {
            let votes = matches!(k.answer.as_str(), "sat" | "unsat");
            if k.counted == crate::campaign::verdict::pair::LEFT_OUT {
                let why = k
                    .note
                    .as_deref()
                    .unwrap_or(crate::campaign::verdict::pair::LEFT_OUT);
                format!("{} {} ({why})", k.checker, k.answer)
            } else if votes && k.counted != k.answer {
                // Why, in short: the note's head ("two answers printed, …").
                match k.note.as_deref() {
                    Some(n) => {
                        let why = n.split([':', ',']).next().unwrap_or(n).trim();
                        format!("{} {} (not counted: {why})", k.checker, k.answer)
                    }
                    None => format!("{} {} (not counted)", k.checker, k.answer),
                }
            } else {
                format!("{} {}", k.checker, k.answer)
            }
        })
        .collect();
    let link = if detailed {
        format!("<a href=\"#pair-{i}\">details</a>")
    } else {
        "—".into()
    };
    let _ = write!(
        out,
        "<tr><td>{}</td><td>{}</td><td class=\"bad\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{link}</td></tr>",
        esc(&e.solver),
        esc(&e.benchmark),
        esc(&verdict_text(e)),
        esc(&e.answer),
        esc(&e.flags.join(", ")),
        esc(&votes.join(", ")),
    );
}

fn verdict_text(e: &PairEvidence) -> String {
    let mut v = e.verdict.label();
    if let Some(r) = e.refutation {
        v.push_str(&format!(" ({})", r.label()));
    }
    if e.disputed {
        v.push_str(" (disputed)");
    }
    if e.pending {
        v.push_str(" (pending)");
    }
    v
}

/// One pair's detail view, as a `<section>` with HTML id `id`: the one
/// function every detail view comes from (a report that loads pairs as
/// needed calls it for each).
pub fn detail_view(out: &mut String, id: &str, e: &PairEvidence) {
    let _ = write!(
        out,
        "<section class=\"detail\" id=\"{}\"><h3>{} on {} — <span class=\"{}\">{}</span></h3><dl class=\"kv\">\
         <dt>answer</dt><dd>{} ({})</dd>",
        esc(id),
        esc(&e.solver),
        esc(&e.benchmark),
        if e.to_look_at { "bad" } else { "ok" },
        esc(&verdict_text(e)),
        esc(&e.answer),
        esc(&e.exit),
    );
    if !e.flags.is_empty() {
        let _ = write!(out, "<dt>flags</dt><dd>{}</dd>", esc(&e.flags.join(", ")));
    }
    if let Some(cmd) = &e.command {
        let _ = write!(
            out,
            "<dt>command</dt><dd><code class=\"cmd\">{}</code> (from the campaign folder)</dd>",
            esc(cmd)
        );
    }
    if !e.errors.is_empty() {
        let _ = write!(
            out,
            "<dt>errors</dt><dd><pre class=\"out\">{}</pre></dd>",
            esc(&e.errors.join("\n"))
        );
    }
    if let Some(tail) = &e.stderr {
        let _ = write!(
            out,
            "<dt>stderr (last lines)</dt><dd><pre class=\"out\">{}</pre></dd>",
            esc(tail)
        );
    }
    if let Some(core) = &e.core {
        let _ = write!(
            out,
            "<dt>core</dt><dd>{} of {} assertions: <code>{}</code></dd>",
            core.len(),
            e.assertions,
            esc(&core.join(" "))
        );
    }
    if !e.explanation.is_empty() {
        let _ = write!(
            out,
            "<dt>explanation</dt><dd>{}</dd>",
            esc(&e.explanation.join("\n")).replace('\n', "<br>")
        );
    }
    if let Some(f) = &e.core_file {
        // The report lives in reports/: the core is one folder up.
        let _ = write!(
            out,
            "<dt>core-only file</dt><dd><a href=\"../{0}\"><code>{0}</code></a> (relative to the campaign folder)</dd>",
            esc(f)
        );
    }
    out.push_str("</dl>");
    if e.checkers.is_empty() {
        out.push_str("<p class=\"meta\">No checker ran on this core.</p>");
    } else {
        out.push_str(
            "<table><thead><tr><th>checker</th><th>version</th><th>answer</th><th>counted as</th><th>exit</th>\
             <th>wall s</th><th>output (first lines)</th><th>command (from the campaign folder)</th></tr></thead><tbody>",
        );
        for k in &e.checkers {
            let mut answer = esc(&k.answer);
            if k.cached {
                answer.push_str(" <span class=\"meta\">(cached)</span>");
            }
            if let Some(n) = &k.note {
                let _ = write!(answer, "<br><span class=\"warn\">{}</span>", esc(n));
            } else if matches!(k.answer.as_str(), "sat" | "unsat") && k.counted != k.answer {
                answer.push_str("<br><span class=\"warn\">not counted</span>");
            }
            if let Some(c) = &k.certification {
                let _ = write!(answer, "<br><span class=\"meta\">{}</span>", esc(c));
            }
            if let Some(f) = &k.model_file {
                let _ = write!(
                    answer,
                    "<br>model: <a href=\"../{0}\"><code>{0}</code></a>",
                    esc(f)
                );
            }
            if let Some(m) = &k.model {
                let _ = write!(answer, "<pre class=\"out\">{}</pre>", esc(m));
            }
            let _ = write!(
                out,
                "<tr><td>{}</td><td>{}</td><td>{answer}</td><td>{}</td><td>{}</td><td class=\"n\">{:.2}</td>\
                 <td><pre class=\"out\">{}</pre></td><td><code class=\"cmd\">{}</code></td></tr>",
                esc(&k.checker),
                esc(k.version.as_deref().unwrap_or("?")),
                esc(&k.counted),
                esc(&k.exit),
                k.wall,
                esc(k.output.as_deref().unwrap_or("")),
                esc(&k.command),
            );
        }
        out.push_str("</tbody></table>");
    }
    out.push_str("<p><a href=\"#overview\">close (back to the overview)</a></p></section>");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::campaign::verdict::pair::{CheckerEvidence, Verdict};

    /// A failing pair with a large core and a checker vote.
    fn failing(i: usize) -> PairEvidence {
        PairEvidence {
            solver: format!("solver-{}", i % 20),
            benchmark: format!("QF_UF/family-{}/bench-{i}.smt2", i % 97),
            verdict: Verdict::Refuted,
            answer: "unsat".into(),
            exit: "exit 0".into(),
            core: Some((0..200).map(|k| format!("cv{k}")).collect()),
            assertions: 400,
            to_look_at: true,
            command: Some("solver --flag benchmark.smt2".into()),
            checkers: vec![CheckerEvidence {
                checker: "z3".into(),
                answer: "sat".into(),
                counted: "sat".into(),
                command: "z3 -smt2 core.smt2".into(),
                ..Default::default()
            }],
            ..Default::default()
        }
    }

    #[test]
    fn a_hundred_thousand_failures_keep_the_overview_under_its_budgets() {
        let evidence: Vec<PairEvidence> = (0..100_000).map(failing).collect();
        let mut out = String::new();
        overview(&mut out, &[], &evidence);
        assert!(
            out.len() < DETAILS_BUDGET + LOOK_AT_BUDGET + (200 << 10),
            "{} bytes",
            out.len()
        );
        let rows = out.matches("<tr><td>solver-").count();
        let views = out.matches("<section class=\"detail\"").count();
        assert!(rows > 1000 && rows < 100_000, "{rows} rows");
        assert!(views > 100 && views < MAX_DETAILS, "{views} views");
        assert!(out.contains(&format!(
            "The first {rows} of 100000 pairs to look at are listed"
        )));
        assert!(out.contains(&format!("Detail views for {views} of 100000 pairs only")));
        // Every link leads to a view that is written, and only those link.
        assert_eq!(out.matches(">details</a>").count(), views);
        assert!(out.contains(&format!("id=\"pair-{}\"", views - 1)));
        assert!(!out.contains(&format!("id=\"pair-{views}\"")));
    }

    #[test]
    fn a_few_failures_are_all_listed_with_their_views() {
        let evidence: Vec<PairEvidence> = (0..30).map(failing).collect();
        let mut out = String::new();
        overview(&mut out, &[], &evidence);
        assert_eq!(out.matches("<tr><td>solver-").count(), 30);
        assert_eq!(out.matches(">details</a>").count(), 30);
        assert!(!out.contains("are listed"));
        assert!(!out.contains("Detail views for"));
    }
}
