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

#[test]
fn errors_of_silent_commands_are_their_replies() {
    // z3 on cvc5-only options: one `(error …)` per option, naming its line.
    let mut cmds = vec![
        parse_cmd("(set-logic QF_UF)", 1),
        parse_cmd("(set-option :produce-unsat-cores true)", 2),
        parse_cmd("(set-option :unsat-cores-mode assumptions)", 3),
        parse_cmd("(set-option :check-unsat-cores true)", 4),
        parse_cmd("(declare-fun p () Bool)", 5),
        parse_cmd("(assert (! p :named a1))", 6),
        parse_cmd("(assert (! (not p) :named a2))", 7),
        parse_cmd("(check-sat)", 8),
        parse_cmd("(get-unsat-core)", 9),
    ];
    let z3 = "(error \"line 3 column 30: unknown parameter 'unsat_cores_mode'\nLegal parameters are:\")\n\
        (error \"line 4 column 31: unknown parameter 'check_unsat_cores'\")\nunsat\n(a1 a2)\n";
    let m = judge(&cmds, &parse_all(z3).unwrap());
    assert!(m.faults.is_empty() && m.cut_at.is_none(), "{m:?}");
    assert_eq!(m.replies.len(), 2, "{m:?}");
    assert!(
        m.replies[0]
            .starts_with("line 3: (set-option :unsat-cores-mode assumptions) answered (error"),
        "{m:?}"
    );
    let Check::Script(s) = &m.queries[0].check else {
        panic!("{m:?}")
    };
    // Only SMT-LIB options a checker must accept stay in the check script.
    assert!(!s.contains("set-option"), "{s}");
    // yices: `unsupported` to an option, no line in its errors.
    cmds[2] = parse_cmd("(set-option :unsat-cores-mode assumptions)", 3);
    let yices = "unsupported\n(error \"option can't be set now\")\nunsat\n(a1 a2)\n";
    let m = judge(&cmds, &parse_all(yices).unwrap());
    assert!(m.faults.is_empty() && m.replies.len() == 2, "{m:?}");
    // An error naming another line is not this command's: left over.
    let other = "(error \"line 40 column 1: x\")\nunsat\n(a1 a2)\n";
    let m = judge(&cmds, &parse_all(other).unwrap());
    assert!(!m.faults.is_empty(), "{m:?}");
}

#[test]
fn a_core_after_assumptions_is_relative_to_them() {
    let cmds = vec![
        parse_cmd("(set-logic QF_UF)", 1),
        parse_cmd("(declare-fun p () Bool)", 2),
        parse_cmd("(declare-fun q () Bool)", 3),
        parse_cmd("(assert (! (or p q) :named a1))", 4),
        parse_cmd("(assert (! (not p) :named a2))", 5),
        parse_cmd("(check-sat-assuming ((not q)))", 6),
        parse_cmd("(get-unsat-core)", 7),
    ];
    // z3 lists the assumption as its term; cvc5 leaves it out.
    for out in ["unsat\n(a1 a2 (not q))\n", "unsat\n(a2 a1)\n"] {
        let m = judge(&cmds, &parse_all(out).unwrap());
        let Check::Script(s) = &m.queries[0].check else {
            panic!("{m:?}")
        };
        assert!(s.contains("(assert (not q))"), "{out}: {s}");
        let noted = m.queries[0]
            .notes
            .iter()
            .any(|n| n.contains(ASSUMPTIONS_KEPT));
        assert_eq!(noted, !out.contains("(not q)"), "{out}: {m:?}");
    }
}
