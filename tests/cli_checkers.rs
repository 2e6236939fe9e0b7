//! `coreval checkers`: the listing of the shipped definitions (real
//! solvers), JSON output, a missing solver, a broken definition file and
//! the `COREVAL_CHECKERS` default.

mod common;

use predicates::prelude::*;
use std::path::PathBuf;

fn shipped() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("checkers")
}

const MISSING: &str = r#"name = "ghost"
team = "nobody"
command = ["/nonexistent/ghost-solver", "{file}"]
logics = ["QF_BV"]
produces_cores = true
version_command = ["/nonexistent/ghost-solver", "--version"]
install_hint = "pip install ghost-solver"
"#;

#[test]
fn lists_shipped_checkers_with_versions() {
    let out = common::cmd()
        .args(["checkers", "--dir"])
        .arg(shipped())
        .assert()
        .success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    for needle in [
        "NAME", "z3", "5.4.0", "yices", "2.6.5", "cvc5", "1.0.3", "cvc4", "1.8",
    ] {
        assert!(text.contains(needle), "{needle} not in\n{text}");
    }
    for needle in [
        "cvc5-py",
        "1.4.2",
        "bitwuzla",
        "0.9.1",
        "boolector",
        "1.5.118",
    ] {
        assert!(text.contains(needle), "{needle} not in\n{text}");
    }
    let yices = text.lines().find(|l| l.starts_with("yices")).unwrap();
    assert!(
        yices.contains("not *NIA") && yices.contains("QF_* except"),
        "{yices}"
    );
    let boolector = text.lines().find(|l| l.starts_with("boolector")).unwrap();
    assert!(
        boolector.contains(" no ") && boolector.contains("bitwuzla"),
        "{boolector}"
    );
}

#[test]
fn json_listing() {
    let out = common::cmd()
        .args(["checkers", "--json", "--dir"])
        .arg(shipped())
        .assert()
        .success();
    let v: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let list = v["checkers"].as_array().unwrap();
    assert_eq!(list.len(), 7);
    let z3 = list.iter().find(|c| c["name"] == "z3").unwrap();
    assert_eq!(z3["status"], "ok");
    assert_eq!(z3["version"], "5.4.0");
    assert_eq!(z3["team"], "z3");
    assert_eq!(z3["produces_cores"], true);
    let cvc4 = list.iter().find(|c| c["name"] == "cvc4").unwrap();
    assert_eq!(cvc4["team"], "cvc");
    assert_eq!(cvc4["exclude_logics"][0], "*FP*");
}

#[test]
fn missing_solver_says_how_to_install_and_fails() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("ghost.toml"), MISSING).unwrap();
    std::fs::write(dir.path().join("install.sh"), "#!/bin/sh\n").unwrap();
    common::cmd()
        .args(["checkers", "--dir"])
        .arg(dir.path())
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "ghost is missing: program /nonexistent/ghost-solver not found",
        ))
        .stdout(predicate::str::contains(
            "install: pip install ghost-solver",
        ))
        .stdout(predicate::str::contains("bash ").and(predicate::str::contains("install.sh")));
    let out = common::cmd()
        .args(["checkers", "--json", "--dir"])
        .arg(dir.path())
        .assert()
        .code(1);
    let v: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(v["checkers"][0]["status"], "missing");
}

#[test]
fn broken_definition_is_a_tool_error_naming_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let text = MISSING.replace("logics = [\"QF_BV\"]", "logics = \"QF_BV\"");
    std::fs::write(dir.path().join("ghost.toml"), text).unwrap();
    common::cmd()
        .args(["checkers", "--dir"])
        .arg(dir.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains("ghost.toml"))
        .stderr(predicate::str::contains("line 4"))
        .stderr(predicate::str::contains("sequence"));
}

#[test]
fn coreval_checkers_env_selects_the_directory() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("ghost.toml"), MISSING).unwrap();
    common::cmd()
        .env("COREVAL_CHECKERS", dir.path())
        .arg("checkers")
        .assert()
        .code(1)
        .stdout(predicate::str::contains("ghost"))
        .stdout(predicate::str::contains("z3").not());
}
