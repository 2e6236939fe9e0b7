//! Discovery, families, and every eligibility reason.

use super::*;
use crate::smtlib::scanner::Scanner;

fn info_of(src: &str) -> BenchmarkInfo {
    let mut sc = Scanner::new(src.as_bytes());
    let mut a = Analyzer::new();
    loop {
        match sc.next_command() {
            Ok(Some(c)) => {
                a.observe(&c);
            }
            Ok(None) => break,
            Err(e) => {
                a.scan_error(&e);
                break;
            }
        }
    }
    a.finish(Path::new("t.smt2"), src.len() as u64)
}

fn reasons(src: &str, policy: &Policy) -> Vec<Ineligibility> {
    info_of(src).ineligibility(policy)
}

fn kinds(src: &str, policy: &Policy) -> Vec<Reason> {
    reasons(src, policy).into_iter().map(|r| r.reason).collect()
}

const GOOD: &str = "(set-info :smt-lib-version 2.6)\n(set-logic QF_LIA)\n\
    (set-info :status unsat)\n(declare-fun x () Int)\n\
    (assert (> x 0))\n(assert (< x 0))\n(check-sat)\n(exit)\n";

fn with(extra_before_check: &str) -> String {
    GOOD.replace("(check-sat)", &format!("{extra_before_check}\n(check-sat)"))
}

#[test]
fn a_track_benchmark_is_eligible() {
    let i = info_of(GOOD);
    assert_eq!(i.logic.as_deref(), Some("QF_LIA"));
    assert_eq!(i.status.as_deref(), Some("unsat"));
    assert_eq!((i.assertions, i.check_sats), (2, 1));
    assert_eq!(i.ineligibility(&Policy::default()), vec![]);
}

#[test]
fn malformed_reports_line_and_column() {
    let r = reasons("(set-logic QF_LIA)\n(assert (> x 0)\n", &Policy::default());
    assert_eq!(r.len(), 1);
    assert!(r[0].reason.is_malformed());
    let at = r[0].at.as_ref().unwrap();
    assert_eq!((at.line, at.column), (2, 1));
    assert!(r[0]
        .in_file(Path::new("b.smt2"))
        .starts_with("b.smt2:2:1: malformed: unbalanced"));
    let r = kinds(
        "(set-logic QF_LIA)\n(assert)\n(check-sat)",
        &Policy::default(),
    );
    assert!(matches!(&r[0], Reason::Malformed { message } if message.contains("without a term")));
}

#[test]
fn status_reasons() {
    let p = Policy::default();
    let sat = GOOD.replace(":status unsat", ":status sat");
    assert_eq!(
        kinds(&sat, &p),
        vec![Reason::StatusNotUnsat {
            status: "sat".into()
        }]
    );
    let unknown = GOOD.replace(":status unsat", ":status |unknown|");
    assert_eq!(
        kinds(&unknown, &p),
        vec![Reason::StatusNotUnsat {
            status: "unknown".into()
        }]
    );
    let none = GOOD.replace("(set-info :status unsat)", "; EXPECT: unsat");
    assert_eq!(kinds(&none, &p), vec![Reason::NoStatus]);
    let lenient = Policy {
        allow_no_status: true,
        ..Policy::default()
    };
    assert_eq!(kinds(&none, &lenient), vec![]);
}

#[test]
fn check_sat_count_reasons() {
    let p = Policy::default();
    assert_eq!(
        kinds(&GOOD.replace("(check-sat)", ""), &p),
        vec![Reason::NoCheckSat]
    );
    let three = GOOD.replace("(check-sat)", "(check-sat)\n(check-sat)\n(check-sat)");
    let r = reasons(&three, &p);
    assert_eq!(r.len(), 1);
    assert_eq!(r[0].reason, Reason::SeveralCheckSat { count: 3 });
    assert_eq!(r[0].at.as_ref().unwrap().line, 8, "the second check-sat");
}

#[test]
fn incremental_and_reset_commands() {
    let p = Policy::default();
    let r = reasons(&with("(push 1)\n(pop 1)"), &p);
    assert_eq!(r.len(), 2);
    assert_eq!(r[0].reason, Reason::PushPop);
    assert_eq!(r[0].at.as_ref().unwrap().head, "push");
    assert_eq!(r[1].at.as_ref().unwrap().head, "pop");
    assert_eq!(
        kinds(&GOOD.replace("(check-sat)", "(check-sat-assuming (p))"), &p),
        vec![Reason::CheckSatAssuming, Reason::NoCheckSat]
    );
    assert_eq!(kinds(&with("(reset-assertions)"), &p), vec![Reason::Reset]);
    assert_eq!(kinds(&with("(reset)"), &p), vec![Reason::Reset]);
}

#[test]
fn commands_outside_the_track() {
    let p = Policy::default();
    let r = reasons(&with("(define-const c Int 3)"), &p);
    assert_eq!(r.len(), 1);
    assert_eq!(r[0].reason, Reason::NotAllowed);
    assert_eq!(r[0].at.as_ref().unwrap().head, "define-const");
    assert!(r[0].to_string().contains("'define-const'"));
    assert_eq!(kinds(&with("(frobnicate)"), &p), vec![Reason::NotAllowed]);
    let r = kinds(&with("((x))"), &p);
    assert!(matches!(&r[0], Reason::Malformed { .. }));
    // Output requests are allowed: naming removes them.
    let removed = "(get-model)(get-value (x))(get-info :name)(echo \"hi\")(get-proof)\
                   (get-assignment)(get-option :x)(get-assertions)(get-unsat-core)";
    assert_eq!(kinds(&with(removed), &p), vec![]);
    assert_eq!(
        kinds(&GOOD.replace("(exit)", "(assert (= x 1))"), &p),
        vec![Reason::AssertAfterCheckSat]
    );
}

#[test]
fn logic_reasons() {
    let p = Policy::default();
    assert_eq!(
        kinds(&GOOD.replace("(set-logic QF_LIA)", ""), &p),
        vec![Reason::NoLogic]
    );
    assert_eq!(
        kinds(&with("(set-logic QF_LRA)"), &p),
        vec![Reason::SetLogicTwice]
    );
}

#[test]
fn minimum_assertions_is_a_setting() {
    let one = GOOD.replace("(assert (< x 0))", "");
    assert_eq!(
        kinds(&one, &Policy::default()),
        vec![Reason::TooFewAssertions { found: 1, min: 2 }]
    );
    let old = Policy {
        min_assertions: 1,
        ..Policy::default()
    };
    assert_eq!(kinds(&one, &old), vec![]);
}

const NAMED: &str = "(set-logic QF_LIA)\n(set-info :status unsat)\n(declare-fun x () Int)\n\
    (assert (! (> x 0) :named top))\n(assert (or (! (< x 0) :named inner) false))\n(check-sat)\n";

fn policy(named: NamedPolicy) -> Policy {
    Policy {
        named,
        ..Policy::default()
    }
}

#[test]
fn existing_names_by_policy() {
    let i = info_of(NAMED);
    assert_eq!(i.top_level_names, vec![(1, "top".to_string())]);
    assert_eq!(i.nested_names, vec!["inner".to_string()]);
    let r = i.ineligibility(&policy(NamedPolicy::Skip));
    assert_eq!(r.len(), 1);
    assert_eq!(r[0].reason, Reason::ExistingNames { name: "top".into() });
    let at = r[0].at.as_ref().unwrap();
    assert_eq!((at.line, at.column), (4, 20));
    assert_eq!(i.ineligibility(&policy(NamedPolicy::Strip)), vec![]);
    assert_eq!(i.ineligibility(&policy(NamedPolicy::Keep)), vec![]);
}

#[test]
fn a_name_used_later_cannot_be_stripped() {
    let src = NAMED.replace("(check-sat)", "(assert (=> |inner| top))\n(check-sat)");
    let r = reasons(&src, &policy(NamedPolicy::Strip));
    let names: Vec<_> = r.iter().map(|r| r.reason.clone()).collect();
    assert_eq!(
        names,
        vec![
            Reason::NameUsedInTerm {
                name: "inner".into()
            },
            Reason::NameUsedInTerm { name: "top".into() }
        ]
    );
    assert_eq!(r[0].at.as_ref().unwrap().line, 6);
    assert_eq!(reasons(&src, &policy(NamedPolicy::Keep)), vec![]);
}

#[test]
fn a_name_used_in_its_own_command_cannot_be_stripped() {
    let src = "(set-logic QF_UF)(set-info :status unsat)(declare-fun f (Bool) Bool)(declare-fun p () Bool)\
               (assert (and (! p :named a) (f a)))(assert p)(check-sat)";
    assert_eq!(
        kinds(src, &policy(NamedPolicy::Strip)),
        vec![Reason::NameUsedInTerm { name: "a".into() }]
    );
}

#[test]
fn named_in_comments_strings_and_symbols_is_not_a_name() {
    let src = GOOD.replace(
        "(assert (> x 0))",
        "(assert (> x 0)) ; (! x :named c)\n(set-info :notes \"(! x :named s)\")\n\
         (declare-fun |:named q| () Int)\n(assert (= |:named q| x))",
    );
    let i = info_of(&src);
    assert_eq!(i.first_name, None);
    assert_eq!(i.assertions, 3);
    assert_eq!(i.ineligibility(&Policy::default()), vec![]);
}

#[test]
fn analyze_reads_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("a.smt2");
    std::fs::write(&p, GOOD).unwrap();
    let i = analyze(&p).unwrap();
    assert_eq!(i.size, GOOD.len() as u64);
    assert_eq!(i.assertions, 2);
    assert!(analyze(&dir.path().join("missing.smt2")).is_err());
}

#[test]
fn families_of_ids() {
    let f = Families::of("QF_LIA/fam/sub/x.smt2", Some("QF_LIA"));
    assert_eq!(f.get(Family::FirstFolder), "fam");
    assert_eq!(f.get(Family::Directory), "QF_LIA/fam/sub");
    let f = Families::of("large/QF_LIA/pb2010/x.smt2", Some("QF_LIA"));
    assert_eq!(
        (f.first_folder.as_str(), f.directory.as_str()),
        ("pb2010", "large/QF_LIA/pb2010")
    );
    // The root is the logic folder, or there is no logic folder.
    assert_eq!(
        Families::of("fam/sub/x.smt2", Some("QF_LIA")).first_folder,
        "fam"
    );
    assert_eq!(Families::of("fam/x.smt2", None).first_folder, "fam");
    // Directly in the logic folder, or in the root.
    assert_eq!(
        Families::of("QF_LIA/x.smt2", Some("QF_LIA")).first_folder,
        "."
    );
    let f = Families::of("x.smt2", Some("QF_LIA"));
    assert_eq!((f.first_folder.as_str(), f.directory.as_str()), (".", "."));
}

#[test]
fn discovery_is_sorted_and_stays_in_the_root() {
    use std::os::unix::fs::symlink;
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("o.smt2"), GOOD).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for p in [
        "QF_LIA/b/2.smt2",
        "QF_LIA/b/10.smt2",
        "QF_LIA/a/x.smt2",
        "UF/z.smt2",
    ] {
        std::fs::create_dir_all(root.join(p).parent().unwrap()).unwrap();
        std::fs::write(root.join(p), GOOD).unwrap();
    }
    std::fs::write(root.join("QF_LIA/a/notes.txt"), "x").unwrap();
    symlink(outside.path(), root.join("QF_LIA/out")).unwrap();
    symlink(root.join("QF_LIA"), root.join("QF_LIA/a/loop")).unwrap();
    symlink(root.join("UF"), root.join("UF2")).unwrap();
    symlink(outside.path().join("o.smt2"), root.join("UF/link.smt2")).unwrap();
    let d = discover(root).unwrap();
    let ids: Vec<_> = d.files.iter().map(|f| f.id.as_str()).collect();
    assert_eq!(
        ids,
        vec![
            "QF_LIA/a/x.smt2",
            "QF_LIA/b/10.smt2",
            "QF_LIA/b/2.smt2",
            "UF/link.smt2",
            "UF/z.smt2",
            "UF2/link.smt2",
            "UF2/z.smt2"
        ]
    );
    let mut skipped: Vec<_> = d
        .skipped
        .iter()
        .map(|(p, _)| p.strip_prefix(root).unwrap().to_owned())
        .collect();
    skipped.sort();
    assert_eq!(
        skipped,
        vec![PathBuf::from("QF_LIA/a/loop"), PathBuf::from("QF_LIA/out")]
    );
    // A file root is its own benchmark.
    let one = discover(&root.join("UF/z.smt2")).unwrap();
    assert_eq!(one.files[0].id, "z.smt2");
}

#[test]
fn incremental_scripts_are_eligible_only_when_asked() {
    let script = "(set-logic QF_LIA)\n(set-info :status sat)\n(declare-fun x () Int)\n\
        (assert (> x 0))\n(push 1)\n(assert (< x 0))\n(set-info :status unsat)\n(check-sat)\n\
        (pop 1)\n(check-sat-assuming ((< x 0)))\n(check-sat)\n";
    let default = kinds(script, &Policy::default());
    assert!(default.contains(&Reason::PushPop), "{default:?}");
    assert!(default.contains(&Reason::CheckSatAssuming), "{default:?}");
    let asked = Policy {
        incremental: true,
        ..Policy::default()
    };
    assert_eq!(kinds(script, &asked), vec![]);
    assert!(info_of(script).incremental);
    // Only assumptions: no check-sat is needed.
    let assuming = "(set-logic QF_LIA)\n(set-info :status unsat)\n(declare-fun x () Int)\n\
        (assert (> x 0))\n(assert (> x 1))\n(check-sat-assuming ((< x 0)))\n";
    assert_eq!(kinds(assuming, &asked), vec![]);
    // Resets stay out: they would drop the options coreval sets.
    let reset = format!("{script}(reset)\n");
    assert_eq!(kinds(&reset, &asked), vec![Reason::Reset]);
    // A single-query script is what it was.
    assert_eq!(kinds(GOOD, &asked), vec![]);
    assert!(!info_of(GOOD).incremental);
}
