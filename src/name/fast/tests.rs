//! The fast path against the byte scanner's pass: the same output bytes,
//! hash and report on tricky scripts, under every policy, wherever the
//! blocks and reads fall.

use super::super::*;
use std::io::Cursor;

/// The slow pass (byte scanner, into memory) with prefix `cv`: output and
/// report (with the output's hash), `None` on a clash.
fn slow(src: &[u8], opts: &NameOptions) -> Option<(Vec<u8>, NameReport)> {
    let mut out = Vec::new();
    let assuming = asks_assumptions(&mut Cursor::new(src), opts).unwrap();
    let len = Some(src.len() as u64);
    let report = rewrite(
        Cursor::new(src),
        &mut out,
        "cv".into(),
        opts,
        true,
        len,
        assuming,
    );
    let mut report = report.unwrap()?;
    report.output_hash = Some(blake3::hash(&out).to_hex().to_string());
    Some((out, report))
}

/// The fast path on files.
fn fast(src: &[u8], opts: &NameOptions) -> Option<(Vec<u8>, NameReport)> {
    let dir = tempfile::tempdir().unwrap();
    let (i, o) = (dir.path().join("in.smt2"), dir.path().join("out.smt2"));
    std::fs::write(&i, src).unwrap();
    let mut input = std::fs::File::open(&i).unwrap();
    let mut output = std::fs::File::create(&o).unwrap();
    let assuming = asks_assumptions(&mut input, opts).unwrap();
    input.seek(SeekFrom::Start(0)).unwrap();
    let len = Some(src.len() as u64);
    let report = rewrite_fast(&mut input, &mut output, "cv", opts, len, assuming).unwrap()?;
    drop(output);
    Some((std::fs::read(&o).unwrap(), report))
}

fn same(src: &[u8]) {
    for named in [NamedPolicy::Skip, NamedPolicy::Strip, NamedPolicy::Keep] {
        for incremental in [false, true] {
            let opts = NameOptions {
                policy: Policy {
                    named,
                    incremental,
                    ..Policy::default()
                },
                ..NameOptions::default()
            };
            let (a, b) = (slow(src, &opts), fast(src, &opts));
            if a != b {
                // Around the first byte that differs (outputs may be large).
                let at = match (&a, &b) {
                    (Some((x, _)), Some((y, _))) => {
                        x.iter().zip(y).take_while(|(p, q)| p == q).count()
                    }
                    _ => 0,
                };
                let show = |r: &Option<(Vec<u8>, NameReport)>| {
                    r.as_ref().map(|(o, r)| {
                        let w = &o[at.saturating_sub(100).min(o.len())..(at + 100).min(o.len())];
                        (o.len(), String::from_utf8_lossy(w).into_owned(), r.clone())
                    })
                };
                panic!(
                    "{:?} {named:?} {incremental}\nslow {:#?}\nfast {:#?}",
                    String::from_utf8_lossy(&src[..src.len().min(300)]),
                    show(&a),
                    show(&b)
                );
            }
        }
    }
}

const SCRIPT: &str = "; header ( \" |\n(set-info :smt-lib-version 2.6)\n\
(set-option :print-success true)\n(set-logic QF_LIA)\n(set-info :status unsat)\n\
(declare-fun x () Int)(declare-fun |a (b| () Bool)(declare-fun s () String)\n\
(assert (> x 0)) ; first (\n(assert ; why\n  (< x 0)\n)\n\
(assert (= s \"(assert \"\" :named x ;\"))\r\n(assert |a (b|)\n\
(assert (and |a (b| ; in ( a comment \" |\n (not |a\n(b|)))\n\
(assert (p) q)\n(assert (p) ; tail ( comment\n ; another\n)\n\
(check-sat)\n(get-model)\n(exit)";

#[test]
fn plain_scripts_at_every_offset() {
    for pad in 0..70 {
        let src = format!("{}{SCRIPT}", "\n".repeat(pad));
        same(src.as_bytes());
        let src = format!("{}{SCRIPT}\n", " ".repeat(pad));
        same(src.as_bytes());
    }
}

#[test]
fn names_incremental_scripts_and_errors() {
    let cases = [
        "(set-logic QF_UF)(declare-fun p () Bool)(assert (! p :named a1))(assert (not p))(check-sat)",
        "(set-logic QF_UF)(declare-fun p () Bool)(assert p)(assert (! (not p) :named n))(assert (and n p))(check-sat)",
        "(set-logic QF_UF)(declare-fun p () Bool)(assert (and (! p :named q) (! (not p) :named r)))(check-sat)",
        "(set-logic QF_UF)(declare-fun p () Bool)(push 1)(assert p)(check-sat)(pop 1)(assert (not p))(check-sat)",
        "(set-logic QF_UF)(declare-fun p () Bool)(assert p)(check-sat-assuming (p))(get-unsat-assumptions)(assert p)",
        "(set-logic QF_UF)(declare-fun p () Bool)(assert (! (! p :named a) :named b))(check-sat)",
        "(set-logic QF_UF)(assert p)(check-sat)(assert q)",
        "(set-logic QF_UF)(assert)(assert ; nothing\n)(check-sat)",
        "(assert p)(set-logic QF_UF)",
        "(set-logic QF_UF)(assert p)) (assert q)",
        "(set-logic QF_UF)(assert p) junk (assert q)",
        "(set-logic QF_UF)(assert \"open",
        "(set-logic QF_UF)(assert |open",
        "(set-logic QF_UF)(assert (p)",
        "(set-logic QF_UF)(assert p) ; comment without newline",
        "(set-logic QF_UF)(assert cv1)(assert p)",
        "(set-logic QF_UF)(assert p)(assert |x cv12|)",
        "",
        "  \n ; only a comment\n",
    ];
    for c in cases {
        for pad in [0, 1, 30, 63, 64] {
            same(format!("{}{c}", " ".repeat(pad)).as_bytes());
        }
    }
}

#[test]
fn large_scripts_cross_every_read() {
    // Over 4 MiB (the byte scanner's prefetch thread) with tricky commands
    // straddling the reads, a big command, and names late in the file.
    let mut src = String::from("(set-logic QF_LIA)\n(set-info :status unsat)\n");
    let mut i = 0;
    while src.len() < 5 << 20 {
        src.push_str(&format!(
            "(assert (or (> x{i} 0) |a ({i}| (= s \"x(\"\"{i}\") ; c ( {i}\n (< x 1)))\n"
        ));
        i += 1;
        if i % 20_000 == 0 {
            let big: String = (0..30_000).map(|k| format!(" (p{k} |q\n{k}|)")).collect();
            src.push_str(&format!("(assert (and{big}))\n"));
        }
    }
    same(src.as_bytes());
    let named = format!("{src}(assert (! p :named late))\n(assert q)\n(check-sat)\n");
    same(named.as_bytes());
    let broken = format!("{src}(assert q))\n(assert r)\n");
    same(broken.as_bytes());
}

#[test]
fn errors_after_many_lines() {
    for n in [10, 1000, 6000] {
        let mut src = String::from("(set-logic QF_LIA)\n");
        for i in 0..n {
            src.push_str(&format!("(assert (or (> x{i} 0) ; c ( {i}\n (< x 1)))\n"));
        }
        same(format!("{src}(assert q))\n").as_bytes());
        same(format!("{src}(assert q) x\n").as_bytes());
        same(format!("{src}(assert (q)\n").as_bytes());
    }
}

/// A term of about `mb` MiB, a comment on every line (with `(` and `"`).
fn giant_term(mb: usize) -> String {
    let mut t = String::from("(and\n");
    let mut k = 0;
    while t.len() < mb << 20 {
        t.push_str(&format!("  (or (p{k} x) (not |q {k}|)) ; c ( \" {k}\n"));
        k += 1;
    }
    t.push(')');
    t
}

#[test]
fn giant_assertions_sent_in_parts() {
    // Sent in parts to the end, or taken back at its end (a `:`, an input
    // that ends inside it, a stray parenthesis after it), or never sent
    // so (after a name, a check-sat, before the option is written).
    let t = giant_term(2);
    let head = "(set-logic QF_UF)\n(declare-fun x () Int)\n";
    let notes = "; a note ( \" |\n".repeat(100_000);
    let cases = [
        format!("{head}(assert {t})\n(assert p)\n(check-sat)\n"),
        format!("{head}(assert\n  {t}  ; after the term\n ; more ( \n)\n(assert {t})(assert q)"),
        format!("{head}(assert {t} (q) r)\n(check-sat)\n"),
        format!("{head}(assert (! {t} :named big))\n(assert q)\n"),
        format!("{head}(assert (and {t} ; a colon: at the end\n))\n(assert q)\n"),
        format!("{head}(assert (and \"a : string\" {t}))\n"),
        format!("{head}(assert {t}"),
        format!("{head}(assert (and {t}"),
        format!("{head}(assert {t}))\n(assert q)\n"),
        format!("{head}(assert {t}) junk\n"),
        format!("{head}(assert (! p :named n))(assert {t})\n"),
        format!("{head}(check-sat)(assert {t})\n"),
        format!("(assert {t})\n(set-logic QF_UF)\n"),
        format!("{head}(assert ; first\n {t})\n"),
        format!("{head}(assert {})\n", giant_term(5)),
        // Long tails after the term and long gaps before the command.
        format!("{head}(assert {t}\n{notes})\n(assert q)\n"),
        format!("{head}(assert {t}\n{notes} : )\n(assert q)\n"),
        format!("{head}(assert p)\n{notes}(assert {t}"),
        format!("{head}(assert p)\n{notes}(assert {t})(assert q)"),
    ];
    for c in &cases {
        same(c.as_bytes());
    }
}
