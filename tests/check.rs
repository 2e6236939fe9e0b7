//! The check stage end to end with the real checkers on real benchmarks
//! (`tests/data/benchmarks`), in small campaigns built in temp dirs: cores
//! from the real solvers are validated, planted invalid cores (a minimal
//! core minus one assertion) are refuted under every preset, differently
//! spelled cores are one core, ill-formed cores never reach a checker,
//! boolector gets a variant it can read, and checker faults (no version,
//! not installed, cannot start, an answer after an error) are handled.
//! Cores chosen by a test come from `tests/fixtures/fake-solvers/core-from-file.sh`.

use coreval::answer::{parse_output, Answer};
use coreval::campaign::ledger::records::CheckRecord;
use coreval::campaign::ledger::Loaded;
use coreval::campaign::setup::context::{Context, Definitions};
use coreval::campaign::setup::Campaign;
use coreval::campaign::verdict::pair::{IllFormed, PairVerdict, Verdict};
use coreval::campaign::verdict::policy::{CheckAnswer, Policy};
use coreval::check::CheckSummary;
use coreval::judge;
use coreval::message::{Message, Severity};
use coreval::pipeline::{self, Stages};
use std::path::{Path, PathBuf};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

const UF: &str = "QF_UF/cvc5-test_regress_cli_regress0/bt-test-01.smt2";
const LIA: &str = "QF_LIA/doc-arithmetic_artifact_z_QF_LIA_prime-cone/prime_cone_unsat_3.smt2";
const BV: &str = "QF_BV/z3test-regressions_smt2/t121.smt2";
const LRA: &str = "QF_LRA/opensmt-test_regression_base_QF_LRA/distinct_unsat.smt2";
/// Uses `define-fun`, which boolector rejects.
const BV_DEFINE_FUN: &str = "QF_BV/cvc5-test_regress_cli_regress1_bv/bug787.smt2";
/// Names a term inside an assertion (`foo`), and uses the name later.
const NESTED: &str = "edge/QF_LIA/cvc5-regress-misc/named-expr-use.smt2";

fn fake(script: &str) -> String {
    format!("{ROOT}/tests/fixtures/fake-solvers/{script}")
}

/// A campaign in a temp dir over copies of shared benchmarks. `extra` is
/// appended to the config (sections `[check]`, `[[solver]]`…).
fn campaign(benchmarks: &[&str], extra: &str) -> (tempfile::TempDir, Campaign) {
    let dir = tempfile::tempdir().unwrap();
    for b in benchmarks {
        let to = dir
            .path()
            .join("benchmarks")
            .join(b.strip_prefix("edge/").unwrap_or(b));
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(Path::new(ROOT).join("tests/data/benchmarks").join(b), &to).unwrap();
    }
    // Top-level keys of `extra` (before its first table) go first.
    let split = extra.find("\n[").map_or(0, |i| i + 1);
    let (top, tables) = if extra.starts_with('[') {
        ("", extra)
    } else {
        extra.split_at(split)
    };
    let config = format!(
        "benchmarks = \"benchmarks\"\njobs = 2\ncache = \".cache\"\n{top}\
         [naming]\nallow_no_status = true\nnamed_policy = \"keep\"\n\
         [limits]\ntime = 20.0\nchecker_time = 20.0\n{tables}"
    );
    std::fs::write(dir.path().join("campaign.toml"), config).unwrap();
    let c = Campaign::load(dir.path()).unwrap();
    run(
        &c,
        Stages {
            name: true,
            ..Stages::default()
        },
    )
    .unwrap();
    (dir, c)
}

/// A `[[solver]]` that prints the core in `<named file>.<tag>.core`.
fn core_solver(tag: &str) -> String {
    format!(
        "[[solver]]\nname = \"{tag}\"\ncommand = [\"{}\", \"{tag}\", \"{{file}}\"]\n",
        fake("core-from-file.sh")
    )
}

fn named_file(c: &Campaign, benchmark: &str) -> PathBuf {
    let id = benchmark.strip_prefix("edge/").unwrap_or(benchmark);
    let b = coreval::campaign::ledger::index::read_index(c)
        .unwrap()
        .into_iter()
        .find(|b| b.id == id)
        .unwrap();
    c.named_dir().join(b.output)
}

/// Write the core a `core_solver(tag)` prints on `benchmark`.
fn plant(c: &Campaign, benchmark: &str, tag: &str, text: &str) {
    let named = named_file(c, benchmark);
    let core = named.with_extension(format!("{tag}.core"));
    std::fs::write(core, text).unwrap();
}

/// A minimal core of the named benchmark, by cvc5 --minimal-unsat-cores.
fn minimal_core(c: &Campaign, benchmark: &str) -> Vec<String> {
    let out = std::process::Command::new("/usr/bin/cvc5")
        .args(["--lang=smt2", "--minimal-unsat-cores"])
        .arg(named_file(c, benchmark))
        .output()
        .unwrap();
    let p = parse_output(&out.stdout);
    assert_eq!(p.answer, Answer::Unsat, "{benchmark}");
    let core = p.core.unwrap();
    assert!(
        core.len() >= 2,
        "{benchmark}: a core of {} cannot lose one assertion",
        core.len()
    );
    core
}

/// Run some stages of a campaign through the one pipeline (programs that
/// cannot start are the stage's to record here, not refused before).
fn run(c: &Campaign, stages: Stages) -> anyhow::Result<pipeline::Summary> {
    let ctx = Context::load_unprobed(c.clone(), stages)?;
    let no_cancel = std::sync::atomic::AtomicBool::new(false);
    pipeline::run(&ctx, &Default::default(), &no_cancel, &pipeline::Quiet)
}

/// The stages to load a campaign for, to read what it did.
const READ: Stages = Stages {
    name: false,
    solve: false,
    check: false,
    score: true,
};
const SOLVE: Stages = Stages {
    name: false,
    solve: true,
    check: false,
    score: false,
};
const CHECK: Stages = Stages {
    name: false,
    solve: false,
    check: true,
    score: false,
};

/// The check stage alone.
fn check_only(c: &Campaign) -> anyhow::Result<CheckSummary> {
    Ok(run(c, CHECK)?.check.unwrap())
}

/// Every pair's verdict as the judge sees it now.
fn pairs_of(c: &Campaign) -> Vec<PairVerdict> {
    let ctx = Context::load(c.clone(), READ).unwrap();
    judge::collect(&Loaded::new(&ctx).unwrap()).unwrap()
}

fn solve_and_check(c: &Campaign) -> (CheckSummary, Vec<PairVerdict>) {
    run(c, SOLVE).unwrap();
    let s = check_only(c).unwrap();
    (s, pairs_of(c))
}

fn checks(c: &Campaign) -> Vec<CheckRecord> {
    coreval::store::journal::read_all(&c.journal_path(coreval::campaign::ledger::records::CHECKS))
        .unwrap()
        .0
}

fn verdict_of<'a>(pairs: &'a [PairVerdict], solver: &str, benchmark: &str) -> &'a PairVerdict {
    let id = benchmark.strip_prefix("edge/").unwrap_or(benchmark);
    pairs
        .iter()
        .find(|p| p.pair.solver == solver && p.pair.benchmark == id)
        .unwrap()
}

const REAL: &str = "[check]\ncheckers = [\"z3\", \"yices\", \"cvc5\", \"cvc4\", \"bitwuzla\"]\n\
[[solver]]\nname = \"z3\"\ndefinition = \"z3\"\n[[solver]]\nname = \"yices\"\ndefinition = \"yices\"\n\
[[solver]]\nname = \"cvc5\"\ndefinition = \"cvc5\"\n";

#[test]
fn real_solvers_cores_are_validated_and_cached_across_campaigns() {
    let benches = [UF, LIA, BV, LRA];
    let (dir, c) = campaign(&benches, REAL);
    let (s, pairs) = solve_and_check(&c);
    assert_eq!(pairs.len(), 12, "three solvers on four benchmarks");
    for p in &pairs {
        assert_eq!(
            p.pair.verdict,
            Verdict::Validated,
            "{} on {}: {:?}",
            p.pair.solver,
            p.pair.benchmark,
            p.checkers
        );
        assert!(!p.pending && !p.disputed);
        // Independence: no checker of the producer's team counted.
        let own: &[&str] = if p.pair.solver == "cvc5" {
            &["cvc5", "cvc4"]
        } else {
            &[p.pair.solver.as_str()]
        };
        assert!(
            own.iter().all(|k| !p.checkers.contains_key(*k)),
            "{:?}",
            p.checkers
        );
        assert!(
            p.checkers
                .values()
                .filter(|a| **a == CheckAnswer::Unsat)
                .count()
                >= 2
        );
    }
    assert_eq!(s.cores, 12);
    assert!(s.distinct < s.cores, "some solvers agree on a core: {s:?}");
    assert!(s.ran > 0 && s.cache_hits == 0);

    // Again: everything is decided, nothing runs.
    let again = check_only(&c).unwrap();
    assert_eq!((again.ran, again.cache_hits), (0, 0));

    // Another campaign with the same cores and the same cache: no checker runs.
    let (_dir2, mut c2) = campaign(&benches, REAL);
    c2.config.cache = Some(dir.path().join(".cache"));
    let (s2, pairs2) = solve_and_check(&c2);
    assert_eq!(s2.ran, 0, "{s2:?}");
    assert!(s2.cache_hits > 0 && s2.cache_hits <= s.ran, "{s2:?}");
    assert!(checks(&c2).iter().all(|r| r.cached));
    assert!(pairs2.iter().all(|p| p.pair.verdict == Verdict::Validated));
}

const ALL_PRESETS: [Policy; 6] = [
    Policy::Smtcomp2016,
    Policy::Smtcomp2017,
    Policy::Smtcomp2018,
    Policy::Smtcomp2025,
    Policy::Unanimous,
    Policy::Quorum(2),
];

#[test]
fn planted_invalid_cores_are_refuted_under_every_preset() {
    let benches = [UF, LIA, BV, LRA];
    let cfg = format!(
        "[check]\ncheckers = [\"z3\", \"yices\", \"cvc5\", \"cvc4\"]\nearly_stop = false\n{}",
        core_solver("planted")
    );
    let (dir, mut c) = campaign(&benches, &cfg);
    for b in benches {
        let mut core = minimal_core(&c, b);
        core.remove(0);
        plant(&c, b, "planted", &format!("({})\n", core.join(" ")));
    }
    let (s, _) = solve_and_check(&c);
    assert_eq!((s.cores, s.distinct), (4, 4));
    for r in checks(&c) {
        assert_eq!(
            r.answer,
            CheckAnswer::Sat,
            "{} on {}: {:?}",
            r.checker,
            r.hash,
            r.raw
        );
    }
    // Every preset refutes them, with every checker's answer in…
    for p in ALL_PRESETS {
        c.config.check.policy = p;
        for v in pairs_of(&c) {
            assert_eq!(
                v.pair.verdict,
                Verdict::Refuted,
                "{p}: {}",
                v.pair.benchmark
            );
            assert_eq!(v.checkers.len(), 4);
        }
    }
    // …and when early stop decides with fewer answers (fresh journal and cache).
    for p in ALL_PRESETS {
        std::fs::remove_file(c.journal_path(coreval::campaign::ledger::records::CHECKS)).unwrap();
        c.config.check.policy = p;
        c.config.check.early_stop = true;
        c.config.cache = Some(dir.path().join(format!("cache-{p}")));
        let s = check_only(&c).unwrap();
        for v in pairs_of(&c) {
            assert_eq!(
                v.pair.verdict,
                Verdict::Refuted,
                "{p} with early stop: {}",
                v.pair.benchmark
            );
            assert!(!v.pending);
        }
        // A lone `sat` never settles a core early (so that an unsound
        // checker shows as a dispute): refuted cores get every answer.
        assert_eq!(s.skipped, 0, "{p}: {s:?}");
    }
    // The CLI exits with 1: refuted cores are failures.
    let out = assert_cmd::Command::cargo_bin("coreval")
        .unwrap()
        .arg("check")
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("refuted 4"));
}

#[test]
fn quoted_reordered_and_multiline_names_are_one_core_and_never_refuted() {
    let benches = [UF, LIA];
    let cfg = format!(
        "[check]\ncheckers = [\"z3\", \"yices\", \"cvc5\"]\npolicy = \"smtcomp-2016\"\n{}{}{}",
        core_solver("plain"),
        core_solver("quoted"),
        core_solver("lines")
    );
    let (_dir, c) = campaign(&benches, &cfg);
    for b in benches {
        let core = minimal_core(&c, b);
        plant(&c, b, "plain", &format!("({})\n", core.join(" ")));
        let quoted: Vec<String> = core.iter().map(|n| format!("|{n}|")).collect();
        plant(&c, b, "quoted", &format!("({})\n", quoted.join(" ")));
        let mut reversed = core.clone();
        reversed.reverse();
        reversed[0] = format!("|{}|", reversed[0]);
        plant(&c, b, "lines", &format!("(\n{}\n)\n", reversed.join("\n")));
    }
    let (s, pairs) = solve_and_check(&c);
    assert_eq!(
        (s.cores, s.distinct),
        (6, 2),
        "three spellings, one core per benchmark: {s:?}"
    );
    for p in &pairs {
        assert_eq!(
            p.pair.verdict,
            Verdict::Validated,
            "{} on {}",
            p.pair.solver,
            p.pair.benchmark
        );
    }
    for b in benches {
        let hashes: Vec<_> = ["plain", "quoted", "lines"]
            .iter()
            .map(|t| verdict_of(&pairs, t, b).core_hash.clone())
            .collect();
        assert!(
            hashes[0].is_some() && hashes.iter().all(|h| *h == hashes[0]),
            "{b}: {hashes:?}"
        );
    }
}

#[test]
fn ill_formed_cores_never_reach_a_checker() {
    let cfg = format!(
        "[check]\ncheckers = [\"z3\", \"yices\"]\n{}{}{}{}",
        core_solver("unknown"),
        core_solver("duplicate"),
        core_solver("nested"),
        core_solver("empty")
    );
    let (_dir, c) = campaign(&[LIA, NESTED], &cfg);
    plant(&c, LIA, "unknown", "(cv4 cv5 cv6 cv7 cv8 cv99)\n");
    plant(&c, LIA, "duplicate", "(cv4 cv5 cv6 cv7 cv8 |cv8|)\n");
    plant(&c, LIA, "empty", "()\n");
    let idx = coreval::campaign::ledger::index::read_index(&c).unwrap();
    let nested = idx
        .iter()
        .find(|b| b.id.ends_with("named-expr-use.smt2"))
        .unwrap();
    assert!(
        nested.nested.contains("foo"),
        "the edge benchmark keeps its nested name: {:?}",
        nested.nested
    );
    let top: Vec<&String> = nested.top_level.iter().collect();
    plant(&c, NESTED, "nested", &format!("({} foo)\n", top[0]));
    let (s, pairs) = solve_and_check(&c);
    assert_eq!((s.cores, s.ran), (0, 0), "nothing to check: {s:?}");
    assert!(!c.cores_dir().exists() || std::fs::read_dir(c.cores_dir()).unwrap().next().is_none());
    let ill = |solver: &str, b: &str| verdict_of(&pairs, solver, b).pair.verdict.clone();
    assert_eq!(
        ill("unknown", LIA),
        Verdict::IllFormed {
            reason: IllFormed::UnknownName
        }
    );
    assert_eq!(
        ill("duplicate", LIA),
        Verdict::IllFormed {
            reason: IllFormed::DuplicateName
        }
    );
    assert_eq!(
        ill("empty", LIA),
        Verdict::IllFormed {
            reason: IllFormed::Empty
        }
    );
    assert_eq!(
        ill("nested", NESTED),
        Verdict::IllFormed {
            reason: IllFormed::NestedName
        }
    );
    assert_eq!(
        ill("unknown", NESTED),
        Verdict::Unknown,
        "no core planted: the fake answers unknown"
    );
}

#[test]
fn boolector_gets_a_variant_it_reads_or_is_not_applicable() {
    let cfg = "[check]\ncheckers = [\"boolector\", \"yices\"]\n[[solver]]\nname = \"z3\"\ndefinition = \"z3\"\n";
    let (_dir, c) = campaign(&[BV, BV_DEFINE_FUN], cfg);
    let (s, pairs) = solve_and_check(&c);
    assert_eq!(s.not_applicable, 1, "{s:?}");
    let hash = |b: &str| {
        verdict_of(&pairs, "z3", b)
            .core_hash
            .clone()
            .unwrap()
            .to_string()
    };
    let recs = checks(&c);
    let boolector = |h: String| {
        recs.iter()
            .find(|r| r.checker == "boolector" && r.hash == h)
            .unwrap()
            .clone()
    };
    // t121 declares with declare-const: boolector reads the variant.
    let r = boolector(hash(BV));
    assert_eq!(
        (r.answer, r.raw),
        (CheckAnswer::Unsat, Answer::Unsat),
        "{r:?}"
    );
    let core_file = format!("{}.smt2", hash(BV));
    let variant = std::fs::read_dir(c.cores_dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .find(|f| f.starts_with(&hash(BV)) && *f != core_file)
        .expect("a boolector variant next to the core");
    let text = std::fs::read_to_string(c.cores_dir().join(variant)).unwrap();
    assert!(
        !text.contains("declare-const") && text.contains("(declare-fun a () (_ BitVec 4))"),
        "{text}"
    );
    // bug787 needs define-fun: boolector does not count, yices decides.
    let r = boolector(hash(BV_DEFINE_FUN));
    assert_eq!(r.answer, CheckAnswer::NotApplicable);
    assert!(r.note.unwrap().contains("define-fun"));
    let v = verdict_of(&pairs, "z3", BV_DEFINE_FUN);
    assert_eq!(v.pair.verdict, Verdict::Validated);
    assert_eq!(
        v.pair.checks.as_ref().map(|t| (t.unsat, t.unknown)),
        Some((1, 0))
    );
    assert!(!v.pending);
}

/// The shipped z3 definition under another name, with a version command.
fn z3_def(name: &str, version_command: &str) -> String {
    let text = std::fs::read_to_string(format!("{ROOT}/checkers/z3.toml")).unwrap();
    let text = text
        .replace("{checkers}", &format!("{ROOT}/checkers"))
        .replace("name = \"z3\"", &format!("name = \"{name}\""));
    let vc = text
        .lines()
        .find(|l| l.starts_with("version_command"))
        .unwrap();
    text.replace(vc, &format!("version_command = {version_command}"))
}

fn def(name: &str, command: &str) -> String {
    format!(
        "name = \"{name}\"\nteam = \"{name}\"\ncommand = {command}\nlogics = [\"*\"]\nproduces_cores = false\n\
         version_command = [\"/bin/echo\", \"1.0\"]\ninstall_hint = \"apt-get install {name}\"\n"
    )
}

/// A campaign with its own definitions folder (`defs/` inside it).
fn campaign_with_defs(defs: &[(&str, String)], check: &str) -> (tempfile::TempDir, Campaign) {
    let cfg = format!(
        "checkers_dir = \"defs\"\n[check]\n{check}\n{}",
        core_solver("min")
    );
    let (dir, c) = campaign(&[UF, LIA], &cfg);
    std::fs::create_dir(dir.path().join("defs")).unwrap();
    for (name, text) in defs {
        std::fs::write(dir.path().join("defs").join(format!("{name}.toml")), text).unwrap();
    }
    for b in [UF, LIA] {
        plant(
            &c,
            b,
            "min",
            &format!("({})\n", minimal_core(&c, b).join(" ")),
        );
    }
    (dir, c)
}

#[test]
fn a_checker_without_a_version_is_never_cached() {
    let defs = [
        ("z3", z3_def("z3", "[\"/bin/false\"]")),
        (
            "z3-versioned",
            z3_def("z3-versioned", "[\"/bin/echo\", \"Z3 version 5.4.0\"]"),
        ),
    ];
    let (dir, c) = campaign_with_defs(
        &defs,
        "checkers = [\"z3\", \"z3-versioned\"]\nearly_stop = false",
    );
    let (s, pairs) = solve_and_check(&c);
    assert_eq!(s.ran, 4);
    assert!(pairs.iter().all(|p| p.pair.verdict == Verdict::Validated));
    assert!(checks(&c)
        .iter()
        .any(|r| r.checker == "z3" && r.version.is_none()));
    // A second campaign with the same cache: only the versioned answers are reused.
    let (_d2, mut c2) = campaign_with_defs(
        &defs,
        "checkers = [\"z3\", \"z3-versioned\"]\nearly_stop = false",
    );
    c2.config.cache = Some(dir.path().join(".cache"));
    let (s2, _) = solve_and_check(&c2);
    assert_eq!((s2.ran, s2.cache_hits), (2, 2), "{s2:?}");
    assert!(checks(&c2)
        .iter()
        .all(|r| r.cached == (r.checker == "z3-versioned")));
}

#[test]
fn missing_and_unstartable_checkers_are_reported_and_leave_pairs_pending() {
    let defs = [
        ("z3", z3_def("z3", "[\"/bin/echo\", \"Z3 version 5.4.0\"]")),
        (
            "ghost",
            def("ghost", "[\"/nonexistent/ghost\", \"{file}\"]"),
        ),
        (
            "broken",
            def(
                "broken",
                &format!("[\"{}\", \"{{file}}\"]", fake("bad-interpreter.sh")),
            ),
        ),
    ];
    // Named but not installed: the stage refuses, naming it and how to install it.
    let (_d, c) = campaign_with_defs(&defs, "checkers = [\"z3\", \"ghost\"]");
    run(&c, SOLVE).unwrap();
    let e = format!("{:#}", check_only(&c).unwrap_err());
    assert!(
        e.contains("'ghost'") && e.contains("not installed") && e.contains("apt-get install ghost"),
        "{e}"
    );
    // Scoring still works where the checker is missing: the pairs wait.
    let pairs = pairs_of(&c);
    assert!(pairs
        .iter()
        .all(|p| p.pending && p.pair.verdict == Verdict::NotValidated));
    // Installed but cannot start: no record, so a later run retries.
    let (_d, c) = campaign_with_defs(
        &defs,
        "checkers = [\"z3\", \"broken\"]\npolicy = \"unanimous\"",
    );
    let (s, pairs) = solve_and_check(&c);
    assert_eq!((s.ran, s.failed_to_start), (2, 2), "{s:?}");
    assert!(checks(&c).iter().all(|r| r.checker == "z3"));
    assert!(
        pairs.iter().all(|p| p.pending),
        "unanimous waits for every checker"
    );
    // A library caller hears why, from the worker threads, through its
    // observer (and nothing goes past it to stderr).
    let heard = Heard::default();
    let ctx = Context::load_unprobed(c.clone(), CHECK).unwrap();
    let no_cancel = std::sync::atomic::AtomicBool::new(false);
    let s = pipeline::run(&ctx, &Default::default(), &no_cancel, &heard).unwrap();
    let s = s.check.unwrap();
    assert_eq!((s.ran, s.failed_to_start), (0, 2));
    let heard = heard.0.into_inner().unwrap();
    let said = |m: &Message| {
        m.severity == Severity::Error
            && m.to_string()
                .starts_with("error: checker 'broken' could not be started: ")
            && m.text.ends_with(
                "; its answers are missing (install it, or remove it from check.checkers)",
            )
    };
    assert_eq!(heard.iter().filter(|m| said(m)).count(), 1, "{heard:?}");
}

#[test]
fn a_campaign_is_loaded_with_its_own_definitions_only() {
    let defs = [("z3", z3_def("z3", "[\"/bin/echo\", \"Z3 version 5.4.0\"]"))];
    let (_d, c) = campaign_with_defs(&defs, "checkers = [\"z3\"]");
    // Loaded once by the caller, then used as they are.
    let own = Definitions::of(&c).unwrap();
    let names: Vec<&str> = own.all().iter().map(|d| d.name.as_str()).collect();
    assert_eq!(names, ["z3"]);
    let ctx = Context::load_with(c.clone(), CHECK, own).unwrap();
    let checkers: Vec<&str> = ctx.checkers.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(checkers, ["z3"]);
    // Another folder's definitions are refused, naming both folders.
    let other = Definitions::load(&Path::new(ROOT).join("checkers")).unwrap();
    let e = format!("{:#}", Context::load_with(c, CHECK, other).err().unwrap());
    assert!(e.contains("are not those of") && e.contains("defs"), "{e}");
}

/// An observer that records the stages' messages.
#[derive(Default)]
struct Heard(std::sync::Mutex<Vec<Message>>);

impl pipeline::Observer for Heard {
    fn message(&self, m: &Message) {
        self.0.lock().unwrap().push(m.clone());
    }
}

#[test]
fn an_answer_after_an_error_is_not_counted() {
    let defs = [
        ("z3", z3_def("z3", "[\"/bin/echo\", \"Z3 version 5.4.0\"]")),
        (
            "liar",
            def(
                "liar",
                &format!(
                    "[\"{}\", \"sat\", \"{{file}}\"]",
                    fake("error-then-answer.sh")
                ),
            ),
        ),
    ];
    let (_d, c) = campaign_with_defs(
        &defs,
        "checkers = [\"z3\", \"liar\"]\npolicy = \"smtcomp-2016\"",
    );
    let (_, pairs) = solve_and_check(&c);
    for p in &pairs {
        assert_eq!(
            p.pair.verdict,
            Verdict::Validated,
            "a sat after an error would refute under 2016"
        );
        assert_eq!(p.checkers.get("liar"), Some(&CheckAnswer::Other));
    }
    let liar = checks(&c)
        .into_iter()
        .find(|r| r.checker == "liar")
        .unwrap();
    assert_eq!(liar.raw, Answer::Sat);
    assert!(liar.note.unwrap().contains("after an error"));
}
