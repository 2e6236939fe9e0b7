//! Transparent huge pages (`src/process/hugepages.rs`): coreval turns them off for
//! itself, and the solvers still get the setting it started with. Here
//! under coreval's own executable as the trampoline (the fallback when
//! `coreval-trampoline` is not beside it; one trampoline per test process,
//! so this file is its own), and through the `coreval` binary, whose
//! constructor turns them off before its first allocation.
//! `tests/measure.rs` checks the same through the small trampoline.

mod common;

use coreval::runner::{run, RunSpec};
use std::sync::atomic::AtomicBool;
use std::time::Duration;

#[test]
fn solvers_keep_the_huge_page_setting_under_the_fallback_trampoline() {
    coreval::runner::use_trampoline(env!("CARGO_BIN_EXE_coreval"));
    common::procs::assert_solvers_keep_thp(|script| {
        let spec = RunSpec::new(
            "/bin/sh",
            vec!["-c".into(), script.into()],
            Duration::from_secs(30),
        );
        run(&spec, &AtomicBool::new(false))
    });
}

/// `command` started with transparent huge pages allowed, whatever this
/// test process's other tests did to its own setting.
fn with_huge_pages(mut command: std::process::Command) -> std::process::Output {
    use std::os::unix::process::CommandExt;
    // SAFETY: the closure makes one system call and allocates nothing.
    unsafe {
        command.pre_exec(|| {
            libc::prctl(libc::PR_SET_THP_DISABLE, 0, 0, 0, 0);
            Ok(())
        });
    }
    command.output().unwrap()
}

/// The `coreval` binary turns huge pages off for itself before its first
/// allocation (a constructor); the solvers of a campaign, started through
/// its slots' zygotes, still see the setting it was started with.
#[test]
fn the_binarys_solvers_see_the_setting_it_was_started_with() {
    let mut probe = std::process::Command::new("/bin/sh");
    probe.args(["-c", "grep THP_enabled /proc/self/status"]);
    let expected = String::from_utf8(with_huge_pages(probe).stdout).unwrap();
    if expected.is_empty() {
        return; // a kernel without the field
    }
    let dir = tempfile::tempdir().unwrap();
    let camp = dir.path();
    common::copy_examples(
        &camp.join("benchmarks"),
        &["QF_UF/cvc5-test_regress_cli_regress0/bt-test-01.smt2"],
    );
    let seen = camp.join("thp.txt");
    let script = format!(
        "grep THP_enabled /proc/self/status >> {}; echo unsat; echo '()'",
        common::q(&seen)
    );
    let solvers: String = (0..3)
        .map(|i| format!("[[solver]]\nname = \"probe{i}\"\ncommand = [\"/bin/sh\", \"-c\", {script:?}, \"{{file}}\"]\n"))
        .collect();
    std::fs::write(
        camp.join("campaign.toml"),
        format!(
            "benchmarks = \"benchmarks\"\njobs = 2\n[naming]\nallow_no_status = true\n{solvers}"
        ),
    )
    .unwrap();
    for stage in ["name", "solve"] {
        let mut run = common::command();
        run.args(["run", "--stage", stage])
            .arg(camp)
            .current_dir(camp);
        let out = with_huge_pages(run);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let seen = std::fs::read_to_string(&seen).unwrap();
    assert_eq!(seen, expected.repeat(3));
}
