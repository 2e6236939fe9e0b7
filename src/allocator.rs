//! The settings of coreval's allocator, mimalloc (the `#[global_allocator]`
//! of the `coreval` binary, `main.rs`, and of the benchmarks that measure
//! what it does), set once at start-up.

/// mimalloc's `mi_option_purge_delay` and `mi_option_allow_thp`
/// (mimalloc.h, v2; the `-sys` crate names no constant for them).
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;
const MI_OPTION_ALLOW_THP: libmimalloc_sys::mi_option_t = 37;

/// Sets mimalloc's options, unless the environment sets them (mimalloc's
/// own variables win). Call it first thing in `main`.
pub fn configure() {
    // Pages freed by one thread go back to the system after 10 ms instead
    // of mimalloc's default 1 s: what the naming and parsing threads free
    // is otherwise still resident when the next stage allocates (a
    // 100 000-pair `run` with nothing to do: 174 → 134 MB, same time).
    // SAFETY: sets a global option; no allocation depends on its value.
    // `MIMALLOC_PURGE_DELAY` in the environment, mimalloc's own setting,
    // still wins.
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
        unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, 10) };
    }
    // No transparent huge pages for coreval's heap: with pages given back
    // after 10 ms, each 2 MiB page taken again is cleared whole by the
    // kernel (a million-pair `run` with nothing to do: 3.8–4.7 → 2.5–2.9 s
    // of system time, 20 MB less at the peak). Solvers are not concerned:
    // this is mimalloc's setting, not the process's.
    if std::env::var_os("MIMALLOC_ALLOW_THP").is_none() {
        // SAFETY: as above.
        unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_ALLOW_THP, 0) };
    }
}
