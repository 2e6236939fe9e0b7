//! Matching answers to an incremental script, on z3's and cvc5's real
//! output shapes and on the faults reported against solvers.

use super::super::parse_cmd;
use super::super::sexp::parse_all;
use super::*;

const SCRIPT: &str = "(set-option :produce-unsat-cores true)
(set-logic QF_LIA)
(declare-const x Int)
(declare-const p Bool)
(declare-const q Bool)
(define-fun pbig () Bool (> x 10))
(assert (! (=> p (> x 5)) :named ap))
(assert (! (=> q (< x 3)) :named aq))
(check-sat-assuming (pbig q))
(get-unsat-assumptions)
(push 1)
(assert (! (< x 0) :named neg))
(assert (! (> x 0) :named pos))
(check-sat)
(get-unsat-core)
(pop 1)
(check-sat)
(get-model)";

fn script() -> Vec<Cmd> {
    let mut line = 0;
    SCRIPT
        .lines()
        .map(|l| {
            line += 1;
            parse_cmd(l, line)
        })
        .collect()
}

fn judged(output: &str) -> Matched {
    judge(&script(), &parse_all(output).unwrap())
}

#[test]
fn z3_conventions_are_accepted_and_noted() {
    let m = judged("unsat\n((> x 10) q aq)\nunsat\n(neg pos)\nsat\n(model)\n");
    assert!(m.faults.is_empty() && m.cut_at.is_none(), "{m:?}");
    assert_eq!(m.queries.len(), 2);
    let Check::Script(s) = &m.queries[0].check else {
        panic!("{m:?}")
    };
    // Every assertion in scope kept, the assumptions asserted, output
    // options dropped.
    assert!(s.contains(":named ap") && s.contains(":named aq"), "{s}");
    assert!(
        s.ends_with("(assert pbig)\n(assert q)\n(check-sat)\n(exit)\n"),
        "{s}"
    );
    assert!(!s.contains("produce-unsat-cores"), "{s}");
    let notes = m.queries[0].notes.join("\n");
    assert!(
        notes.contains("(> x 10) read as the assumption pbig"),
        "{notes}"
    );
    assert!(notes.contains("aq is an assertion's name"), "{notes}");
    let Check::Script(core) = &m.queries[1].check else {
        panic!("{m:?}")
    };
    // The core keeps its names only (ap and aq are outside it).
    assert!(
        core.contains(":named neg") && !core.contains(":named ap"),
        "{core}"
    );
    assert!(!core.contains("push"), "{core}");
}

#[test]
fn a_name_from_a_popped_scope_is_ill_formed() {
    let mut cmds = script();
    cmds.push(parse_cmd("(assert (! (< x 5) :named small))", 19));
    cmds.push(parse_cmd("(check-sat)", 20));
    cmds.push(parse_cmd("(get-unsat-core)", 21));
    let out =
        parse_all("unsat\n(pbig q)\nunsat\n(neg pos)\nsat\n(model)\nunsat\n(neg small)").unwrap();
    let m = judge(&cmds, &out);
    assert!(
        matches!(m.queries[2].check, Check::IllFormed("popped-scope", _)),
        "{m:?}"
    );
    let out = parse_all("unsat\n(pbig q)\nunsat\n(neg pos)\nsat\n(model)\nunsat\n(nope)").unwrap();
    let m = judge(&cmds, &out);
    assert!(
        matches!(m.queries[2].check, Check::IllFormed("unknown-name", _)),
        "{m:?}"
    );
}

#[test]
fn non_assumptions_missing_cores_and_cut_output() {
    let m = judged("unsat\n(p)\nunsat\n(error \"no core\")\n");
    assert!(
        matches!(m.queries[0].check, Check::IllFormed("not-an-assumption", _)),
        "{m:?}"
    );
    assert!(matches!(m.queries[1].check, Check::Missing(_)), "{m:?}");
    assert_eq!(m.cut_at, Some(17));
    let m = judged("unsat\n()\nunsat\n(neg pos)\nsat\n(model)\nsat\n");
    assert_eq!(m.faults.len(), 1, "{m:?}");
    // `()`: nothing assumed, the assertions alone must be unsat.
    let Check::Script(s) = &m.queries[0].check else {
        panic!("{m:?}")
    };
    assert!(s.ends_with(":named aq))\n(check-sat)\n(exit)\n"), "{s}");
    let m = judged("success\nunsat\n(q pbig)\nfoo\n");
    assert!(
        m.faults
            .iter()
            .any(|f| f.contains("check-sat answered foo")),
        "{m:?}"
    );
}

#[test]
fn scripts_needing_the_incremental_check() {
    assert!(is_incremental(&script()));
    let single = vec![parse_cmd("(assert true)", 1), parse_cmd("(check-sat)", 2)];
    assert!(!is_incremental(&single));
}
