//! The real pipeline on a local Slurm cluster: the example campaign as a
//! 4-shard job array, merged and scored, gives the same records and the same
//! report files as a single-machine `coreval run` (measured times taken from
//! the single-machine run); and again when one task is cancelled mid-way and
//! only its shard is resubmitted. The cluster is found or started as
//! described in `tests/slurm_support/mod.rs`; every test skips with a
//! message when `sbatch` is absent or no cluster can be started.

mod common;
mod slurm_support;

use serde_json::Value;
use slurm_support::{
    cluster, coreval, example_copy, named_example, run_ok, status, wait_idle, Cluster,
};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// Heavy tests (whole campaigns) run one at a time: the machine is small
/// and solver timings must not suffer from our own load.
static HEAVY: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// The single-machine run of the example campaign (`coreval run`), once.
fn reference(cl: &Cluster) -> &'static Path {
    static REF: OnceLock<PathBuf> = OnceLock::new();
    REF.get_or_init(|| {
        let c = example_copy();
        let t0 = Instant::now();
        let out = coreval(cl).arg("run").arg(&c).output().unwrap();
        assert!(
            out.status.code().is_some_and(|x| x <= 1),
            "coreval run failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        eprintln!(
            "single-machine run of the example campaign: {:.1} s",
            t0.elapsed().as_secs_f64()
        );
        c
    })
}

fn read_lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn key(v: &Value, a: &str, b: &str) -> (String, String) {
    (
        v[a].as_str().unwrap().to_string(),
        v[b].as_str().unwrap().to_string(),
    )
}

/// Give the sharded run's records the measured times (and memory, slots,
/// checker output) of the reference run, then assert that the journals
/// hold the same records: everything that was decided, not measured, must
/// be equal.
fn same_records_with_reference_times(reference: &Path, sharded: &Path) {
    for (file, a, b, measured) in [
        (
            "runs.jsonl",
            "solver",
            "benchmark",
            &["wall", "cpu", "max_rss", "timing"][..],
        ),
        // `output`: what the checker printed, which may name the campaign's path.
        (
            "checks.jsonl",
            "hash",
            "checker",
            &["wall", "cpu", "timing", "output"][..],
        ),
        ("cores.jsonl", "solver", "benchmark", &[][..]),
    ] {
        let want = read_lines(&reference.join(file));
        let by_key: std::collections::HashMap<_, &Value> =
            want.iter().map(|r| (key(r, a, b), r)).collect();
        let mut got = read_lines(&sharded.join(file));
        assert_eq!(got.len(), want.len(), "{file}: record count");
        let mut text = String::new();
        for r in &mut got {
            let k = key(r, a, b);
            let w = by_key
                .get(&k)
                .unwrap_or_else(|| panic!("{file}: {k:?} not in the reference"));
            for m in measured {
                // Optional fields (`timing`, `output`) are absent in some records.
                match w.get(*m) {
                    Some(v) => r[*m] = v.clone(),
                    None => {
                        r.as_object_mut().unwrap().remove(*m);
                    }
                }
            }
            // What produced a record differs by design (the sharded
            // campaign runs z3 through a slow wrapper, whose `sleep` its
            // runs record among the programs they ran): compared without
            // it, kept as it is.
            let own = r.as_object_mut().unwrap().remove("provenance");
            let ran = r.as_object_mut().unwrap().remove("programs");
            let mut w = (*w).clone();
            w.as_object_mut().unwrap().remove("provenance");
            w.as_object_mut().unwrap().remove("programs");
            assert_eq!(*r, w, "{file}: {k:?} differs");
            if let Some(p) = own {
                r["provenance"] = p;
            }
            if let Some(p) = ran {
                r["programs"] = p;
            }
            text.push_str(&format!("{r}\n"));
        }
        std::fs::write(sharded.join(file), text).unwrap();
    }
}

/// Re-score the sharded campaign and compare every report file with the
/// reference's, byte for byte.
fn same_reports(cl: &Cluster, reference: &Path, sharded: &Path) {
    let out = coreval(cl)
        .arg("run")
        .arg(sharded)
        .args(["--stage", "score"])
        .output()
        .unwrap();
    assert!(
        out.status.code().is_some_and(|x| x <= 1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for f in [
        "scores.json",
        "pairs.jsonl",
        "pairs.csv",
        "report.md",
        "report.html",
    ] {
        let want = without_occupancy(std::fs::read(reference.join("reports").join(f)).unwrap());
        let got = without_occupancy(std::fs::read(sharded.join("reports").join(f)).unwrap());
        assert!(
            want == got,
            "reports/{f} differs from the single-machine run's"
        );
    }
}

/// A report without its slot occupancy plots (HTML), which are drawn from
/// measured times: the shards' own journals keep theirs.
fn without_occupancy(report: Vec<u8>) -> Vec<u8> {
    let report = without_facts(report);
    let text = String::from_utf8_lossy(&report).into_owned();
    let start = "<section id=\"occupancy\">";
    match text.find(start) {
        Some(i) => {
            let end = i + text[i..].find("</section>").expect("a closed section") + 10;
            assert!(text[i..end].contains("<svg"), "an occupancy plot");
            format!("{}{}", &text[..i], &text[end..]).into_bytes()
        }
        None => report,
    }
}

/// A report without the campaign's facts (its solvers' commands, programs
/// and config hash differ by design: the sharded campaign's z3 is slowed).
fn without_facts(report: Vec<u8>) -> Vec<u8> {
    let text = String::from_utf8_lossy(&report).into_owned();
    if let Ok(mut v) = serde_json::from_str::<serde_json::Value>(&text) {
        let o = v.as_object_mut().unwrap();
        assert!(o.remove("facts").is_some() && o.remove("provenance").is_some());
        return serde_json::to_vec_pretty(&v).unwrap();
    }
    let cut = |text: &str, start: &str, end: &str| -> Option<String> {
        let i = text.find(start)?;
        let j = i + start.len() + text[i + start.len()..].find(end)?;
        Some(format!("{}{}", &text[..i], &text[j..]))
    };
    let mut text = cut(&text, "<section id=\"facts\">", "<section")
        .or_else(|| cut(&text, "## Campaign facts", "\n## "))
        .unwrap_or(text);
    // Every pair's detail view shows the solver's and the checkers'
    // commands, which differ by design too, and the checkers' measured times.
    for (start, end) in [
        ("<dt>command</dt><dd>", "</dd>"),
        ("<code class=\"cmd\">", "</code>"),
        ("<td class=\"n\">", "</td>"),
    ] {
        let mut from = 0;
        while let Some(i) = text[from..].find(start).map(|i| i + from) {
            let j = i + text[i..].find(end).expect("a closed element") + end.len();
            let in_detail = text[..i]
                .rfind("<section class=\"detail\"")
                .is_some_and(|d| !text[d..i].contains("</section>"));
            if in_detail {
                text.replace_range(i..j, "");
                from = i;
            } else {
                from = j;
            }
        }
    }
    text.into_bytes()
}

fn submit(cl: &Cluster, campaign: &Path, extra: &[&str]) {
    run_ok(
        coreval(cl)
            .args(["slurm", "submit"])
            .arg(campaign)
            .args(extra),
    );
}

#[test]
fn four_shard_array_equals_single_machine_run() {
    let Some(cl) = cluster() else { return };
    let _heavy = HEAVY.lock().unwrap_or_else(|p| p.into_inner());
    let reference = reference(cl);
    let c = named_example(cl);
    let t0 = Instant::now();
    submit(cl, &c, &["--shards", "4", "--throttle", "2"]);
    let st = wait_idle(cl, &c, Duration::from_secs(900));
    eprintln!(
        "4-shard array run of the example campaign: {:.1} s",
        t0.elapsed().as_secs_f64()
    );
    for s in st["per_shard"].as_array().unwrap() {
        assert_eq!(s["solve_task"]["exit"], 0, "{s}");
        assert!(
            s["check_task"]["exit"].as_i64().is_some_and(|x| x <= 1),
            "{s}"
        );
    }
    assert_eq!(st["missing_solve"], serde_json::json!([]));
    // The final job merged and scored; merging again adds nothing.
    assert!(c.join("reports/scores.json").is_file());
    let again = run_ok(coreval(cl).arg("merge").arg(&c));
    let again = String::from_utf8_lossy(&again.stderr);
    assert!(
        again.contains("runs.jsonl +0") && again.contains("checks.jsonl +0"),
        "{again}"
    );
    same_records_with_reference_times(reference, &c);
    same_reports(cl, reference, &c);
}

/// Give campaign `c` its own definitions folder where z3 sleeps 0.5 s before
/// each run: a shard's solve task then lasts seconds, not a fraction of one,
/// so the test can catch it mid-way. Answers, cores and versions stay those
/// of the installed definitions; measured times are the reference's anyway.
fn slow_down_z3(c: &Path) {
    let installed = slurm_support::root().join("checkers");
    let slow = c.join("slow-checkers");
    std::fs::create_dir_all(&slow).unwrap();
    let abs = installed.to_str().unwrap();
    for entry in std::fs::read_dir(&installed).unwrap().flatten() {
        let path = entry.path();
        if path.extension().is_none_or(|e| e != "toml") {
            continue;
        }
        let mut text = std::fs::read_to_string(&path)
            .unwrap()
            .replace("{checkers}", abs);
        if path.file_stem().unwrap() == "z3" {
            let head = "command = [\n";
            assert!(text.contains(head), "the z3 definition changed");
            let sleep = "command = [\n  \"/bin/sh\", \"-c\", 'sleep 0.5; exec \"$0\" \"$@\"',\n";
            text = text.replacen(head, sleep, 1);
        }
        std::fs::write(slow.join(entry.file_name()), text).unwrap();
    }
    let toml = c.join("campaign.toml");
    let text = std::fs::read_to_string(&toml).unwrap();
    std::fs::write(&toml, format!("checkers_dir = \"slow-checkers\"\n{text}")).unwrap();
}

#[test]
fn cancelled_task_is_resubmitted_alone_and_result_is_identical() {
    let Some(cl) = cluster() else { return };
    let _heavy = HEAVY.lock().unwrap_or_else(|p| p.into_inner());
    let reference = reference(cl);
    let c = named_example(cl);
    slow_down_z3(&c);
    submit(cl, &c, &["--shards", "4", "--throttle", "2"]);
    // Cancel the first solve task caught mid-way: running, with some but
    // not all of its pairs journaled.
    let t0 = Instant::now();
    let (victim, task) = loop {
        let st = status(cl, &c);
        let hit = st["per_shard"].as_array().unwrap().iter().find(|s| {
            let done = s["solve_done"].as_u64().unwrap();
            s["queue"]
                .as_array()
                .unwrap()
                .iter()
                .any(|q| q == "solve RUNNING")
                && done > 0
                && done < s["solve_expected"].as_u64().unwrap()
        });
        if let Some(s) = hit {
            let shard = s["shard"].as_u64().unwrap();
            let job = st["submissions"][0]["job"].as_str().unwrap().to_string();
            break (shard, format!("{job}_{shard}"));
        }
        assert!(
            t0.elapsed() < Duration::from_secs(300),
            "no solve task caught mid-way: {st}"
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    let st = Command::new("scancel")
        .arg(&task)
        .env("SLURM_CONF", &cl.conf)
        .status()
        .unwrap();
    assert!(st.success(), "scancel {task}");
    let st = wait_idle(cl, &c, Duration::from_secs(900));
    assert_eq!(st["missing_solve"], serde_json::json!([victim]), "{st}");
    let s = &st["per_shard"][victim as usize];
    assert!(
        s["solve_task"].is_null(),
        "a cancelled task records no exit: {s}"
    );
    // Only the missing shard's solve task is resubmitted (then checks).
    submit(cl, &c, &["--missing"]);
    let st = wait_idle(cl, &c, Duration::from_secs(900));
    let subs = st["submissions"].as_array().unwrap();
    let resolve = &subs[4];
    assert_eq!(resolve["stage"], "solve");
    assert_eq!(resolve["array"], format!("{victim}"));
    assert_eq!(st["missing_solve"], serde_json::json!([]));
    run_ok(coreval(cl).arg("merge").arg(&c));
    same_records_with_reference_times(reference, &c);
    same_reports(cl, reference, &c);
}
