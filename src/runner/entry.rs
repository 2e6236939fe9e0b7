//! The entry points of the trampoline's processes (`trampoline.rs`): the
//! `coreval-trampoline` executable's `main`, and coreval's own when it is
//! started as its fallback (`argv[0]` [`ARGV0`]). With the single argument
//! `--zygote` the process is a job slot's zygote (`zygote.rs`), otherwise a
//! trampoline for one run.

use super::trampoline::{trampoline, ARGV0};
use std::ffi::OsString;

/// When this process was started as a trampoline, do its work and exit;
/// otherwise return at once. Call it first in `main`.
pub fn main_if_asked() {
    let mut args = std::env::args_os();
    if args.next().as_deref() != Some(std::ffi::OsStr::new(ARGV0)) {
        return;
    }
    std::process::exit(binary_main());
}

/// The work of the trampoline executable, on its arguments after
/// `argv[0]`; returns its exit code.
pub fn binary_main() -> i32 {
    // Single-threaded still: the THP setting its children get back.
    crate::process::hugepages::take_from_env();
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    if args.len() == 1 && args[0] == super::zygote::ARG {
        // SAFETY: single-threaded; descriptor 0 is the runner's socket.
        return unsafe { super::zygote::serve(0) };
    }
    // SAFETY: the trampoline is single-threaded; see `trampoline`.
    unsafe { trampoline(&args) }
}
