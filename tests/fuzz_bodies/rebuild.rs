//! Core rebuild. A generated named benchmark (declarations, options,
//! strings and quoted symbols holding parentheses, comments anywhere,
//! assertions named by coreval or by the benchmark, nested names, extra
//! attributes) and a core are rebuilt, and the output must be exactly the
//! one the generator predicts. Arbitrary bytes are rebuilt too: the rebuild
//! fails exactly when the scanner does, and its output re-scans cleanly and
//! keeps only core assertions.

use super::gen::Source;
use coreval::rebuild::{assert_name, numbered_with, rebuild, RebuildStats};
use coreval::smtlib::scanner::commands;
use coreval::smtlib::symbol::{normalize, quote};
use std::collections::HashSet;

const PREFIX: &str = "cv";

/// White space or a comment, possibly empty.
fn space(src: &mut Source, need: bool) -> String {
    let s = match src.below(6) {
        0 => "",
        1 | 2 => " ",
        3 => "\n  ",
        4 => " ; c ( | \" \n",
        _ => "\t\r\n",
    };
    if need && s.is_empty() {
        " ".into()
    } else {
        s.into()
    }
}

/// A term: atoms, strings and quoted symbols that hide parentheses,
/// comments, nested `:named` terms. Depth-bounded.
fn term(src: &mut Source, depth: u32) -> String {
    if depth > 4 || src.below(3) == 0 {
        return src
            .pick(&[
                "p",
                "x",
                "42",
                "#b01",
                "1.5",
                "\"s ( ) ; | \"\" \"",
                "|q ( ; \n )|",
                "|cv1|",
                "true",
            ])
            .to_string();
    }
    let mut s = String::from("(");
    s.push_str(src.pick(&["and", "or", "not", "=", "f", "!"]));
    for _ in 0..1 + src.below(3) {
        s.push_str(&space(src, true));
        s.push_str(&term(src, depth + 1));
    }
    if src.chance(30) {
        s.push_str(" :named inner");
        s.push_str(&src.below(3).to_string());
    }
    s.push_str(&space(src, false));
    s.push(')');
    s
}

/// A name as written in the benchmark (and its normal form).
fn assertion_name(src: &mut Source, n: usize) -> String {
    match src.below(6) {
        0 => format!("user{}", src.below(4)),
        1 => "a b".into(),
        2 => "cv".into(),
        3 => format!("cv{}x", src.below(3)),
        _ => format!("{PREFIX}{}", n + src.below(2)),
    }
}

fn print_name(src: &mut Source, name: &str) -> String {
    if src.chance(50) {
        format!("|{name}|")
    } else {
        quote(name).into_owned()
    }
}

/// One generated benchmark, its core and the predicted rebuild.
pub struct Case {
    pub named: String,
    pub core: HashSet<String>,
    pub expected: String,
    pub stats: RebuildStats,
}

pub fn generate(src: &mut Source) -> Case {
    let own = numbered_with(PREFIX);
    let mut names_used = Vec::new();
    // Decide the commands first, the core afterwards.
    enum Item {
        /// Written as is (gaps, other commands); `true` for an unnamed assert.
        Keep(String, bool),
        Drop(String),
        Named {
            text: String,
            name: String,
            bare: Option<String>,
        },
    }
    let mut items = Vec::new();
    for n in 0..src.below(12) {
        let gap = src.pick(&["", "\n", "; comment ( \" |\n", "\r\n\n", " "]);
        items.push(Item::Keep(gap.to_string(), false));
        let sp = |src: &mut Source| space(src, false);
        match src.below(10) {
            0 => {
                let t = src.pick(&[
                    "(set-logic QF_UF)",
                    "(declare-fun p () Bool)",
                    "(set-info :smt-lib-version 2.6)",
                    "(check-sat)",
                    "(echo \"(get-unsat-core) ( \"\" \")",
                    "(set-option :produce-models true)",
                    "(exit)",
                ]);
                items.push(Item::Keep(t.to_string(), false));
            }
            1 => {
                let t = format!("({}get-unsat-core{})", sp(src), sp(src));
                items.push(Item::Drop(t));
            }
            2 => {
                let t = format!(
                    "(set-option{}:produce-unsat-cores {})",
                    space(src, true),
                    src.pick(&["true", "false"])
                );
                items.push(Item::Drop(t));
            }
            3 => {
                // No top-level name (names inside are allowed).
                let t = format!("({}assert (and {}){})", sp(src), term(src, 0), sp(src));
                items.push(Item::Keep(t, true));
            }
            _ => {
                let name = assertion_name(src, n);
                let t = term(src, 0);
                let extra = src.chance(50);
                let attrs = if extra {
                    format!(":pattern ((f x)) :named {}", print_name(src, &name))
                } else {
                    format!(":named {}", print_name(src, &name))
                };
                let text = format!(
                    "({}assert{}(!{}{}{}{}{}){})",
                    sp(src),
                    space(src, true),
                    space(src, true),
                    t,
                    space(src, true),
                    attrs,
                    sp(src),
                    sp(src)
                );
                let bare = (!extra && own(&name)).then(|| format!("(assert {t})"));
                names_used.push(name.clone());
                items.push(Item::Named { text, name, bare });
            }
        }
    }
    let tail = src.pick(&["", "\n", "; end", "\n; end\n"]);
    items.push(Item::Keep(tail.to_string(), false));
    let mut core = HashSet::new();
    for n in &names_used {
        if src.chance(128) {
            core.insert(normalize(&print_name(src, n)).to_string());
        }
    }
    if src.chance(40) {
        core.insert(format!("{PREFIX}999"));
    }
    let (mut named, mut expected) = (String::new(), String::new());
    let mut stats = RebuildStats::default();
    for it in items {
        match it {
            Item::Keep(t, unnamed) => {
                named.push_str(&t);
                expected.push_str(&t);
                stats.unnamed += unnamed as u64;
            }
            Item::Drop(t) => named.push_str(&t),
            Item::Named { text, name, bare } => {
                named.push_str(&text);
                if core.contains(&name) {
                    stats.kept += 1;
                    expected.push_str(bare.as_deref().unwrap_or(&text));
                } else {
                    stats.dropped += 1;
                }
            }
        }
    }
    Case {
        named,
        core,
        expected,
        stats,
    }
}

/// The generated benchmark rebuilds exactly as predicted.
pub fn check_generated(data: &[u8]) {
    let mut src = Source::new(data);
    let case = generate(&mut src);
    let mut out = Vec::new();
    let stats = rebuild(
        case.named.as_bytes(),
        &mut out,
        &case.core,
        &numbered_with(PREFIX),
    )
    .unwrap_or_else(|e| panic!("rebuild failed: {e:#}\n{}", case.named));
    assert_eq!(
        String::from_utf8_lossy(&out),
        case.expected,
        "benchmark:\n{}\ncore: {:?}",
        case.named,
        case.core
    );
    assert_eq!(stats, case.stats, "{}", case.named);
    check_raw_with(case.named.as_bytes(), &case.core);
}

/// Invariants of the rebuild of arbitrary bytes with a core drawn from the
/// names the input carries.
pub fn check_raw(data: &[u8]) {
    let mut core = HashSet::new();
    if let Ok(cmds) = commands(data) {
        for (i, c) in cmds.iter().enumerate() {
            if let Some(n) = assert_name(&c.text) {
                if !(i + data.len()).is_multiple_of(3) {
                    core.insert(normalize(&n.name).to_string());
                }
            }
        }
    }
    check_raw_with(data, &core);
}

fn check_raw_with(data: &[u8], core: &HashSet<String>) {
    let own = numbered_with(PREFIX);
    let mut out = Vec::new();
    let scanned = commands(data);
    let result = rebuild(data, &mut out, core, &own);
    let cmds = match (scanned, result) {
        (Err(_), Err(_)) => return,
        (Ok(cmds), Ok(stats)) => {
            let asserts = cmds.iter().filter(|c| c.head() == "assert").count() as u64;
            assert_eq!(stats.kept + stats.dropped + stats.unnamed, asserts);
            cmds
        }
        (s, r) => panic!("scanner {:?} but rebuild {:?}", s.err(), r.err()),
    };
    let rescanned =
        commands(&out).unwrap_or_else(|e| panic!("the rebuilt benchmark does not scan: {e}"));
    // Walk the input: each command is dropped, kept, or (coreval's own name
    // with nothing else in the `!`) kept without its wrapper.
    let mut kept = rescanned.iter();
    for c in &cmds {
        let named = (c.head() == "assert")
            .then(|| assert_name(&c.text))
            .flatten();
        if c.head() == "get-unsat-core" || is_core_option(c) || is_status(c) {
            continue;
        }
        if let Some(n) = &named {
            if !core.contains(normalize(&n.name)) {
                continue;
            }
        }
        let got = kept.next().expect("a kept command is missing");
        let want = match &named {
            Some(n) if own(&n.name) && n.bare_term.is_some() => {
                let (s, e) = n.bare_term.unwrap();
                [&b"(assert "[..], &c.text[s..e], b")"].concat()
            }
            _ => c.text.clone(),
        };
        assert_eq!(
            String::from_utf8_lossy(&got.text),
            String::from_utf8_lossy(&want)
        );
    }
    assert!(kept.next().is_none(), "the output has extra commands");
    // Rebuilding the output keeping everything changes nothing.
    let all: HashSet<String> = rescanned
        .iter()
        .filter_map(|c| assert_name(&c.text).map(|n| normalize(&n.name).to_string()))
        .collect();
    let mut again = Vec::new();
    rebuild(&out[..], &mut again, &all, &|_: &str| false).unwrap();
    assert_eq!(again, out, "a second rebuild changed the output");
}

/// `(set-info :status …)`: a core-only benchmark drops it.
fn is_status(c: &coreval::smtlib::scanner::Command) -> bool {
    let (s, e) = c.args_span();
    let a = &c.text[s..e];
    c.head() == "set-info"
        && a.starts_with(b":status")
        && a.get(7).is_none_or(|b| b.is_ascii_whitespace())
}

fn is_core_option(c: &coreval::smtlib::scanner::Command) -> bool {
    let (s, e) = c.args_span();
    c.head() == "set-option" && c.text[s..e].starts_with(b":produce-unsat-cores")
}

pub fn check(data: &[u8]) {
    check_generated(data);
    check_raw(data);
}
