//! Certified refutations with the real checkers (docs/organizers.md, "Certified
//! refutations"): a checker that answers `sat` with a bogus model never
//! refutes a valid core under the default policy and shows as a dispute
//! (a past edition's preset keeps the edition's decision and shows the
//! refutation as uncertified); the refutations of planted invalid cores
//! (a minimal core minus one member) are certified, and a cached `sat`
//! keeps its certification.

use coreval::campaign::ledger::records::CheckRecord;
use coreval::campaign::setup::context::Context;
use coreval::campaign::verdict::certification::{Certification, Refutation};
use coreval::campaign::verdict::pair::{PairVerdict, Verdict};
use coreval::campaign::verdict::policy::{CheckAnswer, Policy};
use coreval::campaign::{ledger::Loaded, setup::Campaign};
use coreval::pipeline::{self, Stages};
use std::path::Path;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
const UF: &str = "QF_UF/cvc5-test_regress_cli_regress0/bt-test-01.smt2";
const LIA: &str = "QF_LIA/doc-arithmetic_artifact_z_QF_LIA_prime-cone/prime_cone_unsat_3.smt2";
const BV: &str = "QF_BV/z3test-regressions_smt2/t121.smt2";
const LRA: &str = "QF_LRA/opensmt-test_regression_base_QF_LRA/distinct_unsat.smt2";

fn fake(script: &str) -> String {
    format!("{ROOT}/tests/fixtures/fake-solvers/{script}")
}

/// A campaign in a temp dir over copies of corpus benchmarks, named;
/// `extra` is appended to its config.
fn campaign(benchmarks: &[&str], extra: &str) -> (tempfile::TempDir, Campaign) {
    let dir = tempfile::tempdir().unwrap();
    for b in benchmarks {
        let to = dir.path().join("benchmarks").join(b);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(Path::new(ROOT).join("tests/data/benchmarks").join(b), &to).unwrap();
    }
    let config = format!(
        "benchmarks = \"benchmarks\"\njobs = 2\ncache = \".cache\"\n{extra}\n\
         [naming]\nallow_no_status = true\n[limits]\ntime = 20.0\nchecker_time = 20.0\n"
    );
    std::fs::write(dir.path().join("campaign.toml"), config).unwrap();
    let c = Campaign::load(dir.path()).unwrap();
    (dir, c)
}

fn run(c: &Campaign) -> coreval::check::CheckSummary {
    let all = Stages {
        name: true,
        solve: true,
        check: true,
        score: false,
    };
    pipeline::run_to_end(c, all).unwrap().check.unwrap()
}

/// A context that reads the journals (judging needs no stage).
fn context(c: &Campaign) -> Context {
    Context::load(
        c.clone(),
        Stages {
            score: true,
            ..Stages::default()
        },
    )
    .unwrap()
}

fn pairs(c: &Campaign) -> Vec<PairVerdict> {
    coreval::judge::collect(&Loaded::new(&context(c)).unwrap()).unwrap()
}

fn checks(c: &Campaign) -> Vec<CheckRecord> {
    coreval::store::journal::read_all(&c.journal_path(coreval::campaign::ledger::records::CHECKS))
        .unwrap()
        .0
}

/// A shipped definition with `{checkers}` made absolute.
fn shipped(name: &str) -> String {
    std::fs::read_to_string(format!("{ROOT}/checkers/{name}.toml"))
        .unwrap()
        .replace("{checkers}", &format!("{ROOT}/checkers"))
}

#[test]
fn a_bogus_model_never_refutes_a_valid_core_and_shows_as_a_dispute() {
    // The solver under test prints cvc5's minimal core (valid); the checkers
    // are z3, yices and a fake that answers sat with a bogus model.
    let cfg = "checkers_dir = \"defs\"\n\
         [check]\ncheckers = [\"z3\", \"yices\", \"bogus\"]\nearly_stop = false\n\
         [[solver]]\nname = \"valid\"\ncommand = [\"/usr/bin/cvc5\", \"--lang=smt2\", \"--minimal-unsat-cores\", \"{file}\"]\n".to_string();
    let (dir, mut c) = campaign(&[LIA, UF], &cfg);
    let defs = dir.path().join("defs");
    std::fs::create_dir(&defs).unwrap();
    std::fs::write(defs.join("z3.toml"), shipped("z3")).unwrap();
    std::fs::write(defs.join("yices.toml"), shipped("yices")).unwrap();
    let bogus = format!(
        "name = \"bogus\"\nteam = \"bogus\"\ncommand = [\"{}\", \"{{file}}\"]\nlogics = [\"*\"]\n\
         produces_cores = false\nversion_command = [\"/bin/echo\", \"1.0\"]\ninstall_hint = \"none\"\n",
        fake("sat-bogus-model.sh")
    );
    std::fs::write(defs.join("bogus.toml"), bogus).unwrap();
    let s = run(&c);
    assert_eq!(s.certified_sats, 2, "{s:?}");
    for r in checks(&c).iter().filter(|r| r.checker == "bogus") {
        assert_eq!(r.answer, CheckAnswer::Sat);
        match &r.certification {
            Some(Certification::ModelRejected { by, why }) => {
                assert_eq!(by, "coreval");
                assert!(why.contains("is false under the model"), "{why}");
            }
            other => panic!("{other:?}"),
        }
    }
    // The default policy: validated by z3 and yices, the bogus vote a dispute.
    for p in pairs(&c) {
        assert_eq!(
            p.pair.verdict,
            Verdict::Validated,
            "{}: {:?}",
            p.pair.benchmark,
            p.checkers
        );
        assert!(p.disputed, "{}", p.pair.benchmark);
        assert_eq!(
            p.checkers["bogus"],
            CheckAnswer::Other,
            "a rejected model is not a sat vote"
        );
        assert_eq!(p.details.certifications["bogus"].label(), "model-rejected");
        assert_eq!(p.details.refutation, None);
    }
    // The evidence says why.
    let ctx = context(&c);
    let l = Loaded::new(&ctx).unwrap();
    let ev = coreval::evidence::collect(&l, &pairs(&c), 0).unwrap();
    assert_eq!(ev.len(), 2, "disputed pairs carry evidence (to look at)");
    for e in &ev {
        let b = e.checkers.iter().find(|k| k.checker == "bogus").unwrap();
        assert!(b
            .certification
            .as_deref()
            .unwrap()
            .starts_with("model-rejected by coreval: assertion"));
    }
    // Unanimous: the bogus vote is no sat either, so nothing is refuted.
    c.config.check.policy = Policy::Unanimous;
    assert!(pairs(&c).iter().all(|p| p.pair.verdict != Verdict::Refuted));
    // A past edition's preset: the edition's decision stands (any sat
    // refutes in 2016), and the refutation is shown as uncertified.
    c.config.check.policy = Policy::Smtcomp2016;
    for p in pairs(&c) {
        assert_eq!(p.pair.verdict, Verdict::Refuted);
        assert_eq!(p.details.refutation, Some(Refutation::Uncertified));
    }
}

#[test]
fn a_model_that_defines_a_constant_by_itself_is_judged_not_evaluated_forever() {
    // x*x = 2 and x > 0 without the third assertion: z3 answers sat with
    // `(define-fun x () Real (root-obj (+ (^ x 2) (- 2)) 2))`, where the
    // `x` inside is root-obj's variable. Evaluating it as the constant x
    // once recursed until the check worker's stack overflowed (an abort).
    const NRA: &str = "QF_NRA/cvc5-test_regress_cli_regress1_nl/approx-sqrt-unsat.smt2";
    let cfg = format!(
        "[check]\ncheckers = [\"z3\", \"yices\", \"cvc4\"]\nearly_stop = false\n\
         [[solver]]\nname = \"wrong\"\ncommand = [\"{}\", \"{{file}}\"]\n",
        fake("first-two-names.sh")
    );
    let (_dir, c) = campaign(&[NRA], &cfg);
    let s = run(&c);
    assert_eq!(s.cores, 1, "{s:?}");
    let z3 = checks(&c)
        .into_iter()
        .find(|r| r.checker == "z3")
        .expect("z3 checked");
    assert_eq!(z3.answer, CheckAnswer::Sat);
    match &z3.certification {
        Some(Certification::Uncertified { why, .. }) => {
            assert!(
                why.contains("the definition of x, which refers to x"),
                "{why}"
            )
        }
        other => panic!("{other:?}"),
    }
    let p = pairs(&c);
    assert_eq!(p.len(), 1);
    assert_ne!(p[0].pair.verdict, Verdict::Validated, "{:?}", p[0].pair);
}

#[test]
fn planted_invalid_cores_are_refuted_with_certified_models_and_the_cache_keeps_them() {
    let cfg = format!(
        "[check]\ncheckers = [\"z3\", \"yices\", \"cvc4\", \"bitwuzla\"]\nearly_stop = false\n\
         [[solver]]\nname = \"planted\"\ncommand = [\"{}\", \"20000\", \"{{file}}\"]\n",
        fake("planted-minus-one.sh")
    );
    let benches = [UF, LIA, BV, LRA];
    let (dir, mut c) = campaign(&benches, &cfg);
    let s = run(&c);
    assert_eq!(s.cores, 4, "{s:?}");
    assert!(s.certification_cpu > 0.0);
    let first = checks(&c);
    let sats: Vec<&CheckRecord> = first
        .iter()
        .filter(|r| r.answer == CheckAnswer::Sat)
        .collect();
    assert!(sats.len() >= 4, "{first:?}");
    for r in &sats {
        assert!(
            matches!(r.certification, Some(Certification::Certified { .. })),
            "{} on {}: {:?}",
            r.checker,
            r.hash,
            r.certification
        );
    }
    for p in pairs(&c) {
        assert_eq!(p.pair.verdict, Verdict::Refuted, "{}", p.pair.benchmark);
        assert_eq!(
            p.details.refutation,
            Some(Refutation::Certified),
            "{}",
            p.pair.benchmark
        );
        assert!(!p.disputed);
    }
    // A fresh journal over the same cache: every answer is cached, and a
    // cached sat keeps its certification.
    std::fs::remove_file(c.journal_path(coreval::campaign::ledger::records::CHECKS)).unwrap();
    let s = pipeline::run_to_end(
        &c,
        Stages {
            check: true,
            ..Stages::default()
        },
    )
    .unwrap()
    .check
    .unwrap();
    assert_eq!((s.ran, s.certified_sats), (0, 0), "{s:?}");
    let again = checks(&c);
    assert!(again.iter().all(|r| r.cached));
    for r in again.iter().filter(|r| r.answer == CheckAnswer::Sat) {
        assert!(matches!(
            r.certification,
            Some(Certification::Certified { .. })
        ));
    }
    // A cached sat without a certification (an earlier version's) is asked again.
    let cache = dir.path().join(".cache/checks.jsonl");
    let text = std::fs::read_to_string(&cache).unwrap();
    let stripped: String = text
        .lines()
        .map(|l| {
            let mut v: serde_json::Value = serde_json::from_str(l).unwrap();
            v.as_object_mut().unwrap().remove("certification");
            format!("{v}\n")
        })
        .collect();
    std::fs::write(&cache, stripped).unwrap();
    std::fs::remove_file(c.journal_path(coreval::campaign::ledger::records::CHECKS)).unwrap();
    c.config.check.early_stop = false;
    let s = pipeline::run_to_end(
        &c,
        Stages {
            check: true,
            ..Stages::default()
        },
    )
    .unwrap()
    .check
    .unwrap();
    assert_eq!(s.certified_sats, sats.len(), "{s:?}");
    assert!(pairs(&c)
        .iter()
        .all(|p| p.details.refutation == Some(Refutation::Certified)));
}
