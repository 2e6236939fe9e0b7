//! The report's tables as data, built once and rendered by both the
//! Markdown ([`super::markdown`]) and the HTML ([`super::html`]) report:
//! per division (and per logic) one table per mode, the track-wide
//! recognitions and the figures beyond the track. A cell holds its text
//! unescaped (each format escapes it) and, for the HTML page's sorting, the
//! number it stands for.

use crate::score::result::{
    Contribution, DivisionsWon, Lead, ModeScore, Overall, PerMode, Recognitions, SolverBeyond,
};

use super::fmt_num;

/// Which report shows a column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Show {
    Both,
    /// Only the HTML page (a detail the text tables leave out).
    Html,
    /// Only the Markdown report.
    Markdown,
}

/// One column: its heading, whether it holds numbers (right-aligned in
/// Markdown), and where it is shown.
pub struct Column {
    pub head: &'static str,
    pub numeric: bool,
    pub show: Show,
}

/// One cell: its text, the number it sorts by on the HTML page, and a
/// tooltip (a solver's data name behind its display name).
pub struct Cell {
    pub text: String,
    pub sort: Option<f64>,
    pub title: Option<String>,
}

impl Cell {
    fn text(text: impl Into<String>) -> Cell {
        Cell {
            text: text.into(),
            sort: None,
            title: None,
        }
    }

    fn num(sort: f64, text: String) -> Cell {
        Cell {
            text,
            sort: Some(sort),
            title: None,
        }
    }

    /// A cell that sorts as a number whenever its text is one.
    fn parsed(text: String) -> Cell {
        Cell {
            sort: text.parse().ok(),
            text,
            title: None,
        }
    }
}

/// How a row stands out on the HTML page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mark {
    Plain,
    /// The division's winner.
    Winner,
    /// A solver not competing (hors concours).
    NotCompeting,
}

pub struct Row {
    pub cells: Vec<Cell>,
    pub mark: Mark,
}

pub struct Table {
    pub columns: Vec<Column>,
    pub rows: Vec<Row>,
}

fn columns(spec: &[(&'static str, bool, Show)]) -> Vec<Column> {
    spec.iter()
        .map(|&(head, numeric, show)| Column {
            head,
            numeric,
            show,
        })
        .collect()
}

fn yes_no(b: bool) -> &'static str {
    if b {
        "yes"
    } else {
        "no"
    }
}

/// One mode of a division: rank, solver, errors, reduction, times.
pub fn mode(m: &ModeScore) -> Table {
    use Show::*;
    let rows = m
        .solvers
        .iter()
        .map(|s| Row {
            mark: if m.winner.as_deref() == Some(s.solver.as_str()) {
                Mark::Winner
            } else if !s.competing {
                Mark::NotCompeting
            } else {
                Mark::Plain
            },
            cells: vec![
                Cell::num(s.rank as f64, s.rank.to_string()),
                Cell {
                    text: s.display.clone(),
                    sort: None,
                    title: Some(s.solver.clone()),
                },
                Cell::text(yes_no(s.competing)),
                Cell::num(s.errors, fmt_num(s.errors)),
                Cell::num(s.correct, fmt_num(s.correct)),
                Cell::num(s.cpu, format!("{:.3}", s.cpu)),
                Cell::num(s.wall, format!("{:.3}", s.wall)),
                Cell::num(s.timeouts as f64, s.timeouts.to_string()),
                Cell::num(s.memouts as f64, s.memouts.to_string()),
                Cell::num(s.gap_to_best as f64, s.gap_to_best.to_string()),
            ],
        })
        .collect();
    Table {
        columns: columns(&[
            ("rank", true, Both),
            ("solver", false, Both),
            ("competing", false, Both),
            ("errors", true, Both),
            ("reduction", true, Both),
            ("CPU time", true, Both),
            ("wall time", true, Both),
            ("timeouts", true, Both),
            ("memouts", true, Both),
            ("gap to best", true, Html),
        ]),
        rows,
    }
}

/// Rows of a per-mode list, each led by its mode.
fn mode_rows<T>(pm: &PerMode<Vec<T>>, f: impl Fn(&T) -> Vec<String>) -> Vec<Row> {
    [("sequential", &pm.sequential), ("parallel", &pm.parallel)]
        .iter()
        .flat_map(|(m, l)| {
            l.iter().map(|x| {
                let mut cells = vec![Cell::parsed(m.to_string())];
                cells.extend(f(x).into_iter().map(Cell::parsed));
                Row {
                    cells,
                    mark: Mark::Plain,
                }
            })
        })
        .collect()
}

/// Competitive divisions won per solver (2015–2018).
pub fn divisions_won(w: &PerMode<Vec<DivisionsWon>>) -> Table {
    use Show::*;
    Table {
        columns: columns(&[
            ("mode", false, Both),
            ("solver", false, Both),
            ("won", true, Both),
            ("divisions", false, Both),
        ]),
        rows: mode_rows(w, |x| {
            vec![x.display.clone(), x.won.to_string(), x.divisions.join(", ")]
        }),
    }
}

/// Biggest lead per competitive division (2019 on).
pub fn biggest_lead(l: &PerMode<Vec<Lead>>) -> Table {
    use Show::*;
    Table {
        columns: columns(&[
            ("mode", false, Both),
            ("division", false, Both),
            ("first", false, Both),
            ("second", false, Both),
            ("score", true, Both),
            ("time", true, Both),
        ]),
        rows: mode_rows(l, |x| {
            vec![
                x.division.clone(),
                x.first_display.clone(),
                x.second_display.clone(),
                format!("{:.6}", x.score),
                format!("{:.6}", x.time),
            ]
        }),
    }
}

/// Largest contribution to the virtual best per division (2019 on).
pub fn largest_contribution(c: &PerMode<Vec<Contribution>>) -> Table {
    use Show::*;
    Table {
        columns: columns(&[
            ("mode", false, Both),
            ("division", false, Both),
            ("solver", false, Both),
            ("score", true, Both),
            ("time", true, Both),
        ]),
        rows: mode_rows(c, |x| {
            vec![
                x.division.clone(),
                x.display.clone(),
                format!("{:.6}", x.score),
                format!("{:.6}", x.time),
            ]
        }),
    }
}

/// Best overall (2025).
pub fn best_overall(b: &PerMode<Vec<Overall>>) -> Table {
    use Show::*;
    Table {
        columns: columns(&[
            ("mode", false, Both),
            ("solver", false, Both),
            ("competing", false, Both),
            ("score", true, Both),
            ("divisions", true, Markdown),
        ]),
        rows: mode_rows(b, |x| {
            vec![
                x.display.clone(),
                yes_no(x.competing).to_string(),
                format!("{:.6}", x.score),
                x.divisions.to_string(),
            ]
        }),
    }
}

/// Minimality and best-known figures per solver (campaigns that asked).
/// Validators by soundness (`[check] validators_from`): per division the
/// sound single-query participants that validated its cores, and the
/// checkers left out (a wrong answer there, or no result there).
pub fn validators(v: &[crate::campaign::setup::validators::DivisionValidators]) -> Table {
    let list = |v: &[String]| {
        if v.is_empty() {
            "none".to_string()
        } else {
            v.join(", ")
        }
    };
    Table {
        columns: columns(&[
            ("division", false, Show::Both),
            ("validators", false, Show::Both),
            ("unsound (left out)", false, Show::Both),
            ("no result (left out)", false, Show::Both),
        ]),
        rows: v
            .iter()
            .map(|d| Row {
                cells: [
                    d.division.clone(),
                    list(&d.validators),
                    list(&d.unsound),
                    list(&d.absent),
                ]
                .into_iter()
                .map(Cell::text)
                .collect(),
                mark: Mark::Plain,
            })
            .collect(),
    }
}

/// The track-wide recognitions after the divisions won, in report order,
/// each with its title (absent ones left out).
pub fn later_recognitions(r: &Recognitions) -> Vec<(&'static str, Table)> {
    [
        ("Biggest lead", r.biggest_lead.as_ref().map(biggest_lead)),
        (
            "Largest contribution",
            r.largest_contribution.as_ref().map(largest_contribution),
        ),
        ("Best overall", r.best_overall.as_ref().map(best_overall)),
    ]
    .into_iter()
    .filter_map(|(title, t)| Some((title, t?)))
    .collect()
}

pub fn beyond(rows: &[SolverBeyond]) -> Table {
    use Show::*;
    let n = |head| (head, true, Both);
    Table {
        columns: columns(&[
            ("solver", false, Both),
            n("minimal"),
            n("redundant"),
            n("minimality unknown"),
            n("removable members"),
            n("compared to best-known"),
            n("at best-known"),
            n("reduction"),
            n("best-known reduction"),
            n("size gap"),
        ]),
        rows: rows
            .iter()
            .map(|r| Row {
                cells: [
                    r.solver.clone(),
                    r.minimal.to_string(),
                    r.redundant.to_string(),
                    r.minimality_unknown.to_string(),
                    r.removable_members.to_string(),
                    r.compared.to_string(),
                    r.at_best_known.to_string(),
                    r.reduction.to_string(),
                    r.best_known_reduction.to_string(),
                    r.size_gap.to_string(),
                ]
                .into_iter()
                .map(Cell::parsed)
                .collect(),
                mark: Mark::Plain,
            })
            .collect(),
    }
}

impl Table {
    /// The columns `show` includes, by index.
    pub fn shown(&self, format: Show) -> Vec<usize> {
        (0..self.columns.len())
            .filter(|&i| {
                let s = self.columns[i].show;
                s == Show::Both || s == format
            })
            .collect()
    }
}
