//! Answer parser: on any bytes it never panics and its result is
//! consistent (a core only after `unsat`, names in normal form, flags once
//! each, bounded garbage); on a generated solver transcript — acknowledgements,
//! warnings, `unsat`, a core printed in one of the solvers' layouts with
//! names quoted by the SMT-LIB rule — it returns exactly the names printed.

use super::gen::Source;
use coreval::answer::{
    core_issue_details, core_issues, parse_output, Answer, OutputFlag, GARBAGE_KEPT,
    GARBAGE_LINE_CHARS,
};
use coreval::smtlib::symbol::{normalize, quote};
use std::collections::HashSet;

/// Invariants of `parse_output` on arbitrary bytes.
pub fn check_raw(data: &[u8]) {
    let p = parse_output(data);
    if let Some(core) = &p.core {
        assert_eq!(p.answer, Answer::Unsat, "a core without unsat: {p:?}");
        for n in core {
            assert!(!n.contains('|'), "core name {n:?} is not a normal form");
            assert_eq!(normalize(n), n);
        }
    }
    match p.answer {
        Answer::Error => assert!(!p.errors.is_empty()),
        Answer::NoAnswer => assert!(p.errors.is_empty()),
        _ => {}
    }
    let mut seen = HashSet::new();
    for f in &p.flags {
        assert!(seen.insert(*f), "flag {f:?} twice");
        assert!(p.has(*f));
    }
    assert_eq!(
        p.has(OutputFlag::InvalidUtf8),
        std::str::from_utf8(data).is_err()
    );
    assert_eq!(p.has(OutputFlag::GarbageLines), !p.garbage.is_empty());
    assert!(p.garbage.len() <= GARBAGE_KEPT);
    for g in &p.garbage {
        assert!(g.chars().count() <= GARBAGE_LINE_CHARS);
    }
    if !p.errors.is_empty() {
        assert!(
            p.has(OutputFlag::ErrorBeforeAnswer) || p.has(OutputFlag::ErrorAfterAnswer),
            "errors without a flag: {p:?}"
        );
    }
    assert_eq!(parse_output(data), p, "not deterministic");

    // Core well-formedness on the parsed core against sets taken from it.
    if let Some(core) = &p.core {
        let top: HashSet<String> = core.iter().step_by(2).cloned().collect();
        let nested: HashSet<String> = core.iter().skip(1).step_by(3).cloned().collect();
        let details = core_issue_details(core, &top, &nested);
        for i in &details {
            assert!(core.contains(&i.name));
        }
        let reasons = core_issues(core, &top, &nested);
        let mut uniq = reasons.clone();
        uniq.dedup();
        assert_eq!(uniq, reasons);
    }
}

/// A symbol name: simple, or anything printable between bars.
fn name(src: &mut Source) -> String {
    const SIMPLE: &[u8] = b"abcxyzAZ019~!@$%^&*_-+=<>.?/";
    const ANY: &[&str] = &[
        "a", "b", " ", "\n", "\t", "(", ")", "\"", ";", ":", "#", "0", "é", "∀", "cv", "sat",
        "unsat", "error", "\r", "'",
    ];
    let len = src.below(8);
    if src.chance(160) {
        let mut s = String::new();
        for _ in 0..len.max(1) {
            s.push(src.pick(SIMPLE) as char);
        }
        s
    } else {
        (0..len).map(|_| src.pick(ANY)).collect()
    }
}

/// Print `names` the way one of the solvers lays out a core.
fn layout(src: &mut Source, names: &[String]) -> String {
    let printed: Vec<String> = names
        .iter()
        .map(|n| {
            if src.chance(40) {
                format!("|{n}|")
            } else {
                quote(n).into_owned()
            }
        })
        .collect();
    match src.below(4) {
        // z3: one line.
        0 => format!("({})\n", printed.join(" ")),
        // cvc5, cvc4: one name per line.
        1 => format!("(\n{}\n)\n", printed.join("\n")),
        // bitwuzla: a space after the parenthesis.
        2 => format!("( {})\n", printed.join(" ")),
        // yices: wrapped.
        _ => {
            let mut s = String::from("(");
            for (i, p) in printed.iter().enumerate() {
                if i > 0 {
                    s.push_str(if i % 3 == 0 { "\n " } else { " " });
                }
                s.push_str(p);
            }
            s.push_str(")\n");
            s
        }
    }
}

/// A solver transcript with a known core; the parser must return it.
pub fn check_generated(data: &[u8]) {
    let mut src = Source::new(data);
    let mut out = String::new();
    for _ in 0..src.below(4) {
        out.push_str(src.pick(&[
            "success\n",
            "unsupported\n",
            "[btorsmt2] WARNING option x ignored\n",
            "; a comment (\n",
        ]));
    }
    out.push_str(if src.chance(128) {
        "unsat\n"
    } else {
        "unsat \r\n"
    });
    let names: Vec<String> = (0..src.below(12)).map(|_| name(&mut src)).collect();
    out.push_str(&layout(&mut src, &names));
    for _ in 0..src.below(3) {
        out.push_str(src.pick(&["success\n", "(:reason-unknown \"x\")\n", "\n"]));
    }
    let p = parse_output(out.as_bytes());
    assert_eq!(p.answer, Answer::Unsat, "{out:?}");
    assert_eq!(p.core.as_ref(), Some(&names), "{out:?}");
    assert!(p.errors.is_empty() && p.flags.is_empty(), "{out:?} → {p:?}");
    check_raw(out.as_bytes());
}

pub fn check(data: &[u8]) {
    check_raw(data);
    check_generated(data);
}
