//! Lexical edge cases of the streaming scanner, each also fed one byte per
//! read so that every state crosses a block boundary.

use super::*;

/// A reader that hands out one byte per call.
struct Trickle<'a>(&'a [u8]);

impl Read for Trickle<'_> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if self.0.is_empty() || out.is_empty() {
            return Ok(0);
        }
        out[0] = self.0[0];
        self.0 = &self.0[1..];
        Ok(1)
    }
}

fn scan_both(src: &str) -> Result<Vec<(String, String, u64, u64)>, SyntaxError> {
    let run =
        |mut sc: Scanner<&mut dyn Read>| -> Result<Vec<(String, String, u64, u64)>, SyntaxError> {
            let mut v = Vec::new();
            while let Some(c) = sc.next_command()? {
                v.push((
                    c.head().to_string(),
                    String::from_utf8(c.text.clone()).unwrap(),
                    c.line,
                    c.column,
                ));
            }
            Ok(v)
        };
    let mut whole: &[u8] = src.as_bytes();
    let a = run(Scanner::new(&mut whole as &mut dyn Read));
    let mut t = Trickle(src.as_bytes());
    let b = run(Scanner::new(&mut t as &mut dyn Read));
    match (&a, &b) {
        (Err(x), Err(y)) => assert_eq!((x.line, x.column), (y.line, y.column)),
        _ => assert_eq!(a, b, "block boundaries changed the result"),
    }
    a
}

#[test]
fn splits_commands_with_positions() {
    let v =
        scan_both("(set-logic QF_UF)\n  (declare-fun p () Bool)\n(assert p)(check-sat)").unwrap();
    assert_eq!(v.len(), 4);
    assert_eq!(v[0].0, "set-logic");
    assert_eq!((v[1].2, v[1].3), (2, 3));
    assert_eq!(v[2].1, "(assert p)");
    assert_eq!((v[3].0.as_str(), v[3].2, v[3].3), ("check-sat", 3, 11));
}

#[test]
fn strings_with_escaped_quotes_and_parens() {
    let v = scan_both("(set-info :source \"a \"\"(\"\" b ) ;\")\n(exit)").unwrap();
    assert_eq!(v.len(), 2);
    assert_eq!(v[0].1, "(set-info :source \"a \"\"(\"\" b ) ;\")");
    assert_eq!(v[1].2, 2);
}

#[test]
fn string_ending_with_escaped_quote_at_close() {
    let v = scan_both("(echo \"\"\"\")(exit)").unwrap();
    assert_eq!(v[0].1, "(echo \"\"\"\")");
    assert_eq!(v[1].0, "exit");
}

#[test]
fn quoted_symbols_with_newlines_and_parens() {
    let v = scan_both("(declare-fun |a (\n) ; b| () Bool)\n(assert |a (\n) ; b|)").unwrap();
    assert_eq!(v.len(), 2);
    assert_eq!(
        v[1].2, 3,
        "line count includes the newline inside the symbol"
    );
}

#[test]
fn comments_between_and_inside_commands() {
    let src = "; header (\n(assert ; ) not closing\n p) ; trailing )\n(exit)\n; end";
    let mut sc = Scanner::new(src.as_bytes());
    let c = sc.next_command().unwrap().unwrap();
    assert_eq!(sc.gap(), b"; header (\n");
    assert!(c.has_comment);
    assert_eq!(c.head(), "assert");
    let (s, e) = c.args_span();
    assert_eq!(&c.text[s..e], b"p");
    let c = sc.next_command().unwrap().unwrap();
    assert_eq!(c.head(), "exit");
    assert_eq!(sc.gap(), b" ; trailing )\n");
    assert!(sc.next_command().unwrap().is_none());
    assert_eq!(sc.gap(), b"\n; end");
}

#[test]
fn args_span_excludes_trailing_comment() {
    let cmds = commands(b"(assert (and p q) ; why\n )").unwrap();
    let (s, e) = cmds[0].args_span();
    assert_eq!(&cmds[0].text[s..e], b"(and p q)");
    let cmds = commands(b"(assert\n  (or a b)  \n)").unwrap();
    let (s, e) = cmds[0].args_span();
    assert_eq!(&cmds[0].text[s..e], b"(or a b)");
}

#[test]
fn deep_nesting_without_recursion() {
    let depth = 1_000_000;
    let mut src = String::from("(assert ");
    src.push_str(&"(not ".repeat(depth));
    src.push('p');
    src.push_str(&")".repeat(depth));
    src.push(')');
    let cmds = commands(src.as_bytes()).unwrap();
    assert_eq!(cmds.len(), 1);
    assert_eq!(cmds[0].max_depth, depth as u64 + 1);
}

#[test]
fn unbalanced_open_reports_the_command() {
    let e = scan_both("(set-logic QF_UF)\n(assert (and p q)\n").unwrap_err();
    assert_eq!((e.line, e.column), (2, 1));
    assert!(e.message.contains("expected 1 more ')'"), "{}", e.message);
}

#[test]
fn unbalanced_close_at_top_level() {
    let e = scan_both("(exit))").unwrap_err();
    assert_eq!((e.line, e.column), (1, 7));
    assert!(e.message.contains("unbalanced ')'"));
}

#[test]
fn unterminated_string_and_symbol() {
    let e = scan_both("(exit)\n(echo \"abc)\n").unwrap_err();
    assert_eq!((e.line, e.column), (2, 7));
    assert!(e.message.contains("string"));
    let e = scan_both("(declare-fun |abc () Bool)").unwrap_err();
    assert_eq!((e.line, e.column), (1, 14));
    assert!(e.message.contains("quoted symbol"));
}

#[test]
fn stray_tokens_at_top_level() {
    let e = scan_both("(exit)\n  garbage (x)").unwrap_err();
    assert_eq!((e.line, e.column), (2, 3));
    assert!(e.message.contains("'garbage'"), "{}", e.message);
    let e = scan_both("\u{0}").unwrap_err();
    assert!(e.message.contains("stray token"));
}

#[test]
fn empty_and_comment_only_inputs() {
    assert!(scan_both("").unwrap().is_empty());
    assert!(scan_both("; only a comment").unwrap().is_empty());
    assert!(scan_both("\r\n\t ").unwrap().is_empty());
}

#[test]
fn crlf_line_endings() {
    let v = scan_both("(set-logic QF_UF)\r\n(assert p) ; c\r\n(exit)").unwrap();
    assert_eq!(v.len(), 3);
    assert_eq!(v[2].2, 3);
}

#[test]
fn error_names_the_file() {
    let e = SyntaxError {
        line: 3,
        column: 4,
        message: "x".into(),
    };
    assert_eq!(
        e.in_file(std::path::Path::new("a/b.smt2")),
        "a/b.smt2:3:4: x"
    );
}

#[test]
fn args_span_with_comments_resumes_after_the_last_group() {
    let cases: &[(&str, &str)] = &[
        ("(assert (and p ; x\n q) ; tail )\n)", "(and p ; x\n q)"),
        ("(assert ; lead\n (f (g x)) ; a\n ; b\n)", "(f (g x))"),
        (
            "(set-info :source (a b) |c d| ; e\n)",
            ":source (a b) |c d|",
        ),
        ("(assert p ; only an atom\n)", "p"),
        ("(check-sat ; nothing\n)", ""),
    ];
    for (src, want) in cases {
        let cmds = commands(src.as_bytes()).unwrap();
        let (s, e) = cmds[0].args_span();
        assert_eq!(
            std::str::from_utf8(&cmds[0].text[s..e]).unwrap(),
            *want,
            "{src}"
        );
    }
    let cmds = commands(b"(assert (a (b)) c)").unwrap();
    assert_eq!(cmds[0].depth1_end, 15);
}
