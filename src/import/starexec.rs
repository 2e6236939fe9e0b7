//! The StarExec job CSV of the SMT-COMP unsat-core archives: StarExec's
//! columns (`benchmark`, `solver`, `status`, `cpu time`, `wallclock time`,
//! `result`, …) plus the post-processor's (`number-of-assert-commands`,
//! `parsable-unsat-core`, `size-unsat-core`, `unsat-core-validated`,
//! `result-is-erroneous`, `validation-check-sat-result_<checker>`, …).
//! Column order does not matter, unknown columns are ignored, and a
//! `REVISED_<column>` (the organisers' manual corrections of 2018) takes
//! precedence over `<column>`.
//!
//! Benchmarks are `<space>/<LOGIC>/<family folders…>/<file>`; the record's
//! benchmark id drops the space (the 2019 archive ran the 2018 best solvers
//! in another space on the same benchmarks) and its division is `<LOGIC>`.
//!
//! Verdicts (the archive's own decision, taken as final):
//! - `result` = `sat` → `SatAnswer`;
//! - `unsat` with a parsable core → `Refuted` when `unsat-core-validated` is
//!   false or `result-is-erroneous` is 1, else `Validated`;
//! - `unsat` without a parsable core → `UnsatNoCore`, or
//!   `IllFormed(Unparsable)` when the archive marked it erroneous;
//! - `unknown` → `Unknown`; `starexec-unknown`, `-` → `NoAnswer`.
//!
//! Status `complete` / `timeout …` / `memout` map to [`RunStatus`]; any
//! other status (pending, run-script errors) is reported and skipped.

use super::Import;
use crate::campaign::verdict::pair::{CheckerTally, IllFormed, PairRecord, RunStatus, Verdict};
use crate::store::csv_table::Table;
use anyhow::{Context, Result};
use std::collections::HashMap;
use std::io::Read;
use std::path::Path;

/// Columns every archive has and the importer needs.
pub const REQUIRED: &[&str] = &[
    "benchmark",
    "solver",
    "status",
    "cpu time",
    "wallclock time",
    "result",
    "number-of-assert-commands",
    "parsable-unsat-core",
    "size-unsat-core",
    "unsat-core-validated",
    "result-is-erroneous",
];

const CHECKER_PREFIX: &str = "validation-check-sat-result_";

/// Import one job CSV.
pub fn import_file(path: &Path) -> Result<Import> {
    let file = crate::store::regular::open(path)
        .with_context(|| format!("cannot open {}", path.display()))?;
    import_reader(file, path)
}

/// Import a job CSV from a reader; `path` names it in messages.
pub fn import_reader(mut reader: impl Read, path: &Path) -> Result<Import> {
    let mut bytes = Vec::new();
    reader
        .read_to_end(&mut bytes)
        .with_context(|| format!("cannot read {}", path.display()))?;
    let mut table = Table::new(&bytes, path.display())?;
    // Column names as `Table` matches them: ASCII case ignored.
    let names: Vec<(usize, String)> = table
        .names()
        .map(|(i, h)| (i, h.to_ascii_lowercase()))
        .collect();
    let mut cols: HashMap<String, usize> = names.iter().map(|(i, h)| (h.clone(), *i)).collect();
    // REVISED_x overrides x
    cols.extend(names.iter().filter_map(|(i, h)| {
        h.strip_prefix("revised_")
            .map(|base| (base.to_string(), *i))
    }));
    for req in REQUIRED {
        if !cols.contains_key(*req) {
            table.column(&[req], "a StarExec unsat-core job CSV has it")?;
        }
    }
    let checkers: Vec<usize> = names
        .iter()
        .filter(|(_, h)| h.starts_with(CHECKER_PREFIX))
        .map(|(i, _)| *i)
        .collect();
    let mut out = Import::default();
    let pairs = &mut out.pairs;
    super::each_row(&mut table, path, &mut out.issues, |line, record| {
        let r = Row {
            record,
            cols: &cols,
        };
        match row(&r, &checkers) {
            Ok((mut rec, doubt)) => {
                rec.origin = Some(format!("{}:{}", path.display(), line).into());
                pairs.push(rec);
                doubt
            }
            Err(message) => Some(message),
        }
    });
    Ok(out)
}

/// One CSV row with its column index.
struct Row<'a> {
    record: &'a csv::StringRecord,
    cols: &'a HashMap<String, usize>,
}

impl<'a> Row<'a> {
    /// The trimmed cell of a column (empty when absent).
    fn get(&self, col: &str) -> &'a str {
        self.cols
            .get(col)
            .and_then(|&i| self.record.get(i))
            .unwrap_or("")
            .trim()
    }
}

fn float(r: &Row<'_>, col: &str) -> Result<f64, String> {
    let v = r.get(col);
    v.parse::<f64>()
        .ok()
        .filter(|x| x.is_finite() && *x >= 0.0)
        .ok_or_else(|| format!("column `{col}`: `{v}` is not a non-negative number"))
}

fn int(r: &Row<'_>, col: &str) -> Result<u64, String> {
    let v = r.get(col);
    v.parse::<u64>()
        .map_err(|_| format!("column `{col}`: `{v}` is not a count"))
}

/// One row → a record, plus a doubt worth reporting (the record is kept).
fn row(r: &Row<'_>, checkers: &[usize]) -> Result<(PairRecord, Option<String>), String> {
    let get = |col: &str| r.get(col);
    let path = get("benchmark");
    let parts: Vec<&str> = path.split('/').collect();
    if parts.len() < 3 || parts.iter().any(|p| p.is_empty()) {
        return Err(format!(
            "benchmark `{path}` is not <space>/<LOGIC>/…/<file>"
        ));
    }
    let benchmark = parts[1..].join("/");
    let division = parts[1].to_string();
    let mut solver = get("solver").to_string();
    if solver.is_empty() {
        return Err("empty solver name".into());
    }
    let config = get("configuration");
    if !config.is_empty() && config != "default" {
        solver = format!("{solver}:{config}");
    }
    let status = match get("status") {
        "complete" => RunStatus::Complete,
        "memout" => RunStatus::Memout,
        s if s.starts_with("timeout") => RunStatus::Timeout,
        s => {
            return Err(format!(
                "status `{s}` is not complete, timeout or memout; row skipped"
            ))
        }
    };
    let cpu = float(r, "cpu time")?;
    let wall = float(r, "wallclock time")?;
    let assertions = int(r, "number-of-assert-commands")?;
    let erroneous = match get("result-is-erroneous") {
        "1" => true,
        "0" | "-" | "" => false,
        v => return Err(format!("column `result-is-erroneous`: `{v}` is not 0 or 1")),
    };
    let mut core_size = None;
    let mut doubt = None;
    let verdict = match get("result") {
        "sat" => Verdict::SatAnswer,
        "unknown" => Verdict::Unknown,
        "starexec-unknown" | "-" | "--" | "" => Verdict::NoAnswer,
        "unsat" => match get("parsable-unsat-core") {
            "true" => {
                let size = int(r, "size-unsat-core")?;
                core_size = Some(size);
                let refuted = match get("unsat-core-validated") {
                    "false" => true,
                    "true" | "-" | "" => erroneous,
                    v => {
                        return Err(format!(
                            "column `unsat-core-validated`: `{v}` is not true or false"
                        ))
                    }
                };
                if refuted {
                    Verdict::Refuted
                } else {
                    if size > assertions {
                        doubt = Some(format!(
                            "core of {size} names but only {assertions} assertions"
                        ));
                    } else if let Some(red) = get("reduction")
                        .parse::<u64>()
                        .ok()
                        .filter(|r| *r != assertions - size)
                    {
                        doubt = Some(format!(
                            "archive reduction {red} differs from A − |core| = {}",
                            assertions - size
                        ));
                    }
                    Verdict::Validated
                }
            }
            "false" | "-" | "" if erroneous => Verdict::IllFormed {
                reason: IllFormed::Unparsable,
            },
            "false" | "-" | "" => Verdict::UnsatNoCore,
            v => {
                return Err(format!(
                    "column `parsable-unsat-core`: `{v}` is not true or false"
                ))
            }
        },
        r => {
            return Err(format!(
                "result `{r}` is not sat, unsat, unknown or starexec-unknown; row skipped"
            ))
        }
    };
    let mut tally = CheckerTally::default();
    let mut any = false;
    for &i in checkers {
        match r.record.get(i).unwrap_or("").trim() {
            "sat" => tally.sat += 1,
            "unsat" => tally.unsat += 1,
            "unknown" => tally.unknown += 1,
            _ => continue,
        }
        any = true;
    }
    let rec = PairRecord {
        solver: solver.into(),
        benchmark: benchmark.into(),
        division: division.into(),
        assertions,
        core_size,
        verdict,
        status,
        cpu,
        wall,
        checks: any.then_some(tally),
        expected: Some(get("expected"))
            .filter(|e| matches!(*e, "sat" | "unsat"))
            .map(Box::from),
        ..PairRecord::default()
    };
    Ok((rec, doubt))
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEAD: &str =
        "pair id,benchmark,solver,status,cpu time,wallclock time,result,number-of-assert-commands,\
parsable-unsat-core,size-unsat-core,unsat-core-validated,result-is-erroneous,reduction,\
validation-check-sat-result_z3,validation-check-sat-result_cvc4,extra";

    fn import(body: &str) -> Import {
        import_reader(format!("{HEAD}\n{body}").as_bytes(), Path::new("job.csv")).unwrap()
    }

    #[test]
    fn verdicts_from_columns() {
        let imp = import(
            "1,S/QF_LIA/fam/sub/a.smt2,z3,complete,1.5,1.6,unsat,10,true,4,true,0,6,unsat,unknown,x\n\
             2,S/QF_LIA/fam/b.smt2,z3,complete,1,1,unsat,10,true,4,false,1,6,sat,sat,x\n\
             3,S/QF_LIA/fam/c.smt2,z3,timeout (wallclock),2400.1,2400.2,starexec-unknown,10,-,-,-,0,0,-,-,x\n\
             4,S/QF_LIA/fam/d.smt2,z3,memout,5,5,unsat,10,false,-,-,0,0,-,-,x\n\
             5,S/QF_LIA/fam/e.smt2,z3,complete,1,1,sat,10,-,-,-,1,0,-,-,x\n",
        );
        assert!(imp.issues.is_empty(), "{:?}", imp.issues);
        let p = &imp.pairs;
        assert_eq!(&*p[0].benchmark, "QF_LIA/fam/sub/a.smt2");
        assert_eq!(&*p[0].division, "QF_LIA");
        assert_eq!(
            (p[0].verdict.clone(), p[0].core_size),
            (Verdict::Validated, Some(4))
        );
        assert_eq!(
            p[0].checks.as_ref().map(|t| (t.sat, t.unsat, t.unknown)),
            Some((0, 1, 1))
        );
        assert_eq!(p[0].origin.as_deref(), Some("job.csv:2"));
        assert_eq!(p[1].verdict, Verdict::Refuted);
        assert_eq!(
            (p[2].verdict.clone(), p[2].status),
            (Verdict::NoAnswer, RunStatus::Timeout)
        );
        assert_eq!(
            (p[3].verdict.clone(), p[3].status),
            (Verdict::UnsatNoCore, RunStatus::Memout)
        );
        assert_eq!(p[4].verdict, Verdict::SatAnswer);
    }

    #[test]
    fn bad_rows_are_reported_with_line_and_skipped() {
        let imp = import(
            "1,S/QF_LIA/a.smt2,z3,complete,abc,1,unsat,10,true,4,true,0,6,-,-,x\n\
             2,S/QF_LIA/b.smt2,z3,pending submission,0,0,-,10,-,-,-,0,0,-,-,x\n\
             3,nospace.smt2,z3,complete,1,1,unsat,10,true,4,true,0,6,-,-,x\n\
             4,S/QF_LIA/c.smt2,z3,complete,1,1,unsat,10,true,4,true,0,5,-,-,x\n",
        );
        assert_eq!(imp.pairs.len(), 1, "the doubtful row 4 is kept");
        let msgs: Vec<String> = imp.issues.iter().map(|i| i.to_string()).collect();
        assert!(
            msgs[0].starts_with("job.csv:2: column `cpu time`"),
            "{msgs:?}"
        );
        assert!(msgs[1].starts_with("job.csv:3: status `pending submission`"));
        assert!(msgs[2].starts_with("job.csv:4: benchmark `nospace.smt2`"));
        assert!(msgs[3].starts_with("job.csv:5: archive reduction 5 differs"));
    }

    #[test]
    fn missing_column_names_file_and_column() {
        let e = import_reader(
            "benchmark,solver,status\n".as_bytes(),
            Path::new("x/job.csv"),
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "x/job.csv:1: missing required column `cpu time` (a StarExec unsat-core job CSV has it)"
        );
    }

    #[test]
    fn line_numbers_with_crlf_and_blank_lines() {
        // The archives end lines with CRLF; a quoted cell may hold a newline.
        let body = "1,S/QF_LIA/a.smt2,z3,complete,x,1,unsat,10,true,4,true,0,6,-,-,x\r\n\
                    \r\n\
                    2,S/QF_LIA/b.smt2,z3,complete,y,1,unsat,10,true,4,true,0,6,-,-,\"x\r\ny\"\r\n\
                    3,S/QF_LIA/c.smt2,z3,complete,z,1,unsat,10,true,4,true,0,6,-,-,x\r\n";
        let imp = import_reader(
            format!("{}\r\n{body}", HEAD).as_bytes(),
            Path::new("job.csv"),
        )
        .unwrap();
        let lines: Vec<Option<u64>> = imp.issues.iter().map(|i| i.line).collect();
        assert_eq!(lines, [Some(2), Some(4), Some(6)], "{:?}", imp.issues);
        // A lone CR ends a line too (the csv crate ends records there).
        let imp = import_reader(
            format!("{}\r{}", HEAD, body.replace("\r\n", "\r")).as_bytes(),
            Path::new("job.csv"),
        )
        .unwrap();
        let lines: Vec<Option<u64>> = imp.issues.iter().map(|i| i.line).collect();
        assert_eq!(lines, [Some(2), Some(4), Some(6)], "{:?}", imp.issues);
    }

    #[test]
    fn revised_columns_take_precedence() {
        let head = "benchmark,solver,status,cpu time,wallclock time,result,number-of-assert-commands,\
parsable-unsat-core,size-unsat-core,unsat-core-validated,result-is-erroneous,REVISED_result-is-erroneous";
        let body = "S/QF_UF/a.smt2,s,complete,1,1,unsat,3,true,1,true,1,0\n";
        let imp = import_reader(format!("{head}\n{body}").as_bytes(), Path::new("j.csv")).unwrap();
        assert_eq!(imp.pairs[0].verdict, Verdict::Validated);
    }
}
