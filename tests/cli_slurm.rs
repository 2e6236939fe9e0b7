//! `coreval merge` and `coreval slurm submit --dry-run` from the command
//! line, without a cluster: refusals with their messages, the generated
//! scripts, and merging shard journals twice.

mod common;

use predicates::prelude::*;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;

fn example(named: bool) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("campaign");
    common::copy_example_campaign(&dir);
    if named {
        common::cmd()
            .arg("run")
            .arg(&dir)
            .args(["--stage", "name"])
            .assert()
            .success();
    }
    (tmp, dir)
}

#[test]
fn submit_refuses_an_unnamed_campaign() {
    let (_t, dir) = example(false);
    common::cmd()
        .args(["slurm", "submit"])
        .arg(&dir)
        .args(["--shards", "4", "--dry-run"])
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("no named benchmarks yet")
                .and(predicate::str::contains("--stage name")),
        );
}

#[test]
fn submit_checks_its_arguments() {
    let (_t, dir) = example(true);
    let run = |args: &[&str]| {
        common::cmd()
            .args(["slurm", "submit"])
            .arg(&dir)
            .args(args)
            .args(["--dry-run"])
            .assert()
            .code(2)
    };
    run(&[]).stderr(predicate::str::contains("--shards N"));
    run(&["--shards", "4", "--only", "4"])
        .stderr(predicate::str::contains("shards are numbered 0 to 3"));
    run(&["--shards", "4", "--throttle", "0"]).stderr(predicate::str::contains("at least 1"));
    common::cmd()
        .args(["slurm", "status"])
        .arg(&dir)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no Slurm submissions"));
}

#[test]
fn dry_run_prints_the_job_chain() {
    let (_t, dir) = example(true);
    let out = common::cmd()
        .args(["slurm", "submit"])
        .arg(&dir)
        .args([
            "--shards",
            "2",
            "--throttle",
            "3",
            "--cpus-per-task",
            "2",
            "--dry-run",
        ])
        .env("SLURM_CONF", "/nonexistent/slurm.conf")
        .assert()
        .success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let jobs: Vec<&str> = text
        .lines()
        .filter(|l| l.ends_with("of this plan), offset 0"))
        .collect();
    assert_eq!(jobs.len(), 4, "{text}");
    assert!(jobs[0].starts_with("# solve") && jobs[3].starts_with("# merge"));
    assert_eq!(text.matches("#SBATCH --array=0-1%3\n").count(), 2, "{text}");
    assert_eq!(text.matches("#SBATCH --cpus-per-task=2\n").count(), 2);
    assert!(text.contains("--shard \"$shard/2\""));
    assert!(text.contains(" run ") && text.contains(" --stage score\n"));
    assert!(
        !dir.join("slurm.json").exists(),
        "a dry run submits nothing"
    );
}

#[test]
fn merge_folds_shards_once() {
    let (_t, dir) = example(false);
    let shard = dir.join("shards/1-of-2");
    std::fs::create_dir_all(&shard).unwrap();
    std::fs::write(
        shard.join("runs.jsonl"),
        "{\"solver\":\"z3\",\"benchmark\":\"a\"}\n{\"solver\":\"z3\",\"benchmark\":\"b\"}\n",
    )
    .unwrap();
    common::cmd()
        .arg("merge")
        .arg(&dir)
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "runs.jsonl +2 (0 already there, 2 after)",
        ));
    common::cmd()
        .arg("merge")
        .arg(&dir)
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "runs.jsonl +0 (2 already there, 2 after)",
        ));
    common::cmd()
        .arg("merge")
        .arg(dir.join("shards"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("not a campaign folder"));
}

#[test]
fn submit_and_status_refuse_a_broken_campaign_or_one_in_use_before_submitting() {
    let (_t, dir) = example(true);
    let config = dir.join("campaign.toml");
    let good = std::fs::read_to_string(&config).unwrap();
    let broken = good.replacen("[check]\n", "[check]\ncheckers = [\"z3\", \"nope\"]\n", 1);
    let line = 1 + broken
        .lines()
        .position(|l| l.starts_with("checkers ="))
        .unwrap();
    std::fs::write(&config, &broken).unwrap();
    let submit = |extra: &[&str]| {
        common::cmd()
            .args(["slurm", "submit"])
            .arg(&dir)
            .args(["--shards", "2"])
            .args(extra)
            .env("SLURM_CONF", "/nonexistent/slurm.conf")
            .assert()
            .code(2)
    };
    let at = format!("campaign.toml:{line}");
    for extra in [&["--dry-run"][..], &[]] {
        submit(extra).stderr(
            predicate::str::contains(at.as_str())
                .and(predicate::str::contains("no definition 'nope'")),
        );
    }
    // The solve half needs no checker: what it submits can run.
    common::cmd()
        .args(["slurm", "submit"])
        .arg(&dir)
        .args(["--shards", "2", "--stage", "solve", "--dry-run"])
        .assert()
        .success();
    // Status loads the same campaign (without starting anything).
    std::fs::write(dir.join("slurm.json"), r#"{"shards":2,"submissions":[]}"#).unwrap();
    let unknown = good.replacen("definition = \"z3\"", "definition = \"z9\"", 1);
    let line = 1 + unknown.lines().position(|l| l.contains("\"z9\"")).unwrap();
    std::fs::write(&config, &unknown).unwrap();
    common::cmd()
        .args(["slurm", "status"])
        .arg(&dir)
        .env("SLURM_CONF", "/nonexistent/slurm.conf")
        .assert()
        .code(2)
        .stderr(predicate::str::contains(format!("campaign.toml:{line}")));
    std::fs::remove_file(dir.join("slurm.json")).unwrap();
    // A campaign another coreval writes is not submitted.
    std::fs::write(&config, &good).unwrap();
    let held = coreval::store::lock::acquire_in(&dir, false, &AtomicBool::new(false)).unwrap();
    submit(&[]).stderr(predicate::str::contains("in use by another coreval"));
    drop(held);
    assert!(
        !dir.join("slurm.json").exists() && !dir.join("slurm").exists(),
        "nothing was written"
    );
}
