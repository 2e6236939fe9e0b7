//! Documented exit codes of the `coreval` binary (docs/reference.md, "Exit codes").

/// Everything ran and every item passed (all cores validated, all files named).
pub const OK: u8 = 0;
/// The run finished but some item failed: a core refuted or ill-formed, a
/// `sat` answer, a benchmark that could not be named.
pub const FAILURES: u8 = 1;
/// Usage error or the tool's own failure (unreadable config, disk full).
pub const TOOL_ERROR: u8 = 2;
/// `coreval selfcheck`: nothing could be judged (every benchmark skipped:
/// no answer, timeouts, undecided cores, incremental scripts).
pub const NOTHING_JUDGED: u8 = 3;
/// Stopped by Ctrl-C or SIGTERM; journals are consistent, re-run to continue.
pub const INTERRUPTED: u8 = 130;
