//! `coreval name --scramble SEED` and the campaign key `scramble_seed`: the
//! example's real benchmarks are scrambled, then named; the status removed
//! by the scrambler still decides eligibility (from the map), no `:status`
//! reaches the named files, z3's cores on the named scrambled files map
//! back (through the descrambling maps) to cores of the originals, the
//! bytes depend only on the seed, and a whole campaign runs scrambled.

mod common;

use coreval::campaign::ledger::index::IndexEntry;
use coreval::campaign::ledger::index::Outcome;
use coreval::scramble::{core_positions, DescrambleMap};
use std::collections::HashSet;
use std::path::{Path, PathBuf};

fn example_benchmarks() -> PathBuf {
    common::repo().join("examples/campaign/benchmarks")
}

fn name_scrambled_tree(root: &Path, out: &Path) {
    common::cmd()
        .args(["name", "--scramble", "1", "-o"])
        .arg(out)
        .arg(root)
        .assert()
        .success();
}

fn name_scrambled(out: &Path, seed: &str) -> String {
    let o = common::cmd()
        .args(["name", "--scramble", seed, "-o"])
        .arg(out)
        .arg(example_benchmarks())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// z3 (from the checkers' venv) on `file`: its answer and core.
fn z3(file: &Path) -> (String, Vec<String>) {
    let out = std::process::Command::new(common::repo().join("checkers/venv/bin/z3"))
        .args(["-smt2", "-T:30"])
        .arg(file)
        .output()
        .expect("z3 from checkers/install.sh");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let mut lines = text.lines();
    let answer = lines.next().unwrap_or("").trim().to_string();
    let rest: String = lines.collect::<Vec<_>>().join(" ");
    let core = rest
        .trim()
        .trim_start_matches('(')
        .trim_end_matches(')')
        .split_whitespace()
        .map(str::to_string)
        .collect();
    (answer, core)
}

#[test]
fn scrambled_names_keep_the_status_and_cores_map_back() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("named");
    let line = name_scrambled(&out, "42");
    let entries = common::read_index(&out);
    // Without --allow-no-status, only benchmarks whose (removed) status is
    // unsat are named: the status came from the maps.
    let named: Vec<&IndexEntry> = entries
        .iter()
        .filter(|e| e.outcome == Outcome::Named)
        .collect();
    assert!(named.len() >= 10, "{line}");
    let mut checked = 0;
    for e in &named {
        assert_eq!(e.status.as_deref(), Some("unsat"), "{}", e.id);
        let file = out.join(e.output.as_ref().unwrap());
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(!text.contains(":status"), "{}: status leaked", e.id);
        let map_file = out.join(e.descramble.as_ref().expect("map in the index"));
        let map = DescrambleMap::load(&map_file).unwrap();
        assert_eq!(map.status.as_deref(), Some("unsat"));
        assert_eq!(map.assertions.len(), e.assertions, "{}", e.id);
        let (answer, core) = z3(&file);
        if answer != "unsat" {
            continue; // a timeout says nothing about the map
        }
        assert!(!core.is_empty(), "{}: no core", e.id);
        let scrambled = core_positions(text.as_bytes(), &core).unwrap();
        let original: HashSet<usize> = map
            .original_positions(&scrambled)
            .unwrap()
            .into_iter()
            .collect();
        let orig = std::fs::read(example_benchmarks().join(&e.id)).unwrap();
        let only_core = tmp.path().join("core.smt2");
        std::fs::write(&only_core, common::restrict(&orig, &original)).unwrap();
        assert_eq!(
            z3(&only_core).0,
            "unsat",
            "{}: mapped core {original:?}",
            e.id
        );
        checked += 1;
    }
    assert!(checked >= 10, "only {checked} cores checked");
    // Benchmarks whose status is only in a comment stay ineligible.
    assert!(entries
        .iter()
        .filter(|e| e.outcome == Outcome::Ineligible)
        .all(|e| e.status.is_none() && e.descramble.is_none()));
}

#[test]
fn same_seed_same_bytes_other_seed_other_bytes_and_resume() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b, c) = (
        tmp.path().join("a"),
        tmp.path().join("b"),
        tmp.path().join("c"),
    );
    name_scrambled(&a, "7");
    name_scrambled(&b, "7");
    name_scrambled(&c, "8");
    let named: Vec<String> = common::read_index(&a)
        .into_iter()
        .filter_map(|e| e.output)
        .collect();
    let mut differ = 0;
    for id in &named {
        let x = std::fs::read(a.join(id)).unwrap();
        assert_eq!(x, std::fs::read(b.join(id)).unwrap(), "{id}");
        differ += (x != std::fs::read(c.join(id)).unwrap()) as usize;
    }
    assert!(
        differ * 10 >= named.len() * 9,
        "{differ} of {} differ",
        named.len()
    );
    // A second run with the same seed redoes nothing; another seed redoes
    // everything (the seed is part of the settings).
    let again = name_scrambled(&a, "7");
    assert!(
        again.contains(&format!(
            "({} from an earlier run)",
            common::read_index(&a).len()
        )),
        "{again}"
    );
    let other = name_scrambled(&a, "8");
    assert!(other.contains("(0 from an earlier run)"), "{other}");
    for id in &named {
        assert_eq!(
            std::fs::read(a.join(id)).unwrap(),
            std::fs::read(c.join(id)).unwrap()
        );
    }
}

#[test]
fn a_malformed_benchmark_is_reported_where_it_is_wrong() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("in");
    std::fs::create_dir_all(&root).unwrap();
    let good = "(set-logic QF_UF)\n(set-info :status unsat)\n(declare-const p Bool)\n(assert p)\n(assert (not p))\n(check-sat)\n";
    std::fs::write(root.join("bad.smt2"), good).unwrap();
    let out = tmp.path().join("out");
    name_scrambled_tree(&root, &out);
    assert!(out.join("bad.descramble.json").is_file());
    // The file breaks (one parenthesis less, another size): named again,
    // malformed, and the earlier output and map are gone.
    std::fs::write(root.join("bad.smt2"), good.replace("(not p))", "(not p)")).unwrap();
    let o = common::cmd()
        .args(["name", "--scramble", "1", "-o"])
        .arg(&out)
        .arg(&root)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("bad.smt2:5:1"), "{stderr}");
    assert_eq!(common::read_index(&out)[0].outcome, Outcome::Malformed);
    let left: Vec<_> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(left, vec!["index.jsonl".to_string()], "no temporary left");
}

#[test]
fn a_campaign_with_scramble_seed_runs_on_scrambled_files() {
    let tmp = tempfile::tempdir().unwrap();
    let camp = tmp.path().join("campaign");
    common::copy_example_campaign(&camp);
    let toml = camp.join("campaign.toml");
    let text = std::fs::read_to_string(&toml).unwrap();
    std::fs::write(
        &toml,
        text.replace("[naming]\n", "[naming]\nscramble_seed = 2026\n"),
    )
    .unwrap();
    let o = common::cmd().arg("run").arg(&camp).output().unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{stderr}");
    let entries = common::read_index(&camp.join("named"));
    let named: Vec<&IndexEntry> = entries
        .iter()
        .filter(|e| e.outcome == Outcome::Named)
        .collect();
    assert_eq!(named.len(), 32);
    for e in named {
        let text =
            std::fs::read_to_string(camp.join("named").join(e.output.as_ref().unwrap())).unwrap();
        assert!(!text.contains("set-info :status"), "{}", e.id);
        assert!(camp
            .join("named")
            .join(e.descramble.as_ref().unwrap())
            .is_file());
    }
    let runs = std::fs::read_to_string(camp.join("runs.jsonl")).unwrap();
    assert!(
        runs.lines()
            .filter(|l| l.contains("\"answer\":\"unsat\""))
            .count()
            >= 60,
        "{runs}"
    );
    // The reports show each core on the original benchmark: the mapped
    // positions, restricted in the original, are unsat for z3.
    let pairs = std::fs::read_to_string(camp.join("reports/pairs.jsonl")).unwrap();
    let mut mapped = 0;
    for line in pairs.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let Some(orig) = v["original_core"].as_array() else {
            assert!(
                v["core"].is_null(),
                "a core without original positions: {line}"
            );
            continue;
        };
        assert_eq!(orig.len(), v["core"].as_array().unwrap().len());
        if v["verdict"]["kind"] != "validated" || mapped >= 12 {
            continue;
        }
        let keep: HashSet<usize> = orig
            .iter()
            .map(|p| p.as_u64().unwrap() as usize - 1)
            .collect();
        let id = v["benchmark"].as_str().unwrap();
        let original = std::fs::read(example_benchmarks().join(id)).unwrap();
        let only_core = tmp.path().join("core.smt2");
        std::fs::write(&only_core, common::restrict(&original, &keep)).unwrap();
        assert_eq!(z3(&only_core).0, "unsat", "{id}: original core {keep:?}");
        mapped += 1;
    }
    assert!(mapped >= 10, "only {mapped} validated cores mapped back");
}
