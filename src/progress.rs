//! The one progress bar of coreval: counts, rate and ETA on a terminal,
//! nothing at all when stderr is not a terminal (CI logs, pipes). The bar
//! drawn last is remembered so that a message can be printed without
//! tearing it ([`suspend`]).

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle, WeakProgressBar};
use std::io::IsTerminal;
use std::sync::Mutex;

/// The bar drawn last (stages draw one at a time).
static DRAWN: Mutex<Option<WeakProgressBar>> = Mutex::new(None);

/// Whether progress is shown: stderr is a terminal and
/// `$COREVAL_NO_PROGRESS` is unset.
pub fn shown() -> bool {
    std::io::stderr().is_terminal() && std::env::var_os("COREVAL_NO_PROGRESS").is_none()
}

/// A bar for `total` jobs labelled `stage`; hidden off a terminal.
pub fn bar(stage: &str, total: u64) -> ProgressBar {
    if !shown() {
        return ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::hidden());
    }
    let pb = ProgressBar::new(total);
    pb.set_style(
        ProgressStyle::with_template(
            "{prefix:>8} [{bar:30}] {pos}/{len} {msg} ({per_sec}, ETA {eta})",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> "),
    );
    pb.set_prefix(stage.to_string());
    *DRAWN.lock().unwrap_or_else(|p| p.into_inner()) = Some(pb.downgrade());
    pb
}

/// Run `f` (which prints on stderr) with the drawn bar, if any, cleared
/// meanwhile and redrawn after.
pub fn suspend<R>(f: impl FnOnce() -> R) -> R {
    let drawn = DRAWN
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .as_ref()
        .and_then(WeakProgressBar::upgrade);
    match drawn.filter(|pb| !pb.is_finished()) {
        Some(pb) => pb.suspend(f),
        None => f(),
    }
}
