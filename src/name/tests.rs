//! The rewrite on small scripts: exact output, policies, prefix clashes,
//! lexical traps; and `name_tree` on a temporary tree.

use super::*;
use crate::benchmark::Reason;
use crate::smtlib::scanner::commands;
use std::io::Cursor;

fn name_with(src: &str, opts: &NameOptions) -> (String, NameReport) {
    let mut out = Vec::new();
    let r = name_script(Cursor::new(src.as_bytes()), &mut out, opts).unwrap();
    (String::from_utf8(out).unwrap(), r)
}

fn name(src: &str) -> (String, NameReport) {
    name_with(src, &NameOptions::default())
}

fn opts(named: NamedPolicy) -> NameOptions {
    NameOptions {
        policy: Policy {
            named,
            ..Policy::default()
        },
        ..NameOptions::default()
    }
}

/// Every command of a named output passes the strict parser.
fn assert_lints(out: &str) {
    let errors = lint::lint_script(out.as_bytes(), 10);
    assert!(errors.is_empty(), "{errors:?}\n{out}");
}

const SRC: &str = "; header\n(set-info :smt-lib-version 2.6)\n(set-option :print-success true)\n\
(set-logic QF_LIA)\n(set-info :status unsat)\n(declare-fun x () Int)\n\
(assert (> x 0)) ; first\n(assert ; why\n  (< x 0)\n)\n(check-sat)\n(get-model)\n(exit)\n";

#[test]
fn names_every_assertion_and_keeps_the_rest() {
    let (out, r) = name(SRC);
    assert_eq!(
        out,
        "; header\n(set-info :smt-lib-version 2.6)\n\n\
(set-option :produce-unsat-cores true)\n(set-logic QF_LIA)\n(set-info :status unsat)\n\
(declare-fun x () Int)\n(assert (! (> x 0) :named cv1)) ; first\n\
(assert ; why\n  (! (< x 0) :named cv2)\n)\n(check-sat)\n(get-unsat-core)\n\n(exit)\n"
    );
    assert!(r.eligible(), "{:?}", r.reasons);
    assert_eq!(r.names(), vec!["cv1", "cv2"]);
    assert_eq!((r.prefix.as_str(), r.assertions), ("cv", 2));
    assert_eq!(r.info.size, SRC.len() as u64);
    assert_lints(&out);
}

#[test]
fn existing_get_unsat_core_is_not_duplicated() {
    let src = SRC.replace("(get-model)", "(get-unsat-core)");
    let (out, _) = name(&src);
    assert_eq!(out.matches("(get-unsat-core)").count(), 1);
    assert!(out.contains("(check-sat)\n(get-unsat-core)"));
}

#[test]
fn disturbing_commands_and_options_are_removed() {
    let src = SRC.replace(
        "(set-logic QF_LIA)",
        "(set-option :produce-models true)\n(set-option :produce-unsat-cores false)\n\
         (set-option :random-seed 7)\n(set-logic QF_LIA)",
    )
        + "(get-value (x))(echo \"x\")(get-info :reason-unknown)(get-proof)(get-assignment)";
    let (out, r) = name(&src);
    for gone in [
        "print-success",
        "produce-models",
        "unsat-cores false",
        "get-model",
        "get-value",
        "echo",
        "get-info",
        "get-proof",
        "get-assignment",
    ] {
        assert!(!out.contains(gone), "{gone} left in\n{out}");
    }
    assert!(out.contains(
        "(set-option :random-seed 7)\n(set-option :produce-unsat-cores true)\n(set-logic"
    ));
    assert!(r.eligible());
}

#[test]
fn option_goes_first_without_set_logic() {
    let (out, r) = name("(declare-fun p () Bool)(assert p)(assert (not p))(check-sat)");
    assert!(out.starts_with("(set-option :produce-unsat-cores true)\n(declare-fun"));
    assert_eq!(r.reasons[0].reason, Reason::NoLogic);
}

#[test]
fn lexical_traps_do_not_confuse_naming() {
    let src = "(set-logic QF_UF)(set-info :status unsat)\n\
(set-info :source |(assert p) :named q ( ; |)\n\
(declare-fun |assert (| () Bool)\n\
; (assert (! p :named c))\n\
(declare-fun s () String)\n\
(assert (= s \"(assert \"\" :named x ;\"))\n\
(assert |assert (|) (assert (not |assert (|))\n(check-sat)";
    let (out, r) = name(src);
    assert!(r.eligible(), "{:?}", r.reasons);
    assert_eq!(r.assertions, 3);
    assert_eq!(r.info.first_name, None);
    assert!(out.contains("(assert (! (= s \"(assert \"\" :named x ;\") :named cv1))"));
    assert!(
        out.contains("(assert (! |assert (| :named cv2)) (assert (! (not |assert (|) :named cv3))")
    );
    assert!(out.contains("; (assert (! p :named c))\n"));
    let cmds = commands(out.as_bytes()).unwrap();
    assert_eq!(cmds.iter().filter(|c| c.head() == "assert").count(), 3);
}

#[test]
fn names_do_not_clash_with_smtcomp_symbols() {
    // Regression: the official tool names assertions smtcomp1, smtcomp2, …
    // without looking at the file's own symbols.
    let src = "(set-logic QF_UF)\n(set-info :status unsat)\n(declare-fun smtcomp1 () Bool)\n\
               (declare-fun |cv1| () Bool)\n(assert smtcomp1)\n(assert (not smtcomp1))\n(check-sat)\n";
    let (out, r) = name(src);
    assert_eq!(r.prefix, "cv_");
    assert!(out.contains("(assert (! smtcomp1 :named cv_1))"));
    let official = NameOptions {
        prefix: Some("smtcomp".into()),
        ..NameOptions::default()
    };
    let err = name_script(Cursor::new(src.as_bytes()), Vec::new(), &official).unwrap_err();
    let msg = err.to_string();
    assert!(
        matches!(
            err,
            NameError::Clash {
                line: 3,
                column: 14,
                ..
            }
        ),
        "{msg}"
    );
    assert!(msg.contains("'smtcomp1' at line 3"), "{msg}");
    // Without a clash the official names are used.
    let fine = src.replace("smtcomp1", "p");
    let (out, r) = name_with(&fine, &official);
    assert_eq!(r.names(), vec!["smtcomp1", "smtcomp2"]);
    assert!(out.contains(":named smtcomp2"));
    let bad = NameOptions {
        prefix: Some("9x".into()),
        ..NameOptions::default()
    };
    assert!(matches!(
        name_script(Cursor::new(src.as_bytes()), Vec::new(), &bad),
        Err(NameError::BadPrefix { .. })
    ));
}

const NAMED: &str = "(set-logic QF_LIA)\n(set-info :status unsat)\n(declare-fun x () Int)\n\
(assert (! (> x 0) :named top))\n\
(assert (or (! (< x 0) :named inner) (! (= x 0) :pattern (x) :named both)))\n(check-sat)\n";

#[test]
fn skip_policy_reports_existing_names() {
    let (_, r) = name(NAMED);
    assert!(!r.eligible());
    assert_eq!(
        r.reasons[0].reason,
        Reason::ExistingNames { name: "top".into() }
    );
    assert_eq!(r.nested_names, vec!["top", "inner", "both"]);
}

#[test]
fn strip_policy_removes_names() {
    let (out, r) = name_with(NAMED, &opts(NamedPolicy::Strip));
    assert!(r.eligible(), "{:?}", r.reasons);
    assert!(out.contains("(assert (! (> x 0) :named cv1))"), "{out}");
    assert!(
        out.contains("(assert (! (or (< x 0) (! (= x 0) :pattern (x))) :named cv2))"),
        "{out}"
    );
    assert!(r.nested_names.is_empty());
    assert!(r.kept.is_empty());
    assert_lints(&out);
}

#[test]
fn strip_policy_refuses_names_used_elsewhere() {
    let src = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/benchmarks/edge/QF_LIA/cvc5-regress-misc/named-expr-use.smt2"
    ))
    .unwrap();
    let (_, r) = name_with(&src, &opts(NamedPolicy::Strip));
    assert_eq!(r.reasons.len(), 1);
    assert_eq!(
        r.reasons[0].reason,
        Reason::NameUsedInTerm { name: "foo".into() }
    );
    assert_eq!(r.reasons[0].at.as_ref().unwrap().line, 9);
}

#[test]
fn keep_policy_keeps_top_level_and_nested_names() {
    let (out, r) = name_with(NAMED, &opts(NamedPolicy::Keep));
    assert!(r.eligible(), "{:?}", r.reasons);
    assert!(out.contains("\n(assert (! (> x 0) :named top))\n"));
    assert!(out.contains("(assert (! (or (! (< x 0) :named inner)"));
    assert!(out.contains(":named both)) :named cv2))"));
    assert_eq!(r.names(), vec!["top", "cv2"]);
    assert_eq!(r.kept, vec![(1, "top".to_string())]);
    assert_eq!(r.nested_names, vec!["inner", "both"]);
    assert_lints(&out);
}

#[test]
fn strict_mode_marks_unparsable_commands() {
    let src = SRC.replace("(assert (> x 0))", "(assert (> x 0) x)");
    let (_, r) = name(&src);
    assert!(r.eligible(), "the scanner alone accepts it");
    let strict = NameOptions {
        strict: true,
        ..NameOptions::default()
    };
    let (_, r) = name_with(&src, &strict);
    assert!(r.info.is_malformed());
    assert_eq!(r.reasons[0].at.as_ref().unwrap().line, 7);
}

#[test]
fn malformed_input_is_reported_not_an_error() {
    let (_, r) = name("(set-logic QF_LIA)\n(assert (> x 0)\n");
    assert!(r.info.is_malformed());
    assert!(!r.eligible());
}

#[test]
fn giant_single_assert_streams() {
    let depth = 200_000;
    let src = format!(
        "(set-logic QF_UF)(set-info :status unsat)(declare-fun p () Bool)\
         (assert {}p{})(assert (not p))(check-sat)",
        "(not (not ".repeat(depth),
        "))".repeat(depth)
    );
    let (out, r) = name(&src);
    assert!(r.eligible());
    assert_eq!(
        out.len(),
        src.len()
            + 2 * "(! ".len()
            + 2 * " :named cvN)".len()
            + "(set-option :produce-unsat-cores true)\n".len()
            + "\n(get-unsat-core)".len()
    );
}

/// `name_file` on a source file, into a fresh file; the output's text.
fn name_file_text(src: &str, opts: &NameOptions) -> (Result<NameReport, NameError>, String) {
    let dir = tempfile::tempdir().unwrap();
    let (i, o) = (dir.path().join("in.smt2"), dir.path().join("out.smt2"));
    std::fs::write(&i, src).unwrap();
    let mut input = std::fs::File::open(&i).unwrap();
    let mut output = std::fs::File::options()
        .create(true)
        .truncate(true)
        .read(true)
        .write(true)
        .open(&o)
        .unwrap();
    let r = name_file(&mut input, &mut output, opts);
    drop(output);
    (r, std::fs::read_to_string(&o).unwrap())
}

#[test]
fn one_pass_file_naming_matches_the_two_pass_rewrite() {
    // No clash: one pass. A clash late in the file (after names were
    // written with `cv`): started over with the prefix chosen first, and
    // nothing of the first attempt is left in the output.
    let late_clash = format!("{SRC}; cv7 at the end\n");
    for src in [SRC.to_string(), late_clash] {
        let (one, out1) = name_file_text(&src, &NameOptions::default());
        let (out2, two) = name(&src);
        let mut one = one.unwrap();
        // Hashed as written, in both passes: the hash of the output's bytes.
        let hash = one.output_hash.take();
        assert_eq!(
            hash,
            Some(blake3::hash(out1.as_bytes()).to_hex().to_string())
        );
        assert_eq!(one, two);
        assert_eq!(out1, out2);
    }
    let (r, _) = name_file_text(&format!("{SRC}; cv7\n"), &NameOptions::default());
    assert_eq!(r.unwrap().prefix, "cv_");
    let official = NameOptions {
        prefix: Some("smtcomp".into()),
        ..NameOptions::default()
    };
    let (r, _) = name_file_text(&SRC.replace("; first", "; smtcomp2"), &official);
    assert!(matches!(r, Err(NameError::Clash { line: 7, .. })), "{r:?}");
}

#[test]
fn labels_count_like_numbers() {
    let mut l = Labels::new(b"cv");
    for n in (1..=2000).chain([5000, 5001, 9999, 10000, 10001, 7, 8]) {
        assert_eq!(l.label(n), format!(" :named cv{n})").as_bytes(), "{n}");
    }
    // Written into a buffer (the fast path's writer), mixed with the
    // above, long prefixes, and across every number of digits.
    let mut buf = [0u8; 200];
    let near = |p: u32| [10usize.pow(p) - 1, 10usize.pow(p), 10usize.pow(p) + 1];
    let ns: Vec<usize> = (1..=120_000).chain((1..=12).flat_map(near)).collect();
    for prefix in ["cv", "cv_x", "a_rather_long_prefix_for_names"] {
        let mut l = Labels::new(prefix.as_bytes());
        for (i, &n) in ns.iter().enumerate() {
            let want = format!(" :named {prefix}{n})");
            let got = match i % 7 {
                0 => l.label(n).to_vec(),
                _ => {
                    let k = l.write(n, &mut buf);
                    buf[..k].to_vec()
                }
            };
            assert_eq!(got, want.as_bytes(), "{prefix} {n}");
        }
    }
}

#[test]
fn incremental_scripts_ask_for_every_core_and_assumption_set() {
    let src = "(set-option :produce-unsat-assumptions true)\n(set-logic QF_LIA)\n\
(set-info :status unsat)\n(declare-fun x () Int)\n(declare-fun p () Bool)\n(assert (> x 0))\n(push 1)\n(assert (< x 0))\n\
(check-sat)\n(get-unsat-core)\n(pop 1)\n(check-sat-assuming (p))\n(get-unsat-assumptions)\n(exit)\n";
    let opts = NameOptions {
        policy: Policy {
            incremental: true,
            ..Policy::default()
        },
        ..NameOptions::default()
    };
    let (out, r) = name_with(src, &opts);
    assert!(r.eligible(), "{:?}", r.reasons);
    assert!(r.info.incremental);
    assert_eq!(
        out,
        "\n(set-option :produce-unsat-cores true)\n\
(set-option :produce-unsat-assumptions true)\n(set-logic QF_LIA)\n\
(set-info :status unsat)\n(declare-fun x () Int)\n(declare-fun p () Bool)\n(assert (! (> x 0) :named cv1))\n(push 1)\n\
(assert (! (< x 0) :named cv2))\n(check-sat)\n(get-unsat-core)\n\n(pop 1)\n\
(check-sat-assuming (p))\n(get-unsat-assumptions)\n\n(exit)\n"
    );
    // The same through the one-pass file path.
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.smt2"), dir.path().join("b.smt2"));
    std::fs::write(&a, src).unwrap();
    let mut input = std::fs::File::open(&a).unwrap();
    let mut output = std::fs::File::create(&b).unwrap();
    name_file(&mut input, &mut output, &opts).unwrap();
    assert_eq!(std::fs::read_to_string(&b).unwrap(), out);
    // Without the option the script stays ineligible.
    assert!(!name(src).1.eligible());
}

#[test]
fn a_resumed_tree_takes_its_entries_and_forgetting_keeps_the_counts() {
    use super::folder::{name_tree, TreeOptions};
    use crate::campaign::ledger::index::Outcome;
    let root = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    let unsat = "(set-info :status unsat)\n(set-logic QF_UF)\n(declare-const a Bool)\n\
                 (assert a)\n(assert (not a))\n(check-sat)\n";
    std::fs::write(root.path().join("a.smt2"), unsat).unwrap();
    std::fs::write(root.path().join("b.smt2"), unsat).unwrap();
    std::fs::write(root.path().join("bad.smt2"), "(assert (and a\n").unwrap();
    let first = name_tree(root.path(), out.path(), &TreeOptions::default()).unwrap();
    assert_eq!((first.count(Outcome::Named), first.resumed), (2, 0));
    // Again: every entry comes from the index (taken, not copied).
    let mut again = name_tree(root.path(), out.path(), &TreeOptions::default()).unwrap();
    assert_eq!(again.resumed, 3);
    assert_eq!(
        again.entries.iter().map(|e| &e.id).collect::<Vec<_>>(),
        first.entries.iter().map(|e| &e.id).collect::<Vec<_>>()
    );
    assert_eq!(again.entries, first.entries);
    let (line, failures) = (again.line(), again.has_failures());
    assert!(
        line.starts_with("3 files: 2 named, 0 ineligible, 1 malformed"),
        "{line}"
    );
    again.forget_named();
    assert_eq!(again.entries.len(), 1);
    assert_eq!(
        (
            again.line(),
            again.has_failures(),
            again.count(Outcome::Named)
        ),
        (line, failures, 2)
    );
}
