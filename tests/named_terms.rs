//! A correct core that uses a `:named` term by its name (issue 14, item 3):
//! the assertion that defines the name is not in the core, another that
//! uses it is. The core-only benchmark keeps the definition as a
//! `define-fun` (without its assertion), so the real checkers validate it;
//! boolector, which rejects `define-fun`, gets the term inlined.
//! Campaigns are built with `ConfigFile` and run through the binary.

mod common;

use common::{coreval, jsonl, repo};
use coreval::benchmark::NamedPolicy;
use coreval::campaign::setup::ConfigFile;
use std::path::Path;

/// `cvc5 regress` named-expr-use.smt2 (tests/data): `foo` names a term of
/// the second assertion; the third uses it.
const LIA: &str = "tests/data/benchmarks/edge/QF_LIA/cvc5-regress-misc/named-expr-use.smt2";

/// The same shape over bit-vectors (written for this test), for boolector.
const BV: &str = "(set-info :status unsat)\n(set-logic QF_BV)\n\
(declare-fun x () (_ BitVec 4))\n(declare-fun y () (_ BitVec 4))\n\
(assert (or (= x #x5) (= x #x7)))\n(assert (or (! (= x #x5) :named foo) (= x y)))\n\
(assert (= foo (= x #x7)))\n(check-sat)\n";

/// A campaign over `benchmarks` (id → text) with z3 as the solver under test.
fn run_campaign(dir: &Path, benchmarks: &[(&str, String)], checkers: &[&str]) {
    for (id, text) in benchmarks {
        let to = dir.join("benchmarks").join(id);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::write(to, text).unwrap();
    }
    let mut cfg = ConfigFile::new("benchmarks");
    cfg.cache = Some(dir.join("cache"));
    cfg.jobs = 2;
    cfg.naming.named_policy = NamedPolicy::Keep;
    cfg.check.checkers = checkers.iter().map(|s| s.to_string()).collect();
    cfg.check.early_stop = false;
    cfg.solver_definition("z3", "z3");
    cfg.write_to(dir).unwrap();
    let out = coreval(&["run"], dir, repo());
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn pair<'a>(pairs: &'a [serde_json::Value], benchmark: &str) -> &'a serde_json::Value {
    pairs
        .iter()
        .find(|p| p["benchmark"] == benchmark)
        .unwrap_or_else(|| panic!("no pair on {benchmark}: {pairs:?}"))
}

#[test]
fn a_core_that_uses_a_dropped_name_is_validated_by_real_checkers() {
    let tmp = tempfile::tempdir().unwrap();
    let lia = std::fs::read_to_string(repo().join(LIA)).unwrap();
    run_campaign(
        tmp.path(),
        &[("QF_LIA/named-expr-use.smt2", lia)],
        &["yices", "cvc5", "cvc4"],
    );
    let pairs = jsonl(&tmp.path().join("reports/pairs.jsonl"));
    let p = pair(&pairs, "QF_LIA/named-expr-use.smt2");
    // z3's core: the first and the third assertion, not the one naming foo.
    let core: Vec<&str> = p["core"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect();
    assert_eq!(core.len(), 2, "{p}");
    assert_eq!(common::verdict(p), "validated", "{p}");
    for k in ["yices", "cvc5", "cvc4"] {
        assert_eq!(p["checkers"][k], "unsat", "{k}: {p}");
    }
    let hash = p["core_hash"].as_str().unwrap();
    let text =
        std::fs::read_to_string(tmp.path().join("cores").join(format!("{hash}.smt2"))).unwrap();
    assert!(text.contains("(define-fun foo () Bool (= x 5))"), "{text}");
    assert!(
        !text.contains("(= x y)"),
        "the dropped assertion stays dropped: {text}"
    );
}

#[test]
fn boolector_reads_the_definition_inlined() {
    let tmp = tempfile::tempdir().unwrap();
    run_campaign(
        tmp.path(),
        &[("QF_BV/named-bv-use.smt2", BV.to_string())],
        &["boolector", "yices"],
    );
    let pairs = jsonl(&tmp.path().join("reports/pairs.jsonl"));
    let p = pair(&pairs, "QF_BV/named-bv-use.smt2");
    assert_eq!(common::verdict(p), "validated", "{p}");
    assert_eq!(p["checkers"]["boolector"], "unsat", "{p}");
    assert_eq!(p["checkers"]["yices"], "unsat", "{p}");
    let hash = p["core_hash"].as_str().unwrap();
    let variant = std::fs::read_dir(tmp.path().join("cores"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|f| {
            let n = f.file_name().unwrap().to_string_lossy().into_owned();
            n.starts_with(hash) && n != format!("{hash}.smt2")
        })
        .expect("a boolector variant next to the core");
    let text = std::fs::read_to_string(variant).unwrap();
    assert!(
        !text.contains("define-fun") && !text.contains("foo"),
        "{text}"
    );
    assert!(text.contains("(assert (= (= x #x5) (= x #x7)))"), "{text}");
}
