//! Malformed input (reliability issue, part 3): truncated files, unbalanced
//! parentheses, unterminated strings and quoted symbols, NUL bytes and
//! binary garbage, a 200 MB single token, nesting depth 10⁶, a config with
//! wrong types or unknown keys. Each gives one error naming file, line and
//! column (asserted exactly), never a panic or a stack overflow, and the
//! inputs after a bad one are still processed.

use coreval::campaign::setup::{Campaign, CONFIG_FILE};
use coreval::rebuild::{assert_name, numbered_with, rebuild, store};
use coreval::smtlib::lexer::{Lexer, TokenKind};
use coreval::smtlib::scanner::{commands, Scanner};
use coreval::smtlib::SyntaxError;
use std::collections::HashSet;
use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

const FIXTURE: &str = "tests/fixtures/checkers/QF_UF-bt-test-01.named.smt2";

fn err(src: &[u8]) -> SyntaxError {
    commands(src).expect_err("the scan should fail")
}

fn at(e: &SyntaxError) -> (u64, u64) {
    (e.line, e.column)
}

// ---------------------------------------------------------------- truncated

#[test]
fn truncated_benchmark_names_the_open_command() {
    let full = std::fs::read(FIXTURE).unwrap();
    let cmds = commands(&full).unwrap();
    assert!(cmds.len() >= 5);
    // Cut inside every command: the error names that command's `(`, or the
    // opening `"` or `|` of a string or quoted symbol cut in half.
    for c in &cmds {
        let start = c.offset as usize;
        for cut in start + 1..start + c.text.len() {
            let e = err(&full[..cut]);
            let (l, col) = at(&e);
            if e.message.starts_with("unbalanced parentheses") {
                assert_eq!((l, col), (c.line, c.column), "cut at {cut}: {e}");
                continue;
            }
            let line_start = full
                .split_inclusive(|&b| b == b'\n')
                .take(l as usize - 1)
                .map(|s| s.len())
                .sum::<usize>();
            let pos = line_start + col as usize - 1;
            assert!(pos > start && pos < cut, "cut at {cut}: {e}");
            let want = if e.message.starts_with("unterminated string") {
                b'"'
            } else {
                b'|'
            };
            assert_eq!(full[pos], want, "cut at {cut}: {e}");
        }
    }
    // One exactly: cut the fifth command after its head.
    let c = &cmds[4];
    let cut = c.offset as usize + 8;
    let e = err(&full[..cut]);
    assert_eq!(at(&e), (c.line, 1));
    assert!(e.message.contains("expected 1 more ')'"), "{e}");
}

#[test]
fn a_bad_file_does_not_stop_the_others() {
    let dir = tempfile::tempdir().unwrap();
    let full = std::fs::read(FIXTURE).unwrap();
    let good = dir.path().join("a.smt2");
    let bad = dir.path().join("b.smt2");
    std::fs::write(&good, &full).unwrap();
    std::fs::write(
        &bad,
        b"(set-logic QF_UF)\n(declare-fun p () Bool)\n(assert (! p :named cv1)\n(check-sat)\n",
    )
    .unwrap();
    let cores = dir.path().join("cores");
    let core: HashSet<String> = HashSet::new();
    let own = numbered_with("cv");
    let mut done = Vec::new();
    let mut errors = Vec::new();
    for f in [&bad, &good, &bad, &good] {
        match store(f, &cores, &core, &own, true) {
            Ok((hash, _, _)) => done.push(hash),
            Err(e) => errors.push(format!("{e:#}")),
        }
    }
    assert_eq!(done.len(), 2);
    assert_eq!(
        errors[0],
        format!(
            "cannot rebuild a core: {}:3:1: unbalanced parentheses: the command opened here \
             is not closed at the end of the file (expected 1 more ')')",
            bad.display()
        )
    );
}

// ---------------------------------------------------------------- parentheses

#[test]
fn unbalanced_parentheses() {
    // An open command swallows the rest of the file.
    let e = err(b"(set-logic QF_UF)\n  (assert (and p q)\n(check-sat)\n(exit)\n");
    assert_eq!(at(&e), (2, 3));
    assert!(e.message.contains("expected 1 more ')'"), "{e}");
    let e = err(b"(assert ((((p\n");
    assert!(e.message.contains("expected 5 more ')'"), "{e}");
    // A stray `)` after a command.
    let e = err(b"(set-logic QF_UF)\n(assert p))\n(exit)\n");
    assert_eq!(at(&e), (2, 11));
    assert_eq!(e.message, "unbalanced ')': no command is open here");
    // Parentheses hidden in strings, quoted symbols and comments do not count.
    let ok = commands(b"(echo \"(\")\n(assert |)|) ; )\n(exit)").unwrap();
    assert_eq!(ok.len(), 3);
}

// ---------------------------------------------------------------- strings

#[test]
fn unterminated_strings_and_quoted_symbols() {
    let e = err(b"(set-logic QF_UF)\n(set-info :source \"a \"\"quoted\"\" word)\n(exit)\n");
    assert_eq!(at(&e), (2, 19));
    assert_eq!(
        e.message,
        "unterminated string literal: expected '\"' before the end of the file"
    );
    let e = err(b"(declare-fun p () Bool)\n\n(assert (|p q r))\n");
    assert_eq!(at(&e), (3, 10));
    assert_eq!(
        e.message,
        "unterminated quoted symbol: expected '|' before the end of the file"
    );
    // The line counts the newlines inside a string before the broken one.
    let e = err(b"(echo \"a\nb\")\n(echo |x\ny|) (echo \"z");
    assert_eq!(at(&e), (4, 11));
    // In a comment, a quote is just text: the open command is what is wrong.
    let e = err(b"(assert p ; \"\n");
    assert_eq!(at(&e), (1, 1));
    assert!(e.message.starts_with("unbalanced parentheses"));
}

// ---------------------------------------------------------------- binary

#[test]
fn nul_bytes_and_binary_garbage() {
    let e = err(b"(set-logic QF_UF)\n\0\0\0(exit)");
    assert_eq!(at(&e), (2, 1));
    assert_eq!(
        e.message,
        "stray token '\\0\\0\\0' at top level: expected '(' starting a command"
    );
    // Inside a command, any byte is command text (the solver judges it).
    let cmds = commands(b"(assert \0\xff\xfe)\n").unwrap();
    assert_eq!(cmds[0].text, b"(assert \0\xff\xfe)");
    assert_eq!(cmds[0].head(), "assert");
    // Binary garbage: the first byte that cannot start a command.
    let e = err(b"(exit)\n\t\x89PNG\r\n\x1a\n");
    assert_eq!(at(&e), (2, 2));
    assert!(
        e.message.contains("'\\u{89}PNG\\r'") || e.message.contains("PNG"),
        "{e}"
    );
    // A megabyte of pseudo-random bytes: an error at a real position, fast.
    let mut x = 0x1234_5678_9abc_def0u64;
    let garbage: Vec<u8> = (0..1 << 20)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect();
    let mut data = b"(set-logic QF_UF)\n".to_vec();
    data.extend_from_slice(&garbage);
    let e = err(&data);
    assert!(e.line >= 2, "{e}");
    // Rebuild and the lexer give errors too, no panic.
    let mut out = Vec::new();
    let own = numbered_with("cv");
    assert!(rebuild(&data[..], &mut out, &HashSet::new(), &own).is_err());
    let lexed: Vec<_> = Lexer::new(&garbage).collect();
    assert!(lexed.iter().filter(|t| t.is_err()).count() <= 1);
}

// ---------------------------------------------------------------- 200 MB token

/// Peak resident memory of this process, in MB.
fn peak_rss_mb() -> u64 {
    // SAFETY: a zeroed rusage is a valid out-parameter, which getrusage
    // fills.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: see above.
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
    ru.ru_maxrss as u64 / 1024
}

fn write_file(path: &Path, head: &[u8], byte: u8, n: usize, tail: &[u8]) {
    let mut f = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    f.write_all(head).unwrap();
    let block = vec![byte; 1 << 20];
    let mut left = n;
    while left > 0 {
        let k = left.min(block.len());
        f.write_all(&block[..k]).unwrap();
        left -= k;
    }
    f.write_all(tail).unwrap();
    f.flush().unwrap();
}

#[test]
fn a_200_mb_single_token() {
    const N: usize = 200 << 20;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.smt2");
    // Inside a command: one command of 200 MB, streamed from a file.
    write_file(
        &path,
        b"(set-logic QF_UF)\n(assert ",
        b'a',
        N,
        b")\n(exit)\n",
    );
    let t = Instant::now();
    let mut sc = Scanner::new(std::fs::File::open(&path).unwrap());
    let first = sc.next_command().unwrap().unwrap();
    assert_eq!(first.head(), "set-logic");
    let big = sc.next_command().unwrap().unwrap();
    assert_eq!((big.line, big.column, big.text.len()), (2, 1, N + 9));
    assert_eq!(big.args_span(), (8, N + 8));
    drop(big);
    assert_eq!(sc.next_command().unwrap().unwrap().head(), "exit");
    assert!(sc.next_command().unwrap().is_none());
    let scan_time = t.elapsed();

    // The same token unterminated as a string: the error names its quote.
    write_file(&path, b"(set-logic QF_UF)\n(echo \"", b'a', N, b"\n");
    let mut sc = Scanner::new(std::fs::File::open(&path).unwrap());
    sc.next_command().unwrap();
    let e = sc.next_command().unwrap_err();
    assert_eq!(at(&e), (2, 7));
    assert!(e.message.starts_with("unterminated string"));

    // At top level: refused at once, quoting only the token's first bytes.
    write_file(&path, b"; big\n", b'x', N, b"\n");
    let t2 = Instant::now();
    let mut sc = Scanner::new(std::fs::File::open(&path).unwrap());
    let e = sc.next_command().unwrap_err();
    assert_eq!(at(&e), (2, 1));
    assert_eq!(
        e.message,
        format!(
            "stray token '{}' at top level: expected '(' starting a command",
            "x".repeat(20)
        )
    );
    assert!(t2.elapsed() < Duration::from_secs(5), "{:?}", t2.elapsed());

    let peak = peak_rss_mb();
    eprintln!("200 MB token: scanned in {scan_time:.2?}, peak RSS {peak} MB");
    // Bounded: the command is held once (Vec growth may double it), the
    // input is not held again.
    assert!(scan_time < Duration::from_secs(120), "{scan_time:?}");
    assert!(peak < 1500, "peak RSS {peak} MB");
}

// ---------------------------------------------------------------- depth 10⁶

const DEPTH: usize = 1_000_000;

fn deep_term() -> String {
    let mut s = "(not ".repeat(DEPTH);
    s.push('p');
    s.push_str(&")".repeat(DEPTH));
    s
}

/// Run `f` on a thread with a 256 KB stack: any recursion over the depth
/// would overflow it.
fn small_stack(f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(256 << 10)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap();
}

#[test]
fn nesting_depth_one_million() {
    small_stack(|| {
        let term = deep_term();
        let src = format!(
            "(set-logic QF_UF)\n(assert (! {term} :named cv1))\n(assert ; why\n {term}\n)\n(exit)\n"
        );
        let cmds = commands(src.as_bytes()).unwrap();
        assert_eq!(cmds.len(), 4);
        assert_eq!(cmds[1].max_depth, DEPTH as u64 + 2);
        // Lexer: every token, balanced.
        let mut depth = 0i64;
        let mut n = 0;
        for t in Lexer::new(&cmds[1].text) {
            match t.unwrap().kind {
                TokenKind::Open => depth += 1,
                TokenKind::Close => depth -= 1,
                _ => {}
            }
            n += 1;
        }
        assert_eq!((depth, n), (0, 3 * DEPTH + 9));
        // Argument spans, with and without comments.
        let (s, e) = cmds[2].args_span();
        assert!(cmds[2].has_comment);
        assert_eq!(&cmds[2].text[s..e], term.as_bytes());
        let (s, e) = cmds[1].args_span();
        assert_eq!(
            &cmds[1].text[s..e],
            format!("(! {term} :named cv1)").as_bytes()
        );
        // Names and the rebuild.
        assert_eq!(assert_name(&cmds[1].text).unwrap().name, "cv1");
        let core: HashSet<String> = ["cv1".to_string()].into();
        let mut out = Vec::new();
        let own = numbered_with("cv");
        let st = rebuild(src.as_bytes(), &mut out, &core, &own).unwrap();
        assert_eq!((st.kept, st.unnamed), (1, 1));
        let expect =
            format!("(set-logic QF_UF)\n(assert {term})\n(assert ; why\n {term}\n)\n(exit)\n");
        assert!(out == expect.as_bytes(), "rebuild output differs");
        // The answer parser on a core nested a million deep.
        let p = coreval::answer::parse_output(format!("unsat\n{}\n", deep_term()).as_bytes());
        assert_eq!(p.answer, coreval::answer::Answer::Unsat);
        assert!(p.core.is_none());
    });
}

#[test]
fn nesting_depth_one_million_unbalanced() {
    small_stack(|| {
        let src = format!("(exit)\n (assert {}", "(".repeat(DEPTH));
        let e = err(src.as_bytes());
        assert_eq!(at(&e), (2, 2));
        assert!(
            e.message
                .contains(&format!("expected {} more ')'", DEPTH + 1)),
            "{e}"
        );
        let src = format!("(exit)\n{}", ")".repeat(DEPTH));
        assert_eq!(at(&err(src.as_bytes())), (2, 1));
        // The lexer on the unclosed text, and the rebuild.
        assert_eq!(Lexer::new(src.as_bytes()).count(), DEPTH + 3);
        let own = numbered_with("cv");
        let r = rebuild(src.as_bytes(), Vec::new(), &HashSet::new(), &own);
        assert!(r.is_err());
    });
}

// ---------------------------------------------------------------- config

/// `Campaign::load` on `text`; the error as the CLI prints it.
fn config_error(text: &[u8]) -> (String, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(CONFIG_FILE);
    std::fs::write(&path, text).unwrap();
    let e = Campaign::load(dir.path()).expect_err("the config should be refused");
    (format!("{e:#}"), path.display().to_string())
}

fn assert_config_error(text: impl AsRef<[u8]>, line: u64, column: u64, what: &str) {
    let (e, path) = config_error(text.as_ref());
    assert!(e.starts_with(&path), "{e}");
    assert!(
        e.contains(&format!("line {line}, column {column}")),
        "expected line {line}, column {column}: {e}"
    );
    assert!(e.contains(what), "expected `{what}`: {e}");
}

#[test]
fn config_with_wrong_types() {
    assert_config_error(
        "benchmarks = \"b\"\n[limits]\ntime = \"long\"\n",
        3,
        8,
        "invalid type: string \"long\", expected f64",
    );
    assert_config_error("benchmarks = 3\n", 1, 14, "invalid type: integer `3`");
    assert_config_error(
        "benchmarks = \"b\"\n[check]\ncheckers = [\"z3\", 1]\n",
        3,
        19,
        "invalid type: integer `1`, expected a string",
    );
    assert_config_error(
        "benchmarks = \"b\"\n\n[[solver]]\nname = \"z3\"\ndefinition = [\"z3\"]\n",
        5,
        14,
        "expected a string",
    );
    assert_config_error(
        "benchmarks = \"b\"\n[naming]\nscramble_seed = -5\n",
        3,
        17,
        "invalid value: integer `-5`",
    );
    assert_config_error(
        "benchmarks = \"b\"\njobs = -1\n",
        2,
        8,
        "invalid value: integer `-1`",
    );
}

#[test]
fn config_with_out_of_range_numbers() {
    // Valid TOML of the right type, refused by validation (no position:
    // the message names the key) instead of overflowing or panicking.
    for (text, what) in [
        (
            "[limits]\ntime = 1e300\n",
            "limits.time must be a positive number",
        ),
        (
            "[limits]\ngrace = 1e300\n",
            "limits.grace must be a non-negative",
        ),
        (
            "[limits]\nchecker_time = inf\n",
            "limits.checker_time must be",
        ),
        (
            "[limits]\nmemory_mb = 9223372036854775807\n",
            "limits.memory_mb is too large",
        ),
        (
            "[limits]\noutput_cap_mb = 9223372036854775807\n",
            "limits.output_cap_mb is too large",
        ),
        (
            "[naming]\nscramble_commute = true\n",
            "naming.scramble_commute needs naming.scramble_seed",
        ),
    ] {
        let (e, path) = config_error(format!("benchmarks = \"b\"\n{text}").as_bytes());
        // Value errors name the line, as type errors do.
        assert!(e.starts_with(&format!("{path}:3: {what}")), "{e}");
        assert!(e.len() < 200, "{e}");
    }
}

#[test]
fn config_with_unknown_keys() {
    assert_config_error(
        "benchmarks = \"b\"\nbogus = 1\n",
        2,
        1,
        "unknown field `bogus`",
    );
    assert_config_error(
        "benchmarks = \"b\"\n[limits]\ntime = 5\ncolour = \"red\"\n",
        4,
        1,
        "unknown field `colour`",
    );
    assert_config_error(
        "benchmarks = \"b\"\n[[solver]]\nname = \"z3\"\n  definition = \"z3\"\n  flags = []\n",
        5,
        3,
        "unknown field `flags`",
    );
    // An unknown table: its name, inside the brackets.
    assert_config_error(
        "benchmarks = \"b\"\n[limit]\ntime = 5\n",
        2,
        2,
        "unknown field `limit`",
    );
}

#[test]
fn config_with_broken_syntax_or_bytes() {
    // Unterminated string: toml names the end of the file.
    assert_config_error("benchmarks = \"b\n", 1, 16, "invalid basic string");
    assert_config_error(
        "benchmarks = \"b\"\nbenchmarks = \"c\"\n",
        2,
        1,
        "duplicate key",
    );
    assert_config_error("benchmarks = \"b\"\0\n", 1, 17, "");
    // Not UTF-8: the first bad byte.
    assert_config_error(
        b"benchmarks = \"b\"\n# caf\xe9\n",
        2,
        6,
        "byte 0xe9 is not UTF-8 text",
    );
}

// ---------------------------------------------------------------- StarExec CSV

const JOB_HEAD: &str = "pair id,benchmark,solver,status,cpu time,wallclock time,result,\
number-of-assert-commands,parsable-unsat-core,size-unsat-core,unsat-core-validated,\
result-is-erroneous";

fn import(text: &[u8]) -> anyhow::Result<coreval::import::Import> {
    coreval::import::starexec::import_reader(text, Path::new("jobs/job.csv"))
}

#[test]
fn starexec_csv_with_missing_columns() {
    // A required column absent from the header: the file and the column.
    let head = JOB_HEAD.replace(",cpu time", "");
    let e =
        import(format!("{head}\r\n1,S/QF_LIA/a.smt2,z3,complete,1,sat,3,-,-,-,0\r\n").as_bytes())
            .unwrap_err();
    assert_eq!(
        e.to_string(),
        "jobs/job.csv:1: missing required column `cpu time` (a StarExec unsat-core job CSV has it)"
    );
    // Rows with cells missing (CRLF, as in the archives): each row is
    // reported with its line and skipped; the others are imported.
    let text = format!(
        "{JOB_HEAD}\r\n\
         1,S/QF_LIA/a.smt2,z3,complete,1.5,1.6,unsat,10,true,4,true,0\r\n\
         2,S/QF_LIA/b.smt2,z3,complete\r\n\
         3,S/QF_LIA/c.smt2,z3,complete,1,1,sat\r\n\
         4,S/QF_LIA/d.smt2,z3,complete,1,1,sat,10,-,-,-,0\r\n"
    );
    let imp = import(text.as_bytes()).unwrap();
    assert_eq!(imp.pairs.len(), 2);
    assert_eq!(imp.pairs[1].origin.as_deref(), Some("jobs/job.csv:5"));
    let msgs: Vec<String> = imp.issues.iter().map(|i| i.to_string()).collect();
    assert_eq!(
        msgs,
        [
            "jobs/job.csv:3: column `cpu time`: `` is not a non-negative number",
            "jobs/job.csv:4: column `number-of-assert-commands`: `` is not a count",
        ]
    );
}

#[test]
fn starexec_csv_truncated_or_binary() {
    // Cut in the middle of a quoted cell, and a row of binary garbage.
    let mut text =
        format!("{JOB_HEAD}\n1,S/QF_LIA/a.smt2,z3,complete,1,1,sat,3,-,-,-,0\n").into_bytes();
    text.extend_from_slice(b"\0\x01\x02,\xff\n2,\"S/QF_LIA/b");
    let imp = import(&text).unwrap();
    assert_eq!(imp.pairs.len(), 1);
    let lines: Vec<Option<u64>> = imp.issues.iter().map(|i| i.line).collect();
    assert_eq!(lines, [Some(3), Some(4)], "{:?}", imp.issues);
    // Nothing but garbage: no header to speak of.
    let e = format!("{:#}", import(b"\x89PNG\r\n\x1a\n\0\0").unwrap_err());
    assert!(
        e.starts_with("jobs/job.csv:1: cannot read the header line: "),
        "{e}"
    );
    assert!(e.contains("line 1"), "{e}");
}
