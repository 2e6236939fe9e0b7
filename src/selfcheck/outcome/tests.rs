//! Outcomes of the verdicts the end-to-end tests (`tests/selfcheck.rs`)
//! cannot provoke cheaply with real solvers.

use super::*;
use crate::benchmark::Families;
use crate::campaign::verdict::pair::{IllFormed, PairRecord};

fn entry(status: Option<&str>, assertions: usize) -> IndexEntry {
    IndexEntry {
        id: "b.smt2".into(),
        outcome: NameOutcome::Named,
        logic: Some("QF_UF".into()),
        family: Families::default(),
        status: status.map(str::to_string),
        assertions,
        prefix: Some("a".into()),
        output: Some("b.smt2".into()),
        kept_names: Vec::new(),
        nested_names: vec!["inner".into()],
        reasons: Vec::new(),
        error: None,
        descramble: None,
        source_size: 0,
        source_mtime_ns: 0,
        source_ctime_ns: 0,
        source_dev: 0,
        source_inode: 0,
        named_hash: None,
        settings: String::new(),
        incremental: false,
    }
}

fn run(answer: Answer, core: Option<&[&str]>) -> RunRecord {
    RunRecord {
        solver: "s".into(),
        benchmark: "b.smt2".into(),
        answer,
        core: core.map(|c| c.iter().map(|n| n.to_string()).collect()),
        core_problem: None,
        flags: Vec::new(),
        errors: Vec::new(),
        exit: crate::runner::Exit::Exited(0),
        timed_out: false,
        memout: false,
        late_answer: None,
        wall: 0.25,
        cpu: 0.2,
        max_rss: 0,
        stdout_dropped: 0,
        stderr_dropped: 0,
        solver_version: None,
        timing: None,
        stderr_tail: None,
        programs: Vec::new(),
        cached: false,
        measured: None,
        provenance: None,
        transcript: None,
        origin: None,
    }
}

fn verdict(
    solver: &str,
    v: Verdict,
    core_size: Option<u64>,
    checkers: &[(&str, CheckAnswer)],
) -> PairVerdict {
    PairVerdict {
        pair: PairRecord {
            solver: solver.into(),
            benchmark: "b.smt2".into(),
            assertions: 3,
            core_size,
            verdict: v,
            ..PairRecord::default()
        },
        checkers: std::sync::Arc::new(checkers.iter().map(|(k, a)| (k.to_string(), *a)).collect()),
        disputed: false,
        confirmed_by_own_team: false,
        pending: false,
        flags: Vec::new(),
        core_hash: None,
        policy: "smtcomp-2025".into(),
        details: Default::default(),
    }
}

fn input() -> Input {
    Input {
        shown: "dir/b.smt2".into(),
        id: "dir/b.smt2".into(),
        source: "dir/b.smt2".into(),
    }
}

fn classify_one(
    e: &IndexEntry,
    r: &RunRecord,
    v: &PairVerdict,
    refs: &[&PairVerdict],
    no_checker: bool,
) -> BenchResult {
    let pair = Pair {
        verdict: v,
        run: r,
        no_checker,
    };
    classify(&input(), e, Some(pair), refs, "smtcomp-2025", false)
}

#[test]
fn validated_core_passes_with_its_reduction_and_the_best_reference() {
    let e = entry(Some("unsat"), 3);
    let r = run(Answer::Unsat, Some(&["a1", "a2"]));
    let v = verdict(
        super::super::SOLVER_NAME,
        Verdict::Validated,
        Some(2),
        &[("z3", CheckAnswer::Unsat)],
    );
    let refs = [
        verdict("ref-z3", Verdict::Validated, Some(2), &[]),
        verdict("ref-cvc5", Verdict::Validated, Some(1), &[]),
        verdict("ref-yices", Verdict::Refuted, Some(0), &[]),
    ];
    let refs: Vec<&PairVerdict> = refs.iter().collect();
    let got = classify_one(&e, &r, &v, &refs, false);
    assert_eq!(
        (got.outcome, got.verdict.as_str()),
        (Outcome::Passed, "validated")
    );
    assert_eq!((got.core_size, got.reduction), (Some(2), Some(1)));
    // The refuted reference core does not count, however small.
    assert_eq!(
        got.best,
        Some(Reference {
            solver: "cvc5".into(),
            reduction: 2,
            checked: true,
        })
    );
    assert_eq!(got.time, Some(0.25));
}

#[test]
fn unsat_on_a_benchmark_declared_sat_fails_even_when_validated() {
    let e = entry(Some("sat"), 3);
    let r = run(Answer::Unsat, Some(&["a1"]));
    let v = verdict(
        "s",
        Verdict::Validated,
        Some(1),
        &[("z3", CheckAnswer::Unsat)],
    );
    let got = classify_one(&e, &r, &v, &[], false);
    assert_eq!(
        (got.outcome, got.verdict.as_str()),
        (Outcome::Failed, "unsat-on-sat")
    );
    assert_eq!(got.details[0], "unsat on a benchmark declared sat");
}

#[test]
fn sat_as_declared_fails_when_a_reference_core_was_validated() {
    let e = entry(Some("sat"), 3);
    let r = run(Answer::Sat, None);
    let v = verdict("s", Verdict::SatAnswer, None, &[]);
    assert_eq!(
        classify_one(&e, &r, &v, &[], false).outcome,
        Outcome::Passed
    );
    let reference = verdict("ref-z3", Verdict::Validated, Some(2), &[]);
    let got = classify_one(&e, &r, &v, &[&reference], false);
    assert_eq!(got.outcome, Outcome::Failed);
    assert!(
        got.details[0].contains("z3 printed an unsat core the checkers validated"),
        "{:?}",
        got.details
    );
}

#[test]
fn undecided_cores_and_missing_checkers_are_skipped() {
    let e = entry(Some("unsat"), 3);
    let r = run(Answer::Unsat, Some(&["a1"]));
    let v = verdict(
        "s",
        Verdict::NotValidated,
        Some(1),
        &[("z3", CheckAnswer::Other)],
    );
    let got = classify_one(&e, &r, &v, &[], false);
    assert_eq!(
        (got.outcome, got.verdict.as_str()),
        (Outcome::Skipped, "not-validated")
    );
    assert_eq!(
        got.details[0],
        "no checker decided: z3 no answer (smtcomp-2025)"
    );
    let none = verdict("s", Verdict::NotValidated, Some(1), &[]);
    let got = classify_one(&e, &r, &none, &[], true);
    assert_eq!(
        (got.outcome, got.verdict.as_str()),
        (Outcome::Skipped, "no-checker")
    );
    assert!(got.details[0].contains("QF_UF"));
    let strict = classify(
        &input(),
        &e,
        Some(Pair {
            verdict: &none,
            run: &r,
            no_checker: true,
        }),
        &[],
        "p",
        true,
    );
    assert_eq!(strict.outcome, Outcome::Failed);
}

#[test]
fn ill_formed_cores_name_the_offending_names() {
    let e = entry(Some("unsat"), 3);
    let r = run(Answer::Unsat, Some(&["a1", "bogus", "inner", "a1"]));
    let v = verdict(
        "s",
        Verdict::IllFormed {
            reason: IllFormed::UnknownName,
        },
        Some(4),
        &[],
    );
    let got = classify_one(&e, &r, &v, &[], false);
    assert_eq!(
        (got.outcome, got.verdict.as_str()),
        (Outcome::Failed, "ill-formed:unknown-name")
    );
    assert_eq!(
        got.details[0],
        "ill-formed core (unknown-name): 4 name(s) printed: a1 listed twice, bogus is not an assertion name, inner names a nested term"
    );
    assert_eq!(got.reduction, None);
    // 4 names for 3 assertions: not shown as `core 4/3` (the line shows
    // `core -/3` when no size is given).
    assert_eq!(got.core_size, None);
}

#[test]
fn a_checker_without_a_vote_says_what_it_printed() {
    let e = entry(Some("unsat"), 3);
    let r = run(Answer::Unsat, Some(&["a1"]));
    let mut v = verdict(
        "s",
        Verdict::NotValidated,
        Some(1),
        &[
            ("cvc5", CheckAnswer::Other),
            ("yices", CheckAnswer::Other),
            ("z3", CheckAnswer::Other),
            ("cvc4", CheckAnswer::Other),
            ("bitwuzla", CheckAnswer::Other),
        ],
    );
    v.details.raw_answers = [
        ("cvc5", Answer::Unknown),
        ("yices", Answer::Timeout),
        ("z3", Answer::Error),
        ("cvc4", Answer::Unsat),
    ]
    .into_iter()
    .map(|(k, a)| (k.to_string(), a))
    .collect();
    let got = classify_one(&e, &r, &v, &[], false);
    assert_eq!(
        got.details[0],
        "no checker decided: bitwuzla no answer, cvc4 unsat (not counted), cvc5 unknown, \
         yices timeout, z3 error (smtcomp-2025)"
    );
}

#[test]
fn runs_without_an_answer() {
    let e = entry(None, 3);
    let mut r = run(Answer::Unsat, None);
    let v = verdict("s", Verdict::UnsatNoCore, None, &[]);
    assert_eq!(
        classify_one(&e, &r, &v, &[], false).outcome,
        Outcome::Failed
    );
    let none = verdict("s", Verdict::NoAnswer, None, &[]);
    r.answer = Answer::Error;
    r.errors = vec!["unsupported logic".into()];
    let got = classify_one(&e, &r, &none, &[], false);
    assert_eq!(
        (got.outcome, got.verdict.as_str()),
        (Outcome::Skipped, "error")
    );
    assert_eq!(got.details, ["error: unsupported logic"]);
    r.answer = Answer::NoAnswer;
    r.errors.clear();
    r.exit = crate::runner::Exit::Signaled(11);
    let got = classify_one(&e, &r, &none, &[], false);
    assert_eq!(
        (got.outcome, got.details[0].as_str()),
        (Outcome::Skipped, "no answer (signal 11)")
    );
    r.flags = vec!["garbage-lines".into()];
    let got = classify_one(&e, &r, &none, &[], false);
    assert_eq!(
        (got.outcome, got.verdict.as_str()),
        (Outcome::Failed, "ill-formed-output")
    );
    r.timed_out = true;
    r.late_answer = Some(Answer::Unsat);
    let got = classify_one(&e, &r, &none, &[], false);
    assert_eq!(got.verdict, "timeout");
    assert!(
        got.details[0].ends_with("(unsat printed too late)"),
        "{:?}",
        got.details
    );
}

#[test]
fn unusable_benchmarks_fail_with_their_positions() {
    let mut e = entry(None, 0);
    e.outcome = NameOutcome::Ineligible;
    e.reasons = vec![crate::benchmark::Ineligibility {
        reason: crate::benchmark::Reason::PushPop,
        at: Some(crate::benchmark::At {
            line: 3,
            column: 1,
            head: "push".into(),
        }),
    }];
    let got = classify(&input(), &e, None, &[], "p", false);
    assert_eq!(
        (got.outcome, got.verdict.as_str()),
        (Outcome::Skipped, "incremental")
    );
    assert_eq!(
        got.details[1],
        "dir/b.smt2:3:1: 'push': incremental scripts are not in the track"
    );
    // Anything else that keeps a file from a core run fails.
    e.reasons[0].reason = crate::benchmark::Reason::NoCheckSat;
    let got = classify(&input(), &e, None, &[], "p", false);
    assert_eq!(
        (got.outcome, got.verdict.as_str()),
        (Outcome::Failed, "not-usable")
    );
}

#[test]
fn sat_without_a_status_is_judged_by_the_references() {
    let e = entry(None, 3);
    let r = run(Answer::Sat, None);
    let v = verdict("s", Verdict::SatAnswer, None, &[]);
    let got = classify_one(&e, &r, &v, &[], false);
    assert_eq!(
        (got.outcome, got.verdict.as_str()),
        (Outcome::Skipped, "sat-unconfirmed")
    );
    let sat = verdict("ref-z3", Verdict::SatAnswer, None, &[]);
    let got = classify_one(&e, &r, &v, &[&sat], false);
    assert_eq!(
        (got.outcome, got.verdict.as_str()),
        (Outcome::Passed, "sat-confirmed")
    );
    assert!(got.details[0].contains("z3 sat"), "{:?}", got.details);
    let core = verdict("ref-cvc5", Verdict::Validated, Some(2), &[]);
    let got = classify_one(&e, &r, &v, &[&sat, &core], false);
    assert_eq!(got.outcome, Outcome::Failed);
}

#[test]
fn a_cut_core_is_said_so_and_not_validated_cores_show_no_reduction() {
    let e = entry(Some("unsat"), 3);
    let mut r = run(Answer::Unsat, None);
    r.flags = vec!["unterminated".into(), "truncated".into()];
    r.stdout_dropped = 1000;
    let v = verdict("s", Verdict::UnsatNoCore, None, &[]);
    let got = classify_one(&e, &r, &v, &[], false);
    assert_eq!(
        (got.outcome, got.verdict.as_str()),
        (Outcome::Skipped, "truncated-output")
    );
    assert!(got.details[0].contains("--output-cap"), "{:?}", got.details);
    let r = run(Answer::Unsat, Some(&["a1"]));
    let v = verdict("s", Verdict::NotValidated, Some(1), &[]);
    assert_eq!(classify_one(&e, &r, &v, &[], false).reduction, None);
    let v = verdict(
        "s",
        Verdict::Validated,
        Some(1),
        &[("z3", CheckAnswer::Unsat)],
    );
    assert_eq!(classify_one(&e, &r, &v, &[], false).reduction, Some(2));
}
