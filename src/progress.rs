//! The one progress bar of coreval: counts, rate and ETA on a terminal,
//! nothing at all when stderr is not a terminal (CI logs, pipes).

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;

/// A bar for `total` jobs labelled `stage`; hidden off a terminal.
pub fn bar(stage: &str, total: u64) -> ProgressBar {
    if !std::io::stderr().is_terminal() || std::env::var_os("COREVAL_NO_PROGRESS").is_some() {
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
    pb
}
