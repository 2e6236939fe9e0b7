//! The settings of coreval's allocator, mimalloc (the `#[global_allocator]`
//! of the `coreval` binary, `main.rs`, and of the benchmarks that measure
//! what it does), set once at start-up.
//!
//! mimalloc numbers its options by their place in an enum that differs
//! between its major versions (v2 and v3, both shipped by
//! `libmimalloc-sys`, which names no constant for these two), so the
//! number is taken from the version the build links ([`option`]); an
//! unknown major version sets nothing rather than some other option.
//!
//! Transparent huge pages are turned off for the whole process
//! (`PR_SET_THP_DISABLE`): mimalloc reserves and advises its first arena
//! before `main`, so its own option, set in `main`, only reaches memory
//! mapped later. The setting is inherited across `fork` and `execve`, so
//! every child is given back the setting coreval started with before it
//! executes anything ([`restore_in_child`], from the runner's
//! `bind_to_parent`); the trampolines, which start the solvers, learn it
//! from [`CHILDREN_VAR`] in their environment ([`take_from_env`]).

use libmimalloc_sys::mi_option_t;
use std::sync::atomic::{AtomicI32, Ordering};

/// The value of `PR_SET_THP_DISABLE` children get before `execve`; −1:
/// leave what they inherit.
static CHILDREN_THP_DISABLE: AtomicI32 = AtomicI32::new(-1);

/// The variable by which a trampoline learns [`CHILDREN_THP_DISABLE`]
/// (`0` or `1`); it is taken out of the environment, so no solver sees it.
pub const CHILDREN_VAR: &str = "COREVAL_CHILDREN_THP_DISABLE";

/// The options set here.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Setting {
    /// `mi_option_purge_delay`.
    PurgeDelay,
    /// `mi_option_allow_thp`.
    AllowThp,
}

/// The major version of the mimalloc linked in (2 or 3).
pub fn major_version() -> i32 {
    // SAFETY: a pure function of the library.
    let version = unsafe { libmimalloc_sys::mi_version() };
    // `MI_MALLOC_VERSION`: 30302 for 3.3.2.
    version / 10000
}

/// The number of `opt` in mimalloc `major` (mimalloc.h's `mi_option_e`),
/// `None` for a version whose numbering is not known here.
pub fn option(major: i32, opt: Setting) -> Option<mi_option_t> {
    match (major, opt) {
        (2 | 3, Setting::PurgeDelay) => Some(15),
        (2, Setting::AllowThp) => Some(37),
        (3, Setting::AllowThp) => Some(43),
        _ => None,
    }
}

/// mimalloc's current value of `opt` (`None`: not known for this version).
pub fn get(opt: Setting) -> Option<i64> {
    let n = option(major_version(), opt)?;
    // SAFETY: reads a global option of a number valid for this version.
    Some(unsafe { libmimalloc_sys::mi_option_get(n) } as i64)
}

/// Sets `opt` to `value` unless mimalloc's own variable `var` is in the
/// environment (it wins).
fn set_unless_env(opt: Setting, var: &str, value: i64) {
    if std::env::var_os(var).is_some() {
        return;
    }
    if let Some(n) = option(major_version(), opt) {
        // SAFETY: sets a global option of a number valid for this version;
        // no allocation depends on its value.
        unsafe { libmimalloc_sys::mi_option_set(n, value as _) };
    }
}

/// Sets mimalloc's options, unless the environment sets them (mimalloc's
/// own variables win). Call it first thing in `main`.
pub fn configure() {
    // Pages freed by one thread go back to the system after 10 ms instead
    // of mimalloc's default 1 s: what the naming and parsing threads free
    // is otherwise still resident when the next stage allocates.
    set_unless_env(Setting::PurgeDelay, "MIMALLOC_PURGE_DELAY", 10);
    // No transparent huge pages for coreval's heap: with pages given back
    // after 10 ms, each 2 MiB page taken again is cleared whole by the
    // kernel, and a short command (naming one file) clears a 2 MiB page
    // for each thread's first allocation. Solvers are not concerned: this
    // is mimalloc's setting, not the process's.
    set_unless_env(Setting::AllowThp, "MIMALLOC_ALLOW_THP", 0);
    if std::env::var_os("MIMALLOC_ALLOW_THP").is_none() {
        disable_thp();
    }
}

/// THP off for this process (new faults), children to get back what it
/// had.
fn disable_thp() {
    // SAFETY: prctl with integer arguments only.
    let before = unsafe { libc::prctl(libc::PR_GET_THP_DISABLE, 0, 0, 0, 0) };
    if before != 0 {
        // Off already (or unknown): children inherit it as it was.
        return;
    }
    // SAFETY: as above.
    if unsafe { libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0) } == 0 {
        CHILDREN_THP_DISABLE.store(0, Ordering::SeqCst);
    }
}

/// In a trampoline: what its children get back, from [`CHILDREN_VAR`],
/// which leaves the environment. Call it before any thread starts.
pub fn take_from_env() {
    let Some(v) = std::env::var_os(CHILDREN_VAR) else {
        return;
    };
    std::env::remove_var(CHILDREN_VAR);
    match v.to_str() {
        Some("0") => CHILDREN_THP_DISABLE.store(0, Ordering::SeqCst),
        Some("1") => CHILDREN_THP_DISABLE.store(1, Ordering::SeqCst),
        _ => {}
    }
}

/// The value of [`CHILDREN_VAR`] for a trampoline this process starts:
/// what its own children get (the state it inherited when it changed
/// nothing).
pub fn children_value() -> &'static str {
    let v = match CHILDREN_THP_DISABLE.load(Ordering::SeqCst) {
        // SAFETY: prctl with integer arguments only.
        -1 => unsafe { libc::prctl(libc::PR_GET_THP_DISABLE, 0, 0, 0, 0) },
        v => v,
    };
    if v == 1 {
        "1"
    } else {
        "0"
    }
}

/// In a child between `clone` and `execve`: the THP setting coreval started
/// with. Async-signal-safe (an atomic load and a system call); a failure
/// leaves the child as it is.
///
/// # Safety
/// Only in a child between fork (or clone) and exec.
pub unsafe fn restore_in_child() {
    let v = CHILDREN_THP_DISABLE.load(Ordering::Relaxed);
    if v >= 0 {
        libc::prctl(libc::PR_SET_THP_DISABLE, v as libc::c_ulong, 0, 0, 0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The numbers are the linked version's: after `configure`, the two
    /// options read back as set, and the option that v2's number for THP
    /// names in v3 (`page_max_candidates`, 37) keeps its default.
    #[test]
    fn configure_sets_the_options_of_the_linked_version() {
        let major = major_version();
        assert!(matches!(major, 2 | 3), "mimalloc {major}");
        configure();
        if std::env::var_os("MIMALLOC_ALLOW_THP").is_none() {
            assert_eq!(get(Setting::AllowThp), Some(0));
        }
        if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
            assert_eq!(get(Setting::PurgeDelay), Some(10));
        }
        if major == 3 {
            // SAFETY: reads a global option.
            let candidates = unsafe { libmimalloc_sys::mi_option_get(37) };
            assert_ne!(candidates, 0, "page_max_candidates was overwritten");
        }
    }
}
