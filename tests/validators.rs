//! Validators by soundness (`[check] validators_from`), with the real
//! solvers: the single-query results in `tests/data/validators/sq-results.csv`
//! (hand-written, StarExec's job CSV columns) have cvc5 (as `cvc5-1.1`,
//! through `[check] validator_names`) answer `sat` on an `unsat` QF_UF
//! benchmark, so under the 2025 division map cvc5 validates nothing in
//! QF_Equality but does in QF_LinearIntArith, where it answered right;
//! yices was sound in both. z3's cores of a QF_UF and a QF_LIA benchmark go
//! to the validators of their division only. The same answers as the
//! smtcomp tool's `results-sq-YYYY.json.gz` with its benchmark list pick
//! the same validators.

mod common;

use common::{jsonl, q, repo};
use coreval::campaign::setup::context::{Context, Stages};
use coreval::campaign::setup::Campaign;
use coreval::campaign::verdict::pair::Verdict;
use std::path::Path;

const UF: &str = "QF_UF/cvc5-test_regress_cli_regress0/bt-test-01.smt2";
const LIA: &str = "QF_LIA/doc-arithmetic_artifact_z_QF_LIA_prime-cone/prime_cone_unsat_3.smt2";

/// A campaign over UF and LIA with z3 under test, yices and cvc5 checking,
/// and `check` added to `[check]`.
fn campaign(dir: &Path, cache: &Path, check: &str) -> Campaign {
    for b in [UF, LIA] {
        let to = dir.join("benchmarks").join(b);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(repo().join("tests/data/benchmarks").join(b), to).unwrap();
    }
    std::fs::copy(
        repo().join("tests/data/validators/sq-results.csv"),
        dir.join("sq-results.csv"),
    )
    .unwrap();
    let config = format!(
        "benchmarks = \"benchmarks\"\njobs = 2\ncache = {}\n\
         [naming]\nallow_no_status = true\nnamed_policy = \"keep\"\n\
         [limits]\ntime = 20.0\nchecker_time = 20.0\n\
         [check]\ncheckers = [\"yices\", \"cvc5\"]\n{check}\n\
         [score]\nrules = \"smtcomp-2025\"\n\
         [[solver]]\nname = \"z3\"\ndefinition = \"z3\"\n",
        q(cache)
    );
    std::fs::write(dir.join("campaign.toml"), config).unwrap();
    Campaign::load(dir).unwrap()
}

const SOUNDNESS: &str =
    "validators_from = \"sq-results.csv\"\nvalidator_names = { cvc5 = \"cvc5-1.1\" }\n";

/// The checkers that answered on the core of z3's pair on `bench`.
fn voters(c: &Campaign, bench: &str) -> Vec<String> {
    let cores = jsonl(&c.journal_path("cores.jsonl"));
    let hash = cores
        .iter()
        .find(|r| r["solver"] == "z3" && r["benchmark"] == bench)
        .unwrap_or_else(|| panic!("no core of z3 on {bench}"))["hash"]
        .as_str()
        .unwrap()
        .to_string();
    let mut v: Vec<String> = jsonl(&c.journal_path("checks.jsonl"))
        .iter()
        .filter(|r| r["hash"] == hash.as_str())
        .map(|r| r["checker"].as_str().unwrap().to_string())
        .collect();
    v.sort();
    v
}

#[test]
fn an_unsound_checker_validates_nothing_in_its_division_but_does_elsewhere() {
    let cache = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let c = campaign(dir.path(), cache.path(), SOUNDNESS);
    let done = coreval::pipeline::run_to_end(&c, coreval::pipeline::Stages::ALL).unwrap();
    let pairs = done.pairs.unwrap();
    assert_eq!(voters(&c, UF), ["yices"], "cvc5 was unsound in QF_Equality");
    assert_eq!(voters(&c, LIA), ["cvc5", "yices"]);
    for (b, k) in [(UF, vec!["yices"]), (LIA, vec!["cvc5", "yices"])] {
        let p = pairs.iter().find(|p| &*p.pair.benchmark == b).unwrap();
        assert_eq!(p.pair.verdict, Verdict::Validated, "{b}: {:?}", p.checkers);
        assert_eq!(p.checkers.keys().collect::<Vec<_>>(), k, "{b}");
    }

    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(c.reports_dir().join("scores.json")).unwrap())
            .unwrap();
    assert_eq!(json["validators_from"], "sq-results.csv");
    let v = json["validators"].as_array().unwrap();
    let of = |d: &str| v.iter().find(|x| x["division"] == d).unwrap().clone();
    assert_eq!(
        of("QF_Equality")["validators"],
        serde_json::json!(["yices"])
    );
    assert_eq!(of("QF_Equality")["unsound"], serde_json::json!(["cvc5"]));
    assert_eq!(
        of("QF_LinearIntArith")["validators"],
        serde_json::json!(["cvc5", "yices"])
    );
    let md = std::fs::read_to_string(c.reports_dir().join("report.md")).unwrap();
    assert!(
        md.contains("## Validators by soundness (single-query results sq-results.csv)"),
        "{md}"
    );
    assert!(md.contains("| QF_Equality | yices | cvc5 | none |"), "{md}");
    assert!(
        md.contains("| QF_LinearIntArith | cvc5, yices | none | none |"),
        "{md}"
    );
    let html = std::fs::read_to_string(c.reports_dir().join("report.html")).unwrap();
    assert!(html.contains("<section id=\"validators\">"));
    assert!(
        html.contains("<td>QF_Equality</td><td>yices</td><td>cvc5</td>"),
        "{html}"
    );
}

#[test]
fn without_validators_from_every_checker_votes() {
    let cache = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let c = campaign(dir.path(), cache.path(), "");
    coreval::pipeline::run_to_end(&c, coreval::pipeline::Stages::ALL).unwrap();
    assert_eq!(voters(&c, UF), ["cvc5", "yices"]);
    let json = std::fs::read_to_string(c.reports_dir().join("scores.json")).unwrap();
    assert!(!json.contains("validators"), "{json}");
}

#[test]
fn bad_validator_settings_are_refused_with_their_line() {
    let cache = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let load = |check: &str| {
        let c = campaign(dir.path(), cache.path(), check);
        let stages = Stages {
            check: true,
            ..Stages::default()
        };
        format!("{:#}", Context::load(c, stages).err().expect("refused"))
    };
    let toml = dir.path().join("campaign.toml").display().to_string();
    let e = load("validators_from = \"missing.csv\"\n");
    assert!(
        e.contains(&format!("{toml}:12")) && e.contains("missing.csv"),
        "{e}"
    );
    let e = load("validators_from = \"sq-results.csv\"\nvalidator_names = { z3 = \"z3\" }\n");
    assert!(
        e.contains(&format!("{toml}:13")) && e.contains("'z3' is no checker"),
        "{e}"
    );
    let e = load("validators_from = \"sq-results.csv\"\nvalidator_names = { cvc5 = \"CVC5\" }\n");
    assert!(
        e.contains(&format!("{toml}:13")) && e.contains("cvc5-1.1, yices"),
        "{e}"
    );
}

#[test]
fn a_division_without_validators_leaves_its_cores_not_validated() {
    let cache = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let c = campaign(
        dir.path(),
        cache.path(),
        "validators_from = \"sq-results.csv\"\n",
    );
    // No single-query result in QF_Equality at all: no checker took part there.
    std::fs::write(
        dir.path().join("sq-results.csv"),
        "benchmark,solver,result,expected\nS/QF_LIA/c.smt2,yices,unsat,unsat\n",
    )
    .unwrap();
    let done = coreval::pipeline::run_to_end(&c, coreval::pipeline::Stages::ALL).unwrap();
    let pairs = done.pairs.unwrap();
    let uf = pairs.iter().find(|p| &*p.pair.benchmark == UF).unwrap();
    assert_eq!(uf.pair.verdict, Verdict::NotValidated, "{:?}", uf.checkers);
    assert!(voters(&c, UF).is_empty());
    assert_eq!(voters(&c, LIA), ["yices"]);
    let md = std::fs::read_to_string(c.reports_dir().join("report.md")).unwrap();
    assert!(
        md.contains("| QF_Equality | none | none | cvc5, yices |"),
        "{md}"
    );
}

/// `tests/data/validators/sq-results.csv` as the smtcomp tool writes the
/// same answers: `results-sq-2025.json.gz` and `benchmarks-2025.json.gz`
/// (the statuses), gzipped, in `dir`.
fn write_tool_files(dir: &Path) {
    let csv = std::fs::read_to_string(repo().join("tests/data/validators/sq-results.csv")).unwrap();
    let (mut results, mut benchmarks) = (Vec::new(), std::collections::BTreeMap::new());
    for line in csv.lines().skip(1) {
        let c: Vec<&str> = line.split(',').collect();
        let (bench, solver, result, expected) = (c[1], c[3], c[11], c[12]);
        let parts: Vec<&str> = bench.split('/').collect();
        let file = serde_json::json!({"incremental": false, "logic": parts[1],
            "family": parts[2..parts.len() - 1], "name": parts[parts.len() - 1]});
        let result = match result {
            "--" => "Timeout",
            r => r,
        };
        results.push(
            serde_json::json!({"track": "SingleQuery", "solver": solver, "file": file,
            "result": result, "cpu_time": 0.1, "wallclock_time": 0.1, "memory_usage": 1000,
            "nb_answers": 0}),
        );
        benchmarks.insert(
            bench.to_string(),
            serde_json::json!({"file": file, "status": expected, "asserts": 2}),
        );
    }
    let gz = |name: &str, v: serde_json::Value| {
        let mut enc = flate2::write::GzEncoder::new(
            std::fs::File::create(dir.join(name)).unwrap(),
            flate2::Compression::default(),
        );
        std::io::Write::write_all(&mut enc, v.to_string().as_bytes()).unwrap();
        enc.finish().unwrap();
    };
    gz(
        "results-sq-2025.json.gz",
        serde_json::json!({"results": results}),
    );
    let list: Vec<_> = benchmarks.into_values().collect();
    gz(
        "benchmarks-2025.json.gz",
        serde_json::json!({"non_incremental": list, "incremental": []}),
    );
}

#[test]
fn the_smtcomp_tools_single_query_results_pick_the_same_validators() {
    let cache = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    write_tool_files(dir.path());
    let c = campaign(
        dir.path(),
        cache.path(),
        "validators_from = \"results-sq-2025.json.gz\"\n\
         validators_benchmarks = \"benchmarks-2025.json.gz\"\n\
         validator_names = { cvc5 = \"cvc5-1.1\" }\n",
    );
    coreval::pipeline::run_to_end(&c, coreval::pipeline::Stages::ALL).unwrap();
    assert_eq!(voters(&c, UF), ["yices"], "cvc5 was unsound in QF_Equality");
    assert_eq!(voters(&c, LIA), ["cvc5", "yices"]);
    // Without the list there is no status to judge an answer by: refused.
    let dir = tempfile::tempdir().unwrap();
    write_tool_files(dir.path());
    let c = campaign(
        dir.path(),
        cache.path(),
        "validators_from = \"results-sq-2025.json.gz\"\n",
    );
    let stages = Stages {
        check: true,
        ..Stages::default()
    };
    let e = format!(
        "{:#}",
        Context::load(c, stages)
            .err()
            .expect("a results-sq file without its list")
    );
    assert!(e.contains("validators_benchmarks"), "{e}");
}
