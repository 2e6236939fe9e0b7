//! `coreval selfcheck --scrambles K`, the competition rehearsal, end to end
//! with the real z3, yices and cvc5: a solver wrapper whose core depends on
//! assertion order (`tests/fixtures/fake-solvers/z3-drop-file-first.sh`)
//! passes on the benchmark as written and fails once it is scrambled, the
//! failure naming its seed, keeping the scrambled file and repeating from
//! the printed command; a correct solver passes on every seed.

mod common;

use std::path::Path;
use std::process::Output;

const ORDER: &str = "tests/fixtures/selfcheck/order/first-redundant.smt2";
const OWN_NAMES: &str = "tests/fixtures/selfcheck/order/own-names.smt2";
const PRIME: &str = "tests/fixtures/selfcheck/unsat/QF_LIA/prime_cone_unsat_3.smt2";
const SCOPES: &str = "tests/fixtures/selfcheck/incremental/scopes.smt2";
const DROP_FILE_FIRST: &str = "tests/fixtures/fake-solvers/z3-drop-file-first.sh {file}";

/// `coreval selfcheck ARGS` from the repository root, with its own check cache.
fn selfcheck(cache: &Path, args: &[&str]) -> Output {
    let out = common::command()
        .current_dir(common::repo())
        .env("COREVAL_CACHE", cache)
        .arg("selfcheck")
        .args(["--checkers", "yices,z3,cvc5", "--no-references", "--keep"])
        .arg(cache.join("kept"))
        .args(args)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
    out
}

fn text(o: &Output) -> String {
    format!(
        "{}\n--- stderr\n{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

#[test]
fn order_dependent_core_passes_as_written_and_fails_scrambled() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let plain = selfcheck(&cache, &["--solver", DROP_FILE_FIRST, ORDER]);
    assert_eq!(plain.status.code(), Some(0), "{}", text(&plain));
    assert!(
        String::from_utf8_lossy(&plain.stdout).starts_with("PASS validated"),
        "{}",
        text(&plain)
    );

    let work = tmp.path().join("work");
    let w = work.to_str().unwrap();
    let scrambled = selfcheck(
        &cache,
        &[
            "--solver",
            DROP_FILE_FIRST,
            "--scrambles",
            "4",
            "--workdir",
            w,
            ORDER,
        ],
    );
    let all = text(&scrambled);
    assert_eq!(scrambled.status.code(), Some(1), "{all}");
    // The seeds are printed: the 2025 formula with entrant number 0.
    assert!(
        all.contains("seeds 100, 200, 300, 400 (smtcomp-2025"),
        "{all}"
    );
    let stdout = String::from_utf8_lossy(&scrambled.stdout);
    assert!(stdout.starts_with("FAIL order-dependent"), "{all}");
    assert!(
        stdout.contains(
            "order-dependent core: validated on seed(s) 100, failed on seed(s) 200, 300, 400"
        ),
        "{all}"
    );
    // Each failing seed is named, with its core in original positions (the
    // wrapper dropped assertion 2, which scrambling moved first), the kept
    // scrambled file and a command that repeats it.
    let failing = stdout
        .lines()
        .find(|l| l.trim_start().starts_with("seed 200: FAIL refuted"))
        .unwrap_or_else(|| panic!("{all}"));
    assert!(failing.contains("(original assertions {3})"), "{all}");
    let kept = stdout
        .lines()
        .find_map(|l| l.trim().strip_prefix("scrambled file kept: "))
        .unwrap_or_else(|| panic!("{all}"));
    assert!(kept.starts_with(w) && kept.contains("seed-200"), "{all}");
    let body = std::fs::read_to_string(kept).unwrap();
    assert!(body.contains("x_1") && !body.contains("(< y 0)"), "{body}");
    // `repeat:` names this binary by a path that works (it is not on
    // PATH here) and carries every option that decides the verdict.
    let repeat = stdout
        .lines()
        .find_map(|l| l.trim().strip_prefix("repeat: "))
        .unwrap_or_else(|| panic!("{all}"));
    let words = shlex::split(repeat).unwrap();
    assert_eq!(
        std::path::Path::new(&words[0]).canonicalize().unwrap(),
        std::path::Path::new(env!("CARGO_BIN_EXE_coreval"))
            .canonicalize()
            .unwrap(),
        "{repeat}"
    );
    for w in [
        "--scramble-seeds",
        "200",
        "--no-references",
        "--timeout",
        "--checker-timeout",
        "--checkers-dir",
    ] {
        assert!(words.contains(&w.to_string()), "{w}: {repeat}");
    }
    // Run as printed, by a shell.
    let again = std::process::Command::new("sh")
        .arg("-c")
        .arg(repeat)
        .current_dir(common::repo())
        .env("COREVAL_CACHE", &cache)
        .env("COREVAL_NO_PROGRESS", "1")
        .env_remove("COREVAL_CHECKERS")
        .output()
        .unwrap();
    let again_text = text(&again);
    assert_eq!(again.status.code(), Some(1), "{again_text}");
    assert!(
        again_text.contains("seed 200: FAIL refuted"),
        "{again_text}"
    );
    assert!(
        again_text.contains("seeds: 0 passed, 1 failed"),
        "{again_text}"
    );
}

#[test]
fn correct_solver_passes_on_every_seed_of_an_older_formula() {
    let tmp = tempfile::tempdir().unwrap();
    let out = selfcheck(
        tmp.path(),
        &[
            "--solver",
            "tests/fixtures/fake-solvers/z3-core.sh {file}",
            "--scrambles",
            "3",
            "--rules",
            "smtcomp-2019",
            "--scramble-base",
            "41",
            ORDER,
            PRIME,
            SCOPES,
        ],
    );
    let all = text(&out);
    assert_eq!(out.status.code(), Some(0), "{all}");
    assert!(all.contains("seeds 42, 43, 44 (smtcomp-2019"), "{all}");
    // The incremental script is run as written on every seed.
    assert!(all.contains("3 benchmark(s): 3 passed, 0 failed"), "{all}");
}

#[test]
fn rehearsal_options_are_checked() {
    let tmp = tempfile::tempdir().unwrap();
    let zero = selfcheck(
        tmp.path(),
        &["--solver", DROP_FILE_FIRST, "--scrambles", "0", ORDER],
    );
    assert_eq!(zero.status.code(), Some(2), "{}", text(&zero));
    assert!(text(&zero).contains("--scrambles must be between 1 and 1000"));
    let no_k = selfcheck(
        tmp.path(),
        &[
            "--solver",
            DROP_FILE_FIRST,
            "--rules",
            "smtcomp-2019",
            ORDER,
        ],
    );
    assert_eq!(no_k.status.code(), Some(2), "{}", text(&no_k));
}

/// The lines of the seed blocks of a folded FAIL: `(seed, lines)`.
fn seed_blocks(stdout: &str) -> Vec<(u32, Vec<String>)> {
    let mut out: Vec<(u32, Vec<String>)> = Vec::new();
    for l in stdout.lines() {
        let t = l.trim();
        if let Some(rest) = t.strip_prefix("seed ") {
            if let Some((s, v)) = rest.split_once(": ") {
                if let Ok(seed) = s.parse() {
                    out.push((seed, vec![v.to_string()]));
                    continue;
                }
            }
        }
        if l.starts_with("       ") {
            if let Some((_, lines)) = out.last_mut() {
                lines.push(t.to_string());
            }
        }
    }
    out
}

#[test]
fn every_failing_seed_replays_with_its_names_on_their_original_lines() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let out = selfcheck(
        &cache,
        &["--solver", DROP_FILE_FIRST, "--scrambles", "4", ORDER],
    );
    let all = text(&out);
    assert_eq!(out.status.code(), Some(1), "{all}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    // The original file's assertions are on lines 7, 8, 9.
    let lines = [7u64, 8, 9];
    let mut solver_files = std::collections::HashSet::new();
    let failing: Vec<(u32, Vec<String>)> = seed_blocks(&stdout)
        .into_iter()
        .filter(|(_, b)| b[0].starts_with("FAIL"))
        .collect();
    assert_eq!(failing.len(), 3, "{all}");
    for (seed, b) in &failing {
        let core: Vec<usize> = b[0]
            .split_once("(original assertions {")
            .and_then(|(_, r)| r.split_once('}'))
            .map(|(c, _)| c.split(", ").map(|n| n.parse().unwrap()).collect())
            .unwrap_or_else(|| panic!("{seed}: {all}"));
        let solver = b
            .iter()
            .find_map(|l| l.strip_prefix("solver: $ "))
            .unwrap_or_else(|| panic!("{seed}: {all}"));
        assert!(solver.contains(&format!("seed-{seed}")), "{solver}");
        solver_files.insert(solver.to_string());
        let names_line = b
            .iter()
            .find_map(|l| l.strip_prefix("names printed "))
            .unwrap_or_else(|| panic!("{seed}: {all}"));
        // `cv2 (ORDER:9, your assertion 3; scrambled FILE:8)`, …
        let shown: Vec<(String, u64)> = names_line
            .split_once(": ")
            .unwrap()
            .1
            .split("), ")
            .map(|p| {
                let (name, at) = p.split_once(" (").unwrap();
                let line = at
                    .strip_prefix(&format!("{ORDER}:"))
                    .unwrap_or_else(|| panic!("{p}"))
                    .split([';', ','])
                    .next()
                    .unwrap()
                    .trim_end_matches(')');
                (name.to_string(), line.parse().unwrap())
            })
            .collect();
        let mut got: Vec<u64> = shown.iter().map(|(_, l)| *l).collect();
        got.sort_unstable();
        let mut want: Vec<u64> = core.iter().map(|p| lines[p - 1]).collect();
        want.sort_unstable();
        assert_eq!(
            got, want,
            "seed {seed}: each name on its original assertion's line: {all}"
        );
        // Replayed in a shell, the command prints the names shown.
        let replay = common::shell(solver);
        let printed = String::from_utf8_lossy(&replay.stdout);
        let core_line = printed
            .lines()
            .skip_while(|l| l.trim() != "unsat")
            .nth(1)
            .unwrap_or_else(|| panic!("{solver}: {printed}"));
        let mut names: Vec<&str> = core_line
            .trim_matches(|c| c == '(' || c == ')')
            .split_whitespace()
            .collect();
        names.sort_unstable();
        let mut expected: Vec<&str> = shown.iter().map(|(n, _)| n.as_str()).collect();
        expected.sort_unstable();
        assert_eq!(names, expected, "seed {seed}: {solver}");
    }
    // One kept folder per seed: no seed's file is another's.
    assert_eq!(solver_files.len(), failing.len(), "{all}");
}

#[test]
fn a_scrambled_failure_is_told_in_the_authors_names_and_symbols() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let out = selfcheck(
        &cache,
        &["--solver", DROP_FILE_FIRST, "--scrambles", "3", OWN_NAMES],
    );
    let all = text(&out);
    assert_eq!(out.status.code(), Some(1), "{all}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let failing: Vec<(u32, Vec<String>)> = seed_blocks(&stdout)
        .into_iter()
        .filter(|(_, b)| b[0].starts_with("FAIL"))
        .collect();
    assert!(!failing.is_empty(), "{all}");
    let fresh = regex::Regex::new(r"\b(x_\d+|cv\d+)\b").unwrap();
    let values =
        regex::Regex::new(r"in your symbols: x = -?\d+, \|why not\| = \(?-? ?\d+\)?$").unwrap();
    for (seed, b) in &failing {
        // The core, mapped back: the author's third assertion alone.
        assert!(
            b[0].contains("(original assertions {3})"),
            "seed {seed}: {all}"
        );
        let line = |start: &str| -> String {
            b.iter()
                .find(|l| l.starts_with(start))
                .unwrap_or_else(|| panic!("seed {seed}: no {start}: {all}"))
                .clone()
        };
        // The assertions the core needed, by the author's names and lines.
        let why = line("explanation: ");
        assert!(
            why.contains(&format!("big_x ({OWN_NAMES}:8)"))
                && why.contains(&format!("spare ({OWN_NAMES}:7)"))
                && !fresh.is_match(&why),
            "seed {seed}: {why}"
        );
        // The model in the symbols the author declared.
        let model = line("model of ");
        assert!(values.is_match(&model), "seed {seed}: {model}");
        // The name printed, what it is in the author's file.
        let names = line("names printed ");
        assert!(
            names.contains(&format!("({OWN_NAMES}:9, your small_x; scrambled ")),
            "seed {seed}: {names}"
        );
        // The kept files stay as the solver read them: scrambled.
        let solver = line("solver: $ ");
        let kept = solver.rsplit(' ').next().unwrap();
        let text = std::fs::read_to_string(common::repo().join(kept)).unwrap();
        assert!(
            !text.contains("small_x") && !text.contains("why not") && fresh.is_match(&text),
            "seed {seed}: {kept}: {text}"
        );
    }
}

/// The block under "Competition rehearsal" in docs/authors.md (where the
/// README's section moved; between its first "```text" and "```" after the
/// heading): the command and the lines shown.
fn readme_block() -> (String, Vec<String>) {
    let readme = std::fs::read_to_string(common::repo().join("docs/authors.md")).unwrap();
    let at = readme
        .find("## Competition rehearsal: `--scrambles K`")
        .expect("the rehearsal section");
    let rest = &readme[at..];
    let start = rest.find("```text\n").unwrap() + "```text\n".len();
    let end = start + rest[start..].find("```").unwrap();
    let mut command = String::new();
    let mut shown = Vec::new();
    let mut in_command = true;
    for l in rest[start..end].lines() {
        if in_command {
            let l = l.strip_prefix("$ ").unwrap_or(l);
            command.push_str(l.trim_end_matches('\\').trim());
            command.push(' ');
            in_command = l.ends_with('\\');
            continue;
        }
        shown.push(l.to_string());
    }
    (command, shown)
}

/// A line with its variable parts made alike: times (`0.086 s`, `(1.0 s)`).
fn normal(line: &str) -> String {
    let times = regex::Regex::new(r"\d+\.\d+ s\b").unwrap();
    times.replace_all(line, "T s").into_owned()
}

#[test]
fn the_readme_rehearsal_sample_is_real_output() {
    let (command, shown) = readme_block();
    let words = shlex::split(&command).unwrap();
    assert_eq!(words[..2], ["coreval", "selfcheck"], "{command}");
    let tmp = tempfile::tempdir().unwrap();
    let out = common::command()
        .current_dir(common::repo())
        .env("COREVAL_CACHE", tmp.path())
        .args(&words[1..])
        .output()
        .unwrap();
    let all = text(&out);
    assert_eq!(out.status.code(), Some(1), "{all}");
    let streams: [Vec<String>; 2] = [&out.stdout, &out.stderr]
        .map(|o| String::from_utf8_lossy(o).lines().map(normal).collect());
    // Each README line is a line of stdout or stderr, in order in its
    // stream; `…` stands for any text (a line of `…` alone: lines left out).
    let mut at = [0usize, 0];
    for want in shown.iter().filter(|w| w.trim() != "…") {
        let pattern = format!("^{}$", regex::escape(&normal(want)).replace('…', ".*"));
        let re = regex::Regex::new(&pattern).unwrap();
        let found = (0..2).find_map(|s| {
            let k = streams[s][at[s]..].iter().position(|a| re.is_match(a))?;
            Some((s, at[s] + k))
        });
        match found {
            Some((s, k)) => at[s] = k + 1,
            None => panic!("README line not in the output, in order:\n{want}\n--- output\n{all}"),
        }
    }
}
