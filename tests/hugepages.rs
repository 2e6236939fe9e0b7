//! Transparent huge pages under coreval's own executable as the trampoline
//! (the fallback when `coreval-trampoline` is not beside it; one trampoline
//! per test process, so this file is its own): coreval turns them off for
//! itself, and the solvers still get the setting it started with
//! (`src/hugepages.rs`). `tests/measure.rs` checks the same through the
//! small trampoline.

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
