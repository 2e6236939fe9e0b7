//! Stable stand-in for the cargo-fuzz targets (CI has neither nightly nor
//! cargo-fuzz): every crash input the fuzzers found (`tests/fuzz-regressions/
//! <target>/`) and every committed seed (`fuzz/seeds/<target>/`) is replayed
//! through the same bodies (`tests/fuzz_bodies/`), and then each body runs on
//! a few thousand inputs made by a seeded PRNG — random bytes and mutations
//! of the seeds — for about two seconds. A failing input is written under
//! the target directory and its path printed, ready to be added as a
//! regression file.

mod fuzz_bodies;

use fuzz_bodies::gen::{mutate, Rng};
use fuzz_bodies::TARGETS;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// At least this many generated inputs per target…
const MIN_INPUTS: usize = 2_000;
/// …and more until this much time has passed (at most `MAX_INPUTS`).
const BUDGET: Duration = Duration::from_secs(2);
const MAX_INPUTS: usize = 200_000;

fn body(target: &str) -> fn(&[u8]) {
    TARGETS
        .iter()
        .find(|(n, _)| *n == target)
        .unwrap_or_else(|| panic!("no fuzz body {target}"))
        .1
}

/// The files of `dir` (none when it does not exist), sorted.
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.path())
                .filter(|p| p.is_file())
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// Regression inputs and seeds of a target.
fn inputs_of(target: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let root = Path::new(ROOT);
    [
        root.join("tests/fuzz-regressions").join(target),
        root.join("fuzz/seeds").join(target),
    ]
    .iter()
    .flat_map(|d| files(d))
    .map(|p| {
        let bytes = std::fs::read(&p).unwrap();
        (p, bytes)
    })
    .collect()
}

/// Run a body; on a panic, keep the input and say where it is.
fn run_one(target: &str, f: fn(&[u8]), input: &[u8], what: &str) {
    if catch_unwind(AssertUnwindSafe(|| f(input))).is_err() {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join("fuzz-smoke-failures")
            .join(target);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(format!("crash-{}", blake3::hash(input).to_hex()));
        std::fs::write(&path, input).unwrap();
        panic!(
            "fuzz body `{target}` failed on {what}; input saved as {} \
             (copy it to tests/fuzz-regressions/{target}/ once fixed)",
            path.display()
        );
    }
}

#[test]
fn replay_regressions_and_seeds() {
    let mut count = 0;
    for (target, f) in TARGETS {
        for (path, bytes) in inputs_of(target) {
            run_one(target, *f, &bytes, &path.display().to_string());
            count += 1;
        }
    }
    assert!(count > 0, "no seeds found under fuzz/seeds/");
}

/// Random bytes and mutations of the seeds, for `BUDGET` (at least
/// `MIN_INPUTS` inputs).
fn smoke(target: &str) {
    let f = body(target);
    let seeds: Vec<Vec<u8>> = inputs_of(target).into_iter().map(|(_, b)| b).collect();
    let mut rng = Rng::new(0xC0DE_5EED ^ target.len() as u64 ^ (target.as_bytes()[0] as u64) << 32);
    let start = Instant::now();
    let mut prev: Vec<u8> = Vec::new();
    let mut n = 0;
    while n < MAX_INPUTS && (n < MIN_INPUTS || start.elapsed() < BUDGET) {
        let pick = |rng: &mut Rng| -> Vec<u8> {
            if seeds.is_empty() {
                Vec::new()
            } else {
                seeds[rng.below(seeds.len())].clone()
            }
        };
        let input = match rng.below(4) {
            0 => {
                let len = rng.below(300);
                rng.bytes(len)
            }
            1 => {
                let other = pick(&mut rng);
                mutate(&mut rng, &prev, &other)
            }
            _ => {
                let (a, b) = (pick(&mut rng), pick(&mut rng));
                mutate(&mut rng, &a, &b)
            }
        };
        run_one(target, f, &input, &format!("generated input #{n}"));
        prev = input;
        n += 1;
    }
    eprintln!("{target}: {n} inputs in {:.1?}", start.elapsed());
}

#[test]
fn smoke_scanner() {
    smoke("scanner");
}

#[test]
fn smoke_lexer() {
    smoke("lexer");
}

#[test]
fn smoke_answer() {
    smoke("answer");
}

#[test]
fn smoke_rebuild() {
    smoke("rebuild");
}

#[test]
fn smoke_campaign() {
    smoke("campaign");
}

#[test]
fn smoke_starexec_csv() {
    smoke("starexec_csv");
}

#[test]
fn every_target_has_a_smoke_test() {
    let src = std::fs::read_to_string(Path::new(ROOT).join("tests/fuzz_smoke.rs")).unwrap();
    for (t, _) in TARGETS {
        assert!(
            src.contains(&format!("smoke(\"{t}\")")),
            "no smoke test for {t}"
        );
        assert!(
            Path::new(ROOT)
                .join(format!("fuzz/fuzz_targets/{t}.rs"))
                .exists(),
            "no cargo-fuzz target for {t}"
        );
    }
}
