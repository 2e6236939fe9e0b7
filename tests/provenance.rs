//! Provenance (issue 21): every solver and checker record says what
//! produced it, and on resume only records of what the configuration runs
//! now count. Editing a solver's arguments, command or time limit, or
//! replacing its program by another build, re-runs exactly its pairs; an
//! edited benchmark re-runs exactly its pairs; a checker whose wrapper
//! changed is asked again, never from the cache; a removed solver is left
//! out of the scores with a warning; an unchanged campaign redoes nothing.
//! Real solvers (z3, yices, cvc5) throughout.

mod common;

use serde_json::Value;
use std::path::Path;

const BENCHMARKS: &[&str] = &[
    "QF_UF/cvc5-test_regress_cli_regress0/bt-test-01.smt2",
    "QF_UF/cvc5-test_regress_cli_regress0_uf/cnf-iff.smt2",
    "QF_LRA/opensmt-test_regression_base_QF_LRA/distinct_unsat.smt2",
];

fn z3() -> String {
    common::repo()
        .join("checkers/venv/bin/z3")
        .to_string_lossy()
        .into_owned()
}

/// A wrapper script around z3; `build` changes its bytes (another build).
fn write_wrapper(path: &Path, build: u32) {
    let text = format!(
        "#!/bin/sh\n# build {build}\nexec {} -smt2 smt.core.minimize=true \"$1\"\n",
        z3()
    );
    std::fs::write(path, text).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

fn config(time: f64, wz3_command: &str, wz3_args: &str, with_wz3: bool) -> String {
    let mut s = format!(
        r#"benchmarks = "benchmarks"
checkers_dir = "defs"
cache = ".cache"
jobs = 2
[naming]
allow_no_status = true
[limits]
time = {time}
checker_time = 20.0
[check]
checkers = ["yices", "cvc5"]
[[solver]]
name = "z3"
definition = "z3"
"#
    );
    if with_wz3 {
        s.push_str(&format!(
            "[[solver]]\nname = \"wz3\"\ncommand = {wz3_command}\nargs = {wz3_args}\n"
        ));
    }
    s
}

fn setup(camp: &Path) {
    common::copy_examples(&camp.join("benchmarks"), BENCHMARKS);
    common::real_checkers(&camp.join("defs"));
    write_wrapper(&camp.join("wz3.sh"), 1);
}

fn run(camp: &Path) -> String {
    let out = common::coreval(&["run"], camp, camp);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "coreval run failed:\n{err}");
    err
}

/// Records of `runs.jsonl` per solver.
fn runs_of(camp: &Path, solver: &str) -> Vec<Value> {
    common::jsonl(&camp.join("runs.jsonl"))
        .into_iter()
        .filter(|r| r["solver"] == solver)
        .collect()
}

/// (z3, wz3) records added since `before`.
fn added(camp: &Path, before: (usize, usize)) -> (usize, usize) {
    (
        runs_of(camp, "z3").len() - before.0,
        runs_of(camp, "wz3").len() - before.1,
    )
}

fn counts(camp: &Path) -> (usize, usize) {
    (runs_of(camp, "z3").len(), runs_of(camp, "wz3").len())
}

#[test]
fn a_changed_solver_or_benchmark_reruns_exactly_its_pairs() {
    let dir = tempfile::tempdir().unwrap();
    let camp = dir.path().join("c");
    setup(&camp);
    let cmd = r#"["./wz3.sh", "{file}"]"#;
    let toml = camp.join("campaign.toml");
    std::fs::write(&toml, config(20.0, cmd, "[]", true)).unwrap();
    run(&camp);
    let n = BENCHMARKS.len();
    assert_eq!(counts(&camp), (n, n));
    // Every record says what produced it: the id of its configuration in
    // provenance.jsonl (written once) and the first 16 hex digits of the
    // named benchmark's hash.
    let r = &runs_of(&camp, "wz3")[0];
    assert_eq!(r["provenance"]["of"].as_str().unwrap().len(), 16, "{r}");
    assert!(r.to_string().len() < 600, "{r}");
    let table = common::jsonl(&camp.join("provenance.jsonl"));
    assert_eq!(table.len(), 4, "z3, wz3, yices, cvc5 once each");
    let p = &common::provenance_of(&camp, r);
    assert!(p["file"].as_str().unwrap().starts_with("named/"), "{p}");
    assert_eq!(p["command"][1], p["file"]);
    assert_eq!(p["limits"]["time"], 20.0);
    assert!(
        p["program"]["script"]["blake3"].as_str().unwrap().len() == 64,
        "{p}"
    );
    assert!(
        p["program"]["executable"]["path"]
            .as_str()
            .unwrap()
            .ends_with("sh"),
        "{p}"
    );
    assert_eq!(p["benchmark"].as_str().unwrap().len(), 16);
    let z = &common::provenance_of(&camp, &runs_of(&camp, "z3")[0]);
    assert!(z["program"]["version"].is_string(), "{z}");
    assert!(
        z["command"]
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a == "-T:20"),
        "{z}"
    );
    let check = &common::provenance_of(&camp, &common::jsonl(&camp.join("checks.jsonl"))[0]);
    assert!(
        check["file"].as_str().unwrap().starts_with("cores/"),
        "{check}"
    );
    assert_eq!(check["limits"]["checker_time"], 20.0);

    // Unchanged: nothing redone.
    let (before, checks) = (
        counts(&camp),
        common::jsonl(&camp.join("checks.jsonl")).len(),
    );
    let err = run(&camp);
    assert!(
        err.contains(&format!("{} already done, 0 run now", 2 * n)),
        "{err}"
    );
    assert_eq!(counts(&camp), before);
    assert_eq!(common::jsonl(&camp.join("checks.jsonl")).len(), checks);
    assert!(!err.contains("redone"), "{err}");

    // Arguments added: wz3's pairs only.
    std::fs::write(&toml, config(20.0, cmd, r#"["--extra"]"#, true)).unwrap();
    let before = counts(&camp);
    let err = run(&camp);
    assert_eq!(added(&camp, before), (0, n), "{err}");
    assert!(
        err.contains(&format!("wz3: command changed: {n} run(s) redone")),
        "{err}"
    );

    // Another command.
    let other = format!(r#"["sh", {}, "{{file}}"]"#, common::q(&camp.join("wz3.sh")));
    std::fs::write(&toml, config(20.0, &other, r#"["--extra"]"#, true)).unwrap();
    let before = counts(&camp);
    let err = run(&camp);
    assert_eq!(added(&camp, before), (0, n), "{err}");
    assert!(err.contains("wz3: command changed"), "{err}");

    // Another build of the program (the wrapper's bytes changed).
    std::fs::write(&toml, config(20.0, cmd, r#"["--extra"]"#, true)).unwrap();
    run(&camp);
    write_wrapper(&camp.join("wz3.sh"), 2);
    let before = counts(&camp);
    let err = run(&camp);
    assert_eq!(added(&camp, before), (0, n), "{err}");
    assert!(
        err.contains(&format!("wz3: program changed: {n} run(s) redone")),
        "{err}"
    );

    // The time limit: every solver's pairs.
    std::fs::write(&toml, config(19.0, cmd, r#"["--extra"]"#, true)).unwrap();
    let before = counts(&camp);
    let err = run(&camp);
    assert_eq!(added(&camp, before), (n, n), "{err}");
    assert!(err.contains("z3: limits changed"), "{err}");
    let last = runs_of(&camp, "z3").pop().unwrap();
    assert!(common::provenance_of(&camp, &last)["command"]
        .as_array()
        .unwrap()
        .iter()
        .any(|a| a == "-T:19"));

    // An edited benchmark: exactly its pairs, and no solver is charged for it.
    let edited = camp.join("benchmarks").join(BENCHMARKS[0]);
    let mut text = std::fs::read_to_string(&edited).unwrap();
    let at = text.find("(check-sat)").unwrap();
    text.insert_str(at, "(assert true)\n");
    std::fs::write(&edited, text).unwrap();
    let before = counts(&camp);
    let err = run(&camp);
    assert_eq!(added(&camp, before), (1, 1), "{err}");
    assert!(
        err.contains("z3: benchmark changed: 1 run(s) redone"),
        "{err}"
    );
    let new = runs_of(&camp, "z3").pop().unwrap();
    assert_eq!(new["benchmark"], BENCHMARKS[0]);
    let pairs = common::jsonl(&camp.join("reports/pairs.jsonl"));
    assert_eq!(pairs.len(), 2 * n);
    for p in &pairs {
        assert_eq!(common::verdict(p), "validated", "{p}");
    }

    // A removed solver: warned about, left out of the scores.
    std::fs::write(&toml, config(19.0, cmd, "[]", false)).unwrap();
    let err = run(&camp);
    assert!(
        err.contains("run(s) of solver 'wz3', which the configuration no longer has"),
        "{err}"
    );
    let scores: Value =
        serde_json::from_str(&std::fs::read_to_string(camp.join("reports/scores.json")).unwrap())
            .unwrap();
    assert!(!scores.to_string().contains("\"wz3\""), "wz3 still scored");
    assert!(
        scores["warnings"].to_string().contains("wz3"),
        "{}",
        scores["warnings"]
    );
    let pairs = common::jsonl(&camp.join("reports/pairs.jsonl"));
    assert!(pairs.iter().all(|p| p["solver"] == "z3"));

    // `coreval score` warns when records of another configuration are
    // left, and refuses to publish less than the reports had (issue 28).
    std::fs::write(&toml, config(18.0, cmd, "[]", false)).unwrap();
    let before = std::fs::read(camp.join("reports/pairs.jsonl")).unwrap();
    let out = common::coreval(&["score"], &camp, &camp);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("z3: limits changed") && err.contains("of another configuration"),
        "{err}"
    );
    assert!(!out.status.success(), "{err}");
    let after = std::fs::read(camp.join("reports/pairs.jsonl")).unwrap();
    assert_eq!(before, after, "the reports are left as they were");
}

#[test]
fn a_new_build_of_a_checker_is_asked_again_never_from_the_cache() {
    let dir = tempfile::tempdir().unwrap();
    let camp = dir.path().join("c");
    common::copy_examples(&camp.join("benchmarks"), BENCHMARKS);
    let defs = common::real_checkers(&camp.join("defs"));
    let wrapper = defs.join("zw.sh");
    let write = |build: u32| {
        std::fs::write(
            &wrapper,
            format!("#!/bin/sh\n# build {build}\nexec {} \"$@\"\n", z3()),
        )
        .unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    };
    write(1);
    let z3def = std::fs::read_to_string(defs.join("z3.toml")).unwrap();
    let zw = z3def
        .replace("name = \"z3\"", "name = \"zw\"")
        .replace("team = \"z3\"", "team = \"zw\"")
        .replace("{checkers}/venv/bin/z3", "{checkers}/zw.sh");
    std::fs::write(defs.join("zw.toml"), zw).unwrap();
    std::fs::write(
        camp.join("campaign.toml"),
        r#"benchmarks = "benchmarks"
checkers_dir = "defs"
cache = ".cache"
jobs = 2
[naming]
allow_no_status = true
[limits]
time = 20.0
checker_time = 20.0
[check]
checkers = ["zw", "cvc5"]
early_stop = false
[[solver]]
name = "yices"
definition = "yices"
"#,
    )
    .unwrap();
    run(&camp);
    let zw_of = || -> Vec<Value> {
        common::jsonl(&camp.join("checks.jsonl"))
            .into_iter()
            .filter(|r| r["checker"] == "zw")
            .collect()
    };
    let first = zw_of().len();
    assert!(first > 0);
    let script = &common::provenance_of(&camp, &zw_of()[0])["program"]["script"];
    assert!(
        script["path"].as_str().unwrap().ends_with("zw.sh"),
        "{script}"
    );

    // The same campaign again, from a fresh copy: every answer from the cache.
    let again = dir.path().join("again");
    common::copy_examples(&again.join("benchmarks"), BENCHMARKS);
    std::fs::create_dir_all(&again).unwrap();
    let toml = std::fs::read_to_string(camp.join("campaign.toml")).unwrap();
    std::fs::write(
        again.join("campaign.toml"),
        toml.replace(
            "checkers_dir = \"defs\"",
            &format!("checkers_dir = {}", common::q(&defs)),
        )
        .replace(
            "cache = \".cache\"",
            &format!("cache = {}", common::q(&camp.join(".cache"))),
        ),
    )
    .unwrap();
    let err = run(&again);
    assert!(err.contains(", 0 checker runs"), "{err}");

    // Another build of the checker: its answers are asked again, never
    // taken from the cache of the old build.
    write(2);
    let err = run(&camp);
    assert!(err.contains("checker zw: program changed"), "{err}");
    let all = zw_of();
    assert_eq!(all.len(), 2 * first, "{err}");
    assert!(all[first..].iter().all(|r| r["cached"] == false), "{err}");
    // The other campaign now gets the new build's answers from the cache.
    let err = run(&again);
    assert!(err.contains("checker zw: program changed"), "{err}");
    assert!(err.contains(", 0 checker runs"), "{err}");
    let cached: Vec<Value> = common::jsonl(&again.join("checks.jsonl"))
        .into_iter()
        .filter(|r| r["checker"] == "zw")
        .collect();
    let script =
        |c: &Path, r: &Value| common::provenance_of(c, r)["program"]["script"]["blake3"].clone();
    assert_eq!(
        script(&again, cached.last().unwrap()),
        script(&camp, all.last().unwrap())
    );
    assert_ne!(
        script(&again, &cached[0]),
        script(&again, cached.last().unwrap())
    );
}

#[test]
fn every_report_opens_with_the_campaign_facts() {
    let dir = tempfile::tempdir().unwrap();
    let camp = dir.path().join("c");
    common::copy_examples(&camp.join("benchmarks"), BENCHMARKS);
    common::real_checkers(&camp.join("defs"));
    let bench = camp.join("benchmarks/QF_UF/extra");
    std::fs::create_dir_all(&bench).unwrap();
    std::fs::write(
        bench.join("sat.smt2"),
        "(set-logic QF_UF)\n(set-info :status sat)\n(declare-const a Bool)\n(assert a)\n(assert a)\n(check-sat)\n",
    )
    .unwrap();
    std::fs::write(
        bench.join("bad.smt2"),
        "(set-logic QF_UF)\n(set-info :status unsat)\n(assert (and true\n(check-sat)\n",
    )
    .unwrap();
    let liar = common::repo().join("tests/fixtures/fake-solvers/sat-with-stderr.sh");
    std::fs::write(
        camp.join("campaign.toml"),
        format!(
            r#"benchmarks = "benchmarks"
checkers_dir = "defs"
cache = ".cache"
jobs = 2
[naming]
allow_no_status = true
[limits]
time = 20.0
checker_time = 20.0
[check]
checkers = ["yices", "cvc5"]
[[solver]]
name = "z3"
definition = "z3"
[[solver]]
name = "liar"
command = [{}, "{{file}}"]
"#,
            common::q(&liar)
        ),
    )
    .unwrap();
    let out = common::coreval(&["run"], &camp, &camp);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.code().is_some_and(|c| c < 2), "{err}");

    // JSON: facts and provenance first, every benchmark listed.
    let text = std::fs::read_to_string(camp.join("reports/scores.json")).unwrap();
    assert!(text.find("\"facts\"").unwrap() < text.find("\"divisions\"").unwrap());
    let scores: Value = serde_json::from_str(&text).unwrap();
    let f = &scores["facts"];
    assert!(f["coreval"].as_str().unwrap().starts_with("coreval "));
    assert_eq!(f["rules"], "smtcomp-2025");
    assert_eq!(f["policy"], "smtcomp-2025");
    assert_eq!(f["limits"]["time"], 20.0);
    assert_eq!(f["limits"]["checker_time"], 20.0);
    let solver = |name: &str| {
        f["solvers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == name)
            .unwrap()
            .clone()
    };
    let z = solver("z3");
    assert!(z["program"]["version"].is_string(), "{z}");
    assert_eq!(
        z["program"]["executable"]["blake3"].as_str().unwrap().len(),
        64
    );
    assert!(z["command"]
        .as_array()
        .unwrap()
        .iter()
        .any(|a| a == "{file}"));
    assert_eq!(z["judged_by"], serde_json::json!(["yices", "cvc5"]));
    let c = solver("liar");
    let script = c["program"]["script"]["path"].as_str().unwrap();
    assert!(script.ends_with("sat-with-stderr.sh"), "{c}");
    let checkers: Vec<&str> = f["checkers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["name"].as_str().unwrap())
        .collect();
    assert_eq!(checkers, ["yices", "cvc5"]);
    assert!(f["checkers"][0]["program"]["version"].is_string());
    let b = &f["benchmarks"];
    assert_eq!(b["found"], 5);
    assert_eq!(b["named"], 3);
    assert_eq!(
        b["ineligible"]["status-not-unsat"],
        serde_json::json!(["QF_UF/extra/sat.smt2"])
    );
    let malformed = b["malformed"][0].as_str().unwrap();
    assert!(
        malformed.starts_with("QF_UF/extra/bad.smt2:"),
        "{malformed}"
    );
    assert_eq!(scores["provenance"]["config"].as_str().unwrap().len(), 64);
    assert_eq!(
        scores["provenance"]["named_index"].as_str().unwrap().len(),
        64
    );

    // pairs.jsonl: the division as in pairs.csv, and the logic.
    let pairs = common::jsonl(&camp.join("reports/pairs.jsonl"));
    let p = pairs
        .iter()
        .find(|p| p["benchmark"] == BENCHMARKS[0])
        .unwrap();
    assert_eq!(
        (&p["division"], &p["logic"]),
        (&"QF_Equality".into(), &"QF_UF".into())
    );

    // Markdown: facts before the division tables.
    let md = std::fs::read_to_string(camp.join("reports/report.md")).unwrap();
    let facts = md.find("## Campaign facts").expect("facts block");
    assert!(facts < md.find("## QF_").unwrap(), "{md}");
    assert!(md.contains("decision policy smtcomp-2025"), "{md}");
    assert!(
        md.contains("ineligible, status-not-unsat (1): QF_UF/extra/sat.smt2"),
        "{md}"
    );
    assert!(md.contains("malformed: QF_UF/extra/bad.smt2:"), "{md}");

    // HTML: facts at the top, benchmarks collapsible, a failed run's command
    // and stderr in its detail view.
    let html_path = camp.join("reports/report.html");
    let html = std::fs::read_to_string(&html_path).unwrap();
    let at = html.find("id=\"facts\"").expect("facts section");
    assert!(at < html.find("id=\"overview\"").unwrap());
    assert!(html.contains("<details id=\"benchmarks\">"));
    assert!(html.contains("unknown sort 'String' in "), "stderr tail");
    assert!(html.contains("<dt>command</dt>"));
    let png = std::env::temp_dir().join("coreval-facts-top.png");
    let _ = std::fs::remove_file(&png);
    let profile = dir.path().join("chromium");
    assert!(common::browser::screenshot(
        &common::browser::file_url(&html_path, ""),
        &png,
        &profile
    ));
    let bytes = std::fs::read(&png).unwrap();
    assert_eq!(common::browser::png_size(&bytes).0, 1280);
}
