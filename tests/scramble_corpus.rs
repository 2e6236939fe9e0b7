//! Scrambling the real benchmarks of `tests/data/benchmarks`: every file with
//! 20 seeds scans, parses strictly with smt2parser whenever the original
//! does, and descrambles exactly (the map's positions and names turn each
//! scrambled assertion back into its original, token for token); with 2
//! seeds z3 and cvc5 give the original's answer on the scrambled file, and
//! a core z3 finds on the scrambled file, mapped back, is a core of the
//! original (z3 says unsat on the original restricted to it). Outputs are
//! the same bytes on one thread and on two.

mod common;

use coreval::scramble::{core_positions, scramble, DescrambleMap, ScrambleOptions};
use coreval::smtlib::lexer::{Lexer, TokenKind};
use coreval::smtlib::scanner::{commands, Command};
use rayon::prelude::*;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::Command as Process;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/benchmarks")
}

const Z3: &str = "checkers/venv/bin/z3";
const CVC5: &str = "/usr/bin/cvc5";

/// One benchmark and what MANIFEST.tsv says about it.
struct Bench {
    rel: String,
    bytes: Vec<u8>,
    /// Solver → (answer, seconds) as recorded.
    answers: HashMap<String, (String, f64)>,
}

fn manifest() -> Vec<Bench> {
    let text = std::fs::read_to_string(root().join("MANIFEST.tsv")).unwrap();
    let mut out = Vec::new();
    for line in text.lines().skip(1) {
        let f: Vec<&str> = line.split('\t').collect();
        let (rel, status, confirmed) = (f[0], f[8], f[9]);
        let mut answers = HashMap::new();
        for entry in confirmed.split(';') {
            let parts: Vec<&str> = entry.split(':').collect();
            // `z3:unsat:0.02s`, or `z3:0.56s` meaning the file's status.
            let (solver, answer, time) = match parts[..] {
                [s, a, t] => (s, a, t),
                [s, t] => (s, status, t),
                _ => continue,
            };
            let secs = time.trim_end_matches('s').parse().unwrap_or(f64::MAX);
            answers.insert(solver.to_string(), (answer.to_string(), secs));
        }
        let bytes = std::fs::read(root().join(rel)).unwrap();
        out.push(Bench {
            rel: rel.to_string(),
            bytes,
            answers,
        });
    }
    // The whole corpus of tests/data/benchmarks (394 files): a smaller count
    // means files went missing.
    assert!(out.len() >= 390, "{} benchmarks", out.len());
    out
}

/// Scrambled on two threads, every run of assertions split in two
/// (`threads: 1`: on one thread).
fn scrambled(b: &Bench, seed: u32, commute: bool) -> (Vec<u8>, DescrambleMap) {
    scrambled_on(b, seed, commute, 2)
}

fn scrambled_on(b: &Bench, seed: u32, commute: bool, threads: usize) -> (Vec<u8>, DescrambleMap) {
    let prefix = coreval::scramble::choose_prefix(&b.bytes[..]).unwrap();
    let opts = ScrambleOptions {
        seed,
        commute,
        prefix: Some(prefix),
        threads,
        split_min: 1,
        ..ScrambleOptions::default()
    };
    let mut out = Vec::new();
    let map = scramble(&b.bytes[..], &mut out, &opts)
        .unwrap_or_else(|e| panic!("{} seed {seed}: {e}", b.rel));
    (out, map)
}

fn parses_strictly(bytes: &[u8]) -> bool {
    let stream = smt2parser::CommandStream::new(bytes, smt2parser::concrete::SyntaxBuilder, None);
    stream.into_iter().all(|c| c.is_ok())
}

fn asserts(cmds: &[Command]) -> Vec<&Command> {
    cmds.iter().filter(|c| c.head() == "assert").collect()
}

/// Tokens of a command with symbols in normal form, fresh names replaced
/// by their originals when a renaming is given.
fn tokens(text: &[u8], rename: Option<&HashMap<&str, &str>>) -> Vec<String> {
    Lexer::new(text)
        .map(|t| {
            let t = t.unwrap();
            if t.is_symbol() {
                let s = String::from_utf8_lossy(t.symbol(text)).into_owned();
                match rename.and_then(|m| m.get(s.as_str())) {
                    Some(orig) => format!("sym:{orig}"),
                    None => format!("sym:{s}"),
                }
            } else if t.kind == TokenKind::Open || t.kind == TokenKind::Close {
                String::from_utf8_lossy(t.bytes(text)).into_owned()
            } else {
                format!("{:?}:{}", t.kind, String::from_utf8_lossy(t.bytes(text)))
            }
        })
        .collect()
}

/// Check one scrambled version against its original; returns the
/// assertion permutation.
fn check_version(b: &Bench, orig_cmds: &[Command], out: &[u8], map: &DescrambleMap, commute: bool) {
    let cmds = commands(out).unwrap_or_else(|e| panic!("{}: output does not scan: {e}", b.rel));
    let (oa, na) = (asserts(orig_cmds), asserts(&cmds));
    assert_eq!(oa.len(), na.len(), "{}", b.rel);
    let mut perm = map.assertions.clone();
    perm.sort();
    assert_eq!(perm, (0..oa.len() as u32).collect::<Vec<_>>(), "{}", b.rel);
    let names: HashSet<&str> = map.symbols.0.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(
        names.len(),
        map.symbols.0.len(),
        "{}: fresh names repeat",
        b.rel
    );
    if !commute {
        let ren: HashMap<&str, &str> = map
            .symbols
            .0
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        for (new, &orig) in map.assertions.iter().enumerate() {
            assert_eq!(
                tokens(&na[new].text, Some(&ren)),
                tokens(&oa[orig as usize].text, None),
                "{}: scrambled assertion {new} is not original assertion {orig}",
                b.rel
            );
        }
    }
    let status = orig_cmds.iter().find_map(|c| {
        let t = String::from_utf8_lossy(&c.text).into_owned();
        let rest = t.strip_prefix("(set-info :status ")?;
        Some(rest.trim_end_matches(')').trim().to_string())
    });
    assert_eq!(map.status, status, "{}", b.rel);
    assert!(
        !cmds
            .iter()
            .any(|c| c.head() == "set-info" && c.text.windows(7).any(|w| w == b":status")),
        "{}: status leaks",
        b.rel
    );
    assert!(
        !cmds.iter().any(|c| c.has_comment),
        "{}: a comment survived",
        b.rel
    );
}

#[test]
fn twenty_seeds_scan_parse_and_descramble() {
    let benches = manifest();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    let strict = std::sync::atomic::AtomicUsize::new(0);
    pool.install(|| {
        benches.par_iter().for_each(|b| {
            let large = b.rel.starts_with("large/");
            let seeds: Vec<u32> = if large { vec![1, 2] } else { (0..20).collect() };
            let orig_cmds = commands(&b.bytes).unwrap();
            let orig_parses = parses_strictly(&b.bytes);
            if orig_parses {
                strict.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
            let mut orders = HashSet::new();
            let mut outputs = HashSet::new();
            for &seed in &seeds {
                let commute = seed % 2 == 1;
                let (out, map) = scrambled(b, seed, commute);
                check_version(b, &orig_cmds, &out, &map, commute);
                if orig_parses {
                    assert!(
                        parses_strictly(&out),
                        "{} seed {seed}: smt2parser rejects the output",
                        b.rel
                    );
                }
                if seed < 4 {
                    // Same bytes on one thread as on two.
                    assert_eq!(
                        scrambled_on(b, seed, commute, 1).0,
                        out,
                        "{}: not deterministic",
                        b.rel
                    );
                }
                orders.insert(map.assertions.clone());
                outputs.insert(out);
            }
            // A run of 3+ assertions gets several orders over 20 seeds.
            let mut run = 0;
            let mut longest = 0;
            for c in &orig_cmds {
                run = if c.head() == "assert" { run + 1 } else { 0 };
                longest = longest.max(run);
            }
            if !large && longest >= 3 {
                assert!(orders.len() > 1, "{}: seeds give one order", b.rel);
            }
            if !large {
                assert!(outputs.len() > 1, "{}: seeds give one output", b.rel);
            }
        });
    });
    // The strict check is not vacuous: most originals parse with smt2parser.
    let strict = strict.into_inner();
    eprintln!("{strict} of {} benchmarks parse strictly", benches.len());
    assert!(strict >= 390, "only {strict} originals parse strictly");
}

fn solve(program: &str, args: &[&str], file: &Path) -> String {
    let out = Process::new("timeout")
        .args(["-k", "5", "40"])
        .arg(program)
        .args(args)
        .arg(file)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("solver runs");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The first `sat`/`unsat`/`unknown`/`timeout` line; `error` when there is
/// none but an error or warning was printed (z3 warns about patterns and
/// reports unsupported operators, then may still answer), `none` otherwise.
fn answer(stdout: &str) -> &str {
    let mut lines = stdout.lines().map(str::trim);
    match lines.find(|l| matches!(*l, "sat" | "unsat" | "unknown" | "timeout")) {
        Some(a) => a,
        None if stdout.trim().is_empty() => "none",
        None => "error",
    }
}

/// `(assert t)` → `(assert (! t :named <prefix>N))`, get-unsat-core after check-sat.
fn name_asserts(out: &[u8], prefix: &str) -> Vec<u8> {
    let mut named = b"(set-option :produce-unsat-cores true)\n".to_vec();
    let mut n = 0;
    for c in commands(out).unwrap() {
        match c.head() {
            "assert" => {
                let (s, e) = c.args_span();
                named.extend_from_slice(b"(assert (! ");
                named.extend_from_slice(&c.text[s..e]);
                named.extend_from_slice(format!(" :named {prefix}{n}))\n").as_bytes());
                n += 1;
            }
            "check-sat" => named.extend_from_slice(b"(check-sat)\n(get-unsat-core)\n"),
            _ => {
                named.extend_from_slice(&c.text);
                named.push(b'\n');
            }
        }
    }
    named
}

/// What the solvers did on one scrambled version.
#[derive(Default)]
struct Outcome {
    ran: usize,
    same: usize,
    cores: usize,
    /// Answers that differ but do not contradict (timeouts, unknown, errors).
    other: Vec<String>,
    /// Contradictions and refuted cores.
    problems: Vec<String>,
}

/// Solvers run only where MANIFEST.tsv records a definite answer within
/// this many seconds, to keep the test short.
const QUICK: f64 = 0.5;

#[test]
fn solvers_agree_and_mapped_cores_are_cores() {
    let benches = manifest();
    let dir = tempfile::tempdir().unwrap();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    let quick = |b: &Bench, s: &str| {
        b.answers
            .get(s)
            .filter(|(a, t)| (a == "sat" || a == "unsat") && *t < QUICK)
            .map(|(a, _)| a.clone())
    };
    let results: Vec<Outcome> = pool.install(|| {
        benches
            .par_iter()
            .enumerate()
            .flat_map(|(i, b)| [(i, b, 1u32), (i, b, 2u32)])
            .map(|(i, b, seed)| {
                let mut o = Outcome::default();
                let (cvc5, z3) = (quick(b, "cvc5"), quick(b, "z3"));
                if cvc5.is_none() && z3.is_none() {
                    return o;
                }
                let (out, map) = scrambled(b, seed, seed == 1);
                let file = dir.path().join(format!("{i}-{seed}.smt2"));
                let judge = |o: &mut Outcome, solver: &str, expect: &str, got: &str| {
                    o.ran += 1;
                    match answer(got) {
                        a if a == expect => o.same += 1,
                        "sat" | "unsat" => o
                            .problems
                            .push(format!("{} seed {seed}: {solver} says {got}", b.rel)),
                        a => o.other.push(format!("{} seed {seed}: {solver} {a}", b.rel)),
                    }
                };
                if let Some(expect) = cvc5 {
                    std::fs::write(&file, &out).unwrap();
                    let got = solve(CVC5, &["--lang=smt2", "--tlimit-per=20000"], &file);
                    judge(&mut o, "cvc5", &expect, &got);
                }
                let Some(expect) = z3 else { return o };
                // Seed 1: named, with a core to map back; seed 2: as is.
                let has_names = b.bytes.windows(6).any(|w| w == b":named");
                let core_run = seed == 1 && expect == "unsat" && !has_names;
                let input = if core_run { name_asserts(&out, "core_") } else { out };
                std::fs::write(&file, &input).unwrap();
                let got = solve(Z3, &["-T:20"], &file);
                judge(&mut o, "z3", &expect, &got);
                if core_run && answer(&got) == "unsat" {
                    // The core: the first parenthesised list after `unsat`.
                    let after = &got[got.find("unsat").unwrap() + 5..];
                    let list = after
                        .find('(')
                        .and_then(|a| after[a..].find(')').map(|b| &after[a + 1..a + b]))
                        .unwrap_or("");
                    let names: Vec<String> = list.split_whitespace().map(String::from).collect();
                    let pos = core_positions(&input[..], &names)
                        .unwrap_or_else(|e| panic!("{}: {e}", b.rel));
                    let orig: HashSet<usize> =
                        map.original_positions(&pos).unwrap().into_iter().collect();
                    let restricted = common::restrict(&b.bytes, &orig);
                    let rfile = dir.path().join(format!("{i}-{seed}-core.smt2"));
                    std::fs::write(&rfile, &restricted).unwrap();
                    let check = solve(Z3, &["-T:20"], &rfile);
                    o.cores += 1;
                    if answer(&check) != "unsat" {
                        o.problems.push(format!(
                            "{} seed {seed}: the mapped core {orig:?} is not unsat on the original: {check}",
                            b.rel
                        ));
                    }
                }
                o
            })
            .collect()
    });
    let ran: usize = results.iter().map(|r| r.ran).sum();
    let same: usize = results.iter().map(|r| r.same).sum();
    let cores: usize = results.iter().map(|r| r.cores).sum();
    let problems: Vec<&String> = results.iter().flat_map(|r| &r.problems).collect();
    let other: Vec<&String> = results.iter().flat_map(|r| &r.other).collect();
    eprintln!(
        "solver runs {ran}, same answer {same}, cores checked {cores}; other answers: {other:#?}"
    );
    assert!(problems.is_empty(), "{problems:#?}");
    assert!(ran > 1200, "only {ran} solver runs");
    assert!(
        same * 100 >= ran * 98,
        "only {same} of {ran} answers reproduced"
    );
    assert!(cores > 250, "only {cores} cores checked");
}
