//! Beyond the track, with the real checkers: the subset-minimality check
//! (`[check] minimality`) and best-known cores (`[check] best_known`).
//!
//! - z3 with `smt.core.minimize=true sat.core.minimize=true` (its
//!   definition) on QF_UF and QF_LIA benchmarks gets `minimal`;
//! - `tests/fixtures/fake-solvers/z3-pad.sh`, which pads z3's minimal core
//!   with every other assertion of a benchmark whose unsat core is unique
//!   (`tests/fixtures/minimality/QF_UF/padded.smt2`), gets `redundant`
//!   naming exactly the padding;
//! - a budget too small gives `unknown`, never `minimal` or `redundant`;
//! - answers are cached across campaigns (a second campaign runs no checker);
//! - the best-known core of a benchmark is the smallest validated one, shrunk
//!   by deletion to a MUS within a budget, shared through the cache, and
//!   `coreval selfcheck` prints it as the reference.

mod common;

use common::{cmd, jsonl, q, repo};
use coreval::campaign::setup::context::Context;
use coreval::campaign::verdict::minimality::{BestKnown, Status};
use coreval::campaign::verdict::pair::{PairVerdict, Verdict};
use coreval::campaign::{ledger::Loaded, setup::Campaign};
use coreval::pipeline::{self, Stages};
use std::collections::BTreeSet;
use std::path::Path;

const UF: &str = "QF_UF/cvc5-test_regress_cli_regress0/bt-test-01.smt2";
const LIA: &str = "QF_LIA/doc-arithmetic_artifact_z_QF_LIA_prime-cone/prime_cone_unsat_3.smt2";
const PADDED: &str = "QF_UF/padded.smt2";

/// A campaign over copies of `benchmarks` (tests/data, or PADDED) with
/// `check` lines in `[check]` and the cache at `cache`.
fn campaign(dir: &Path, benchmarks: &[&str], check: &str, solvers: &str, cache: &Path) -> Campaign {
    for b in benchmarks {
        let from = if *b == PADDED {
            repo().join("tests/fixtures/minimality").join(b)
        } else {
            repo().join("tests/data/benchmarks").join(b)
        };
        let to = dir.join("benchmarks").join(b);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(from, to).unwrap();
    }
    let config = format!(
        "benchmarks = \"benchmarks\"\njobs = 2\ncache = {}\n\
         [naming]\nallow_no_status = true\nnamed_policy = \"keep\"\n\
         [limits]\ntime = 20.0\nchecker_time = 20.0\n\
         [check]\ncheckers = [\"z3\", \"yices\", \"cvc5\"]\n{check}\n{solvers}",
        q(cache)
    );
    std::fs::write(dir.join("campaign.toml"), config).unwrap();
    Campaign::load(dir).unwrap()
}

const Z3: &str = "[[solver]]\nname = \"z3\"\ndefinition = \"z3\"\n";

fn pad() -> String {
    format!(
        "[[solver]]\nname = \"pad\"\ncommand = [\"{}\", \"{{file}}\"]\n",
        repo()
            .join("tests/fixtures/fake-solvers/z3-pad.sh")
            .display()
    )
}

fn run_all(c: &Campaign) -> pipeline::Summary {
    pipeline::run_to_end(c, Stages::ALL).unwrap()
}

fn pair<'a>(pairs: &'a [PairVerdict], solver: &str, bench: &str) -> &'a PairVerdict {
    pairs
        .iter()
        .find(|p| p.pair.solver == solver && p.pair.benchmark == bench)
        .unwrap_or_else(|| panic!("no pair {solver} {bench}"))
}

/// The names of assertions 1, 3 and 5 of the padded benchmark: its only core.
fn padded_mus(c: &Campaign) -> BTreeSet<String> {
    let reading = Stages {
        score: true,
        ..Stages::default()
    };
    let ctx = Context::load(c.clone(), reading).unwrap();
    let l = Loaded::new(&ctx).unwrap();
    let e = l.bench(PADDED).unwrap();
    [1, 3, 5]
        .iter()
        .map(|n| format!("{}{n}", e.prefix))
        .collect()
}

#[test]
fn minimal_cores_are_minimal_and_padding_is_named_exactly() {
    let cache = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let c = campaign(
        dir.path(),
        &[UF, LIA, PADDED],
        "minimality = true\nbest_known = true\n",
        &format!("{Z3}{}", pad()),
        cache.path(),
    );
    let done = run_all(&c);
    let pairs = done.pairs.unwrap();
    let m = done.check.unwrap().minimality.unwrap();
    assert!(m.asked.ran > 0 && m.unknown == 0, "{m:?}");
    for b in [UF, LIA, PADDED] {
        let p = pair(&pairs, "z3", b);
        assert_eq!(p.pair.verdict, Verdict::Validated, "{b}: {:?}", p.checkers);
        let got = p.details.minimality.as_ref().unwrap();
        assert_eq!(got.status, Status::Minimal, "z3 on {b}: {got:?}");
        assert!(got.redundant.is_empty());
    }
    let padded = pair(&pairs, "pad", PADDED);
    assert_eq!(padded.pair.verdict, Verdict::Validated);
    let core: BTreeSet<String> = padded
        .pair
        .core
        .clone()
        .unwrap()
        .iter()
        .map(|n| n.to_string())
        .collect();
    let mus = padded_mus(&c);
    assert_eq!(core.len(), 6, "the padded core holds every assertion");
    let padding: Vec<String> = core.difference(&mus).cloned().collect();
    let got = padded.details.minimality.as_ref().unwrap();
    assert_eq!(got.status, Status::Redundant);
    let mut named = got.redundant.clone();
    named.sort();
    assert_eq!(named, padding, "exactly the padding is removable");

    // pairs.jsonl: the outcome beside the verdict.
    let lines = jsonl(&c.reports_dir().join("pairs.jsonl"));
    let line = lines
        .iter()
        .find(|p| p["solver"] == "pad" && p["benchmark"] == PADDED)
        .unwrap();
    assert_eq!(line["minimality"]["status"], "redundant");
    assert_eq!(line["minimality"]["redundant"].as_array().unwrap().len(), 3);
    let z3_line = lines.iter().find(|p| p["solver"] == "z3").unwrap();
    assert_eq!(z3_line["minimality"]["status"], "minimal");
    assert_eq!(z3_line["minimality"]["redundant"], serde_json::json!([]));

    // Best-known core of the padded benchmark: z3's three assertions; the
    // padded core is three assertions away from it.
    let b = padded.details.best_known.as_ref().unwrap();
    assert_eq!((b.size, b.reduction, b.gap), (3, 3, Some(3)), "{b:?}");
    assert_eq!(
        pair(&pairs, "z3", PADDED)
            .details
            .best_known
            .as_ref()
            .unwrap()
            .gap,
        Some(0)
    );

    // Counted per solver in the reports.
    let scores: serde_json::Value =
        serde_json::from_slice(&std::fs::read(c.reports_dir().join("scores.json")).unwrap())
            .unwrap();
    let beyond = scores["beyond"].as_array().unwrap();
    let row = |s: &str| beyond.iter().find(|r| r["solver"] == s).unwrap().clone();
    assert_eq!(row("z3")["minimal"], 3);
    assert_eq!(row("z3")["at_best_known"], row("z3")["compared"]);
    // pad pads its cores on every benchmark: its row adds up its pairs.
    let mine: Vec<&PairVerdict> = pairs.iter().filter(|p| p.pair.solver == "pad").collect();
    let redundant = mine
        .iter()
        .filter(|p| {
            p.details
                .minimality
                .as_ref()
                .is_some_and(|m| m.status == Status::Redundant)
        })
        .count();
    let removable: usize = mine
        .iter()
        .filter_map(|p| p.details.minimality.as_ref())
        .map(|m| m.redundant.len())
        .sum();
    let gap: u64 = mine
        .iter()
        .filter_map(|p| p.details.best_known.as_ref()?.gap)
        .sum();
    assert!(redundant >= 1 && removable >= 3 && gap >= 3);
    assert_eq!(row("pad")["redundant"], redundant);
    assert_eq!(row("pad")["removable_members"], removable);
    assert_eq!(row("pad")["size_gap"], gap);
    let md = std::fs::read_to_string(c.reports_dir().join("report.md")).unwrap();
    assert!(
        md.contains("## Beyond the track: minimality and best-known cores"),
        "{md}"
    );
    let html = std::fs::read_to_string(c.reports_dir().join("report.html")).unwrap();
    assert!(html.contains("Minimality and best-known cores"));

    // A second campaign sharing the cache runs no checker for minimality.
    let dir2 = tempfile::tempdir().unwrap();
    let c2 = campaign(
        dir2.path(),
        &[UF, LIA, PADDED],
        "minimality = true\n",
        &format!("{Z3}{}", pad()),
        cache.path(),
    );
    let done2 = run_all(&c2);
    let m2 = done2.check.unwrap().minimality.unwrap();
    assert_eq!(m2.asked.ran, 0, "{m2:?}");
    assert!(m2.asked.cache_hits > 0);
    assert_eq!((m2.minimal, m2.redundant), (m.minimal, m.redundant));
}

#[test]
fn a_budget_too_small_gives_unknown_never_a_guess() {
    let cache = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let c = campaign(
        dir.path(),
        &[UF, LIA, PADDED],
        "minimality = true\nminimality_budget = 0.000001\n",
        &format!("{Z3}{}", pad()),
        cache.path(),
    );
    let done = run_all(&c);
    let pairs = done.pairs.unwrap();
    let m = done.check.unwrap().minimality.unwrap();
    assert_eq!(m.unknown, m.pairs, "{m:?}");
    assert_eq!(m.asked.ran, 0);
    for p in pairs
        .iter()
        .filter(|p| p.pair.verdict == Verdict::Validated)
    {
        let got = p.details.minimality.as_ref().unwrap();
        assert_eq!(got.status, Status::Unknown, "{p:?}");
        assert!(got.redundant.is_empty() && !got.undecided.is_empty());
    }
    // Nothing was cached as an answer: a later campaign with a real budget decides.
    let dir2 = tempfile::tempdir().unwrap();
    let c2 = campaign(
        dir2.path(),
        &[PADDED],
        "minimality = true\n",
        &pad(),
        cache.path(),
    );
    let pairs2 = run_all(&c2).pairs.unwrap();
    assert_eq!(
        pair(&pairs2, "pad", PADDED)
            .details
            .minimality
            .as_ref()
            .unwrap()
            .status,
        Status::Redundant
    );
}

#[test]
fn best_known_cores_shrink_to_a_mus_are_shared_and_revalidated() {
    let cache = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let c = campaign(
        dir.path(),
        &[PADDED],
        "best_known = true\nshrink_budget = 120.0\n",
        &pad(),
        cache.path(),
    );
    let pairs = run_all(&c).pairs.unwrap();
    let b = pair(&pairs, "pad", PADDED)
        .details
        .best_known
        .clone()
        .unwrap();
    assert_eq!((b.size, b.gap), (3, Some(3)), "{b:?}");
    assert!(
        b.origin.contains("shrunk") && b.origin.contains("MUS"),
        "{b:?}"
    );
    let cached: Vec<BestKnown> =
        coreval::store::journal::read_all(&cache.path().join("best-known.jsonl"))
            .unwrap()
            .0;
    let last = cached.last().unwrap();
    let core: BTreeSet<String> = last.core.iter().cloned().collect();
    assert_eq!(core, padded_mus(&c));
    assert!(last.origin.mus && last.origin.shrunk && last.origin.solver == "pad");

    // Another campaign sharing the cache: the reference is validated here
    // (z3, yices, cvc5 minus nothing: the pad solver's team is "pad") and used.
    let dir2 = tempfile::tempdir().unwrap();
    let c2 = campaign(
        dir2.path(),
        &[PADDED],
        "best_known = true\n",
        &pad(),
        cache.path(),
    );
    let done = run_all(&c2);
    let s = done.check.unwrap().best.unwrap();
    assert_eq!((s.from_cache, s.rejected), (1, 0), "{s:?}");
    let b2 = pair(&done.pairs.unwrap(), "pad", PADDED)
        .details
        .best_known
        .clone()
        .unwrap();
    assert_eq!(b2.size, 3);

    // A cached core that is not a core here is not used.
    let mut bogus = last.clone();
    bogus.core.truncate(2);
    coreval::store::journal::Journal::open(&cache.path().join("best-known.jsonl"))
        .unwrap()
        .append(&bogus)
        .unwrap();
    let dir3 = tempfile::tempdir().unwrap();
    let c3 = campaign(
        dir3.path(),
        &[PADDED],
        "best_known = true\n",
        &pad(),
        cache.path(),
    );
    let done = run_all(&c3);
    let s = done.check.unwrap().best.unwrap();
    assert_eq!(s.rejected, 1, "{s:?}");
    let b3 = pair(&done.pairs.unwrap(), "pad", PADDED)
        .details
        .best_known
        .clone()
        .unwrap();
    assert_eq!(
        b3.size, 6,
        "the campaign's own validated core, not the refuted one"
    );
}

#[test]
fn selfcheck_prints_minimality_and_the_best_known_reference() {
    let cache = tempfile::tempdir().unwrap();
    let junit = cache.path().join("junit.xml");
    let bench = repo().join("tests/fixtures/minimality").join(PADDED);
    let out = cmd()
        .current_dir(repo())
        .env("COREVAL_CACHE", cache.path().join("cache"))
        .args([
            "selfcheck",
            "--minimality",
            "--checkers",
            "z3,yices,cvc5",
            "--solver",
        ])
        .arg(format!(
            "{} {{file}}",
            repo()
                .join("tests/fixtures/fake-solvers/z3-pad.sh")
                .display()
        ))
        .arg(&bench)
        .arg("--junit")
        .arg(&junit)
        .timeout(std::time::Duration::from_secs(300))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    let line = stdout.lines().next().unwrap();
    assert!(line.starts_with("PASS validated"), "{line}");
    assert!(line.contains("core 6/6"), "{line}");
    // The references (z3, yices, cvc5 as solvers) found the 3-assertion core.
    assert!(line.contains("best-known 3/6 (ref-"), "{line}");
    let named: Vec<&str> = line
        .split("redundant: ")
        .nth(1)
        .unwrap()
        .split("  ")
        .next()
        .unwrap()
        .split(", ")
        .collect();
    assert_eq!(named.len(), 3, "{line}");
    for (n, end) in named.iter().zip(['2', '4', '6']) {
        assert!(
            n.ends_with(end),
            "the padding is the 2nd, 4th and 6th assertion: {line}"
        );
    }
    assert!(
        stdout.contains("minimality: 0 minimal, 1 redundant, 0 unknown"),
        "{stdout}"
    );
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(
        xml.contains("<system-out>") && xml.contains("not subset-minimal"),
        "{xml}"
    );
    assert!(xml.contains("name=\"minimality\" value=\"on"), "{xml}");
}

#[test]
fn check_minimality_flag_and_budget_option() {
    let cache = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let c = campaign(
        dir.path(),
        &[PADDED],
        "",
        &format!("{Z3}{}", pad()),
        cache.path(),
    );
    let solve = Stages {
        name: true,
        solve: true,
        ..Stages::default()
    };
    pipeline::run_to_end(&c, solve).unwrap();
    let bad = cmd()
        .args(["check", "--minimality", "--minimality-budget", "-1"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    let out = cmd()
        .env("COREVAL_NO_PROGRESS", "1")
        .args(["check", "--minimality"])
        .arg(dir.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("minimality: 2 validated core(s) tested (2 distinct): 1 minimal, 1 redundant, 0 unknown"),
        "{stderr}"
    );
    let recs = jsonl(&dir.path().join("minimality.jsonl"));
    let pad = recs.iter().find(|r| r["solver"] == "pad").unwrap();
    assert_eq!(pad["status"], "redundant");
    assert_eq!(pad["redundant"].as_array().unwrap().len(), 3);
    // Without the flag (and the config key) no minimality pass runs.
    let again = cmd().arg("check").arg(dir.path()).output().unwrap();
    assert!(!String::from_utf8_lossy(&again.stderr).contains("minimality:"));
}
