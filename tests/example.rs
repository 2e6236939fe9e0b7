//! The README's first command's main job: `coreval run examples/campaign`
//! on a copy of the bundled example. Every pair gets a final verdict, the
//! reports exist, and a second run redoes nothing.

mod common;

use assert_cmd::Command;

#[test]
fn example_campaign_runs_to_a_verdict_for_every_pair() {
    let dir = tempfile::tempdir().unwrap();
    let camp = dir.path().join("campaign");
    common::copy_example_campaign(&camp);
    let out = Command::cargo_bin("coreval")
        .unwrap()
        .arg("run")
        .arg(&camp)
        .env("COREVAL_NO_PROGRESS", "1")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("HTML report:"), "{stderr}");
    for f in [
        "scores.json",
        "pairs.csv",
        "report.md",
        "report.html",
        "pairs.jsonl",
    ] {
        let p = camp.join("reports").join(f);
        assert!(
            p.metadata().map(|m| m.len() > 0).unwrap_or(false),
            "missing report {}",
            p.display()
        );
    }
    let pairs: Vec<serde_json::Value> = std::fs::read_to_string(camp.join("reports/pairs.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let benchmarks = std::fs::read_to_string(camp.join("named/index.jsonl"))
        .unwrap()
        .lines()
        .count();
    assert_eq!(benchmarks, 32);
    // z3 and cvc5 enter every division of the example, yices the ones it supports.
    assert!(pairs.len() >= 2 * benchmarks, "{} pairs", pairs.len());
    for p in &pairs {
        assert_eq!(p["pending"], false, "pair without a final verdict: {p}");
        assert!(p["verdict"]["kind"].is_string(), "{p}");
    }
    let validated = pairs
        .iter()
        .filter(|p| p["verdict"]["kind"] == "validated")
        .count();
    assert!(
        validated * 10 >= pairs.len() * 9,
        "only {validated} of {} validated",
        pairs.len()
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(camp.join("reports/scores.json")).unwrap())
            .unwrap();
    assert!(json.to_string().contains("smtcomp-2025"));
    every_run_has_a_slot_of_its_own(&camp);

    // A second run finds everything done.
    let again = Command::cargo_bin("coreval")
        .unwrap()
        .arg("run")
        .arg(&camp)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&again.stderr);
    assert_eq!(again.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("0 run now"), "{stderr}");
    assert!(stderr.contains("0 checker runs"), "{stderr}");
}

/// Every solver and checker run carries its start, end and slot; runs of
/// one slot never overlap (a slot runs one job at a time); the HTML report
/// plots the occupancy of both stages.
fn every_run_has_a_slot_of_its_own(camp: &std::path::Path) {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    for journal in ["runs.jsonl", "checks.jsonl"] {
        let mut by_slot: std::collections::BTreeMap<u64, Vec<(f64, f64)>> = Default::default();
        for line in std::fs::read_to_string(camp.join(journal)).unwrap().lines() {
            let r: serde_json::Value = serde_json::from_str(line).unwrap();
            if r["cached"] == true || r["answer"] == "not-applicable" {
                continue;
            }
            let t = &r["timing"];
            let (start, end) = (t["start"].as_f64().unwrap(), t["end"].as_f64().unwrap());
            assert!(start > 1.7e9 && start <= end, "{journal}: {r}");
            let slot = t["slot"].as_u64().unwrap();
            assert!(
                (slot as usize) < cores,
                "{journal}: slot {slot} of {cores}: {r}"
            );
            by_slot.entry(slot).or_default().push((start, end));
        }
        assert!(!by_slot.is_empty(), "{journal}: no timed run");
        for (slot, mut runs) in by_slot {
            runs.sort_by(|a, b| a.0.total_cmp(&b.0));
            for w in runs.windows(2) {
                // Journaled to the millisecond.
                assert!(
                    w[1].0 >= w[0].1 - 0.0015,
                    "{journal}: slot {slot} ran two at once: {w:?}"
                );
            }
        }
    }
    let html = std::fs::read_to_string(camp.join("reports/report.html")).unwrap();
    assert!(html.contains("Slot occupancy"), "no occupancy section");
    for stage in ["solve: ", "check: "] {
        assert!(
            html.contains(&format!("<title>{stage}")),
            "no {stage} occupancy plot"
        );
    }
}
