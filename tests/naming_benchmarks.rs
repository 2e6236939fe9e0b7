//! Naming every unsat benchmark of `tests/data/benchmarks` (edge/
//! included): each named file scans and passes the strict parser, names
//! exactly the assertions the manifest counts, and — where the manifest says
//! z3 answered unsat — z3 still answers `unsat` followed by a core whose
//! names all belong to the file. The z3 runs go in parallel.

use coreval::benchmark::{analyze, NamedPolicy, Policy, Reason};
use coreval::campaign::ledger::index::Outcome;
use coreval::name::{name_script, name_tree, NameOptions, TreeOptions};
use coreval::smtlib::lexer::{Lexer, TokenKind};
use coreval::smtlib::lint::lint_file;
use coreval::smtlib::scanner::commands;
use rayon::prelude::*;
use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::path::{Path, PathBuf};

fn shared() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/benchmarks")
}

fn z3() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("checkers/venv/bin/z3")
}

/// One manifest row: expected assertions, status, and z3's time when it
/// answered unsat (`z3:unsat:T`, or `z3:T` in the rows that list only the
/// solvers that confirmed the status).
struct Row {
    asserts: usize,
    status: String,
    z3_unsat: Option<f64>,
}

fn manifest() -> HashMap<String, Row> {
    let text = std::fs::read_to_string(shared().join("MANIFEST.tsv")).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split('\t').collect();
    let col = |n: &str| header.iter().position(|h| *h == n).unwrap();
    let (path, asserts, status, by) = (
        col("path"),
        col("asserts"),
        col("status"),
        col("confirmed_by"),
    );
    lines
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            let z3_unsat = f[by].split(';').find_map(|e| {
                let p: Vec<&str> = e.split(':').collect();
                let time = match p[..] {
                    ["z3", "unsat", t] => t,
                    ["z3", t] if f[status] == "unsat" => t,
                    _ => return None,
                };
                time.strip_suffix('s')?.parse::<f64>().ok()
            });
            let row = Row {
                asserts: f[asserts].parse().unwrap(),
                status: f[status].to_string(),
                z3_unsat,
            };
            (f[path].to_string(), row)
        })
        .collect()
}

/// z3 on `file` through coreval's runner: `-T` at three times `cpu`
/// seconds (the machine may be shared: a tight wall-clock limit would turn
/// load into timeouts) and a wall-clock kill at five times (z3 can hang in
/// a futex after its own `-T` fires; the runner kills the whole group, so
/// the test cannot hang).
fn run_z3(file: &Path, cpu: u64) -> String {
    use coreval::runner::{run, RunSpec};
    let spec = RunSpec::new(
        z3(),
        vec![
            format!("-T:{}", cpu * 3),
            file.to_string_lossy().into_owned(),
        ],
        std::time::Duration::from_secs(cpu * 5),
    );
    let out = run(&spec, &std::sync::atomic::AtomicBool::new(false));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn z3_core(file: &Path, limit: u64) -> (String, Option<Vec<String>>, String) {
    let stdout = run_z3(file, limit);
    let mut lines = stdout.lines().filter(|l| !l.trim().is_empty());
    let answer = lines.next().unwrap_or("").trim().to_string();
    let rest: String = lines.collect::<Vec<_>>().join("\n");
    let b = rest.as_bytes();
    let toks: Vec<_> = Lexer::new(b).map(|t| t.unwrap()).collect();
    let core = match toks.first() {
        Some(t) if t.kind == TokenKind::Open => Some(
            toks[1..]
                .iter()
                .take_while(|t| t.kind != TokenKind::Close)
                .map(|t| String::from_utf8_lossy(t.symbol(b)).into_owned())
                .collect(),
        ),
        _ => None,
    };
    (answer, core, stdout)
}

/// z3's answer on a named file with core production switched off.
fn z3_plain(file: &Path, limit: u64) -> String {
    let text = std::fs::read_to_string(file).unwrap();
    let text = text.replacen("(set-option :produce-unsat-cores true)", "", 1);
    let tmp = tempfile::Builder::new().suffix(".smt2").tempfile().unwrap();
    std::fs::write(tmp.path(), text).unwrap();
    let stdout = run_z3(tmp.path(), limit);
    stdout.lines().next().unwrap_or("").trim().to_string()
}

#[test]
fn every_unsat_benchmark_names_lints_and_keeps_its_core() {
    let root = shared();
    let rows = manifest();
    let out = tempfile::tempdir().unwrap();
    // The most permissive settings, so that every unsat benchmark is named:
    // 21 of them say `:status unknown` (their status is in the manifest),
    // which is the only reason accepted below.
    let opts = NameOptions {
        prefix: None,
        policy: Policy {
            min_assertions: 1,
            allow_no_status: true,
            named: NamedPolicy::Keep,
            accept_any_status: false,
            incremental: false,
        },
        strict: true,
        known_status: None,
    };
    let unsat: Vec<(&String, &Row)> = rows.iter().filter(|(_, r)| r.status == "unsat").collect();
    assert!(unsat.len() >= 350, "{} unsat benchmarks", unsat.len());
    let started = std::time::Instant::now();
    let results: Vec<Result<Z3, String>> = unsat
        .par_iter()
        .map(|(id, row)| check_one(&root, out.path(), id, row, &opts))
        .collect();
    let failures: Vec<&String> = results.iter().filter_map(|r| r.as_ref().err()).collect();
    assert!(failures.is_empty(), "{failures:#?}");
    let count = |z: Z3| {
        results
            .iter()
            .filter(|r| r.as_ref().ok() == Some(&z))
            .count()
    };
    let (cores, plain) = (count(Z3::Core), count(Z3::UnsatWithoutCores));
    eprintln!(
        "{} benchmarks in {:.1} s; z3: {cores} valid cores, {plain} unsat only with core production off",
        unsat.len(),
        started.elapsed().as_secs_f64()
    );
    assert!(cores >= 300, "{cores} cores checked");
    assert!(plain * 10 <= cores, "{plain} benchmarks lost their core");
}

/// What z3 did on a named benchmark.
#[derive(Debug, PartialEq, Eq, Clone, Copy)]
enum Z3 {
    /// Not checked: the manifest does not say z3 answered unsat.
    Skipped,
    /// `unsat` and a core of the file's names.
    Core,
    /// With `:produce-unsat-cores` z3 answers `unknown` or runs out of
    /// time on a few benchmarks (it then solves under assumptions, without
    /// some preprocessing): without core production the named file is still
    /// `unsat`, so naming kept its meaning.
    UnsatWithoutCores,
}

/// Name one benchmark and check the output; `Err` says what is wrong.
fn check_one(
    root: &Path,
    out: &Path,
    id: &str,
    row: &Row,
    opts: &NameOptions,
) -> Result<Z3, String> {
    let named = out.join(id.replace('/', "__"));
    let input = File::open(root.join(id)).unwrap();
    let report = name_script(input, File::create(&named).unwrap(), opts)
        .map_err(|e| format!("{id}: {e}"))?;
    let accepted =
        |r: &Reason| matches!(r, Reason::StatusNotUnsat { status } if status == "unknown");
    if !report.reasons.iter().all(|r| accepted(&r.reason)) {
        return Err(format!("{id}: {:?}", report.reasons));
    }
    if report.assertions != row.asserts {
        return Err(format!(
            "{id}: {} names for {} assertions",
            report.assertions, row.asserts
        ));
    }
    let cmds = commands(&std::fs::read(&named).unwrap()).map_err(|e| format!("{id}: {e}"))?;
    let count = |h: &str| cmds.iter().filter(|c| c.head() == h).count();
    if (count("assert"), count("get-unsat-core")) != (row.asserts, 1) {
        return Err(format!(
            "{id}: {} asserts, {} get-unsat-core",
            count("assert"),
            count("get-unsat-core")
        ));
    }
    let lint = lint_file(&named, 5).unwrap();
    if !lint.is_empty() {
        return Err(format!("{id}: {lint:?}"));
    }
    // Every assertion of the output carries its name at the top.
    let info = analyze(&named).unwrap();
    let names = report.names();
    let expected: Vec<(usize, String)> = names
        .iter()
        .cloned()
        .enumerate()
        .map(|(i, n)| (i + 1, n))
        .collect();
    if info.top_level_names != expected {
        return Err(format!("{id}: top-level names {:?}", info.top_level_names));
    }
    let Some(time) = row.z3_unsat else {
        return Ok(Z3::Skipped);
    };
    // A few times what z3 needed on the original; core production makes
    // it slower on some, and the machine may be busier than when the
    // manifest was made: the check without cores gets a wide margin.
    let limit = (time * 3.0).ceil().clamp(1.0, 10.0) as u64;
    let plain_limit = (time * 10.0).ceil().clamp(10.0, 60.0) as u64;
    let mut known: HashSet<String> = names.into_iter().collect();
    known.extend(report.nested_names.iter().cloned());
    let (answer, core, stdout) = z3_core(&named, limit);
    if answer != "unsat" {
        let plain = z3_plain(&named, plain_limit);
        if plain != "unsat" {
            return Err(format!(
                "{id}: z3 said {answer}, and {plain} without cores\n{stdout}"
            ));
        }
        return Ok(Z3::UnsatWithoutCores);
    }
    let core = core.unwrap_or_default();
    let unknown: Vec<&String> = core.iter().filter(|n| !known.contains(*n)).collect();
    if core.is_empty() || !unknown.is_empty() {
        return Err(format!(
            "{id}: z3 core with unknown names {unknown:?}\n{stdout}"
        ));
    }
    Ok(Z3::Core)
}

#[test]
fn default_settings_on_the_edge_benchmarks() {
    let root = shared().join("edge");
    let out = tempfile::tempdir().unwrap();
    let summary = name_tree(&root, out.path(), &TreeOptions::default()).unwrap();
    assert_eq!(summary.entries.len(), 5);
    for e in &summary.entries {
        assert_eq!(e.outcome, Outcome::Ineligible, "{}", e.id);
        assert!(
            e.reasons
                .iter()
                .any(|r| matches!(r.reason, Reason::ExistingNames { .. })),
            "{}: {:?}",
            e.id,
            e.reasons
        );
    }
    // Strip: names used as symbols cannot go; the others are stripped and
    // the stripped benchmark is still unsat with a core of the new names.
    let strip = TreeOptions {
        name: NameOptions {
            policy: Policy {
                min_assertions: 1,
                allow_no_status: true,
                named: NamedPolicy::Strip,
                accept_any_status: false,
                incremental: false,
            },
            ..NameOptions::default()
        },
        ..TreeOptions::default()
    };
    let out = tempfile::tempdir().unwrap();
    let summary = name_tree(&root, out.path(), &strip).unwrap();
    let by_id: HashMap<&str, _> = summary.entries.iter().map(|e| (e.id.as_str(), e)).collect();
    for id in [
        "QF_LIA/cvc5-regress-misc/named-expr-use.smt2",
        "QF_UFLIA/verit-proof-steps/use-name-in-same-command.smt2",
    ] {
        let e = by_id[id];
        assert_eq!(e.outcome, Outcome::Ineligible, "{id}");
        assert!(
            matches!(e.reasons[0].reason, Reason::NameUsedInTerm { .. }),
            "{id}: {:?}",
            e.reasons
        );
    }
    for id in [
        "AUFLIA/cvc5-regress-proofs/alpha-eq-var-shadow.smt2",
        "AUFLIA/cvc5-regress-quantifiers/issue2035.smt2",
        "AUFLIRA/cvc5-regress-proofs/typeerror.smt2",
    ] {
        let e = by_id[id];
        assert_eq!(e.outcome, Outcome::Named, "{id}: {:?}", e.reasons);
        let file = out.path().join(id);
        let text = std::fs::read_to_string(&file).unwrap();
        assert_eq!(text.matches(":named").count(), e.assertions, "{id}");
        let (answer, core, stdout) = z3_core(&file, 20);
        assert_eq!(answer, "unsat", "{id}: {stdout}");
        let names: HashSet<String> = e.top_level_names().into_iter().collect();
        assert!(
            core.unwrap().iter().all(|n| names.contains(n)),
            "{id}: {stdout}"
        );
    }
}
