//! A FIFO (or any file that is not regular) where a benchmark is expected
//! is skipped with a message, never opened: opening a FIFO for reading
//! blocks until a writer comes, and Ctrl-C could not stop it (issue 14,
//! item 6). Each command must end within a deadline; a hang fails the test
//! (and the process is killed).

mod common;

use common::{copy_examples, repo};
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const BENCH: &str = "QF_UF/cvc5-test_regress_cli_regress0/bt-test-01.smt2";

fn mkfifo(path: &Path) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
    // SAFETY: mkfifo(3) with a valid C string.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
}

/// `coreval ARGS` in the repository root; fails if it runs past 120 s.
fn coreval(args: &[&Path], cache: &Path) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_coreval"))
        .args(args)
        .current_dir(repo())
        .env("COREVAL_CACHE", cache)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            panic!("coreval {args:?} hangs");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    child.wait_with_output().unwrap()
}

fn p(s: &str) -> &Path {
    Path::new(s)
}

#[test]
fn fifos_are_skipped_by_selfcheck_scramble_and_naming() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let root = tmp.path().join("bench");
    copy_examples(&root, &[BENCH]);
    let fifo = root.join("QF_UF/fifo.smt2");
    mkfifo(&fifo);
    let real = root.join(BENCH);

    // selfcheck: the FIFO given as a file and found in a folder.
    let solver = repo().join("tests/fixtures/fake-solvers/z3-core.sh");
    let solver = format!("{} {{file}}", solver.display());
    let out = coreval(
        &[
            p("selfcheck"),
            p("--solver"),
            p(&solver),
            p("--checkers"),
            p("yices,cvc5"),
            p("--no-references"),
            &fifo,
            &real,
            &root,
        ],
        &cache,
    );
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(
        stderr.contains(&format!(
            "{}: a FIFO, not a regular file: skipped",
            fifo.display()
        )),
        "{stderr}"
    );
    assert!(
        stderr.contains("not followed: a FIFO, not a regular file"),
        "{stderr}"
    );
    assert!(stdout.contains("PASS validated"), "{stdout}");
    assert!(!stdout.contains("fifo.smt2"), "{stdout}");

    // scramble: a FIFO as the input file is refused, in a folder skipped.
    let out = coreval(
        &[
            p("scramble"),
            &fifo,
            p("-o"),
            &tmp.path().join("s.smt2"),
            p("--seed"),
            p("1"),
        ],
        &cache,
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("a FIFO, not a regular file"), "{stderr}");
    let scrambled = tmp.path().join("scrambled");
    let out = coreval(
        &[
            p("scramble"),
            &root,
            p("-o"),
            &scrambled,
            p("--seed"),
            p("1"),
        ],
        &cache,
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("not followed: a FIFO"), "{stderr}");
    assert!(scrambled.join(BENCH).is_file());
    assert!(!scrambled.join("QF_UF/fifo.smt2").exists());

    // naming: the same, and a FIFO as the root is refused.
    let named = tmp.path().join("named");
    let out = coreval(&[p("name"), &root, p("-o"), &named], &cache);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(matches!(out.status.code(), Some(0 | 1)), "{stderr}");
    assert!(stderr.contains("not followed: a FIFO"), "{stderr}");
    assert!(named.join(BENCH).is_file());
    let out = coreval(&[p("name"), &fifo, p("-o"), &tmp.path().join("n2")], &cache);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("a FIFO"), "{stderr}");
}

#[test]
fn a_fifo_in_place_of_a_config_or_journal_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let root = tmp.path().join("bench");
    copy_examples(&root, &[BENCH]);
    let dir = tmp.path().join("c");
    std::fs::create_dir_all(&dir).unwrap();
    mkfifo(&dir.join("campaign.toml"));
    let out = coreval(&[p("run"), &dir], &cache);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("campaign.toml: not a regular file (a FIFO)"),
        "{stderr}"
    );

    std::fs::remove_file(dir.join("campaign.toml")).unwrap();
    let config = format!(
        "benchmarks = {}\ncheckers_dir = {}\n[naming]\nallow_no_status = true\n[limits]\ntime = 20.0\n\
         [check]\ncheckers = [\"yices\"]\n[[solver]]\nname = \"z3\"\ndefinition = \"z3\"\n",
        common::q(&root),
        common::q(&repo().join("checkers"))
    );
    std::fs::write(dir.join("campaign.toml"), config).unwrap();
    mkfifo(&dir.join("runs.jsonl"));
    let out = coreval(&[p("run"), &dir], &cache);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("runs.jsonl: not a regular file (a FIFO)"),
        "{stderr}"
    );
}
