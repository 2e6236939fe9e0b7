//! `coreval name` and `coreval lint` end to end: outputs, index, messages,
//! exit codes, resuming.

mod common;

use coreval::campaign::ledger::index::Outcome;
use predicates::str::contains;
use std::path::Path;

const GOOD: &str = "(set-logic QF_LIA)\n(set-info :status unsat)\n(declare-fun x () Int)\n\
                    (assert (> x 0))\n(assert (< x 0))\n(check-sat)\n";

fn write(root: &Path, id: &str, text: &str) {
    let p = root.join(id);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

/// A tree with one benchmark of each kind.
fn tree() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    write(r, "QF_LIA/fam/sub/good.smt2", GOOD);
    write(
        r,
        "QF_LIA/fam/sat.smt2",
        &GOOD.replace(":status unsat", ":status sat"),
    );
    write(
        r,
        "QF_LIA/other/broken.smt2",
        "(set-logic QF_LIA)\n(assert (> x 0)\n",
    );
    write(
        r,
        "QF_LIA/other/smtcomp.smt2",
        &GOOD.replace("x", "smtcomp1"),
    );
    dir
}

#[test]
fn names_a_tree_and_reports_each_file() {
    let root = tree();
    let out = tempfile::tempdir().unwrap();
    common::cmd()
        .arg("name")
        .arg(root.path())
        .arg("-o")
        .arg(out.path())
        .assert()
        .code(1)
        .stdout(contains(
            "4 files: 2 named, 1 ineligible, 1 malformed, 0 failed, 0 skipped",
        ))
        .stderr(contains(
            "QF_LIA/other/broken.smt2:2:1: malformed: unbalanced",
        ))
        .stderr(contains("QF_LIA/fam/sat.smt2:2:1: status is 'sat'"));
    let named = std::fs::read_to_string(out.path().join("QF_LIA/fam/sub/good.smt2")).unwrap();
    assert!(named.contains("(assert (! (> x 0) :named cv1))"));
    assert!(!out.path().join("QF_LIA/fam/sat.smt2").exists());
    assert!(!out.path().join("QF_LIA/other/broken.smt2").exists());
    let idx = common::read_index(out.path());
    let ids: Vec<&str> = idx.iter().map(|e| e.id.as_str()).collect();
    assert_eq!(
        ids,
        vec![
            "QF_LIA/fam/sat.smt2",
            "QF_LIA/fam/sub/good.smt2",
            "QF_LIA/other/broken.smt2",
            "QF_LIA/other/smtcomp.smt2"
        ]
    );
    let good = &idx[1];
    assert_eq!(good.outcome, Outcome::Named);
    assert_eq!(good.logic.as_deref(), Some("QF_LIA"));
    assert_eq!(good.family.first_folder, "fam");
    assert_eq!(good.family.directory, "QF_LIA/fam/sub");
    assert_eq!(good.output.as_deref(), Some("QF_LIA/fam/sub/good.smt2"));
    assert_eq!(good.top_level_names(), vec!["cv1", "cv2"]);
    assert_eq!(idx[3].prefix.as_deref(), Some("cv"));
    // No temporary file is left behind.
    let leftovers = walk(out.path())
        .into_iter()
        .filter(|p| p.contains(".coreval-"))
        .count();
    assert_eq!(leftovers, 0);
}

fn walk(dir: &Path) -> Vec<String> {
    let mut v = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            v.extend(walk(&p));
        } else {
            v.push(p.display().to_string());
        }
    }
    v
}

#[test]
fn a_clashing_fixed_prefix_fails_clearly() {
    let root = tree();
    let out = tempfile::tempdir().unwrap();
    common::cmd()
        .arg("name")
        .arg(root.path().join("QF_LIA/other/smtcomp.smt2"))
        .args(["--prefix", "smtcomp", "-o"])
        .arg(out.path())
        .assert()
        .code(1)
        .stdout(contains("1 failed"))
        .stderr(contains(
            "smtcomp.smt2: names with prefix 'smtcomp' would clash with 'smtcomp1' at line 3, column 14",
        ));
    let idx = common::read_index(out.path());
    assert_eq!(idx[0].outcome, Outcome::Failed);
    common::cmd()
        .arg("name")
        .arg(root.path())
        .args(["--prefix", "1x", "-o"])
        .arg(out.path())
        .assert()
        .code(2)
        .stderr(contains("prefix '1x' cannot be used"));
}

#[test]
fn resumes_and_redoes_changed_files() {
    let root = tempfile::tempdir().unwrap();
    write(root.path(), "A/a.smt2", GOOD);
    write(root.path(), "A/b.smt2", GOOD);
    let out = tempfile::tempdir().unwrap();
    let run = |extra: &[&str]| {
        common::cmd()
            .arg("name")
            .arg(root.path())
            .arg("-o")
            .arg(out.path())
            .args(extra)
            .assert()
            .code(0)
    };
    run(&[]).stdout(contains(
        "2 named, 0 ineligible, 0 malformed, 0 failed, 0 skipped (0 from an earlier run)",
    ));
    run(&[]).stdout(contains("(2 from an earlier run)"));
    // A deleted output, a changed source, changed settings: redone.
    std::fs::remove_file(out.path().join("A/a.smt2")).unwrap();
    run(&[]).stdout(contains("(1 from an earlier run)"));
    assert!(out.path().join("A/a.smt2").is_file());
    write(
        root.path(),
        "A/b.smt2",
        &GOOD.replace(":status unsat", ":status unknown"),
    );
    run(&[]).stdout(contains("1 named, 1 ineligible"));
    assert!(
        !out.path().join("A/b.smt2").exists(),
        "stale output removed"
    );
    run(&["--min-assertions", "3"]).stdout(contains("0 named, 2 ineligible"));
    assert_eq!(
        common::read_index(out.path()).len(),
        2,
        "one entry per benchmark"
    );
}

#[test]
fn refuses_an_output_inside_the_root() {
    let root = tree();
    common::cmd()
        .arg("name")
        .arg(root.path())
        .arg("-o")
        .arg(root.path().join("named"))
        .assert()
        .code(2)
        .stderr(contains("inside the benchmark root"));
}

#[test]
fn policies_and_minimum_from_the_command_line() {
    let root = tempfile::tempdir().unwrap();
    write(
        root.path(),
        "L/n.smt2",
        &GOOD.replace("(assert (> x 0))", "(assert (! (> x 0) :named h))"),
    );
    write(
        root.path(),
        "L/one.smt2",
        &GOOD.replace("(assert (< x 0))", ""),
    );
    let out = tempfile::tempdir().unwrap();
    common::cmd()
        .arg("name")
        .arg(root.path())
        .arg("-o")
        .arg(out.path())
        .assert()
        .code(0)
        .stderr(contains("n.smt2:4:20: already names terms (':named h')"))
        .stderr(contains(
            "one.smt2: 1 top-level assertion(s), fewer than the minimum 2",
        ));
    common::cmd()
        .arg("name")
        .arg(root.path())
        .args([
            "--named-policy",
            "keep",
            "--min-assertions",
            "1",
            "-j",
            "1",
            "-o",
        ])
        .arg(out.path())
        .assert()
        .code(0)
        .stdout(contains("2 named"));
    let idx = common::read_index(out.path());
    assert_eq!(idx[0].kept_names, vec![(1, "h".to_string())]);
    assert_eq!(idx[0].top_level_names(), vec!["h", "cv2"]);
}

#[test]
fn lint_reports_positions_and_exit_code() {
    let root = tree();
    write(
        root.path(),
        "QF_BV/bad.smt2",
        "(set-logic QF_BV)\n(assert (= #z1 x))\n",
    );
    common::cmd()
        .arg("lint")
        .arg(root.path().join("QF_BV"))
        .arg(root.path().join("QF_LIA/fam"))
        .assert()
        .code(1)
        .stdout(contains("3 files: 2 valid, 1 with errors"))
        .stderr(contains("bad.smt2:2:12: invalid token '#z1'"));
    common::cmd()
        .arg("lint")
        .arg(root.path().join("QF_LIA/fam/sub/good.smt2"))
        .assert()
        .code(0)
        .stdout(contains("1 files: 1 valid"));
}

#[test]
fn strict_naming_marks_unparsable_files_malformed() {
    let root = tempfile::tempdir().unwrap();
    write(
        root.path(),
        "L/x.smt2",
        &GOOD.replace("(> x 0)", "(> x 0) x"),
    );
    let out = tempfile::tempdir().unwrap();
    common::cmd()
        .arg("name")
        .arg(root.path())
        .args(["--strict", "-o"])
        .arg(out.path())
        .assert()
        .code(1)
        .stderr(contains(
            "x.smt2:4:17: malformed: not SMT-LIB 2.6: unexpected symbol 'x'",
        ));
}

#[test]
fn named_files_are_readable_by_others() {
    use std::os::unix::fs::PermissionsExt;
    let root = tempfile::tempdir().unwrap();
    write(root.path(), "L/a.smt2", GOOD);
    let out = tempfile::tempdir().unwrap();
    common::cmd()
        .arg("name")
        .arg(root.path())
        .arg("-o")
        .arg(out.path())
        .assert()
        .code(0);
    let mode = std::fs::metadata(out.path().join("L/a.smt2"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o644);
}
