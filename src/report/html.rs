//! The HTML report: one self-contained page (inline CSS and JS, no network)
//! opening with the warnings and a campaign's facts ([`super::facts`]),
//! then, per division, sortable tables for both modes and three SVG plots:
//! reduction per solver against the virtual best, core size against the
//! best known core, and the distribution of wall times (cactus plot); and
//! per stage of a campaign, the occupancy of its worker slots over time.

use super::svg::{bar_chart, cactus, esc, occupancy, scatter, Series, PALETTE};
use super::table::{self, Mark, Show, Table};
use super::{Exporter, ScoreReport};
use crate::campaign::verdict::pair::{PairEvidence, Verdict};
use crate::score::result::{DivisionScore, ModeScore, Occupancy, PairRow, Recognitions};
use anyhow::Result;
use std::collections::BTreeMap;
use std::fmt::Write;

/// HTML exporter; a campaign's report also shows the evidence of every
/// pair that did not pass ([`super::evidence`]).
#[derive(Default)]
pub struct Html<'a> {
    pub evidence: &'a [PairEvidence],
}

/// At most this many points per solver in a scatter plot (evenly sampled).
const MAX_POINTS: usize = 1500;

const STYLE: &str = r#"
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:24px;color:#222;max-width:1320px}
h1{font-size:1.6em;margin-bottom:4px}h2{margin-top:36px;border-bottom:2px solid #ddd;padding-bottom:4px}
h3{font-size:1.05em;margin:18px 0 6px}.meta{color:#555}
table{border-collapse:collapse;margin:6px 0 14px;font-size:13px}
th,td{border:1px solid #ccc;padding:3px 8px}td.n{text-align:right;font-variant-numeric:tabular-nums}
th{background:#f0f3f7;cursor:pointer;user-select:none;white-space:nowrap}th:after{content:" \2195";color:#aaa}
th.asc:after{content:" \2191";color:#333}th.desc:after{content:" \2193";color:#333}
tr.win td{background:#e8f6e8}tr.hc td{color:#666;font-style:italic}
.plots{display:flex;flex-wrap:wrap;gap:12px}.plot{border:1px solid #eee;background:#fff}
.pt{font-size:13px;font-weight:600}.tk{font-size:10px;fill:#555}.al{font-size:11px;fill:#333}.lg{font-size:11px}
nav a{margin-right:10px}.warn{color:#8a4b00}
"#;

const SCRIPT: &str = r#"
document.querySelectorAll('table.sortable').forEach(function(t){
  t.querySelectorAll('th').forEach(function(th,i){
    th.addEventListener('click',function(){
      var asc=!th.classList.contains('asc');
      t.querySelectorAll('th').forEach(function(h){h.classList.remove('asc','desc');});
      th.classList.add(asc?'asc':'desc');
      var body=t.tBodies[0],rows=Array.prototype.slice.call(body.rows);
      rows.sort(function(a,b){
        var x=a.cells[i].getAttribute('data-v')||a.cells[i].textContent,
            y=b.cells[i].getAttribute('data-v')||b.cells[i].textContent,
            nx=parseFloat(x),ny=parseFloat(y),c;
        c=(!isNaN(nx)&&!isNaN(ny))?nx-ny:x.localeCompare(y);
        return asc?c:-c;
      });
      rows.forEach(function(r){body.appendChild(r);});
    });
  });
});
"#;

fn num_cell(v: f64, shown: String) -> String {
    format!(r#"<td class="n" data-v="{v}">{shown}</td>"#)
}

/// A table as a sortable HTML table: numbers carry their value for
/// sorting, the winner's row and those of solvers not competing are marked.
fn table(out: &mut String, t: &Table) {
    let shown = t.shown(Show::Html);
    out.push_str("<table class=\"sortable\"><thead><tr>");
    for &i in &shown {
        let _ = write!(out, "<th>{}</th>", esc(t.columns[i].head));
    }
    out.push_str("</tr></thead><tbody>");
    for r in &t.rows {
        out.push_str(match r.mark {
            Mark::Winner => "<tr class=\"win\">",
            Mark::NotCompeting => "<tr class=\"hc\">",
            Mark::Plain => "<tr>",
        });
        for &i in &shown {
            let c = &r.cells[i];
            match (c.sort, &c.title) {
                (Some(v), _) => out.push_str(&num_cell(v, esc(&c.text))),
                (None, Some(title)) => {
                    let _ = write!(out, "<td title=\"{}\">{}</td>", esc(title), esc(&c.text));
                }
                (None, None) => {
                    let _ = write!(out, "<td>{}</td>", esc(&c.text));
                }
            }
        }
        out.push_str("</tr>");
    }
    out.push_str("</tbody></table>");
}

fn mode_table(out: &mut String, title: &str, m: &ModeScore) {
    let winner = m
        .winner
        .as_ref()
        .and_then(|w| m.solvers.iter().find(|s| &s.solver == w))
        .map_or("no winner".to_string(), |s| {
            format!("winner: {}", esc(&s.display))
        });
    let _ = write!(
        out,
        "<h3>{title} <span class=\"meta\">({winner})</span></h3>"
    );
    table(out, &table::mode(m));
}

/// Evenly spaced sample of at most `max` items.
fn sample<T: Clone>(v: &[T], max: usize) -> Vec<T> {
    if v.len() <= max {
        return v.to_vec();
    }
    (0..max).map(|i| v[i * v.len() / max].clone()).collect()
}

fn plots(out: &mut String, d: &DivisionScore, rows: &[&PairRow]) {
    // one colour per solver, in parallel-ranking order, in every plot
    let order: Vec<(&str, String, &'static str)> = d
        .parallel
        .solvers
        .iter()
        .enumerate()
        .map(|(i, s)| {
            (
                s.solver.as_str(),
                s.display.clone(),
                PALETTE[i % PALETTE.len()],
            )
        })
        .collect();
    let mut by_solver: BTreeMap<&str, Vec<&PairRow>> = BTreeMap::new();
    for r in rows {
        by_solver.entry(&r.solver).or_default().push(r);
    }
    let mine = |s: &str| by_solver.get(s).map_or(&[][..], |v| v.as_slice());
    let mut bars: Vec<(String, f64, &str)> = order
        .iter()
        .map(|(s, name, c)| {
            (
                name.clone(),
                mine(s).iter().map(|r| r.parallel.n as f64).sum(),
                *c,
            )
        })
        .collect();
    bars.push((
        "virtual best".into(),
        d.virtual_best.correct as f64,
        "#444444",
    ));
    let valid = |r: &&&PairRow| r.scored_verdict == Verdict::Validated && !r.parallel.discarded;
    let series: Vec<Series> = order
        .iter()
        .map(|(s, name, color)| {
            let pts: Vec<(f64, f64)> = mine(s)
                .iter()
                .filter(valid)
                .filter_map(|r| {
                    r.core_size
                        .map(|c| ((r.assertions - r.best_reduction) as f64, c as f64))
                })
                .collect();
            Series {
                name: name.clone(),
                color,
                points: sample(&pts, MAX_POINTS),
            }
        })
        .collect();
    let times: Vec<(String, &str, Vec<f64>)> = order
        .iter()
        .map(|(s, name, c)| {
            (
                name.clone(),
                *c,
                mine(s)
                    .iter()
                    .filter(valid)
                    .map(|r| r.parallel.wall)
                    .collect(),
            )
        })
        .collect();
    out.push_str("<div class=\"plots\">");
    out.push_str(&bar_chart(
        "Reduction per solver (parallel, unweighted)",
        "Σ n = Σ (A − |core|)",
        &bars,
    ));
    out.push_str(&scatter(
        "Core size against the best known core",
        "best known core size (A − best reduction)",
        "reported core size",
        &series,
        true,
    ));
    out.push_str(&cactus(
        "Wall time of validated cores",
        "wall time (s)",
        &times,
    ));
    out.push_str("</div>");
}

fn division(out: &mut String, d: &DivisionScore, rows: &[&PairRow], level: &str) {
    let logics = if d.logics.len() > 1 || d.logics.first().is_some_and(|l| *l != d.name) {
        format!("logics {}; ", esc(&d.logics.join(", ")))
    } else {
        String::new()
    };
    let _ = write!(
        out,
        "<section class=\"division\" id=\"{level}-{id}\"><h2>{name}</h2><p class=\"meta\">{logics}{} benchmarks, {} families, {} named assertions; {}; virtual best reduction {}</p>",
        d.benchmarks,
        d.families,
        d.assertions,
        if d.competitive { "competitive" } else { "not competitive" },
        d.virtual_best.correct,
        id = esc(&d.name),
        name = esc(&d.name),
    );
    mode_table(out, "Sequential performance", &d.sequential);
    mode_table(out, "Parallel performance", &d.parallel);
    plots(out, d, rows);
    out.push_str("</section>");
}

/// A titled table, or "none" when it has no rows.
fn titled_table(out: &mut String, title: &str, t: &Table) {
    if t.rows.is_empty() {
        let _ = write!(out, "<h3>{}</h3><p class=\"meta\">none</p>", esc(title));
        return;
    }
    let _ = write!(out, "<h3>{}</h3>", esc(title));
    table(out, t);
}

fn recognitions(out: &mut String, r: &Recognitions) {
    out.push_str("<section id=\"recognitions\"><h2>Track-wide recognitions</h2>");
    let won = r
        .divisions_won
        .as_ref()
        .map(|w| ("Competitive divisions won", table::divisions_won(w)));
    for (title, t) in won.into_iter().chain(table::later_recognitions(r)) {
        titled_table(out, title, &t);
    }
    out.push_str("</section>");
}

/// Per stage, running jobs over time against its slots: where a campaign
/// waited (a stage's tail, a slow disk, too few jobs to fill the slots).
fn occupancy_plots(out: &mut String, stages: &[Occupancy]) {
    if stages.is_empty() {
        return;
    }
    out.push_str("<section id=\"occupancy\"><h2>Slot occupancy</h2><div class=\"plots\">");
    for o in stages {
        let title = format!(
            "{}: {:.0} % of {} slots busy over {:.1} s",
            o.stage,
            100.0 * o.busy_share(),
            o.slots,
            o.span()
        );
        out.push_str(&occupancy(&title, &o.runs, o.slots));
    }
    out.push_str("</div></section>");
}

impl Exporter for Html<'_> {
    fn write_to(&self, report: &ScoreReport, sink: &mut dyn std::io::Write) -> Result<()> {
        let mut by_div: BTreeMap<&str, Vec<&PairRow>> = BTreeMap::new();
        for r in &report.pair_rows {
            by_div.entry(&r.division).or_default().push(r);
        }
        let mut out = String::new();
        let _ = write!(
            out,
            "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Unsat-core scores ({ed})</title><style>{STYLE}{EVIDENCE_STYLE}</style></head><body>\
             <h1>Unsat-core scores</h1><p class=\"meta\">Rules edition <b>{ed}</b>, family definition <b>{fam}</b>, time limit {t} s; {p} pairs in {n} divisions.{map} {gen}.</p><nav>",
            ed = esc(&report.edition),
            fam = esc(&report.family),
            t = report.rules.time_limit,
            p = report.pairs,
            n = report.divisions.len(),
            gen = esc(&report.generator),
            EVIDENCE_STYLE = super::pair_views::STYLE,
            map = report.division_map.as_ref().map_or(String::new(), |m| format!(
                " Divisions group logics as in <code>{}</code>; each logic is shown below too.",
                esc(m)
            )),
        );
        for d in &report.divisions {
            let _ = write!(out, "<a href=\"#div-{0}\">{0}</a>", esc(&d.name));
        }
        for d in report.logics.iter().flatten() {
            let _ = write!(out, "<a href=\"#logic-{0}\">{0}</a>", esc(&d.name));
        }
        out.push_str("</nav>");
        super::facts::html(&mut out, report);
        super::pair_views::overview(&mut out, &report.pair_rows, self.evidence);
        for d in &report.divisions {
            division(
                &mut out,
                d,
                by_div.get(d.name.as_str()).map_or(&[], |v| v.as_slice()),
                "div",
            );
        }
        if let Some(logics) = &report.logics {
            let mut by_logic: BTreeMap<&str, Vec<&PairRow>> = BTreeMap::new();
            for r in &report.pair_rows {
                by_logic.entry(&r.logic).or_default().push(r);
            }
            out.push_str("<h1>Per logic</h1>");
            for d in logics {
                division(
                    &mut out,
                    d,
                    by_logic.get(d.name.as_str()).map_or(&[], |v| v.as_slice()),
                    "logic",
                );
            }
        }
        recognitions(&mut out, &report.recognitions);
        if !report.validators.is_empty() {
            out.push_str("<section id=\"validators\"><h2>Validators</h2>");
            titled_table(
                &mut out,
                &super::validators::title(report),
                &table::validators(&report.validators),
            );
            out.push_str("</section>");
        }
        if !report.beyond.is_empty() {
            out.push_str("<section id=\"beyond\"><h2>Beyond the track</h2>");
            titled_table(
                &mut out,
                "Minimality and best-known cores",
                &table::beyond(&report.beyond),
            );
            out.push_str("</section>");
        }
        if !report.incremental.is_empty() {
            let _ = write!(
                out,
                "<section id=\"incremental\"><h2>{}</h2><p class=\"meta\">{}</p>",
                esc(super::incremental::TITLE),
                esc(super::incremental::NOTE)
            );
            table(&mut out, &super::incremental::table(&report.incremental));
            out.push_str("</section>");
        }
        occupancy_plots(&mut out, &report.occupancy);
        let _ = writeln!(out, "<script>{SCRIPT}</script></body></html>");
        sink.write_all(out.as_bytes())?;
        Ok(())
    }
}
