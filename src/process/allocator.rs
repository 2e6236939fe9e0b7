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
//! mimalloc's `allow_thp` option, set in `main`, only reaches memory mapped
//! later: mimalloc reserves and advises its first arena before `main`.
//! Huge pages are turned off for the whole process by [`crate::process::hugepages`].

use libmimalloc_sys::mi_option_t;

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
    // No transparent huge pages for memory mimalloc maps from now on; the
    // process as a whole is `hugepages`' (the binary turns them off before
    // `main`; the call below does it for the benchmarks that call this).
    set_unless_env(Setting::AllowThp, "MIMALLOC_ALLOW_THP", 0);
    if std::env::var_os("MIMALLOC_ALLOW_THP").is_none() {
        crate::process::hugepages::off_for_self();
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
