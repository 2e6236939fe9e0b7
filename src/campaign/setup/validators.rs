//! Validators by soundness (`[check] validators_from`): the SMT-COMP 2025
//! and 2026 rules take as the validators of a division "single query
//! participants that were sound in that division". The single-query results
//! are a StarExec job CSV (columns `benchmark`, `solver`, `result`,
//! `expected`; others ignored), or the smtcomp tool's
//! `results-sq-YYYY.json.gz` (rows of track `SingleQuery`, each
//! benchmark's status from the benchmark list `[check]
//! validators_benchmarks` names). A row's division is its logic's in the
//! campaign's division map (a division is a logic without one).
//!
//! A checker definition is a single-query solver by name: its own, or the
//! one `[check] validator_names` gives it. It validates in a division when
//! that solver has a row there and no wrong answer there (`sat` where
//! `unsat` is expected or the other way round, whatever the run's status).
//! A solver without a row in a division was no participant there, so
//! nothing says it is sound: it validates nothing there.
//!
//! Loaded once by [`super::context::Context::load`] (refused with the config
//! file and line when the file cannot be read); the selection
//! ([`super::selection::select`]) leaves out the non-validators of a pair's
//! division, and the reports name the validators of each division.

use super::config::Campaign;
use super::config_lines::{where_is, Key};
use crate::campaign::verdict::division_map::DivisionMap;
use crate::checkers::SolverDef;
use crate::store::csv_table::Table;
use anyhow::{anyhow, bail, Context, Result};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;

/// One division's validators, as the reports name them.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct DivisionValidators {
    /// The division (or logic, without a division map).
    pub division: String,
    /// Checkers that validate there: sound single-query participants.
    pub validators: Vec<String>,
    /// Checkers left out for a wrong single-query answer there.
    pub unsound: Vec<String>,
    /// Checkers left out for having no single-query result there.
    pub absent: Vec<String>,
}

/// The validators of each division, from single-query results.
#[derive(Clone, Debug)]
pub struct Validators {
    /// The results file, as configured (for reports).
    pub source: String,
    map: Option<DivisionMap>,
    /// Checker definitions considered, sorted.
    checkers: Vec<String>,
    /// Division → (checkers that took part, checkers that answered wrongly).
    seen: BTreeMap<String, (BTreeSet<String>, BTreeSet<String>)>,
}

impl Validators {
    /// The validators of campaign `c` (`None` without `validators_from`),
    /// for `defs`' checkers (those named in `check.checkers`, else the
    /// installed ones).
    pub fn load(
        c: &Campaign,
        defs: &[SolverDef],
        map: Option<DivisionMap>,
    ) -> Result<Option<Self>> {
        let cfg = &c.config.check;
        let Some(file) = &cfg.validators_from else {
            return Ok(None);
        };
        let config = c.config_file();
        let at = |key| where_is(&config, Key::Table("check", key));
        let named = |d: &SolverDef| cfg.checkers.contains(&d.name);
        let checkers: Vec<String> = defs
            .iter()
            .filter(|d| named(d) || (cfg.checkers.is_empty() && d.is_installed()))
            .map(|d| d.name.clone())
            .collect();
        for k in cfg.validator_names.keys() {
            if !checkers.contains(k) {
                bail!(
                    "{}: check.validator_names: '{k}' is no checker of this campaign (checkers: {})",
                    at("validator_names"),
                    checkers.join(", ")
                );
            }
        }
        let path = c.dir.join(file);
        let rows = match &cfg.validators_benchmarks {
            Some(list) => read_json_rows(&path, &c.dir.join(list)),
            None if is_json(&path) => Err(anyhow!(
                "{} is the smtcomp tool's results: the benchmark list with the statuses is \
                 needed too ([check] validators_benchmarks = \"benchmarks-YYYY.json.gz\")",
                path.display()
            )),
            None => read_rows(&path),
        }
        .map_err(|e| anyhow!("{}: {e:#}", at("validators_from")))?;
        let solvers: BTreeSet<&str> = rows.iter().map(|r| r.solver.as_str()).collect();
        for (k, n) in &cfg.validator_names {
            if !solvers.contains(n.as_str()) {
                bail!(
                    "{}: check.validator_names: checker '{k}' is '{n}', a solver {} has no row of \
                     (its solvers: {})",
                    at("validator_names"),
                    path.display(),
                    solvers.into_iter().collect::<Vec<_>>().join(", ")
                );
            }
        }
        let name_of: HashMap<&str, &str> = checkers
            .iter()
            .map(|k| {
                let n = cfg.validator_names.get(k).unwrap_or(k);
                (n.as_str(), k.as_str())
            })
            .collect();
        let mut seen: BTreeMap<String, (BTreeSet<String>, BTreeSet<String>)> = BTreeMap::new();
        for r in &rows {
            let division = division_of(map.as_ref(), &r.logic).to_string();
            let entry = seen.entry(division).or_default();
            if let Some(k) = name_of.get(r.solver.as_str()) {
                entry.0.insert(k.to_string());
                if r.wrong {
                    entry.1.insert(k.to_string());
                }
            }
        }
        Ok(Some(Validators {
            source: file.display().to_string(),
            map,
            checkers,
            seen,
        }))
    }

    /// Whether checker `k` validates cores of `logic`.
    pub fn allows(&self, k: &str, logic: &str) -> bool {
        let division = division_of(self.map.as_ref(), logic);
        self.seen
            .get(division)
            .is_some_and(|(took_part, wrong)| took_part.contains(k) && !wrong.contains(k))
    }

    /// The validators of `division`, the unsound and the absent checkers.
    pub fn of_division(&self, division: &str) -> DivisionValidators {
        let none = (BTreeSet::new(), BTreeSet::new());
        let (took_part, wrong) = self.seen.get(division).unwrap_or(&none);
        let mut d = DivisionValidators {
            division: division.to_string(),
            ..Default::default()
        };
        for k in &self.checkers {
            let list = if wrong.contains(k) {
                &mut d.unsound
            } else if took_part.contains(k) {
                &mut d.validators
            } else {
                &mut d.absent
            };
            list.push(k.clone());
        }
        d
    }

    /// Checkers that validate in no division of the file (a note at load).
    pub fn idle(&self) -> Vec<&str> {
        self.checkers
            .iter()
            .filter(|k| {
                self.seen
                    .values()
                    .all(|(t, w)| !t.contains(*k) || w.contains(*k))
            })
            .map(String::as_str)
            .collect()
    }
}

fn division_of<'a>(map: Option<&'a DivisionMap>, logic: &'a str) -> &'a str {
    map.and_then(|m| m.division_of(logic)).unwrap_or(logic)
}

/// What soundness needs of one single-query row.
struct Row {
    solver: String,
    logic: String,
    /// A decided answer that contradicts a decided expected status.
    wrong: bool,
}

const COLUMNS: [&str; 4] = ["benchmark", "solver", "result", "expected"];

/// The rows of a StarExec single-query job CSV; a row that names no logic
/// (`<space>/<LOGIC>/…`) is refused with its line.
fn read_rows(path: &Path) -> Result<Vec<Row>> {
    let bytes = crate::store::regular::read(path)
        .with_context(|| format!("cannot read single-query results {}", path.display()))?;
    let mut table = Table::new(&bytes, path.display())?;
    let col = table.columns(COLUMNS, "a StarExec job CSV has it")?;
    let decided = |s: &str| matches!(s, "sat" | "unsat");
    let mut rows = Vec::new();
    for (line, row) in table.rows() {
        let row = row.map_err(|m| anyhow!("{}:{line}: {m}", path.display()))?;
        let [benchmark, solver, result, expected] = col.map(|c| Table::cell(&row, c));
        let logic = benchmark
            .split('/')
            .nth(1)
            .filter(|_| benchmark.matches('/').count() >= 2);
        let Some(logic) = logic else {
            bail!(
                "{}:{line}: benchmark `{benchmark}` is not <space>/<LOGIC>/…",
                path.display()
            );
        };
        rows.push(Row {
            solver: solver.to_string(),
            logic: logic.to_string(),
            wrong: decided(result) && decided(expected) && result != expected,
        });
    }
    Ok(rows)
}

/// Whether `path` names a JSON file (plain or gzipped).
fn is_json(path: &Path) -> bool {
    let name = path.to_string_lossy();
    name.ends_with(".json") || name.ends_with(".json.gz")
}

/// The rows of the smtcomp tool's single-query results `path`, each
/// answer compared with its benchmark's status in the list `list`; rows
/// of other tracks are left out.
fn read_json_rows(path: &Path, list: &Path) -> Result<Vec<Row>> {
    use crate::store::smtcomp_json::{read_benchmarks, read_results};
    let status: HashMap<String, String> = read_benchmarks(list)?
        .non_incremental
        .into_iter()
        .filter_map(|b| Some((b.file.id(), b.status?)))
        .collect();
    let decided = |s: &str| matches!(s, "sat" | "unsat");
    Ok(read_results(path)?
        .results
        .into_iter()
        .filter(|r| r.track.as_deref().is_none_or(|t| t == "SingleQuery"))
        .map(|r| {
            let expected = status.get(&r.file.id()).map_or("unknown", String::as_str);
            Row {
                wrong: decided(&r.result) && decided(expected) && r.result != expected,
                solver: r.solver,
                logic: r.file.logic,
            }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wrong_answer_or_no_row_makes_no_validator() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("sq.csv");
        std::fs::write(
            &p,
            "pair id,benchmark,solver,status,result,expected\n\
             1,S/QF_LIA/a.smt2,z3,complete,sat,unsat\n\
             2,S/QF_LIA/b.smt2,cvc5,complete,unsat,unsat\n\
             3,S/QF_UF/c.smt2,z3,complete,unsat,unsat\n\
             4,S/QF_UF/d.smt2,z3,complete,sat,starexec-unknown\n",
        )
        .unwrap();
        let rows = read_rows(&p).unwrap();
        assert_eq!(rows.iter().filter(|r| r.wrong).count(), 1);
        std::fs::write(&p, "benchmark,solver,result,expected\nQF_LIA,z3,sat,sat\n").unwrap();
        let e = format!("{:#}", read_rows(&p).err().unwrap());
        assert!(e.contains("sq.csv:2") && e.contains("<LOGIC>"), "{e}");
        std::fs::write(&p, "benchmark,solver,result\n").unwrap();
        let e = format!("{:#}", read_rows(&p).err().unwrap());
        assert!(e.contains("sq.csv:1") && e.contains("`expected`"), "{e}");
    }

    #[test]
    fn the_smtcomp_tools_single_query_results_give_the_same_rows() {
        let dir = tempfile::tempdir().unwrap();
        let file = |logic: &str, name: &str| {
            format!(
                r#"{{"incremental": false, "logic": "{logic}", "family": ["f"], "name": "{name}"}}"#
            )
        };
        let row = |solver: &str, logic: &str, name: &str, result: &str| {
            format!(
                r#"{{"track": "SingleQuery", "solver": "{solver}", "file": {}, "result": "{result}",
                    "cpu_time": 1.0, "wallclock_time": 1.0, "memory_usage": 0, "nb_answers": 1}}"#,
                file(logic, name)
            )
        };
        let results = dir.path().join("results-sq-2025.json");
        std::fs::write(
            &results,
            format!(
                r#"{{"results": [{}, {}, {}, {}, {}]}}"#,
                row("z3", "QF_LIA", "a.smt2", "sat"),
                row("cvc5", "QF_LIA", "b.smt2", "unsat"),
                row("z3", "QF_UF", "c.smt2", "unsat"),
                row("z3", "QF_UF", "d.smt2", "sat"),
                row("z3", "QF_UF", "c.smt2", "sat").replace("SingleQuery", "UnsatCore"),
            ),
        )
        .unwrap();
        let bench = |logic: &str, name: &str, status: &str| {
            format!(
                r#"{{"file": {}, "status": "{status}", "asserts": 3}}"#,
                file(logic, name)
            )
        };
        let list = dir.path().join("benchmarks-2025.json");
        std::fs::write(
            &list,
            format!(
                r#"{{"non_incremental": [{}, {}, {}, {}], "incremental": []}}"#,
                bench("QF_LIA", "a.smt2", "unsat"),
                bench("QF_LIA", "b.smt2", "unsat"),
                bench("QF_UF", "c.smt2", "unsat"),
                bench("QF_UF", "d.smt2", "unknown"),
            ),
        )
        .unwrap();
        let rows = read_json_rows(&results, &list).unwrap();
        // The UnsatCore row is left out; only z3's sat on an unsat QF_LIA benchmark is wrong.
        assert_eq!(rows.len(), 4);
        let wrong: Vec<(&str, &str)> = rows
            .iter()
            .filter(|r| r.wrong)
            .map(|r| (r.solver.as_str(), r.logic.as_str()))
            .collect();
        assert_eq!(wrong, [("z3", "QF_LIA")]);
        let e = format!("{:#}", read_json_rows(&list, &list).err().unwrap());
        assert!(e.contains("not a results file"), "{e}");
    }
}
