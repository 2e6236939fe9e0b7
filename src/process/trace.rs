//! Phase tracing for measuring a campaign at scale: with
//! `COREVAL_TRACE=phases` in the environment, each stage boundary prints
//! on stderr the seconds since the first mark and the process's resident
//! and peak resident memory (`VmRSS`, `VmHWM` of `/proc/self/status`), so
//! that docs/performance.md can say where a million-pair `score` spends
//! its time and memory. Silent otherwise (one environment lookup a mark).

use std::sync::OnceLock;
use std::time::Instant;

/// Print one phase line when tracing is on.
pub fn phase(label: &str) {
    static ON: OnceLock<bool> = OnceLock::new();
    static START: OnceLock<Instant> = OnceLock::new();
    if !*ON.get_or_init(|| std::env::var("COREVAL_TRACE").is_ok_and(|v| v == "phases")) {
        return;
    }
    let secs = START.get_or_init(Instant::now).elapsed().as_secs_f64();
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kib = |key: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(key))
            .and_then(|v| v.split_whitespace().next())
            .unwrap_or("?")
            .to_string()
    };
    eprintln!(
        "phase {secs:8.2} s  {label:<14} rss {:>9} KiB  peak {:>9} KiB",
        kib("VmRSS:"),
        kib("VmHWM:")
    );
}
