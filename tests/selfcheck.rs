//! `coreval selfcheck` end to end: the built binary, the real checkers
//! (`checkers/venv`, `/usr/bin`) and solver wrappers around the real z3
//! (`tests/fixtures/fake-solvers/z3-*.sh`): a correct solver, one that drops
//! an essential assertion from its cores, one that answers `sat`, one that
//! prints garbage, one that hangs. JUnit XML is parsed with quick-xml.
//! Benchmarks and their licences: `tests/fixtures/selfcheck/README.md`.

use assert_cmd::Command;
use quick_xml::events::Event;
use quick_xml::Reader;
use std::path::Path;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
const PRIME: &str = "tests/fixtures/selfcheck/unsat/QF_LIA/prime_cone_unsat_3.smt2";
const UNSAT: &str = "tests/fixtures/selfcheck/unsat";
const SINGLE: &str = "tests/fixtures/selfcheck/author/single-no-status.smt2";
const DECLARED_SAT: &str = "tests/fixtures/selfcheck/author/declared-sat.smt2";
const OWN_NAMES: &str = "tests/fixtures/selfcheck/author/own-names.smt2";
const MALFORMED: &str = "tests/fixtures/selfcheck/author/malformed.smt2";

fn solver(script: &str) -> String {
    format!("tests/fixtures/fake-solvers/{script} {{file}}")
}

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
    junit: Option<Junit>,
    _cache: tempfile::TempDir,
}

/// Run `coreval selfcheck ARGS` from the repository root with a fresh check
/// cache, writing JUnit XML, and parse the XML.
fn selfcheck(args: &[&str]) -> Run {
    let cache = tempfile::tempdir().unwrap();
    let junit = cache.path().join("out/junit.xml");
    std::fs::create_dir_all(junit.parent().unwrap()).unwrap();
    let out = Command::cargo_bin("coreval")
        .unwrap()
        .current_dir(ROOT)
        .env("COREVAL_CACHE", cache.path().join("cache"))
        .env_remove("COREVAL_CHECKERS")
        .arg("selfcheck")
        .args(args)
        .arg("--junit")
        .arg(&junit)
        .arg("--keep")
        .arg(cache.path().join("kept"))
        .timeout(std::time::Duration::from_secs(300))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!stderr.contains("panicked"), "{stderr}");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr,
        junit: junit.exists().then(|| Junit::parse(&junit)),
        _cache: cache,
    }
}

impl Run {
    fn show(&self) -> String {
        format!(
            "exit {}\n--- stdout\n{}--- stderr\n{}",
            self.code, self.stdout, self.stderr
        )
    }
    /// The report line of benchmark `path`.
    fn line(&self, path: &str) -> &str {
        self.stdout
            .lines()
            .find(|l| l.ends_with(&format!("  {path}")))
            .unwrap_or_else(|| panic!("no line for {path}\n{}", self.show()))
    }
    fn junit(&self) -> &Junit {
        self.junit
            .as_ref()
            .unwrap_or_else(|| panic!("no JUnit file\n{}", self.show()))
    }
}

/// What the tests read from a JUnit file.
#[derive(Debug, Default)]
struct Junit {
    tests: usize,
    failures: usize,
    skipped: usize,
    /// (testcase name, classname, failure message + type, skipped message).
    cases: Vec<Case>,
}

#[derive(Debug, Default, Clone)]
struct Case {
    name: String,
    classname: String,
    failure: Option<(String, String)>,
    skipped: Option<String>,
}

impl Junit {
    fn parse(path: &Path) -> Junit {
        let text = std::fs::read_to_string(path).unwrap();
        let mut reader = Reader::from_str(&text);
        let mut j = Junit::default();
        loop {
            let ev = reader
                .read_event()
                .unwrap_or_else(|e| panic!("bad XML: {e}\n{text}"));
            let (Event::Start(e) | Event::Empty(e)) = ev else {
                if matches!(ev, Event::Eof) {
                    break;
                }
                continue;
            };
            let attr = |k: &str| -> String {
                e.try_get_attribute(k)
                    .unwrap()
                    .map(|a| {
                        a.normalized_value(quick_xml::XmlVersion::Implicit1_0)
                            .unwrap()
                            .into_owned()
                    })
                    .unwrap_or_default()
            };
            match e.name().0 {
                "testsuite" => {
                    j.tests = attr("tests").parse().unwrap();
                    j.failures = attr("failures").parse().unwrap();
                    j.skipped = attr("skipped").parse().unwrap();
                    assert_eq!(attr("errors"), "0");
                }
                "testcase" => j.cases.push(Case {
                    name: attr("name"),
                    classname: attr("classname"),
                    ..Case::default()
                }),
                "failure" => {
                    j.cases.last_mut().unwrap().failure = Some((attr("message"), attr("type")))
                }
                "skipped" => j.cases.last_mut().unwrap().skipped = Some(attr("message")),
                _ => {}
            }
        }
        assert_eq!(j.tests, j.cases.len());
        assert_eq!(
            j.failures,
            j.cases.iter().filter(|c| c.failure.is_some()).count()
        );
        assert_eq!(
            j.skipped,
            j.cases.iter().filter(|c| c.skipped.is_some()).count()
        );
        assert!(j.cases.iter().all(|c| c.classname == "coreval.selfcheck"));
        j
    }

    fn failed(&self) -> Vec<&str> {
        self.cases
            .iter()
            .filter(|c| c.failure.is_some())
            .map(|c| c.name.as_str())
            .collect()
    }

    fn case(&self, name: &str) -> &Case {
        self.cases
            .iter()
            .find(|c| c.name == name)
            .unwrap_or_else(|| panic!("no testcase {name}: {self:?}"))
    }
}

fn unsat_files() -> Vec<String> {
    let mut v: Vec<String> = [
        "QF_LIA/distinct_unsat.smt2",
        "QF_LIA/prime_cone_unsat_3.smt2",
        "QF_UF/bt-test-01.smt2",
        "QF_UF/chained-equality.smt2",
    ]
    .iter()
    .map(|f| format!("{UNSAT}/{f}"))
    .collect();
    v.sort();
    v
}

#[test]
fn correct_solver_passes_with_reference_reductions() {
    let r = selfcheck(&[
        "--solver",
        &solver("z3-core.sh"),
        UNSAT,
        SINGLE,
        DECLARED_SAT,
        OWN_NAMES,
    ]);
    assert_eq!(r.code, 0, "{}", r.show());
    for f in unsat_files() {
        assert!(r.line(&f).starts_with("PASS validated"), "{}", r.show());
    }
    // z3's minimal core keeps 5 of 8; no reference's is smaller, so the
    // references' cores are not checked.
    let prime = r.line(PRIME);
    assert!(
        prime.contains("core 5/8")
            && prime.contains("reduction 3")
            && prime.contains("best ≤ yours"),
        "{prime}"
    );
    assert!(r.line(SINGLE).contains("core 1/1"), "{}", r.show());
    assert!(r.line(DECLARED_SAT).starts_with("PASS sat"), "{}", r.show());
    // The author's own names are the core's names: a well-formed core of 2 of 3.
    assert!(r.line(OWN_NAMES).contains("core 2/3"), "{}", r.show());
    assert!(
        r.stdout
            .contains("selfcheck: 7 benchmark(s): 7 passed, 0 failed, 0 skipped"),
        "{}",
        r.show()
    );
    // Warnings, not skips.
    for w in [
        "single-no-status.smt2: no (set-info :status",
        "single-no-status.smt2: a single assertion",
        "declared-sat.smt2:4:1: declared :status sat",
        "declared-sat.smt2:3:1: (set-option :random-seed …) kept",
        "declared-sat.smt2:2:1: (set-option :produce-unsat-cores …) not copied: coreval writes",
        "own-names.smt2: 2 assertion(s) keep their own :named name",
    ] {
        assert!(r.stderr.contains(w), "missing warning {w:?}\n{}", r.show());
    }
    let j = r.junit();
    assert_eq!((j.tests, j.failures, j.skipped), (7, 0, 0));
    assert!(j.cases.iter().any(|c| c.name == PRIME));
}

#[test]
fn dropped_essential_assertion_is_refuted_and_named() {
    let r = selfcheck(&[
        "--solver",
        &solver("z3-drop-first.sh"),
        "--no-references",
        "--checkers",
        "yices,z3",
        PRIME,
        DECLARED_SAT,
    ]);
    assert_eq!(r.code, 1, "{}", r.show());
    let line = r.line(PRIME);
    assert!(
        line.starts_with("FAIL refuted") && line.contains("core 4/8"),
        "{}",
        r.show()
    );
    // Early stop: the first `sat` decides, the other checker may be stopped;
    // the sat came with a model that satisfies the core.
    assert!(
        r.stdout.contains("core refuted (certified): "),
        "{}",
        r.show()
    );
    assert!(r.line(DECLARED_SAT).starts_with("PASS sat"), "{}", r.show());
    let j = r.junit();
    assert_eq!((j.tests, j.failures, j.skipped), (2, 1, 0));
    assert_eq!(j.failed(), [PRIME]);
    let (message, kind) = j.case(PRIME).failure.clone().unwrap();
    assert_eq!(kind, "refuted");
    assert!(
        message.contains("yices sat") || message.contains("z3 sat"),
        "{message}"
    );
}

#[test]
fn dropped_assertion_on_every_unsat_benchmark() {
    let r = selfcheck(&[
        "--solver",
        &solver("z3-drop-first.sh"),
        "--no-references",
        "--checkers",
        "yices,z3",
        UNSAT,
        SINGLE,
    ]);
    assert_eq!(r.code, 1, "{}", r.show());
    for f in unsat_files() {
        assert!(r.line(&f).starts_with("FAIL refuted"), "{}", r.show());
    }
    // One assertion: dropping it leaves the empty core.
    assert!(
        r.line(SINGLE).starts_with("FAIL ill-formed:empty"),
        "{}",
        r.show()
    );
    let j = r.junit();
    assert_eq!((j.tests, j.failures), (5, 5));
    let mut failed: Vec<&str> = j.failed();
    failed.sort();
    let mut want: Vec<String> = unsat_files();
    want.push(SINGLE.into());
    want.sort();
    assert_eq!(failed, want);
}

#[test]
fn sat_answers_fail() {
    let r = selfcheck(&[
        "--solver",
        &solver("always-sat.sh"),
        "--no-references",
        "--checkers",
        "yices",
        PRIME,
        SINGLE,
        DECLARED_SAT,
    ]);
    assert_eq!(r.code, 1, "{}", r.show());
    assert!(r.line(PRIME).starts_with("FAIL sat"), "{}", r.show());
    assert!(
        r.stdout.contains("sat on a benchmark declared unsat"),
        "{}",
        r.show()
    );
    // No status and no reference to confirm the `sat`: not a failure.
    assert!(
        r.line(SINGLE).starts_with("SKIP sat-unconfirmed"),
        "{}",
        r.show()
    );
    assert!(r.line(DECLARED_SAT).starts_with("PASS sat"), "{}", r.show());
    let j = r.junit();
    assert_eq!((j.tests, j.failures, j.skipped), (3, 1, 1));
    assert_eq!(j.case(PRIME).failure.as_ref().unwrap().1, "sat");
}

#[test]
fn garbage_output_is_a_failure_not_a_crash() {
    let r = selfcheck(&[
        "--solver",
        &solver("garbage.sh"),
        "--no-references",
        "--checkers",
        "yices",
        PRIME,
    ]);
    assert_eq!(r.code, 1, "{}", r.show());
    let line = r.line(PRIME);
    assert!(line.starts_with("FAIL ill-formed-output"), "{}", r.show());
    assert!(
        r.stdout
            .contains("not an SMT-LIB answer (invalid-utf8, garbage-lines"),
        "{}",
        r.show()
    );
    let j = r.junit();
    assert_eq!(j.failed(), [PRIME]);
    assert_eq!(
        j.case(PRIME).failure.as_ref().unwrap().1,
        "ill-formed-output"
    );
}

#[test]
fn timeouts_are_skipped_unless_strict() {
    let args = [
        "--solver",
        &solver("hang.sh"),
        "--no-references",
        "--checkers",
        "yices",
        "--timeout",
        "0.5",
        SINGLE,
    ];
    let r = selfcheck(&args);
    // Nothing judged: exit 3.
    assert_eq!(r.code, 3, "{}", r.show());
    assert!(r.line(SINGLE).starts_with("SKIP timeout"), "{}", r.show());
    let j = r.junit();
    assert_eq!((j.tests, j.failures, j.skipped), (1, 0, 1));
    assert!(j
        .case(SINGLE)
        .skipped
        .as_ref()
        .unwrap()
        .starts_with("timeout: timeout after"));
    let mut strict = args.to_vec();
    strict.push("--strict");
    let r = selfcheck(&strict);
    assert_eq!(r.code, 1, "{}", r.show());
    assert_eq!(r.junit().failed(), [SINGLE]);
}

#[test]
fn malformed_benchmark_fails_with_its_position() {
    let r = selfcheck(&[
        "--solver",
        &solver("z3-core.sh"),
        "--no-references",
        "--checkers",
        "yices",
        MALFORMED,
        SINGLE,
    ]);
    assert_eq!(r.code, 1, "{}", r.show());
    assert!(
        r.line(MALFORMED).starts_with("FAIL malformed"),
        "{}",
        r.show()
    );
    assert!(
        r.stdout.contains(&format!(
            "{MALFORMED}:3:1: malformed: unbalanced parentheses"
        )),
        "{}",
        r.show()
    );
    assert!(r.line(SINGLE).starts_with("PASS validated"), "{}", r.show());
    assert_eq!(r.junit().failed(), [MALFORMED]);
}

#[test]
fn own_team_checkers_are_left_out() {
    let work = tempfile::tempdir().unwrap();
    let dir = work.path().join("campaign");
    let dir_s = dir.to_string_lossy().into_owned();
    let args = [
        "--solver",
        &solver("z3-core.sh"),
        "--team",
        "z3",
        "--no-references",
        "--checkers",
        "yices,z3",
        "--workdir",
        &dir_s,
        PRIME,
    ];
    let r = selfcheck(&args);
    assert_eq!(r.code, 0, "{}", r.show());
    assert!(r.stderr.contains("(team z3;"), "{}", r.show());
    let checks = std::fs::read_to_string(dir.join("checks.jsonl")).unwrap();
    let checkers: Vec<String> = checks
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["checker"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(checkers, ["yices"], "{checks}");
    // The kept campaign names the benchmark as given, below its folder.
    assert!(dir.join("benchmarks").join(PRIME).is_file());
}

#[test]
fn usage_errors_exit_2() {
    let cases: [(&[&str], &str); 6] = [
        (
            &["--solver", "tests/fixtures/fake-solvers/z3-core.sh", PRIME],
            "{file}",
        ),
        (
            &["--solver", "no-such-solver-program {file}", PRIME],
            "not found",
        ),
        (
            &[
                "--solver",
                &solver("z3-core.sh"),
                "--checkers",
                "nosuch",
                PRIME,
            ],
            "no definition 'nosuch'",
        ),
        (
            &[
                "--solver",
                &solver("z3-core.sh"),
                "tests/fixtures/selfcheck/missing.smt2",
            ],
            "missing.smt2",
        ),
        (
            &[
                "--solver",
                &solver("z3-core.sh"),
                "--policy",
                "smtcomp-1999",
                PRIME,
            ],
            "unknown decision policy",
        ),
        (
            &["--solver", "'unbalanced {file}", PRIME],
            "unbalanced quotes",
        ),
    ];
    for (args, want) in cases {
        let r = selfcheck(args);
        assert_eq!(r.code, 2, "{args:?}\n{}", r.show());
        assert!(
            r.stderr.contains(want),
            "{args:?}: want {want:?}\n{}",
            r.show()
        );
        assert!(r.junit.is_none());
    }
}

#[test]
fn interrupt_stops_the_solver_and_exits_130() {
    let cache = tempfile::tempdir().unwrap();
    let junit = cache.path().join("junit.xml");
    let child = std::process::Command::new(assert_cmd::cargo::cargo_bin("coreval"))
        .current_dir(ROOT)
        .env("COREVAL_CACHE", cache.path())
        .args([
            "selfcheck",
            "--solver",
            &solver("hang.sh"),
            "--no-references",
            "--checkers",
            "yices",
        ])
        .args(["--timeout", "60", SINGLE, "--junit"])
        .arg(&junit)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let start = std::time::Instant::now();
    // SAFETY: a signal to our own child; kill touches no memory.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let out = child.wait_with_output().unwrap();
    // The hanging solver ignores SIGTERM: it is killed after the 2 s grace.
    assert!(start.elapsed() < std::time::Duration::from_secs(20));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("interrupted"), "{stderr}");
    assert!(!junit.exists());
}

#[test]
fn a_wrong_declared_status_is_caught() {
    const WRONG: &str = "tests/fixtures/selfcheck/status/declared-sat-but-unsat.smt2";
    let r = selfcheck(&[
        "--solver",
        &solver("z3-core.sh"),
        "--no-references",
        "--checkers",
        "yices,z3",
        WRONG,
    ]);
    assert_eq!(r.code, 1, "{}", r.show());
    assert!(
        r.line(WRONG).starts_with("FAIL unsat-on-sat"),
        "{}",
        r.show()
    );
    assert!(
        r.stdout.contains("unsat on a benchmark declared sat"),
        "{}",
        r.show()
    );
    assert_eq!(
        r.junit().case(WRONG).failure.as_ref().unwrap().1,
        "unsat-on-sat"
    );
    // A solver agreeing with the wrong status is caught by the references.
    let r = selfcheck(&[
        "--solver",
        &solver("always-sat.sh"),
        "--checkers",
        "yices,z3",
        WRONG,
    ]);
    assert_eq!(r.code, 1, "{}", r.show());
    assert!(r.line(WRONG).starts_with("FAIL sat"), "{}", r.show());
    assert!(
        r.stdout
            .contains("printed an unsat core the checkers validated"),
        "{}",
        r.show()
    );
}

// ---- issue 14: teams, contradictions, answers on stderr ----

/// The checkers that answered on the cores of a kept campaign.
fn checkers_used(dir: &Path) -> std::collections::BTreeSet<String> {
    let text = std::fs::read_to_string(dir.join("checks.jsonl")).unwrap_or_default();
    text.lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["checker"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect()
}

#[test]
fn cvc5_as_the_solver_is_never_judged_by_team_cvc() {
    let work = tempfile::tempdir().unwrap();
    let dir = work.path().join("campaign");
    let dir_s = dir.to_string_lossy().into_owned();
    // The program is found in PATH, as a user would type it.
    let r = selfcheck(&[
        "--solver",
        "cvc5 --produce-unsat-cores {file}",
        "--no-references",
        "--workdir",
        &dir_s,
        UNSAT,
    ]);
    assert_eq!(r.code, 0, "{}", r.show());
    assert!(
        r.stderr
            .contains("(team cvc; runs /usr/bin/cvc5 (checker cvc5))"),
        "{}",
        r.show()
    );
    assert!(
        r.stderr
            .contains("left out as the solver's team: cvc4, cvc5;"),
        "{}",
        r.show()
    );
    let used = checkers_used(&dir);
    assert!(
        !used.is_empty() && used.iter().all(|k| !k.starts_with("cvc")),
        "{used:?}"
    );
    for f in unsat_files() {
        assert!(r.line(&f).starts_with("PASS validated"), "{}", r.show());
    }
}

#[test]
fn yices_through_a_symlink_is_team_yices_and_undecided_cores_do_not_pass() {
    let work = tempfile::tempdir().unwrap();
    // Another name for yices-smt2: the team follows the link, not the name.
    let link = work.path().join("my-solver");
    std::os::unix::fs::symlink(Path::new(ROOT).join("checkers/venv/bin/yices-smt2"), &link)
        .unwrap();
    let solver = format!("{} {{file}}", link.display());
    let dir = work.path().join("campaign");
    let dir_s = dir.to_string_lossy().into_owned();
    let r = selfcheck(&[
        "--solver",
        &solver,
        "--no-references",
        "--checkers",
        "yices,z3",
        "--workdir",
        &dir_s,
        PRIME,
    ]);
    assert_eq!(r.code, 0, "{}", r.show());
    assert!(r.stderr.contains("(team yices; runs "), "{}", r.show());
    assert!(
        r.stderr.contains("left out as the solver's team: yices;"),
        "{}",
        r.show()
    );
    assert!(r.line(PRIME).starts_with("PASS validated"), "{}", r.show());
    assert_eq!(checkers_used(&dir).into_iter().collect::<Vec<_>>(), ["z3"]);
    // Only yices' own team left: nothing decides, whatever the policy says.
    for policy in ["smtcomp-2025", "smtcomp-2016"] {
        let r = selfcheck(&[
            "--solver",
            &solver,
            "--no-references",
            "--checkers",
            "yices",
            "--policy",
            policy,
            PRIME,
        ]);
        assert_eq!(r.code, 3, "{}", r.show());
        assert!(
            r.stderr.contains("every selected checker (yices)"),
            "{}",
            r.show()
        );
        assert!(r.line(PRIME).starts_with("SKIP no-checker"), "{}", r.show());
        assert_eq!(r.junit().skipped, 1);
    }
}

#[test]
fn a_core_no_checker_decided_is_not_called_validated_under_old_policies() {
    // A checker that answers nothing: under smtcomp-2016 the campaign counts
    // the core validated (no checker said sat), selfcheck does not pass it.
    let work = tempfile::tempdir().unwrap();
    let defs = work.path().join("defs");
    std::fs::create_dir_all(&defs).unwrap();
    std::fs::write(
        defs.join("mute.toml"),
        format!(
            "name = \"mute\"\nteam = \"mute\"\ncommand = [\"{ROOT}/tests/fixtures/fake-solvers/silent.sh\", \"{{file}}\"]\n\
             logics = [\"*\"]\nproduces_cores = false\nversion_command = [\"/bin/echo\", \"1\"]\ninstall_hint = \"-\"\n"
        ),
    )
    .unwrap();
    let r = selfcheck(&[
        "--solver",
        &solver("z3-core.sh"),
        "--no-references",
        "--checkers-dir",
        &defs.to_string_lossy(),
        "--policy",
        "smtcomp-2016",
        PRIME,
    ]);
    assert_eq!(r.code, 3, "{}", r.show());
    assert!(r.line(PRIME).starts_with("SKIP undecided"), "{}", r.show());
    assert!(
        r.stdout
            .contains("smtcomp-2016 would count the core as validated"),
        "{}",
        r.show()
    );
}

#[test]
fn contradictions_and_failures_after_the_answer_fail() {
    let cases = [
        (
            "sat",
            "contradictory-output",
            "another answer followed its first",
        ),
        ("core", "contradictory-output", "a second, different core"),
        (
            "exit1",
            "failed-after-answer",
            "failed after its answer (exit 1)",
        ),
        (
            "segv",
            "failed-after-answer",
            "failed after its answer (signal 11)",
        ),
    ];
    for (what, label, why) in cases {
        let solver = format!("tests/fixtures/fake-solvers/z3-then.sh {{file}} {what}");
        let r = selfcheck(&[
            "--solver",
            &solver,
            "--no-references",
            "--checkers",
            "yices,cvc5",
            PRIME,
        ]);
        assert_eq!(r.code, 1, "{what}: {}", r.show());
        let line = r.line(PRIME);
        assert!(
            line.starts_with(&format!("FAIL {label}")) && line.contains("reduction -"),
            "{what}: {}",
            r.show()
        );
        assert!(r.stdout.contains(why), "{what}: {}", r.show());
        let (message, kind) = r.junit().case(PRIME).failure.clone().unwrap();
        assert_eq!(kind, label, "{what}");
        assert!(message.contains(why), "{what}: {message}");
    }
}

#[test]
fn an_answer_on_stderr_is_flagged_or_read_when_asked() {
    let solver = "tests/fixtures/fake-solvers/z3-then.sh {file} stderr";
    let base = [
        "--solver",
        solver,
        "--no-references",
        "--checkers",
        "yices,cvc5",
    ];
    // Answers belong on stdout: one only on stderr is a FAIL, named so,
    // with the option that reads it.
    let r = selfcheck(&[&base[..], &[PRIME]].concat());
    assert_eq!(r.code, 1, "{}", r.show());
    assert!(
        r.line(PRIME).starts_with("FAIL answer-on-stderr"),
        "{}",
        r.show()
    );
    assert!(
        r.stdout.contains("output flags: answer-on-stderr"),
        "{}",
        r.show()
    );
    assert!(
        r.stdout
            .contains("the answer is on stderr: run with --answer-stream stderr"),
        "{}",
        r.show()
    );
    for stream in ["stderr", "both"] {
        let r = selfcheck(&[&base[..], &["--answer-stream", stream, PRIME]].concat());
        assert_eq!(r.code, 0, "{stream}: {}", r.show());
        assert!(
            r.line(PRIME).starts_with("PASS validated"),
            "{stream}: {}",
            r.show()
        );
    }
}
