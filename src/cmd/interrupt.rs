//! Ctrl-C (SIGINT) and SIGTERM as a flag: the first one asks every stage to
//! stop starting jobs and the runner to kill the running solvers, so the
//! journals stay consistent; the process then exits on its own. A second
//! signal falls back to the default action (immediate exit).

use std::sync::atomic::{AtomicBool, Ordering};

static STOP: AtomicBool = AtomicBool::new(false);

extern "C" fn on_signal(sig: libc::c_int) {
    if STOP.swap(true, Ordering::SeqCst) {
        // Second signal: default action.
        // SAFETY: `signal` and `raise` are async-signal-safe (POSIX), so
        // they may be called from this handler; `sig` is the signal being
        // handled, a valid number, and SIG_DFL a valid disposition.
        unsafe {
            libc::signal(sig, libc::SIG_DFL);
            libc::raise(sig);
        }
    }
}

/// Install the handlers (idempotent).
pub fn install() {
    // SAFETY: `on_signal` is an `extern "C" fn(c_int)`, the type `signal`
    // expects of a handler, and it only touches an atomic and calls
    // async-signal-safe functions; SIGINT and SIGTERM are valid signals.
    unsafe {
        libc::signal(
            libc::SIGINT,
            on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t,
        );
        libc::signal(
            libc::SIGTERM,
            on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t,
        );
    }
}

/// The flag the stages and the runner watch.
pub fn flag() -> &'static AtomicBool {
    &STOP
}

/// True once a stop was asked for.
pub fn requested() -> bool {
    STOP.load(Ordering::SeqCst)
}
