//! `coreval score` takes every input on the command line: a campaign folder,
//! StarExec CSVs, the `smtcomp` tool's JSON, BenchExec XML and plain output
//! folders, exclusion lists and division maps; refused combinations and bad
//! maps are errors naming the file and line.

mod common;

use common::{cmd, copy_example_campaign, repo};
use serde_json::Value;
use std::path::Path;

fn json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn division<'a>(v: &'a Value, level: &str, name: &str) -> &'a Value {
    v[level]
        .as_array()
        .unwrap_or_else(|| panic!("no {level}"))
        .iter()
        .find(|d| d["name"] == name)
        .unwrap_or_else(|| panic!("no {level} {name}"))
}

fn warnings(v: &Value) -> Vec<String> {
    v["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_campaign_is_scored_under_any_edition_and_division_map() {
    let tmp = tempfile::tempdir().unwrap();
    let c = tmp.path().join("c");
    copy_example_campaign(&c);
    cmd().arg("run").arg(&c).assert().success();
    // the campaign's own edition (2025): grouped divisions, both levels
    let own = json(&c.join("reports/scores.json"));
    assert_eq!(own["division_map"], "divisions/smtcomp-2025.toml");
    let eq = division(&own, "divisions", "QF_Equality");
    assert_eq!(eq["logics"], serde_json::json!(["QF_AX", "QF_UF"]));
    let uf = division(&own, "logics", "QF_UF");
    let ax = division(&own, "logics", "QF_AX");
    assert_eq!(
        eq["benchmarks"].as_u64().unwrap(),
        uf["benchmarks"].as_u64().unwrap() + ax["benchmarks"].as_u64().unwrap()
    );
    // the example's 20 s limit is not the edition's: every report says so
    assert!(warnings(&own)
        .iter()
        .any(|w| w.contains("time limit 20 s differs from smtcomp-2025's 1200 s")));

    // `coreval score CAMPAIGN` with another edition and map, files as given
    let map = tmp.path().join("map.toml");
    std::fs::write(
        &map,
        "[divisions]\n\"Arrays and UF\" = [\"QF_AX\", \"QF_UF\"]\n",
    )
    .unwrap();
    let out = tmp.path().join("out");
    cmd()
        .arg("score")
        .arg(&c)
        .args(["--rules", "smtcomp-2019", "--divisions"])
        .arg(&map)
        .arg("--json")
        .arg(out.join("s.json"))
        .arg("--markdown")
        .arg(out.join("s.md"))
        .arg("--html")
        .arg(out.join("s.html"))
        .assert()
        .success();
    let v = json(&out.join("s.json"));
    assert_eq!(v["edition"], "smtcomp-2019");
    assert_eq!(v["division_map"].as_str(), Some(map.to_str().unwrap()));
    let grouped = division(&v, "divisions", "Arrays and UF");
    assert_eq!(grouped["logics"], serde_json::json!(["QF_AX", "QF_UF"]));
    assert_eq!(grouped["benchmarks"], eq["benchmarks"]);
    // logics the map does not name stay divisions of their own, with a warning
    division(&v, "divisions", "QF_LIA");
    assert!(warnings(&v)
        .iter()
        .any(|w| w.contains("logic QF_LIA is in no division of")));
    let md = std::fs::read_to_string(out.join("s.md")).unwrap();
    assert!(
        md.contains("## Arrays and UF (logics QF_AX, QF_UF)"),
        "{md}"
    );
    assert!(md.contains("# Per logic") && md.contains("\n## QF_AX —"));
    let html = std::fs::read_to_string(out.join("s.html")).unwrap();
    assert!(html.contains("id=\"div-Arrays and UF\"") && html.contains("id=\"logic-QF_UF\""));
    assert!(html.contains("Divisions group logics as in <code>"));
    let csv = tmp.path().join("pairs.csv");
    cmd()
        .arg("score")
        .arg(&c)
        .arg("--csv")
        .arg(&csv)
        .assert()
        .success();
    let csv = std::fs::read_to_string(&csv).unwrap();
    assert!(csv
        .lines()
        .next()
        .unwrap()
        .ends_with(",origin,contradiction,logic"));
    assert!(csv
        .lines()
        .any(|l| l.starts_with("QF_Equality,") && l.ends_with(",QF_AX")));
    // the campaign's own reports were left alone
    assert_eq!(
        json(&c.join("reports/scores.json"))["edition"],
        "smtcomp-2025"
    );
    // a campaign is scored from its records only
    cmd()
        .arg("score")
        .arg(&c)
        .arg("--starexec")
        .arg(repo().join("tests/data/results/smtcomp2019-unsat-core-QF_LIA.csv"))
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "give either CAMPAIGN or imported data",
        ));
}

#[test]
fn folders_and_benchexec_read_with_their_benchmark_tree() {
    let tmp = tempfile::tempdir().unwrap();
    let bench = tmp.path().join("b");
    let id = "QF_UF/f/x.smt2";
    std::fs::create_dir_all(bench.join("QF_UF/f")).unwrap();
    std::fs::write(
        bench.join(id),
        "(set-info :status unsat)\n(set-logic QF_UF)\n(declare-const p Bool)\n\
         (assert (! p :named a1))\n(assert (! (not p) :named a2))\n(assert (! true :named a3))\n(check-sat)\n",
    )
    .unwrap();
    let outs = tmp.path().join("outs");
    std::fs::create_dir_all(outs.join("s/QF_UF/f")).unwrap();
    std::fs::write(outs.join("s/QF_UF/f/x.smt2.out"), "unsat\n(a1 a2)\n").unwrap();
    let xml = tmp.path().join("uc.2024-05-01_10-00-00.results.t.xml");
    std::fs::write(
        &xml,
        format!(
            "<?xml version=\"1.0\"?>\n<result benchmarkname=\"uc\" name=\"uc.t\" tool=\"T\">\n\
             <run files=\"[{id}]\" name=\"{id}\"><column title=\"status\" value=\"sat\"/>\
             <column title=\"cputime\" value=\"1s\"/><column title=\"walltime\" value=\"1s\"/></run>\n</result>\n"
        ),
    )
    .unwrap();
    let logs = tmp.path().join("uc.2024-05-01_10-00-00.logfiles");
    std::fs::create_dir(&logs).unwrap();
    std::fs::write(
        logs.join("t.x.smt2.log"),
        format!("t x.smt2\n\n\n{}\n\n\nsat\n", "-".repeat(80)),
    )
    .unwrap();
    let out = tmp.path().join("r.json");
    cmd()
        .arg("score")
        .arg("--folder")
        .arg(&outs)
        .arg("--benchexec")
        .arg(&xml)
        .arg("--benchmarks")
        .arg(&bench)
        .args(["--rules", "smtcomp-2025", "--json"])
        .arg(&out)
        .assert()
        .success();
    let v = json(&out);
    assert_eq!(v["pairs"], 2);
    let d = division(&v, "divisions", "QF_Equality");
    let solvers = d["parallel"]["solvers"].as_array().unwrap();
    let by = |name: &str| solvers.iter().find(|s| s["solver"] == name).unwrap();
    // the sat answer is an error; the unchecked core scores nothing yet
    assert_eq!(by("T.t")["errors"], 1.0);
    assert_eq!(by("s")["correct"], 0.0);
    assert!(warnings(&v)
        .iter()
        .any(|w| w.contains("1 imported cores are unchecked")));
    // BenchExec's compressed layout, `.xml.bz2` and `.logfiles.zip`, scores the same
    let bz2 = tmp.path().join("uc.2024-05-01_10-00-00.results.t.xml.bz2");
    let mut enc = bzip2::write::BzEncoder::new(
        std::fs::File::create(&bz2).unwrap(),
        bzip2::Compression::default(),
    );
    std::io::Write::write_all(&mut enc, &std::fs::read(&xml).unwrap()).unwrap();
    enc.finish().unwrap();
    let zipped = tmp.path().join("uc.2024-05-01_10-00-00.logfiles.zip");
    let mut zip = zip::ZipWriter::new(std::fs::File::create(&zipped).unwrap());
    let deflated = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    zip.start_file("uc.2024-05-01_10-00-00.logfiles/t.x.smt2.log", deflated)
        .unwrap();
    let log = std::fs::read(logs.join("t.x.smt2.log")).unwrap();
    std::io::Write::write_all(&mut zip, &log).unwrap();
    zip.finish().unwrap();
    std::fs::remove_file(&xml).unwrap();
    std::fs::remove_dir_all(&logs).unwrap();
    let again = tmp.path().join("r2.json");
    cmd()
        .arg("score")
        .arg("--benchexec")
        .arg(&bz2)
        .arg("--benchmarks")
        .arg(&bench)
        .args(["--rules", "smtcomp-2025", "--json"])
        .arg(&again)
        .assert()
        .success();
    let w = json(&again);
    let d = division(&w, "divisions", "QF_Equality");
    let t = &d["parallel"]["solvers"][0];
    assert_eq!((&t["solver"], &t["errors"]), (&"T.t".into(), &1.0.into()));
    // the tree is required
    cmd()
        .arg("score")
        .arg("--folder")
        .arg(&outs)
        .args(["--rules", "smtcomp-2025"])
        .assert()
        .code(2);
}

#[test]
fn bad_inputs_are_refused_before_scoring() {
    let tmp = tempfile::tempdir().unwrap();
    let csv = repo().join("tests/data/results/smtcomp2019-unsat-core-QF_LIA.csv");
    let map = tmp.path().join("m.toml");
    std::fs::write(
        &map,
        "[divisions]\n\"A\" = [\"QF_LIA\"]\n\"B\" = [\"QF_LIA\"]\n",
    )
    .unwrap();
    cmd()
        .arg("score")
        .arg("--starexec")
        .arg(&csv)
        .args(["--rules", "smtcomp-2019", "--divisions"])
        .arg(&map)
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "m.toml: line 3: logic QF_LIA is in two divisions",
        ));
    cmd()
        .arg("score")
        .assert()
        .code(2)
        .stderr(predicates::str::contains("nothing to score"));
    cmd()
        .arg("score")
        .arg("--starexec")
        .arg(&csv)
        .assert()
        .code(2)
        .stderr(predicates::str::contains("--rules PRESET is required"));
    cmd()
        .arg("score")
        .arg("--smtcomp-results")
        .arg(&csv)
        .args(["--rules", "smtcomp-2024"])
        .assert()
        .code(2);
}
