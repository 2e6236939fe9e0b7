//! StarExec job CSV importer. Any bytes give an import or an error naming
//! the file, never a panic, and every record it returns is well formed. A
//! generated job CSV — the required columns in any order among optional,
//! unknown, checker and `REVISED_` columns, cells quoted when they hold
//! commas or quotes — imports exactly as the module's documented rules say
//! (verdict, status, division, core size, checker tally, `file:line`
//! origin, doubts), and dropping a required column is an error naming it.

use super::gen::Source;
use coreval::campaign::verdict::pair::{IllFormed, RunStatus, Verdict};
use coreval::import::starexec::{import_reader, REQUIRED};
use std::path::Path;

const FILE: &str = "dir/job.csv";

pub fn check_raw(data: &[u8]) {
    let imp = match import_reader(data, Path::new(FILE)) {
        Err(e) => {
            assert!(format!("{e:#}").starts_with(FILE), "{e:#}");
            return;
        }
        Ok(imp) => imp,
    };
    for p in &imp.pairs {
        assert!(!p.solver.is_empty());
        let parts: Vec<&str> = p.benchmark.split('/').collect();
        assert!(
            parts.len() >= 2 && parts.iter().all(|s| !s.is_empty()),
            "{p:?}"
        );
        assert_eq!(&*p.division, parts[0]);
        assert!(p.cpu.is_finite() && p.cpu >= 0.0 && p.wall.is_finite() && p.wall >= 0.0);
        assert_eq!(
            p.core_size.is_some(),
            matches!(p.verdict, Verdict::Validated | Verdict::Refuted),
            "{p:?}"
        );
        let origin = p.origin.as_deref().unwrap_or("");
        assert!(origin.starts_with(&format!("{FILE}:")), "{origin}");
    }
    for i in &imp.issues {
        assert_eq!(i.file, Path::new(FILE));
        assert!(i.line.is_none_or(|l| l >= 2), "{i}");
        assert!(i.to_string().starts_with(FILE));
    }
}

/// One generated row: its cells by column name, and what it must import as.
struct Row {
    cells: Vec<(&'static str, String)>,
    verdict: Verdict,
    core_size: Option<u64>,
    status: RunStatus,
    solver: String,
    config: &'static str,
    benchmark: String,
    /// A doubt whatever the columns (core larger than A)…
    doubt: bool,
    /// …or only when the `reduction` column is there.
    doubt_reduction: bool,
}

fn csv_cell(v: &str) -> String {
    if v.contains([',', '"', '\n', '\r']) || v.trim() != v {
        format!("\"{}\"", v.replace('"', "\"\""))
    } else {
        v.to_string()
    }
}

fn row(src: &mut Source, revised: bool) -> Row {
    let logic = src.pick(&["QF_LIA", "QF_UF", "AUFLIA"]);
    let file = src.pick(&["a.smt2", "b c.smt2", "d,e.smt2", "q\"f.smt2"]);
    let fam = src.pick(&["fam", "fam/sub", "x"]);
    let bench = format!("{}/{logic}/{fam}/{file}", src.pick(&["S", "Job 2019"]));
    let solver = src.pick(&["z3", "CVC4-uc", "Yices 2.6"]).to_string();
    let config = src.pick(&["default", "", "uc"]);
    let status_cell = src.pick(&["complete", "timeout (wallclock)", "timeout (cpu)", "memout"]);
    let status = match status_cell {
        "complete" => RunStatus::Complete,
        "memout" => RunStatus::Memout,
        _ => RunStatus::Timeout,
    };
    let assertions = src.below(20) as u64;
    let size = src.below(assertions as usize + 2) as u64;
    let result = src.pick(&[
        "sat",
        "unsat",
        "unsat",
        "unknown",
        "starexec-unknown",
        "-",
        "",
    ]);
    let parsable = src.pick(&["true", "false", "-", ""]);
    let validated = src.pick(&["true", "false", "-", ""]);
    let erroneous = src.pick(&["0", "1", "-", ""]);
    let revised_erroneous = src.pick(&["0", "1"]);
    let effective_erroneous = if revised {
        revised_erroneous
    } else {
        erroneous
    } == "1";
    let reduction = if src.chance(128) {
        assertions.saturating_sub(size)
    } else {
        size + 1
    };
    let (mut core_size, mut doubt, mut doubt_reduction) = (None, false, false);
    let verdict = match result {
        "sat" => Verdict::SatAnswer,
        "unknown" => Verdict::Unknown,
        "unsat" if parsable == "true" => {
            core_size = Some(size);
            if validated == "false" || effective_erroneous {
                Verdict::Refuted
            } else {
                doubt = size > assertions;
                doubt_reduction = !doubt && reduction != assertions - size;
                Verdict::Validated
            }
        }
        "unsat" if effective_erroneous => Verdict::IllFormed {
            reason: IllFormed::Unparsable,
        },
        "unsat" => Verdict::UnsatNoCore,
        _ => Verdict::NoAnswer,
    };
    let checks: Vec<&str> = (0..2)
        .map(|_| src.pick(&["sat", "unsat", "unknown", "-", ""]))
        .collect();
    let cells = vec![
        ("pair id", src.below(1000).to_string()),
        ("benchmark", bench.clone()),
        ("solver", solver.clone()),
        ("configuration", config.to_string()),
        ("status", status_cell.to_string()),
        ("cpu time", format!("{}.{}", src.below(100), src.below(10))),
        ("wallclock time", format!("{}", src.below(100))),
        ("result", result.to_string()),
        ("number-of-assert-commands", assertions.to_string()),
        ("parsable-unsat-core", parsable.to_string()),
        ("size-unsat-core", size.to_string()),
        ("unsat-core-validated", validated.to_string()),
        ("result-is-erroneous", erroneous.to_string()),
        ("REVISED_result-is-erroneous", revised_erroneous.to_string()),
        ("reduction", reduction.to_string()),
        ("validation-check-sat-result_z3", checks[0].to_string()),
        ("validation-check-sat-result_cvc4", checks[1].to_string()),
        ("comment", "x, \"y\"".to_string()),
    ];
    Row {
        cells,
        verdict,
        core_size,
        status,
        solver,
        config,
        benchmark: bench.split_once('/').unwrap().1.to_string(),
        doubt,
        doubt_reduction,
    }
}

pub fn check_generated(data: &[u8]) {
    let mut src = Source::new(data);
    let revised_column = src.chance(100);
    // Columns: every name of a row, shuffled; some optional ones left out.
    let mut names: Vec<&str> = row(&mut Source::new(&[]), false)
        .cells
        .iter()
        .map(|(n, _)| *n)
        .filter(|n| {
            if REQUIRED.contains(n) {
                true
            } else if n.starts_with("REVISED_") {
                revised_column
            } else {
                src.chance(200)
            }
        })
        .collect();
    for i in (1..names.len()).rev() {
        names.swap(i, src.below(i + 1));
    }
    if src.chance(30) {
        names.remove(src.below(names.len()));
    }
    let revised = names.contains(&"REVISED_result-is-erroneous");
    let rows: Vec<Row> = (0..src.below(6)).map(|_| row(&mut src, revised)).collect();
    let eol = src.pick(&["\n", "\r\n"]);
    let mut text = names
        .iter()
        .map(|n| csv_cell(n))
        .collect::<Vec<_>>()
        .join(",")
        + eol;
    for r in &rows {
        let line: Vec<String> = names
            .iter()
            .map(|n| csv_cell(&r.cells.iter().find(|(c, _)| c == n).unwrap().1))
            .collect();
        text.push_str(&line.join(","));
        text.push_str(eol);
    }
    check_raw(text.as_bytes());
    let result = import_reader(text.as_bytes(), Path::new(FILE));
    let present = |c: &str| names.contains(&c) || names.contains(&&*format!("REVISED_{c}"));
    if let Some(first) = REQUIRED.iter().find(|c| !present(c)) {
        let e = result.expect_err("a required column is missing");
        assert_eq!(
            e.to_string(),
            format!("{FILE}:1: missing required column `{first}` (a StarExec unsat-core job CSV has it)")
        );
        return;
    }
    let imp = result.unwrap_or_else(|e| panic!("{e:#}\n{text}"));
    assert_eq!(imp.pairs.len(), rows.len(), "{:?}\n{text}", imp.issues);
    let mut doubts = Vec::new();
    for (i, (p, r)) in imp.pairs.iter().zip(&rows).enumerate() {
        let line = i as u64 + 2;
        let ctx = format!("row at line {line} of\n{text}");
        assert_eq!(p.verdict, r.verdict, "{ctx}");
        assert_eq!(p.core_size, r.core_size, "{ctx}");
        assert_eq!(p.status, r.status, "{ctx}");
        let solver = if !names.contains(&"configuration") || matches!(r.config, "" | "default") {
            r.solver.clone()
        } else {
            format!("{}:{}", r.solver, r.config)
        };
        assert_eq!(
            (&*p.solver, &*p.benchmark),
            (&*solver, &*r.benchmark),
            "{ctx}"
        );
        assert_eq!(&*p.division, r.benchmark.split('/').next().unwrap());
        let checker = |answer: &str| {
            r.cells
                .iter()
                .filter(|(c, v)| c.starts_with("validation-") && names.contains(c) && v == answer)
                .count() as u32
        };
        let tally = (checker("sat"), checker("unsat"), checker("unknown"));
        let got = p.checks.as_ref().map(|t| (t.sat, t.unsat, t.unknown));
        assert_eq!(got, (tally != (0, 0, 0)).then_some(tally), "{ctx}");
        assert_eq!(p.origin.as_deref(), Some(&*format!("{FILE}:{line}")));
        if r.doubt || r.doubt_reduction && names.contains(&"reduction") {
            doubts.push(line);
        }
    }
    let issue_lines: Vec<u64> = imp.issues.iter().map(|i| i.line.unwrap()).collect();
    assert_eq!(issue_lines, doubts, "{:?}\n{text}", imp.issues);
}

pub fn check(data: &[u8]) {
    check_raw(data);
    check_generated(data);
}
