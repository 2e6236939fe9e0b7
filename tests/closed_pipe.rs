//! A closed stdout ends a command quietly (issue 47, item 7): `coreval
//! diff A B | head -3` panicked ("failed printing to stdout: Broken pipe",
//! with a backtrace). Every subcommand that prints on stdout is run here
//! into a pipe whose reader is gone before it starts (so that its first
//! write fails), and must say nothing of it on stderr and exit as it does
//! with its output read; `| head -1` in a shell keeps the first line and
//! the exit code (`pipefail`). `src/` prints only through
//! `coreval::cmd::out`.

mod common;

use common::{copy_examples, q, repo};
use std::path::Path;
use std::process::Output;

const BENCH: &str = "QF_UF/cvc5-test_regress_cli_regress0/bt-test-01.smt2";

/// `coreval ARGS` with stdout read.
fn read(args: &[&str]) -> Output {
    common::command()
        .args(args)
        .current_dir(repo())
        .output()
        .unwrap()
}

/// `coreval ARGS` with stdout a pipe nobody reads any more.
fn closed(args: &[&str]) -> Output {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    common::command()
        .args(args)
        .current_dir(repo())
        .stdout(writer)
        .output()
        .unwrap()
}

/// `coreval ARGS` prints on stdout, and into a closed pipe it ends quietly
/// with the same exit code.
fn ends_quietly(args: &[&str]) {
    let open = read(args);
    assert!(
        !open.stdout.is_empty(),
        "{args:?} prints nothing on stdout: {}",
        String::from_utf8_lossy(&open.stderr)
    );
    let shut = closed(args);
    let err = String::from_utf8_lossy(&shut.stderr);
    for said in ["panicked", "Broken pipe", "broken pipe", "os error 32"] {
        assert!(!err.contains(said), "{args:?}: {said}\n{err}");
    }
    assert_eq!(
        shut.status.code(),
        open.status.code(),
        "{args:?}: another exit code into a closed pipe\n{err}"
    );
}

#[test]
fn every_subcommand_that_prints_ends_quietly_on_a_closed_stdout() {
    let tmp = tempfile::tempdir().unwrap();
    let t = |p: &str| tmp.path().join(p).to_string_lossy().into_owned();
    ends_quietly(&["--help"]);
    ends_quietly(&["diff", "--help"]);
    let bench = format!("tests/data/benchmarks/{BENCH}");
    ends_quietly(&["lint", &bench]);
    ends_quietly(&["name", &bench, "-o", &t("named"), "--allow-no-status"]);
    ends_quietly(&["checkers"]);
    ends_quietly(&["checkers", "--json"]);
    let results = "tests/data/results/smtcomp2016-unsat-core-QF_LIA.csv";
    ends_quietly(&["score", "--starexec", results, "--rules", "smtcomp-2016"]);
    let answers = "tests/data/results/smtcomp2019-single-query-strings.csv.gz";
    ends_quietly(&["score", "--answers", "sq-2019", "--starexec", answers]);
    let list = "tests/data/results/smtcomp2024-benchmarks-QF_LinearIntArith.json.gz";
    let selected = t("selected.txt");
    ends_quietly(&[
        "select",
        list,
        "--rules",
        "smtcomp-2024",
        "--seed",
        "1",
        "--out",
        &selected,
    ]);
    // A selfcheck that fails (a `sat` answer): exit 1 either way.
    let sat = format!("{} {{file}}", common::fake_solver("always-sat.sh"));
    let json = t("sat.json");
    let selfcheck = [
        "selfcheck",
        "--solver",
        &sat,
        "--no-references",
        "--checkers",
        "yices",
        "--json",
        &json,
        &bench,
    ];
    ends_quietly(&selfcheck);
    ends_quietly(&["diff", &json, &json]);

    // A scored campaign: z3 on one benchmark, yices checking.
    let camp = tmp.path().join("c");
    copy_examples(&tmp.path().join("bench"), &[BENCH]);
    std::fs::create_dir_all(&camp).unwrap();
    let config = format!(
        "benchmarks = {}\ncheckers_dir = {}\ncache = {}\n[naming]\nallow_no_status = true\n\
         [limits]\ntime = 20.0\nchecker_time = 20.0\n[check]\ncheckers = [\"yices\"]\n\
         [[solver]]\nname = \"z3\"\ndefinition = \"z3\"\n",
        q(&tmp.path().join("bench")),
        q(&repo().join("checkers")),
        q(&tmp.path().join("cache")),
    );
    std::fs::write(camp.join("campaign.toml"), config).unwrap();
    let c = camp.to_string_lossy().into_owned();
    let run = read(&["run", &c]);
    assert_eq!(
        run.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    ends_quietly(&["show", &c, "z3", BENCH]);
    ends_quietly(&["diff", &c, &c]);
    // Prints the pair's verdict, then refuses to shrink a validated core.
    ends_quietly(&["shrink", &c, "z3", BENCH]);
    ends_quietly(&["slurm", "submit", &c, "--shards", "2", "--dry-run"]);
}

/// Two selfcheck files of `n` benchmarks each, every one validated in
/// `old` and not validated in `new`.
fn lost_passes(dir: &Path, n: usize) -> (String, String) {
    let file = |name: &str, verdict: &str, outcome: &str| {
        let results: Vec<serde_json::Value> = (0..n)
            .map(|i| serde_json::json!({"path": format!("b{i}.smt2"), "verdict": verdict, "outcome": outcome}))
            .collect();
        let run = serde_json::json!({"coreval": "selfcheck", "results": results});
        let path = dir.join(name);
        std::fs::write(&path, run.to_string()).unwrap();
        path.to_string_lossy().into_owned()
    };
    (
        file("old.json", "validated", "passed"),
        file("new.json", "not-validated", "skipped"),
    )
}

#[test]
fn head_keeps_the_first_line_and_pipefail_sees_the_regression() {
    let tmp = tempfile::tempdir().unwrap();
    // More than a pipe holds, so that coreval writes after `head` is gone.
    let (old, new) = lost_passes(tmp.path(), 5000);
    let coreval = env!("CARGO_BIN_EXE_coreval");
    let line = format!("set -o pipefail; {coreval} diff {old} {new} | head -1");
    let out = std::process::Command::new("bash")
        .args(["-c", &line])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.is_empty(), "{err}");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "verdicts changed: 5000 of 5000 in both runs\n"
    );
    assert_eq!(
        out.status.code(),
        Some(1),
        "a regression, seen through the pipe"
    );
}

#[test]
fn src_prints_on_stdout_only_through_cmd_out() {
    let mut found = Vec::new();
    let mut stack = vec![repo().join("src")];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let path = e.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path.extension().is_none_or(|x| x != "rs") || path.ends_with("cmd/out.rs") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            for (i, l) in text.lines().enumerate() {
                let code = l.trim_start();
                if code.starts_with("//") {
                    continue;
                }
                let bare = |m: &str| {
                    code.match_indices(m)
                        .any(|(at, _)| !code[..at].ends_with('e'))
                };
                if bare("println!") || bare("print!(") || code.contains("io::stdout()") {
                    found.push(format!("{}:{}: {code}", path.display(), i + 1));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "print through coreval::cmd::out (crate::outln!, cmd::out::stdout()), \
         which ends quietly on a closed pipe:\n{}",
        found.join("\n")
    );
}
