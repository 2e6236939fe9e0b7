//! The participants table: which solver (as named in the data) belongs to
//! which team, whether it competes, and the name to show. It decides which
//! divisions are competitive (two competing solvers of different teams) and
//! who may win; it is input the user gives, never guessed.
//!
//! CSV with a header; columns (case-insensitive): `solver`, `team`,
//! `competing` (`yes`/`no`, also `true`/`false`, `1`/`0`), and optionally
//! `display name` (or `display`), and `derived from` (the data name of the
//! solver it was derived from; SMT-COMP 2026 ranks a derived solver only
//! when it beats its base). Extra columns are ignored.

use crate::store::csv_table::Table;
use anyhow::{anyhow, bail, Context, Result};
use std::collections::BTreeMap;
use std::path::Path;

/// One row of the table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Participant {
    /// Solver name as it appears in the data.
    pub solver: String,
    /// Team; competing solvers of two different teams make a division
    /// competitive.
    pub team: String,
    /// Entered by its authors (true) or hors concours (false).
    pub competing: bool,
    /// Name shown in reports.
    pub display: String,
    /// The solver this one was derived from (data name), when it is one.
    pub derived_from: Option<String>,
}

/// The table, or its absence.
#[derive(Clone, Debug, Default)]
pub struct Participants {
    rows: BTreeMap<String, Participant>,
}

impl Participants {
    /// No table: every solver competes as its own team.
    pub fn none() -> Self {
        Self::default()
    }

    /// True when no table was given.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Read a table from a file.
    pub fn load(path: &Path) -> Result<Self> {
        let text = crate::store::regular::read_to_string(path)
            .with_context(|| format!("cannot read participants table {}", path.display()))?;
        Self::parse(&text, &path.display().to_string())
    }

    /// Parse a table; `label` names the source in messages.
    pub fn parse(text: &str, label: &str) -> Result<Self> {
        let mut table = Table::new(text.as_bytes(), label)?;
        let what = "a participants table has solver, team, competing";
        let c_solver = table.column(&["solver"], what)?;
        let c_team = table.column(&["team"], what)?;
        let c_comp = table.column(&["competing"], what)?;
        let c_display = table.find(&["display name", "display", "display_name", "name"]);
        let c_base = table.find(&["derived from", "derived_from", "base"]);
        let mut rows = BTreeMap::new();
        for (line, record) in table.rows() {
            let record = record.map_err(|m| anyhow!("{label}: line {line}: {m}"))?;
            let get = |c: usize| Table::cell(&record, c).to_string();
            let solver = get(c_solver);
            if solver.is_empty() {
                bail!("{label}: line {line}: empty solver name");
            }
            let competing = match get(c_comp).to_ascii_lowercase().as_str() {
                "yes" | "y" | "true" | "1" => true,
                "no" | "n" | "false" | "0" => false,
                other => bail!(
                    "{label}: line {line}: column `competing` must be yes or no, not `{other}`"
                ),
            };
            let team = match get(c_team) {
                t if t.is_empty() => solver.clone(),
                t => t,
            };
            let display = match c_display.map(get) {
                Some(d) if !d.is_empty() => d,
                _ => solver.clone(),
            };
            if rows.contains_key(&solver) {
                bail!("{label}: line {line}: solver `{solver}` listed twice");
            }
            rows.insert(
                solver.clone(),
                Participant {
                    solver,
                    team,
                    competing,
                    display,
                    derived_from: c_base.map(get).filter(|b| !b.is_empty()),
                },
            );
        }
        Ok(Participants { rows })
    }

    /// The row for a solver. Without a table every solver competes as its
    /// own team; with one, a solver it does not list is hors concours.
    pub fn get(&self, solver: &str) -> Participant {
        self.rows
            .get(solver)
            .cloned()
            .unwrap_or_else(|| Participant {
                solver: solver.to_string(),
                team: solver.to_string(),
                competing: self.rows.is_empty(),
                display: solver.to_string(),
                derived_from: None,
            })
    }

    /// True when the table lists the solver.
    pub fn lists(&self, solver: &str) -> bool {
        self.rows.contains_key(solver)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_defaults() {
        let p = Participants::parse(
            "solver,team,competing,display name\nA-1,T1,yes,Alpha\nB,T2,no,\n",
            "t.csv",
        )
        .unwrap();
        assert_eq!(p.get("A-1").display, "Alpha");
        assert!(p.get("A-1").competing);
        assert_eq!(p.get("B").display, "B");
        assert!(!p.get("B").competing);
        assert!(!p.get("C").competing, "unlisted solvers are hors concours");
        assert!(Participants::none().get("C").competing);
        let d = Participants::parse(
            "solver,team,competing,derived from\nA,T,yes,\nA2,U,yes,A\n",
            "t",
        )
        .unwrap();
        assert_eq!(d.get("A").derived_from, None);
        assert_eq!(d.get("A2").derived_from.as_deref(), Some("A"));
    }

    #[test]
    fn errors_name_file_and_line() {
        let e = Participants::parse("solver,team\nA,T\n", "p.csv").unwrap_err();
        assert!(format!("{e:#}").contains("p.csv:1: missing required column `competing`"));
        let e = Participants::parse("solver,team,competing\nA,T,maybe\n", "p.csv").unwrap_err();
        assert!(format!("{e:#}").contains("p.csv: line 2"));
    }
}
