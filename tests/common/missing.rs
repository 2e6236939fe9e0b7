//! A tool a test needs and cannot find (Chromium, Slurm, a tmpfs mount,
//! cgroups, BenchExec): on a developer's machine the test says SKIPPED and
//! why; under `CI` (set, and neither `false` nor `0`) it fails instead, so a
//! CI run never passes a test it did not run.

/// Whether `CI` asks for every test to run.
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false" && v != "0")
}

/// Says SKIPPED with `what` is missing; under `CI`, panics with it instead.
pub fn skip(what: &str) {
    assert!(
        !in_ci(),
        "CI is set, and {what}: install it (bash checkers/install.sh --dev) or unset CI"
    );
    eprintln!("SKIPPED ({what})");
}
