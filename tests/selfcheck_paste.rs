//! Every command `coreval selfcheck` prints runs as printed, pasted into a
//! shell in the folder selfcheck ran in, with no `coreval` on `PATH`: one
//! of each kind — the solver's run, a checker's, the model's, the
//! reference run a `sat` FAIL rests on, `--shrink`'s `repeat on it` and a
//! rehearsal's `repeat` — each doing what its line says.

mod common;

use std::path::Path;
use std::process::{Command, Output};

const PRIME: &str = "tests/fixtures/selfcheck/unsat/QF_LIA/prime_cone_unsat_3.smt2";
const NO_STATUS: &str = "tests/fixtures/selfcheck/author/single-no-status.smt2";
const ORDER: &str = "tests/fixtures/selfcheck/order/first-redundant.smt2";

/// A `PATH` without any folder that holds a `coreval`.
fn path_without_coreval() -> String {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let kept: Vec<_> = std::env::split_paths(&path)
        .filter(|d| !d.join("coreval").exists())
        .collect();
    std::env::join_paths(kept)
        .unwrap()
        .to_string_lossy()
        .into_owned()
}

/// `line` in a POSIX shell in `dir`, as a user pastes it.
fn paste(dir: &Path, cache: &Path, line: &str) -> Output {
    Command::new("sh")
        .arg("-c")
        .arg(line)
        .current_dir(dir)
        .env("PATH", path_without_coreval())
        .env("COREVAL_CACHE", cache)
        .env("COREVAL_NO_PROGRESS", "1")
        .env_remove("COREVAL_CHECKERS")
        .output()
        .unwrap()
}

fn shown(o: &Output) -> String {
    format!(
        "exit {:?}\n{}\n--- stderr\n{}",
        o.status.code(),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// The command after `start` and `$ ` on a detail line of `text`.
fn command_after<'t>(text: &'t str, start: &str) -> &'t str {
    text.lines()
        .map(str::trim)
        .filter(|l| l.starts_with(start))
        .find_map(|l| l.split_once("$ ").map(|(_, c)| c))
        .or_else(|| {
            // A rehearsal's `repeat: CMD` has no `$ `.
            text.lines()
                .map(str::trim)
                .find_map(|l| l.strip_prefix(start))
        })
        .unwrap_or_else(|| panic!("no `{start}` line in:\n{text}"))
}

/// Run selfcheck in `dir` (the benchmark copied there, so every path is
/// relative to it) with `args`; its output.
fn selfcheck(dir: &Path, cache: &Path, bench: &str, args: &[&str]) -> String {
    let name = Path::new(bench).file_name().unwrap();
    std::fs::copy(common::repo().join(bench), dir.join(name)).unwrap();
    let mut all: Vec<&str> = args.to_vec();
    all.push(name.to_str().unwrap());
    let (out, text) = common::selfcheck_in(dir, cache, &all);
    assert_eq!(out.status.code(), Some(1), "{text}");
    text
}

fn solver(script: &str) -> String {
    format!(
        "{} {{file}}",
        common::repo()
            .join("tests/fixtures/fake-solvers")
            .join(script)
            .display()
    )
}

#[test]
fn every_kind_of_printed_command_runs_as_printed() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let here = tmp.path().join("author");
    std::fs::create_dir_all(&here).unwrap();
    let checkers = ["--checkers", "yices,z3,cvc5"];

    // A refuted core: the solver's, a checker's and the model's commands,
    // and the shrunk reproducer's.
    let drop = solver("z3-drop-first.sh");
    let mut args = vec!["--solver", drop.as_str(), "--shrink"];
    args.extend(checkers);
    let text = selfcheck(&here, &cache, PRIME, &args);
    let run = paste(&here, &cache, command_after(&text, "solver: "));
    let printed = String::from_utf8_lossy(&run.stdout);
    assert!(printed.lines().any(|l| l == "unsat"), "{}", shown(&run));
    let run = paste(
        &here,
        &cache,
        command_after(&text, "checker cvc5 answered sat: "),
    );
    assert_eq!(
        String::from_utf8_lossy(&run.stdout).lines().next(),
        Some("sat"),
        "{}",
        shown(&run)
    );
    let run = paste(&here, &cache, command_after(&text, "model asked of "));
    let printed = String::from_utf8_lossy(&run.stdout);
    assert!(
        printed.starts_with("sat") && printed.contains("define-fun"),
        "{}",
        shown(&run)
    );
    let run = paste(&here, &cache, command_after(&text, "repeat on it: "));
    assert_eq!(run.status.code(), Some(1), "{}", shown(&run));
    assert!(
        String::from_utf8_lossy(&run.stdout).contains("FAIL"),
        "{}",
        shown(&run)
    );

    // A `sat` FAIL resting on a reference's validated core: its run.
    let says_sat = solver("z3-says-sat.sh");
    let mut args = vec!["--solver", says_sat.as_str()];
    args.extend(checkers);
    let text = selfcheck(&here, &cache, NO_STATUS, &args);
    let run = paste(&here, &cache, command_after(&text, "ref-"));
    let printed = String::from_utf8_lossy(&run.stdout);
    assert!(printed.lines().any(|l| l == "unsat"), "{}", shown(&run));

    // A rehearsal's failing seed.
    let order = solver("z3-drop-file-first.sh");
    let mut args = vec![
        "--solver",
        order.as_str(),
        "--no-references",
        "--scrambles",
        "4",
    ];
    args.extend(checkers);
    let text = selfcheck(&here, &cache, ORDER, &args);
    let run = paste(&here, &cache, command_after(&text, "repeat: "));
    assert_eq!(run.status.code(), Some(1), "{}", shown(&run));
    let printed = String::from_utf8_lossy(&run.stdout);
    assert!(
        printed.contains("seed ") && printed.contains("FAIL"),
        "{}",
        shown(&run)
    );
}
