//! BenchExec runs as a campaign's solvers (`[[solver]] benchexec`): real
//! `benchexec --no-container` (PyPI, `checkers/install.sh --dev`) runs
//! BenchExec's own z3 tool-info on a campaign's named benchmarks twice —
//! with the real z3, and with a z3 that drops a name from its cores
//! (`tests/fixtures/benchexec/drop-name/z3`) — and the campaign imports
//! both result files: z3's cores validated by the other teams' checkers,
//! the broken ones refuted, the report naming the result files; a re-run
//! imports nothing; a changed result file is imported again. Needs root
//! and cgroups, as BenchExec does; without them the test says SKIPPED
//! (under `CI` it fails).

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

const DEFINITION: &str = r#"<?xml version="1.0"?>
<!DOCTYPE benchmark PUBLIC "+//IDN sosy-lab.org//DTD BenchExec benchmark 2.3//EN" "https://www.sosy-lab.org/benchexec/benchmark-2.3.dtd">
<benchmark tool="z3" timelimit="20s" memlimit="1000 MB" cpuCores="1">
  <rundefinition name="z3"><option name="smt.core.minimize=true"/></rundefinition>
  <tasks name="uc"><include>../named/*/*/*.smt2</include></tasks>
</benchmark>
"#;

const HEAD: &str = r#"benchmarks = "benchmarks"
jobs = 2

[naming]
min_assertions = 2
allow_no_status = true

[limits]
time = 20.0
checker_time = 20.0

[check]
policy = "smtcomp-2025"
independent = true

[score]
rules = "smtcomp-2025"
"#;

fn venv() -> PathBuf {
    common::repo().join("checkers/venv/bin")
}

/// Run BenchExec's z3 on the campaign's named files with `path` first on
/// PATH; the result file it wrote, or why it could not run.
fn benchexec(camp: &Path, path: &Path, out: &str) -> Result<PathBuf, String> {
    let dir = camp.join("bx");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("uc.xml"), DEFINITION).unwrap();
    let env_path = format!(
        "{}:{}:{}",
        path.display(),
        venv().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let ran = Command::new(venv().join("benchexec"))
        .current_dir(&dir)
        .env("PATH", env_path)
        .env("REAL_Z3", venv().join("z3"))
        .args(["--no-container", "uc.xml", "-o"])
        .arg(format!("{out}/"))
        .output()
        .unwrap();
    if !ran.status.success() {
        return Err(format!(
            "{}{}",
            String::from_utf8_lossy(&ran.stdout),
            String::from_utf8_lossy(&ran.stderr)
        ));
    }
    let found = std::fs::read_dir(dir.join(out))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.to_string_lossy().ends_with(".xml.bz2"));
    Ok(found.expect("benchexec wrote a result file"))
}

fn rel(camp: &Path, p: &Path) -> String {
    p.strip_prefix(camp).unwrap().to_string_lossy().into_owned()
}

/// Each pair of `reports/pairs.jsonl` as (solver, benchmark) → (verdict, core size).
fn pairs(camp: &Path) -> Vec<(String, String, String, u64)> {
    let mut all: Vec<_> = common::jsonl(&camp.join("reports/pairs.jsonl"))
        .iter()
        .map(|p| {
            (
                p["solver"].as_str().unwrap().to_string(),
                p["benchmark"].as_str().unwrap().to_string(),
                common::verdict(p),
                p["core_size"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    all.sort();
    all
}

fn lines(p: &Path) -> usize {
    std::fs::read_to_string(p).unwrap().lines().count()
}

#[test]
fn benchexec_results_are_a_campaigns_solvers() {
    if !venv().join("benchexec").is_file() {
        common::missing::skip("benchexec is not installed in checkers/venv");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let camp = tmp.path().join("camp");
    let root = camp.join("benchmarks");
    let src = common::repo().join("examples/campaign/benchmarks");
    std::fs::create_dir_all(&root).unwrap();
    for logic in ["QF_LIA", "QF_UF"] {
        let copied = Command::new("cp")
            .arg("-r")
            .arg(src.join(logic))
            .arg(&root)
            .status()
            .unwrap();
        assert!(copied.success());
    }
    std::fs::write(camp.join("campaign.toml"), HEAD).unwrap();
    let (code, said) = common::coreval_run(&camp, &["--stage", "name"]);
    assert_eq!(code, Some(0), "{said}");
    let good = match benchexec(&camp, &venv(), "z3") {
        Ok(x) => x,
        Err(why) => {
            common::missing::skip(&format!("benchexec could not run: {why}"));
            return;
        }
    };
    let drop = common::repo().join("tests/fixtures/benchexec/drop-name");
    let bad = benchexec(&camp, &drop, "broken").unwrap();
    let config = format!(
        "{HEAD}\n[[solver]]\nname = \"z3\"\nbenchexec = \"{}\"\n\n[[solver]]\nname = \"broken\"\nbenchexec = \"{}\"\n",
        rel(&camp, &good),
        rel(&camp, &bad)
    );
    std::fs::write(camp.join("campaign.toml"), config).unwrap();
    let (_, said) = common::coreval_run(&camp, &[]);
    let all = pairs(&camp);
    let z3: Vec<_> = all.iter().filter(|p| p.0 == "z3").collect();
    let broken: Vec<_> = all.iter().filter(|p| p.0 == "broken").collect();
    assert!(z3.len() >= 10, "{said}\n{all:?}");
    assert_eq!(z3.len(), broken.len(), "{said}\n{all:?}");
    let imported = format!("0 run now, {} imported from BenchExec", z3.len() * 2);
    assert!(said.contains(&imported), "{said}");
    assert!(z3.iter().all(|p| p.2 == "validated"), "{said}\n{z3:#?}");
    // Where z3's core lost a name, the broken solver's core is refuted.
    let mut refuted = 0;
    for (g, b) in z3.iter().zip(&broken) {
        assert_eq!(g.1, b.1);
        if b.3 < g.3 {
            assert!(b.2.starts_with("refuted"), "{said}\n{b:?} against {g:?}");
            refuted += 1;
        }
    }
    assert!(refuted >= 3, "{said}\n{broken:#?}");
    // The report says where the runs came from, and z3's checker is left out.
    let md = std::fs::read_to_string(camp.join("reports/report.md")).unwrap();
    for x in [&good, &bad] {
        let name = x.file_name().unwrap().to_string_lossy().into_owned();
        assert!(md.contains(&name), "{name} not in the report:\n{md}");
    }
    assert!(md.contains("BenchExec runs of Z3"), "{md}");
    let runs = camp.join("runs.jsonl");
    let before = lines(&runs);
    assert_eq!(before, z3.len() + broken.len());
    let rec = &common::jsonl(&runs)[0];
    assert!(
        rec["origin"].as_str().unwrap().contains(".xml.bz2:"),
        "{rec}"
    );
    // Unchanged: nothing imported again.
    let (code, said) = common::coreval_run(&camp, &[]);
    assert_eq!(lines(&runs), before, "{said}");
    assert!(code.is_some(), "{said}");
    // The broken result replaced by z3's (file and logs): imported again.
    let logs_of = |xml: &Path| {
        let name = xml.file_name().unwrap().to_string_lossy().into_owned();
        let stem = &name[..name.find(".results.").unwrap()];
        xml.with_file_name(format!("{stem}.logfiles.zip"))
    };
    std::fs::copy(&good, &bad).unwrap();
    std::fs::copy(logs_of(&good), logs_of(&bad)).unwrap();
    let (_, said) = common::coreval_run(&camp, &[]);
    assert_eq!(lines(&runs), before + broken.len(), "{said}");
    let again = pairs(&camp);
    assert!(
        again.iter().all(|p| p.2 == "validated"),
        "{said}\n{again:#?}"
    );
}

const NAMED_A: &str = "(set-info :status unsat)\n(set-logic QF_LIA)\n(declare-const x Int)\n\
(assert (! (> x 5) :named smtcomp0))\n(assert (! (< x 3) :named smtcomp1))\n\
(assert (! (> x 0) :named smtcomp2))\n(check-sat)\n";
const NAMED_B: &str = "(set-info :status unsat)\n(set-logic QF_LIA)\n(declare-const y Int)\n\
(assert (! (= y 1) :named smtcomp0))\n(assert (! (= y 2) :named smtcomp1))\n(check-sat)\n";

/// A result file of four runs: on `a` (a core), on `b` (`unsat`, no
/// core), on a file that is no benchmark of the campaign, and on a
/// benchmark whose log is missing.
const RESULT: &str = r#"<?xml version="1.0" encoding="utf-8"?>
<result benchmarkname="uc" tool="Z3" version="5.4.0" toolmodule="benchexec.tools.z3" timelimit="20s" memlimit="1000000000B" options="" block="uc" name="z3.uc">
  <run name="../benchmarks/QF_LIA/s/scrambled1.yml" files="[../benchmarks/QF_LIA/s/scrambled1.smt2]">
    <column title="cputime" value="0.02s"/>
    <column title="memory" value="19820544B"/>
    <column title="status" value="false"/>
    <column title="walltime" value="0.03s"/>
    <column title="returnvalue" value="0" hidden="true"/>
  </run>
  <run name="../benchmarks/QF_LIA/s/scrambled2.smt2" files="[../benchmarks/QF_LIA/s/scrambled2.smt2]">
    <column title="cputime" value="0.02s"/>
    <column title="status" value="false"/>
    <column title="walltime" value="0.03s"/>
  </run>
  <run name="../elsewhere/scrambled3.smt2" files="[../elsewhere/scrambled3.smt2]">
    <column title="cputime" value="0.02s"/>
    <column title="status" value="false"/>
    <column title="walltime" value="0.03s"/>
  </run>
  <run name="../benchmarks/QF_LIA/s/scrambled4.smt2" files="[../benchmarks/QF_LIA/s/scrambled4.smt2]">
    <column title="cputime" value="0.02s"/>
    <column title="status" value="false"/>
    <column title="walltime" value="0.03s"/>
  </run>
</result>
"#;

fn log(out: &str) -> String {
    format!("z3 FILE\n\n{}\n\n{out}", "-".repeat(80))
}

fn bz2(text: &str) -> Vec<u8> {
    use std::io::Write;
    let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::default());
    e.write_all(text.as_bytes()).unwrap();
    e.finish().unwrap()
}

/// The official scrambled files (assertions already named `smtcompN`),
/// and what cannot be imported said with its file: a run on no benchmark,
/// a log without a core, logs missing, a truncated result file.
#[test]
fn scrambled_files_and_bad_results() {
    let tmp = tempfile::tempdir().unwrap();
    let camp = tmp.path().join("camp");
    let dir = camp.join("benchmarks/QF_LIA/s");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("scrambled1.smt2"), NAMED_A).unwrap();
    std::fs::write(dir.join("scrambled2.smt2"), NAMED_B).unwrap();
    std::fs::write(dir.join("scrambled4.smt2"), NAMED_B).unwrap();
    // The competition's task files, naming the original benchmarks.
    for (n, orig) in [(1, "QF_LIA/fam/a.smt2"), (2, "QF_LIA/fam/b.smt2")] {
        std::fs::write(
            dir.join(format!("scrambled{n}.yml")),
            format!("format_version: '2.0'\n\ninput_files: 'scrambled{n}.smt2'\n\n# original_files: 'non-incremental/{orig}'\n"),
        )
        .unwrap();
    }
    let res = camp.join("res");
    let xml = res.join("uc.2026-01-01_00-00-00.results.z3.uc.xml.bz2");
    let logs = res.join("uc.2026-01-01_00-00-00.logfiles");
    std::fs::create_dir_all(&logs).unwrap();
    std::fs::write(&xml, bz2(RESULT)).unwrap();
    std::fs::write(
        logs.join("z3.scrambled1.yml.log"),
        log("unsat\n(smtcomp1 smtcomp0)\n"),
    )
    .unwrap();
    std::fs::write(logs.join("z3.scrambled2.smt2.log"), log("unsat\n")).unwrap();
    let config = HEAD.replace(
        "[naming]\n",
        "[naming]\nnamed_policy = \"keep\"\n",
    ) + "\n[[solver]]\nname = \"z3\"\nbenchexec = \"res/uc.2026-01-01_00-00-00.results.z3.uc.xml.bz2\"\n";
    std::fs::write(camp.join("campaign.toml"), &config).unwrap();
    let (code, said) = common::coreval_run(&camp, &[]);
    let all = pairs(&camp);
    assert_eq!(all.len(), 2, "{said}\n{all:?}");
    // The run without a log: said with its line, not imported, and the
    // exit code says the input was at fault (not coreval).
    assert!(
        said.contains("2 imported from BenchExec, 1 not importable"),
        "{said}"
    );
    assert!(
        said.contains("xml.bz2:20: no output log for `../benchmarks/QF_LIA/s/scrambled4.smt2`"),
        "{said}"
    );
    assert_eq!(code, Some(1), "{said}");
    assert_eq!(all[0].1, "QF_LIA/s/scrambled1.smt2");
    assert_eq!(all[0].2, "validated", "{said}");
    assert!(
        all[1].2.contains("no-core") || all[1].2.contains("without"),
        "{said}\n{all:?}"
    );
    assert!(
        said.contains("1 run(s) of") && said.contains("results.z3.uc.xml.bz2:15"),
        "{said}"
    );
    assert!(said.contains("elsewhere/scrambled3.smt2"), "{said}");
    assert!(
        said.contains("1 run(s) answered unsat with no core") && said.contains("xml.bz2:10"),
        "{said}"
    );
    // Checked on the files the solver saw, reported by the originals.
    let csv = std::fs::read_to_string(camp.join("reports/pairs.csv")).unwrap();
    assert!(
        csv.contains("QF_LIA/fam/a.smt2") && csv.contains("QF_LIA/fam/b.smt2"),
        "{csv}"
    );
    assert!(!csv.contains("scrambled1"), "{csv}");
    // So do the smtcomp tool's files.
    let out = tmp.path().join("export");
    let ran = common::command()
        .arg("score")
        .arg(&camp)
        .arg("--smtcomp-json")
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        ran.status.success(),
        "{}",
        String::from_utf8_lossy(&ran.stderr)
    );
    let gz = std::fs::read(out.join("results-uc-2025.json.gz")).unwrap();
    let mut text = String::new();
    std::io::Read::read_to_string(&mut flate2::read::GzDecoder::new(&gz[..]), &mut text).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let files: Vec<String> = v["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            format!(
                "{}/{}/{}",
                r["file"]["logic"].as_str().unwrap(),
                r["file"]["family"][0].as_str().unwrap(),
                r["file"]["name"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(files.len(), 2, "{text}");
    assert!(files.contains(&"QF_LIA/fam/a.smt2".to_string()), "{text}");
    // Logs gone: refused before any work, with the line and the file.
    std::fs::rename(&logs, res.join("gone")).unwrap();
    let (code, said) = common::coreval_run(&camp, &[]);
    assert_eq!(code, Some(2), "{said}");
    let line = config
        .lines()
        .position(|l| l.starts_with("benchexec"))
        .unwrap()
        + 1;
    assert!(said.contains(&format!("campaign.toml:{line}:")), "{said}");
    assert!(
        said.contains("logfiles") && said.contains("missing"),
        "{said}"
    );
    std::fs::rename(res.join("gone"), &logs).unwrap();
    // A truncated result file: refused, naming it; the records stay.
    let whole = std::fs::read(&xml).unwrap();
    std::fs::write(&xml, &whole[..whole.len() / 2]).unwrap();
    let (code, said) = common::coreval_run(&camp, &[]);
    assert_eq!(code, Some(2), "{said}");
    assert!(
        said.contains("uc.2026-01-01_00-00-00.results.z3.uc.xml.bz2"),
        "{said}"
    );
    assert!(said.contains("truncated"), "{said}");
    assert_eq!(lines(&camp.join("runs.jsonl")), 2);
}
