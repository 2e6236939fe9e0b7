//! The block scanner against the byte scanner: same commands (offsets,
//! lines, columns, comments, argument ends) on tricky and random scripts,
//! wherever the 64-byte blocks fall, and a stop or an open end wherever the
//! byte scanner reports an error.

use super::*;
use crate::smtlib::scanner::Scanner;

/// What the block scanner makes of `src` (with the CPU's bit and vector
/// instructions if `bits`, AVX-512 among them if `wide512`): its spans,
/// and whether it ends at rest (not stopped, nothing open).
fn blocks_of(src: &[u8], bits: bool, wide512: bool) -> (Vec<Span>, bool) {
    let mut b = Blocks::new();
    b.bits &= bits;
    b.wide512 &= wide512;
    let mut spans = Vec::new();
    let mut i = 0;
    while i < src.len() && b.stopped().is_none() {
        let mut block = [b' '; 64];
        let n = (src.len() - i).min(64);
        block[..n].copy_from_slice(&src[i..i + n]);
        b.scan(&block, i as u64, &mut spans);
        i += 64;
    }
    (spans, b.at_rest())
}

/// The byte scanner's commands as spans, and whether it ended without an
/// error.
fn bytes_of(src: &[u8]) -> (Vec<Span>, bool) {
    let mut sc = Scanner::new(src);
    let mut spans = Vec::new();
    loop {
        match sc.next_command() {
            Ok(Some(c)) => spans.push(Span {
                start: c.offset,
                end: c.offset + c.text.len() as u64,
                line: c.line,
                column: c.column,
                has_comment: c.has_comment,
                colon: c.text.contains(&b':'),
                depth1_end: c.depth1_end,
            }),
            Ok(None) => return (spans, true),
            Err(_) => return (spans, false),
        }
    }
}

/// The block scanner's commands are the byte scanner's, up to where it
/// stops; it ends at rest exactly when the byte scanner ends cleanly.
fn agree(src: &[u8]) {
    // The portable code gives the same as the vector code (AVX2 and, where
    // the CPU has it, AVX-512).
    let (fast, rest) = blocks_of(src, true, true);
    assert_eq!((fast.clone(), rest), blocks_of(src, true, false));
    assert_eq!((fast.clone(), rest), blocks_of(src, false, false));
    let (slow, clean) = bytes_of(src);
    let shown = String::from_utf8_lossy(src);
    assert!(fast.len() <= slow.len(), "{shown:?}");
    assert_eq!(fast[..], slow[..fast.len()], "{shown:?}");
    // At rest only when the byte scanner ends cleanly; not at rest after
    // a clean end only with a comment open at the end of the input.
    assert!(!rest || clean, "{shown:?}");
    if clean {
        let last_line = src.rsplit(|&b| b == b'\n').next().unwrap_or_default();
        assert!(rest || last_line.contains(&b';'), "{shown:?}");
        assert_eq!(fast.len(), slow.len(), "{shown:?}");
    }
}

const TRICKY: &[&str] = &[
    "(assert (= s \"a(b\"\"c)\"))",
    "(assert |x ( y|)",
    "(assert |multi\nline ( |)",
    "(assert ; a comment ( with \" and |\n (p))",
    "(assert (! p :named a1))",
    "(assert (and (! p :named n) (not |n|)))",
    "(push 1)(assert p)(pop 1)",
    "(assert (! (! p :named a) :named b))",
    "(assert p)\r\n(assert q)\r\n",
    "; top ( comment \" |\n(check-sat)",
    "(assert p) ; trailing (\n",
    "(assert (p) ; c\n)",
    "(assert (p) q)",
    "(assert \"\")",
    "(assert \"\"\"\")",
    "(set-info :source |\n(assert q)\n|)",
    "(exit)",
];

#[test]
fn tricky_commands_at_every_offset_in_a_block() {
    for pad in 0..70 {
        for t in TRICKY {
            let src = format!("{}{t}\n{t}", " ".repeat(pad));
            agree(src.as_bytes());
            let src = format!("{}{t}", "\n".repeat(pad));
            agree(src.as_bytes());
        }
        let all = format!("{}{}", ";x\n".repeat(pad), TRICKY.join("\n"));
        agree(all.as_bytes());
    }
}

#[test]
fn errors_stop_the_block_scanner() {
    for src in [
        "(assert p) x",
        "(assert p))",
        "(assert p",
        "(assert \"open)",
        "(assert |open)",
        "\"top\"",
        "|top|",
        "(assert p) ; no newline at the end",
        "(a)(b)(c) \u{0}",
    ] {
        for pad in [0, 1, 50, 63, 64, 65] {
            agree(format!("{}{src}", " ".repeat(pad)).as_bytes());
        }
    }
}

#[test]
fn random_scripts_agree() {
    const PIECES: &[&str] = &[
        "(", ")", "(", ")", " ", "\n", "\r\n", "\"", "\"\"", "|", ";", "a", ":", "assert ",
        "(assert ", "))", "((", "x y", "\t",
    ];
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    for _ in 0..4000 {
        let mut src = String::new();
        let len = (seed % 120) as usize;
        for _ in 0..len {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            src.push_str(PIECES[(seed % PIECES.len() as u64) as usize]);
        }
        agree(src.as_bytes());
        // Balanced ones get further before an error.
        let wrapped = format!("(assert {src})\n(check-sat)\n");
        agree(wrapped.as_bytes());
    }
}

#[test]
fn deep_and_long_commands() {
    let deep = format!("(assert {}p{})\n(exit)", "(".repeat(5000), ")".repeat(5000));
    agree(deep.as_bytes());
    let long: String = (0..3000)
        .map(|i| format!(" (or |x{i}| \"s;{i}\") ; c{i} (\n"))
        .collect();
    agree(format!("(assert (and{long}))\n(check-sat)").as_bytes());
}

#[test]
fn lines_in_long_scripts() {
    let mut src = String::new();
    for i in 0..3000 {
        src.push_str(&format!(
            "(assert (or (> x{i} 0) |a ({i}| (= s \"x(\"\"{i}\") ; c ( {i}\n (< x 1)))\n"
        ));
        if i % 1000 == 0 {
            let big: String = (0..300).map(|k| format!(" (p{k} |q\n{k}|)")).collect();
            src.push_str(&format!("(assert (and{big}))\n"));
        }
    }
    agree(src.as_bytes());
    agree(format!("{src}(assert q))\n").as_bytes());
}
