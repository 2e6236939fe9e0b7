//! Unit tests of submission planning and the Slurm output parsers.

use super::*;

fn options(solve: Vec<u32>, check: Vec<u32>) -> SubmitOptions {
    SubmitOptions {
        shards: 4,
        solve,
        check,
        throttle: Some(2),
        cpus_per_task: 1,
        coreval: PathBuf::from("/bin/coreval"),
        score: true,
        sbatch_args: vec![],
    }
}

fn sizing(max_array_size: u32) -> Sizing {
    Sizing {
        pairs_per_shard: vec![25, 22, 30, 19],
        solve_secs: 22.0,
        check_secs: 22.0,
        checkers: 3,
        memory_mb: None,
        max_array_size,
    }
}

#[test]
fn full_plan_is_solve_merge_check_merge() {
    let all = vec![0, 1, 2, 3];
    let jobs = plan(Path::new("/c"), &options(all.clone(), all), &sizing(1001));
    let stages: Vec<(Stage, Option<&str>, &[usize])> = jobs
        .iter()
        .map(|j| (j.spec.stage, j.spec.array.as_deref(), j.after.as_slice()))
        .collect();
    assert_eq!(
        stages,
        vec![
            (Stage::Solve, Some("0-3%2"), &[][..]),
            (Stage::Merge, None, &[0][..]),
            (Stage::Check, Some("0-3%2"), &[1][..]),
            (Stage::Merge, None, &[2][..]),
        ]
    );
    // Solve: 30 pairs (the largest shard) × 23 s × 1.25 + 120 s → 17 min.
    assert_eq!(jobs[0].spec.time_limit, Duration::from_secs(17 * 60));
    // Check: 30 × 3 checkers × 23 s × 1.25 + 120 s → 46 min.
    assert_eq!(jobs[2].spec.time_limit, Duration::from_secs(46 * 60));
    assert!(!jobs[1].spec.score && jobs[3].spec.score);
}

#[test]
fn resubmitting_one_shard() {
    let jobs = plan(
        Path::new("/c"),
        &options(vec![3], vec![0, 1, 2, 3]),
        &sizing(1001),
    );
    assert_eq!(jobs[0].spec.array.as_deref(), Some("3%2"));
    // Shard 3 owns 19 pairs: 19 × 23 × 1.25 + 120 = 666 s → 12 min.
    assert_eq!(jobs[0].spec.time_limit, Duration::from_secs(12 * 60));
    assert_eq!(jobs.len(), 4);
    let only_check = plan(Path::new("/c"), &options(vec![], vec![1]), &sizing(1001));
    assert_eq!(only_check.len(), 2);
    assert_eq!(only_check[0].spec.stage, Stage::Check);
    assert!(only_check[0].after.is_empty());
    assert!(only_check[1].spec.score);
    let only_solve = plan(Path::new("/c"), &options(vec![1], vec![]), &sizing(1001));
    assert_eq!(only_solve.len(), 2);
    assert!(!only_solve[1].spec.score, "no score without checks");
}

#[test]
fn arrays_respect_max_array_size() {
    let all: Vec<u32> = (0..4).collect();
    let mut o = options(all.clone(), all);
    o.throttle = None;
    let jobs = plan(Path::new("/c"), &o, &sizing(3));
    let got: Vec<(Stage, Option<&str>, u32, &[usize])> = jobs
        .iter()
        .map(|j| {
            (
                j.spec.stage,
                j.spec.array.as_deref(),
                j.offset,
                j.after.as_slice(),
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            (Stage::Solve, Some("0-2"), 0, &[][..]),
            (Stage::Solve, Some("0"), 3, &[0][..]),
            (Stage::Merge, None, 0, &[0, 1][..]),
            (Stage::Check, Some("0-2"), 0, &[2][..]),
            (Stage::Check, Some("0"), 3, &[3][..]),
            (Stage::Merge, None, 0, &[3, 4][..]),
        ]
    );
}

#[test]
fn memory_limit_sizes_the_allocation() {
    let mut z = sizing(1001);
    z.memory_mb = Some(8192);
    let mut o = options(vec![0], vec![]);
    o.cpus_per_task = 4;
    let jobs = plan(Path::new("/c"), &o, &z);
    assert_eq!(jobs[0].spec.mem_mb, Some((8192 + 256) * 4));
    assert_eq!(jobs[1].spec.mem_mb, None);
    assert_eq!(jobs[1].spec.cpus_per_task, 1);
}

#[test]
fn scontrol_config_values() {
    let text = "Configuration data as of 2025-01-01T00:00:00\nMaxArraySize            = 1001\nMaxJobCount             = 10000\n";
    assert_eq!(
        parse_config_value(text, "MaxArraySize").as_deref(),
        Some("1001")
    );
    assert_eq!(
        parse_config_value(text, "MaxJobCount").as_deref(),
        Some("10000")
    );
    assert_eq!(parse_config_value(text, "Missing"), None);
}

#[test]
fn state_round_trip() {
    let d = tempfile::tempdir().unwrap();
    assert_eq!(SlurmState::load(d.path()).unwrap(), None);
    let s = SlurmState {
        shards: 4,
        submissions: vec![Submission {
            stage: Stage::Solve,
            job: "12".into(),
            shards: 4,
            array: Some("0-3%2".into()),
            offset: 0,
            after: vec![],
            command: vec!["sbatch".into()],
            submitted: 1,
        }],
    };
    s.save(d.path()).unwrap();
    assert_eq!(SlurmState::load(d.path()).unwrap(), Some(s));
    std::fs::write(d.path().join(STATE_FILE), "{").unwrap();
    let e = SlurmState::load(d.path()).unwrap_err();
    assert!(format!("{e:#}").contains("slurm.json is damaged"));
}
