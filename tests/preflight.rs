//! A campaign that cannot work is refused before any stage runs, naming the
//! config file and line (issue 14, items 4, 5 and 9): solvers that cannot
//! start, unknown checkers, empty benchmark roots, missing solvers, bad
//! values; one `coreval` per campaign at a time (the lock), conflicting
//! journal records said once; stale work folders reaped; names escaped in
//! report.md. Real solvers (z3, yices) throughout; the hanging fixture only
//! to keep a run busy.

mod common;

use common::{copy_examples, coreval, coreval_run, jsonl, q, repo};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const BENCHMARKS: &[&str] = &[
    "QF_UF/cvc5-test_regress_cli_regress0/bt-test-01.smt2",
    "QF_LIA/opensmt-test_regression_base_QF_LIA/distinct_unsat.smt2",
];

/// A campaign folder `dir` over the two benchmarks, with `extra` appended.
fn campaign(tmp: &Path, extra: &str) -> std::path::PathBuf {
    let bench = tmp.join("bench");
    if !bench.exists() {
        copy_examples(&bench, BENCHMARKS);
    }
    let dir = tmp.join("c");
    std::fs::create_dir_all(&dir).unwrap();
    // Keys of `[limits]` in `extra` go into the one `[limits]` table.
    let (limits, extra) = match extra.strip_prefix("[limits]\n") {
        Some(rest) => rest
            .split_once('[')
            .map_or((rest, ""), |(l, _)| (l, &rest[l.len()..])),
        None => ("", extra),
    };
    let text = format!(
        "benchmarks = {}\ncheckers_dir = {}\njobs = 2\ncache = {}\n\
         [naming]\nallow_no_status = true\n[limits]\ntime = 20.0\nchecker_time = 20.0\n{limits}{extra}",
        q(&bench),
        q(&repo().join("checkers")),
        q(&tmp.join("cache")),
    );
    std::fs::write(dir.join("campaign.toml"), text).unwrap();
    dir
}

/// The 1-based line of the first line of `dir/campaign.toml` holding `what`.
fn line_of(dir: &Path, what: &str) -> usize {
    let text = std::fs::read_to_string(dir.join("campaign.toml")).unwrap();
    1 + text.lines().position(|l| l.contains(what)).unwrap()
}

#[test]
fn a_solver_that_cannot_start_is_refused_before_any_stage() {
    // The init template as written: its `./my-solver` does not exist.
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("init");
    let out = Command::new(env!("CARGO_BIN_EXE_coreval"))
        .arg("init")
        .arg(&dir)
        .output()
        .unwrap();
    assert!(out.status.success());
    let bench = tmp.path().join("bench");
    copy_examples(&bench, BENCHMARKS);
    let text = std::fs::read_to_string(dir.join("campaign.toml")).unwrap();
    let text = text.replacen(
        "benchmarks = ",
        &format!("benchmarks = {}\n# was: ", q(&bench)),
        1,
    );
    std::fs::write(dir.join("campaign.toml"), text).unwrap();
    let (code, err) = coreval_run(&dir, &[]);
    assert_eq!(code, Some(2), "{err}");
    let at = format!(
        "campaign.toml:{}:",
        line_of(&dir, "command = [\"./my-solver\"")
    );
    assert!(
        err.contains(&at) && err.contains("solver 'my-solver' cannot start"),
        "{err}"
    );
    assert!(!dir.join("named").exists() && !dir.join("runs.jsonl").exists());

    // A definition whose program is missing, and a script whose
    // interpreter is missing; the real z3 beside them is fine.
    let tmp = tempfile::tempdir().unwrap();
    let defs = common::real_checkers(&tmp.path().join("defs"));
    let z3 = std::fs::read_to_string(defs.join("z3.toml")).unwrap();
    let ghost = z3
        .replace("name = \"z3\"", "name = \"ghost\"")
        .replace("{checkers}/venv/bin/z3", "{checkers}/venv/bin/no-such-z3");
    std::fs::write(defs.join("ghost.toml"), ghost).unwrap();
    let broken = repo().join("tests/fixtures/fake-solvers/bad-interpreter.sh");
    let no_shebang = repo().join("tests/fixtures/fake-solvers/no-shebang.sh");
    let dir = campaign(
        tmp.path(),
        &format!(
            "[check]\ncheckers = [\"yices\"]\n\
             [[solver]]\nname = \"z3\"\ndefinition = \"z3\"\n\
             [[solver]]\nname = \"ghost\"\ndefinition = \"ghost\"\n\
             [[solver]]\nname = \"broken\"\ncommand = [{}, \"{{file}}\"]\n\
             [[solver]]\nname = \"text\"\ncommand = [{}, \"{{file}}\"]\n",
            q(&broken),
            q(&no_shebang)
        ),
    );
    let text = std::fs::read_to_string(dir.join("campaign.toml")).unwrap();
    let text = text.replace(&q(&repo().join("checkers")), &q(&defs));
    std::fs::write(dir.join("campaign.toml"), text).unwrap();
    let (code, err) = coreval_run(&dir, &[]);
    assert_eq!(code, Some(2), "{err}");
    let ghost_at = format!("campaign.toml:{}:", line_of(&dir, "definition = \"ghost\""));
    let broken_at = format!("campaign.toml:{}:", line_of(&dir, "bad-interpreter"));
    assert!(
        err.contains(&ghost_at) && err.contains("solver 'ghost' cannot start"),
        "{err}"
    );
    assert!(
        err.contains(&broken_at)
            && err.contains("solver 'broken' cannot start")
            && err.contains("interpreter"),
        "{err}"
    );
    let text_at = format!("campaign.toml:{}:", line_of(&dir, "no-shebang"));
    assert!(
        err.contains(&text_at)
            && err.contains("solver 'text' cannot start")
            && err.contains("neither a binary nor a script"),
        "{err}"
    );
    assert!(!err.contains("solver 'z3'"), "{err}");
    assert!(!dir.join("runs.jsonl").exists());
}

#[test]
fn unusable_configs_are_refused_with_their_line() {
    let z3 = "[[solver]]\nname = \"z3\"\ndefinition = \"z3\"\n";
    let cases: &[(&str, &str, &[&str])] = &[
        (
            "[check]\ncheckers = [\"z3\", \"yikes\"]\n",
            "yikes",
            &["check.checkers: no definition 'yikes'"],
        ),
        (
            "[limits]\noutput_cap_mb = 0\n",
            "output_cap_mb",
            &["at least 1"],
        ),
        ("[limits]\ngrace = -1\n", "grace", &["limits.grace"]),
        (
            "[score]\nrules = \"smtcomp-1999\"\n",
            "smtcomp-1999",
            &["unknown rules edition"],
        ),
        (
            "[score]\nparticipants = \"nope.csv\"\n",
            "nope.csv",
            &["cannot read participants table"],
        ),
    ];
    for (extra, at, wants) in cases {
        let tmp = tempfile::tempdir().unwrap();
        let dir = campaign(tmp.path(), &format!("{extra}{z3}"));
        let (code, err) = coreval_run(&dir, &[]);
        assert_eq!(code, Some(2), "{extra}: {err}");
        let at = format!("campaign.toml:{}:", line_of(&dir, at));
        assert!(err.contains(&at), "{extra}: {err}");
        for w in *wants {
            assert!(err.contains(w), "{extra}: {err}");
        }
        assert!(!dir.join("named").exists(), "{extra}: nothing runs");
    }
    // The time limit's own line (`checker_time` follows it).
    let tmp = tempfile::tempdir().unwrap();
    let dir = campaign(tmp.path(), z3);
    let text = std::fs::read_to_string(dir.join("campaign.toml")).unwrap();
    std::fs::write(
        dir.join("campaign.toml"),
        text.replacen("time = 20.0", "time = -1", 1),
    )
    .unwrap();
    let (code, err) = coreval_run(&dir, &[]);
    assert_eq!(code, Some(2), "{err}");
    let at = format!("campaign.toml:{}: limits.time", line_of(&dir, "time = -1"));
    assert!(err.contains(&at), "{err}");

    // Control characters in a solver name.
    let tmp = tempfile::tempdir().unwrap();
    let dir = campaign(
        tmp.path(),
        "[[solver]]\nname = \"z\\u0000x\"\ndefinition = \"z3\"\n",
    );
    let (code, err) = coreval_run(&dir, &[]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("control character"), "{err}");

    // No [[solver]].
    let tmp = tempfile::tempdir().unwrap();
    let dir = campaign(tmp.path(), "");
    let (code, err) = coreval_run(&dir, &[]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("no [[solver]]"), "{err}");

    // An empty benchmark root, then one with only `.SMT2` and `.smt` files.
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("empty");
    std::fs::create_dir_all(root.join("QF_UF")).unwrap();
    let dir = campaign(tmp.path(), z3);
    let text = std::fs::read_to_string(dir.join("campaign.toml")).unwrap();
    let text = text.replace(&q(&tmp.path().join("bench")), &q(&root));
    std::fs::write(dir.join("campaign.toml"), text).unwrap();
    let (code, err) = coreval_run(&dir, &[]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("campaign.toml:1: no benchmark"), "{err}");
    let src = repo()
        .join("examples/campaign/benchmarks")
        .join(BENCHMARKS[0]);
    std::fs::copy(&src, root.join("QF_UF/a.SMT2")).unwrap();
    std::fs::copy(&src, root.join("QF_UF/b.smt")).unwrap();
    let (code, err) = coreval_run(&dir, &[]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("2 file(s) have another extension") && err.contains("`.smt2`"),
        "{err}"
    );

    // Solving before naming: a hint, not "0 pairs"; nothing fails.
    let tmp = tempfile::tempdir().unwrap();
    let dir = campaign(tmp.path(), z3);
    for args in [&["run", "--stage", "solve"][..], &["solve"], &["check"]] {
        let out = coreval(args, &dir, tmp.path());
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {err}");
        assert!(err.contains("nothing is named yet"), "{args:?}: {err}");
        assert!(!err.contains("0 pairs"), "{args:?}: {err}");
    }
}

/// Waits for `child` at most `limit`; kills it and fails after that.
fn wait_for(child: &mut std::process::Child, limit: Duration) -> std::process::ExitStatus {
    let start = Instant::now();
    loop {
        if let Some(s) = child.try_wait().unwrap() {
            return s;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            panic!("coreval did not end within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_second_run_on_one_campaign_is_refused_or_waits() {
    let tmp = tempfile::tempdir().unwrap();
    // A solver that keeps the first run busy until its 3 s limit.
    let hang = repo().join("tests/fixtures/fake-solvers/hang.sh");
    let dir = campaign(
        tmp.path(),
        &format!(
            "[check]\ncheckers = [\"z3\"]\n[[solver]]\nname = \"busy\"\ncommand = [{}, \"{{file}}\"]\n",
            q(&hang)
        ),
    );
    let text = std::fs::read_to_string(dir.join("campaign.toml")).unwrap();
    std::fs::write(
        dir.join("campaign.toml"),
        text.replacen("time = 20.0", "time = 3.0\ngrace = 0.2", 1),
    )
    .unwrap();
    let spawn = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_coreval"))
            .arg("run")
            .args(args)
            .arg(&dir)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let mut first = spawn(&[]);
    let lock = dir.join(".lock");
    let me = format!("pid {},", first.id());
    let start = Instant::now();
    while !std::fs::read_to_string(&lock).is_ok_and(|t| t.contains(&me)) {
        assert!(start.elapsed() < Duration::from_secs(20), "no lock taken");
        std::thread::sleep(Duration::from_millis(20));
    }
    let (code, err) = coreval_run(&dir, &[]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("in use by another coreval")
            && err.contains(&me)
            && err.contains(&format!("host {}", coreval::store::lock::hostname()))
            && err.contains("--wait"),
        "{err}"
    );
    let mut waiting = spawn(&["--wait"]);
    assert!(wait_for(&mut first, Duration::from_secs(60))
        .code()
        .is_some());
    let status = wait_for(&mut waiting, Duration::from_secs(60));
    let mut err = String::new();
    std::io::Read::read_to_string(&mut waiting.stderr.take().unwrap(), &mut err).unwrap();
    assert!(matches!(status.code(), Some(0 | 1)), "{err}");
    assert!(err.contains("waiting for the other coreval"), "{err}");
    // One record per pair: the runs did not interleave.
    let runs = jsonl(&dir.join("runs.jsonl"));
    assert_eq!(runs.len(), BENCHMARKS.len(), "{runs:?}");
}

#[test]
fn journal_problems_are_said_once_and_names_escaped() {
    let tmp = tempfile::tempdir().unwrap();
    let name = "z3 <script>|x";
    let dir = campaign(
        tmp.path(),
        &format!(
            "[check]\ncheckers = [\"yices\"]\n[[solver]]\nname = \"{name}\"\ndefinition = \"z3\"\n"
        ),
    );
    let (code, err) = coreval_run(&dir, &[]);
    assert_eq!(code, Some(0), "{err}");
    let md = std::fs::read_to_string(dir.join("reports/report.md")).unwrap();
    assert!(md.contains("z3 &lt;script&gt;\\|x"), "{md}");
    assert!(!md.contains("<script>"), "{md}");

    // A garbage line, then a second record of a pair with another answer
    // (what two runs at once used to leave).
    let path = dir.join("runs.jsonl");
    let mut records = jsonl(&path);
    let mut twin = records[0].clone();
    twin["answer"] = "sat".into();
    twin["core"] = serde_json::Value::Null;
    records.push(twin);
    let mut text = String::from("garbage\n");
    for r in &records {
        text.push_str(&format!("{r}\n"));
    }
    std::fs::write(&path, text).unwrap();
    let (code, err) = coreval_run(&dir, &[]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(err.matches("unreadable record skipped").count(), 1, "{err}");
    assert_eq!(err.matches("conflicting records").count(), 1, "{err}");
    assert!(err.contains("for 1 pair(s)"), "{err}");
}

#[test]
fn work_folders_of_dead_runs_are_reaped() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = campaign(
        tmp.path(),
        "[check]\ncheckers = [\"yices\"]\n[[solver]]\nname = \"z3\"\ndefinition = \"z3\"\n",
    );
    let tmpdir = tmp.path().join("tmp");
    let host = coreval::store::lock::hostname();
    let mut child = Command::new("true").spawn().unwrap();
    let dead = child.id();
    child.wait().unwrap();
    let stale = tmpdir.join("coreval-work-stale");
    let live = tmpdir.join("coreval-work-live");
    for (d, pid) in [(&stale, dead), (&live, std::process::id())] {
        std::fs::create_dir_all(d.join("1")).unwrap();
        std::fs::write(d.join(".owner"), format!("{pid} {host}\n")).unwrap();
    }
    let out = Command::new(env!("CARGO_BIN_EXE_coreval"))
        .args(["run"])
        .arg(&dir)
        .env("TMPDIR", &tmpdir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!stale.exists(), "the dead run's folder is reaped");
    assert!(live.exists(), "a live process's folder stays");
    let left: Vec<_> = std::fs::read_dir(&tmpdir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, vec![std::ffi::OsString::from("coreval-work-live")]);
}

#[test]
fn a_new_configs_three_mistakes_are_reported_in_one_run() {
    // `coreval init` as written, a checker misspelt: the benchmarks folder
    // does not exist, `./my-solver` does not either, `yikes` is no checker.
    let tmp = tempfile::tempdir().unwrap();
    let out = coreval(&["init"], Path::new("mine"), tmp.path());
    assert!(out.status.success(), "{out:?}");
    let dir = tmp.path().join("mine");
    let text = std::fs::read_to_string(dir.join("campaign.toml")).unwrap();
    let text = text.replace("checkers = []", "checkers = [\"yices\", \"yikes\"]");
    std::fs::write(dir.join("campaign.toml"), text).unwrap();
    let out = coreval(&["run"], Path::new("mine"), tmp.path());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("3 problems in mine/campaign.toml"),
        "one run, every problem: {err}"
    );
    let line = |what: &str| format!("mine/campaign.toml:{}: ", line_of(&dir, what));
    let expected = [
        format!(
            "{}benchmarks: mine/benchmarks does not exist",
            line("benchmarks = ")
        ),
        format!(
            "{}check.checkers: no definition 'yikes'",
            line("checkers = [")
        ),
        format!(
            "{}solver 'my-solver' cannot start: program mine/my-solver not found",
            line("command = [\"./my-solver\"")
        ),
    ];
    let lines: Vec<&str> = err.lines().skip(1).collect();
    assert_eq!(lines.len(), 3, "{err}");
    for (got, want) in lines.iter().zip(&expected) {
        assert!(got.starts_with(want.as_str()), "{got:?} is not {want:?}…");
    }
    // Paths as given: the campaign folder as written, never its absolute path.
    let abs = tmp.path().canonicalize().unwrap();
    assert!(
        !err.contains(&*abs.to_string_lossy()) && !err.contains("./campaign.toml"),
        "{err}"
    );
    assert!(!dir.join("named").exists());
}

#[test]
fn values_that_cannot_work_are_reported_together() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = campaign(
        tmp.path(),
        "[limits]\ngrace = -1.0\noutput_cap_mb = 0\n\
         [[solver]]\nname = \"z3\"\ndefinition = \"z3\"\n\
         [[solver]]\nname = \"z3\"\ndefinition = \"z3\"\n",
    );
    let (code, err) = coreval_run(&dir, &[]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("3 problems in"), "{err}");
    for (what, says) in [
        (
            "grace = -1.0",
            "limits.grace must be a non-negative number of seconds",
        ),
        (
            "output_cap_mb = 0",
            "limits.output_cap_mb must be at least 1",
        ),
    ] {
        let at = format!("campaign.toml:{}: {says}", line_of(&dir, what));
        assert!(err.contains(&at), "{at}: {err}");
    }
    assert!(err.contains("solver 'z3' is listed twice"), "{err}");
}

#[test]
fn a_campaigns_hints_name_its_keys_not_command_line_options() {
    // A benchmark that states its status in a comment only.
    let tmp = tempfile::tempdir().unwrap();
    copy_examples(
        &tmp.path().join("bench"),
        &["QF_UFLIA/cvc5-test_regress_cli_regress0_arith_integers/ackermann1.smt2"],
    );
    let dir = campaign(
        tmp.path(),
        "[[solver]]\nname = \"z3\"\ndefinition = \"z3\"\n",
    );
    let text = std::fs::read_to_string(dir.join("campaign.toml")).unwrap();
    let text = text.replace("allow_no_status = true", "allow_no_status = false");
    std::fs::write(dir.join("campaign.toml"), text).unwrap();
    let (code, err) = coreval_run(&dir, &["--stage", "name"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        err.contains("accept with naming.allow_no_status = true in campaign.toml"),
        "{err}"
    );
    assert!(!err.contains("--allow-no-status"), "{err}");
}

#[test]
fn bad_values_and_what_cannot_start_are_reported_in_one_pass() {
    // Issue 47, item 10: three bad values (a negative time, no output kept,
    // a solver listed twice) used to hide the missing benchmark folder,
    // the unknown checker and the missing program until they were fixed.
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("c");
    std::fs::create_dir_all(&dir).unwrap();
    let text = format!(
        "benchmarks = \"missing\"\ncheckers_dir = {}\ncache = {}\n\
         [limits]\ntime = -1\noutput_cap_mb = 0\n\
         [check]\ncheckers = [\"yices\", \"yikes\"]\n\
         [[solver]]\nname = \"z3\"\ndefinition = \"z3\"\n\
         [[solver]]\nname = \"z3\"\ndefinition = \"z3\"\n\
         [[solver]]\nname = \"mine\"\ncommand = [\"./my-solver\", \"{{file}}\"]\n",
        q(&repo().join("checkers")),
        q(&tmp.path().join("cache")),
    );
    std::fs::write(dir.join("campaign.toml"), text).unwrap();
    let line = |what: &str| format!("c/campaign.toml:{}: ", line_of(&dir, what));
    let second_z3 = 1 + std::fs::read_to_string(dir.join("campaign.toml"))
        .unwrap()
        .lines()
        .enumerate()
        .filter(|(_, l)| *l == "name = \"z3\"")
        .nth(1)
        .unwrap()
        .0;
    let expected = [
        format!(
            "{}benchmarks: c/missing does not exist",
            line("benchmarks = ")
        ),
        format!(
            "{}limits.time must be a positive number of seconds",
            line("time = -1")
        ),
        format!(
            "{}limits.output_cap_mb must be at least 1",
            line("output_cap_mb = 0")
        ),
        format!(
            "{}check.checkers: no definition 'yikes'",
            line("checkers = [")
        ),
        format!("c/campaign.toml:{second_z3}: solver 'z3' is listed twice"),
        format!(
            "{}solver 'mine' cannot start: program c/my-solver not found",
            line("./my-solver")
        ),
    ];
    let out = coreval(&["run"], Path::new("c"), tmp.path());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(
        lines.first().copied(),
        Some("Error: 6 problems in c/campaign.toml, all to fix before anything runs:"),
        "one pass: {err}"
    );
    assert_eq!(lines.len(), 7, "{err}");
    for (got, want) in lines[1..].iter().zip(&expected) {
        assert!(got.starts_with(want.as_str()), "{got:?} is not {want:?}…");
    }
    // One stage: the values and what that stage needs (solving: the
    // programs; checking: the checkers), even with nothing named yet.
    for (stage, needs) in [("solve", &expected[5]), ("check", &expected[3])] {
        let out = coreval(&[stage], Path::new("c"), tmp.path());
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stage}: {err}");
        assert!(
            err.starts_with("Error: 4 problems in c/campaign.toml"),
            "{stage}: {err}"
        );
        for want in expected[1..3].iter().chain([&expected[4], needs]) {
            assert!(
                err.lines().any(|l| l.starts_with(want.as_str())),
                "{stage}: {want}\n{err}"
            );
        }
    }
    assert!(!dir.join("named").exists() && !dir.join("runs.jsonl").exists());
}
