//! Safe paths: benchmark file names with odd bytes (`$(…)`, `;`, `|`,
//! newlines, a leading `-`, non-UTF-8), core names written like shell
//! commands, and journals or archives edited to point at `..` or absolute
//! paths can never make coreval read or write outside the campaign folder,
//! and never reach a shell. Real solvers (z3 under test; z3, yices and cvc5
//! as checkers) run through the `coreval` binary.

mod common;

use common::{coreval, jsonl, q, repo, verdict};
use std::collections::BTreeSet;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

fn small_benchmark() -> Vec<u8> {
    std::fs::read(
        repo().join(
            "examples/campaign/benchmarks/QF_UF/cvc5-test_regress_cli_regress0/bt-test-01.smt2",
        ),
    )
    .unwrap()
}

/// Every path under `dir` (files and folders), relative.
fn tree(dir: &Path) -> BTreeSet<PathBuf> {
    let mut out = BTreeSet::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            out.insert(p.strip_prefix(dir).unwrap().to_path_buf());
            if e.file_type().unwrap().is_dir() {
                stack.push(p);
            }
        }
    }
    out
}

fn config(bench: &Path, extra: &str, solvers: &str) -> String {
    format!(
        "benchmarks = {}\ncheckers_dir = {}\njobs = 2\ncache = \"cache\"\n\
         [naming]\nallow_no_status = true\n{extra}\n[limits]\ntime = 20.0\nchecker_time = 20.0\n\
         [check]\ncheckers = [\"z3\", \"yices\", \"cvc5\"]\n{solvers}",
        q(bench),
        q(&repo().join("checkers"))
    )
}

const ODD: &[&str] = &[
    "QF_UF/odd/$(touch pwned) a;b|c.smt2",
    "QF_UF/odd/new\nline.smt2",
    "QF_UF/odd/-rf *.smt2",
    "QF_UF/..dots../x..smt2",
    "QF_UF/odd/'quote\"back\\slash`.smt2",
];

/// Names of the two assertions of `evil-names.smt2`, kept by the naming
/// policy `keep`, as the solver prints them.
const EVIL_CORE: [&str; 2] = ["|$(touch pwned)|", "|; rm -rf x|"];
const EVIL_BENCHMARK: &str =
    "(set-info :status unsat)\n(set-logic QF_UF)\n(declare-const p Bool)\n\
(assert (! p :named |$(touch pwned)|))\n(assert (! (not p) :named |; rm -rf x|))\n(check-sat)\n";

#[test]
fn odd_file_names_and_core_names_reach_no_shell() {
    let tmp = tempfile::tempdir().unwrap();
    let bench = tmp.path().join("bench");
    for id in ODD {
        let p = bench.join(id);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, small_benchmark()).unwrap();
    }
    std::fs::create_dir_all(bench.join("QF_UF/names")).unwrap();
    std::fs::write(bench.join("QF_UF/names/evil-names.smt2"), EVIL_BENCHMARK).unwrap();
    let not_utf8 = bench
        .join("QF_UF/odd")
        .join(OsStr::from_bytes(b"\xff\xfe.smt2"));
    std::fs::write(&not_utf8, small_benchmark()).unwrap();

    let dir = tmp.path().join("campaign");
    let cwd = tmp.path().join("cwd");
    let log = tmp.path().join("argv.log");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::create_dir_all(&cwd).unwrap();
    let argv = repo().join("tests/fixtures/fake-solvers/argv-core.sh");
    let solvers = format!(
        "[[solver]]\nname = \"z3\"\ndefinition = \"z3\"\n\
         [[solver]]\nname = \"argv\"\ncommand = [{}, \"{{file}}\", {}, {:?}, {:?}]\n",
        q(&argv),
        q(&log),
        EVIL_CORE[0],
        EVIL_CORE[1]
    );
    std::fs::write(
        dir.join("campaign.toml"),
        config(&bench, "named_policy = \"keep\"", &solvers),
    )
    .unwrap();
    let before = tree(tmp.path());

    let out = coreval(&["run"], &dir, &cwd);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(matches!(out.status.code(), Some(0 | 1)), "{stderr}");
    assert!(
        stderr.contains("not valid UTF-8"),
        "the non-UTF-8 name is reported: {stderr}"
    );

    // The solver got every path as one argument, byte for byte: no shell
    // split, expanded or ran anything.
    let got: BTreeSet<Vec<u8>> = std::fs::read(&log)
        .unwrap()
        .split(|b| *b == 0)
        .filter(|a| !a.is_empty())
        .map(<[u8]>::to_vec)
        .collect();
    let mut ids: Vec<&str> = ODD.to_vec();
    ids.push("QF_UF/names/evil-names.smt2");
    let want: BTreeSet<Vec<u8>> = ids
        .iter()
        .map(|id| dir.join("named").join(id).as_os_str().as_bytes().to_vec())
        .collect();
    assert_eq!(got, want);

    // Every benchmark went through the whole pipeline under its odd id.
    let pairs = jsonl(&dir.join("reports/pairs.jsonl"));
    for id in &ids {
        let z3 = pairs
            .iter()
            .find(|p| p["solver"] == "z3" && p["benchmark"] == *id)
            .unwrap_or_else(|| panic!("no z3 pair for {id:?}"));
        assert_eq!(verdict(z3), "validated", "{id:?}: {z3}");
        let a = pairs
            .iter()
            .find(|p| p["solver"] == "argv" && p["benchmark"] == *id)
            .unwrap();
        // The shell-looking names are the real names of evil-names.smt2's
        // assertions: checked by the checkers like any other core.
        let want = if id.ends_with("evil-names.smt2") {
            "validated"
        } else {
            "ill-formed:unknown-name"
        };
        assert_eq!(verdict(a), want, "{id:?}: {a}");
        assert!(dir.join("named").join(id).is_file(), "{id:?}");
    }
    assert_eq!(pairs.len(), 2 * ids.len(), "the non-UTF-8 file is left out");
    for f in ["scores.json", "pairs.csv", "report.md", "report.html"] {
        assert!(dir.join("reports").join(f).is_file(), "{f}");
    }

    // Nothing was created outside the campaign folder but the solver's log,
    // and no `pwned` file anywhere.
    let after = tree(tmp.path());
    let new: Vec<&PathBuf> = after
        .difference(&before)
        .filter(|p| !p.starts_with("campaign"))
        .collect();
    assert_eq!(new, vec![&PathBuf::from("argv.log")]);
    assert!(
        !after
            .iter()
            .any(|p| p.file_name() == Some(OsStr::new("pwned"))),
        "a shell ran a name"
    );
    assert!(!Path::new("pwned").exists() && !repo().join("pwned").exists());
}

#[test]
fn edited_journals_cannot_lead_outside_the_campaign() {
    let tmp = tempfile::tempdir().unwrap();
    let bench = tmp.path().join("bench");
    for id in ["QF_UF/a/one.smt2", "QF_UF/a/two.smt2"] {
        std::fs::create_dir_all(bench.join(id).parent().unwrap()).unwrap();
        std::fs::write(bench.join(id), small_benchmark()).unwrap();
    }
    let dir = tmp.path().join("campaign");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("campaign.toml"),
        config(
            &bench,
            "",
            "[[solver]]\nname = \"z3\"\ndefinition = \"z3\"\n",
        ),
    )
    .unwrap();
    let run = |stage: &str| {
        let out = coreval(&["run", "--stage", stage], &dir, tmp.path());
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(matches!(out.status.code(), Some(0 | 1)), "{stage}: {err}");
        err
    };
    run("name");

    // Point the index at named benchmarks outside the campaign folder.
    let outside = tmp.path().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::copy(dir.join("named/QF_UF/a/one.smt2"), outside.join("x.smt2")).unwrap();
    let index = dir.join("named/index.jsonl");
    let text = std::fs::read_to_string(&index).unwrap();
    let abs = outside.join("x.smt2").to_str().unwrap().to_string();
    let edited = text
        .replacen(
            "\"output\":\"QF_UF/a/one.smt2\"",
            "\"output\":\"../../outside/x.smt2\"",
            1,
        )
        .replacen(
            "\"output\":\"QF_UF/a/two.smt2\"",
            &format!("\"output\":{abs:?}"),
            1,
        );
    assert_ne!(edited, text);
    std::fs::write(&index, edited).unwrap();
    let err = run("solve");
    assert!(
        err.contains("\"QF_UF/a/one.smt2\" skipped: unsafe path") && err.contains("goes up"),
        "{err}"
    );
    assert!(
        err.contains("\"QF_UF/a/two.smt2\" skipped: unsafe path") && err.contains("absolute"),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("runs.jsonl")).unwrap_or_default(),
        "",
        "nothing outside was solved"
    );

    // Naming again repairs the index; a core hash edited into a path is
    // ignored, and the core rebuilt under its real hash.
    run("name");
    run("solve");
    run("check");
    let cores = dir.join("cores.jsonl");
    let text = std::fs::read_to_string(&cores).unwrap();
    let first: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    let hash = first["hash"].as_str().unwrap();
    std::fs::write(outside.join("evil.smt2"), "(check-sat)\n").unwrap();
    std::fs::write(&cores, text.replace(hash, "../../outside/evil")).unwrap();
    run("check");
    run("score");
    for p in jsonl(&dir.join("reports/pairs.jsonl")) {
        assert_eq!(verdict(&p), "validated", "{p}");
        let h = p["core_hash"].as_str().unwrap();
        assert!(dir.join("cores").join(format!("{h}.smt2")).is_file(), "{p}");
    }
    for c in jsonl(&cores)
        .iter()
        .filter(|c| c["hash"] != "../../outside/evil")
    {
        assert_eq!(c["hash"].as_str().unwrap().len(), 64);
    }
    assert_eq!(tree(&outside).len(), 2, "nothing written outside");
}

#[test]
fn file_inside_a_shell_script_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let bench = tmp.path().join("bench/QF_UF/a");
    std::fs::create_dir_all(&bench).unwrap();
    std::fs::write(bench.join("one.smt2"), small_benchmark()).unwrap();
    let dir = tmp.path().join("campaign");
    std::fs::create_dir_all(&dir).unwrap();
    let bad = "[[solver]]\nname = \"sh\"\ncommand = [\"sh\", \"-c\", \"cat {file}\"]\n";
    std::fs::write(
        dir.join("campaign.toml"),
        config(&tmp.path().join("bench"), "", bad),
    )
    .unwrap();
    let out = coreval(&["run"], &dir, tmp.path());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("solver 'sh'") && err.contains("shell code"),
        "{err}"
    );
    // Asked for properly, a shell gets the path as a positional argument.
    let fixture = repo().join("tests/fixtures/fake-solvers/unsat-core.sh");
    let good = format!(
        "[[solver]]\nname = \"sh\"\ncommand = [\"sh\", \"-c\", \"exec {} \\\"$1\\\"\", \"sh\", \"{{file}}\"]\n",
        fixture.to_str().unwrap()
    );
    std::fs::write(
        dir.join("campaign.toml"),
        config(&tmp.path().join("bench"), "", &good),
    )
    .unwrap();
    let out = coreval(&["run"], &dir, tmp.path());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert_eq!(
        verdict(&jsonl(&dir.join("reports/pairs.jsonl"))[0]),
        "validated"
    );
}

#[test]
fn archive_names_cannot_read_outside_the_log_folder() {
    use coreval::import::benchexec::{import_str, BenchExecOptions};
    use coreval::import::BenchmarkInfo;
    let tmp = tempfile::tempdir().unwrap();
    let logs = tmp.path().join("results/uc.logfiles");
    std::fs::create_dir_all(&logs).unwrap();
    // A log outside the log folder that a run set named `../../x` would reach.
    std::fs::write(tmp.path().join("x.a.smt2.log"), "OUTSIDE\n").unwrap();
    std::fs::write(logs.join("a.smt2.log"), "unsat\n").unwrap();
    let xml = r#"<?xml version="1.0"?>
<result benchmarkname="uc" name="uc.../../x" tool="Z3" version="4">
  <run name="QF_UF/a.smt2"><column title="status" value="unsat"/><column title="cputime" value="1s"/><column title="walltime" value="1s"/></run>
  <run name="QF_UF/b.smt2"><column title="status" value="unsat"/><column title="cputime" value="1s"/><column title="walltime" value="1s"/></run>
</result>
"#;
    let lookup = |_: &str| {
        Some(BenchmarkInfo {
            division: "QF_UF".into(),
            assertions: 2,
        })
    };
    let opts = BenchExecOptions {
        solver: None,
        logs: Some(logs.clone()),
        lookup: &lookup,
    };
    let import = import_str(xml, &tmp.path().join("results/uc.xml"), &opts).unwrap();
    // `a` is read from the log folder (not from ../../x.a.smt2.log); `b` has no log.
    assert_eq!(import.pairs.len(), 1);
    assert_eq!(&*import.pairs[0].benchmark, "QF_UF/a.smt2");
    assert_eq!(import.issues.len(), 1, "{:?}", import.issues);
    assert!(
        import.issues[0].message.contains("no output log"),
        "{:?}",
        import.issues
    );
    // The log read says `unsat` (no core); the one outside says `OUTSIDE`.
    assert_eq!(
        import.pairs[0].verdict,
        coreval::campaign::verdict::pair::Verdict::UnsatNoCore,
        "a log outside the log folder was read"
    );
}
