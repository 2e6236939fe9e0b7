//! What a check pass did ([`CheckSummary`]): the counts the `check` and
//! `run` commands print and `--json` writes, and how two passes (the
//! other solvers' cores, then the references' that matter) add up.

use serde::Serialize;

/// What a check pass did.
#[derive(Debug, Default, Clone, Serialize)]
pub struct CheckSummary {
    /// Pairs with a well-formed core to check.
    pub cores: usize,
    /// Distinct core-only benchmarks among them.
    pub distinct: usize,
    /// Checker jobs run now.
    pub ran: usize,
    /// Answers taken from the cross-campaign cache.
    pub cache_hits: usize,
    /// Jobs skipped / killed by early stop.
    pub skipped: usize,
    pub killed: usize,
    /// CPU seconds spent by checkers in this pass.
    pub cpu: f64,
    /// Sum of the checkers' wall-clock seconds in this pass.
    pub checker_wall: f64,
    /// Wall-clock seconds of the checker runs phase, and the workers used.
    pub wall: f64,
    pub jobs: usize,
    /// (core, checker) pairs where the core needs a command the checker rejects.
    pub not_applicable: usize,
    /// Checker runs that could not start (no record kept: the pairs stay pending).
    pub failed_to_start: usize,
    /// Answers not kept for a fault on coreval's side while certifying
    /// (a script not written, the core unreadable): asked again next run.
    pub undone: usize,
    /// `sat` answers certified now (their models checked), and the CPU
    /// seconds that took (included in `cpu`).
    pub certified_sats: usize,
    pub certification_cpu: f64,
    pub interrupted: bool,
    /// The minimality pass, when `[check] minimality` is on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub minimality: Option<super::minimality::MinimalitySummary>,
    /// The best-known pass, when `[check] best_known` is on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub best: Option<super::best::BestSummary>,
}

impl CheckSummary {
    /// Add the counts of a second pass (over other pairs) to these.
    pub fn add(&mut self, o: &CheckSummary) {
        self.cores += o.cores;
        self.distinct += o.distinct;
        self.ran += o.ran;
        self.cache_hits += o.cache_hits;
        self.skipped += o.skipped;
        self.killed += o.killed;
        self.cpu += o.cpu;
        self.checker_wall += o.checker_wall;
        self.wall += o.wall;
        self.jobs = self.jobs.max(o.jobs);
        self.not_applicable += o.not_applicable;
        self.failed_to_start += o.failed_to_start;
        self.undone += o.undone;
        self.certified_sats += o.certified_sats;
        self.certification_cpu += o.certification_cpu;
        self.interrupted |= o.interrupted;
    }

    /// Share of the workers' time spent inside checkers while checking.
    pub fn utilisation(&self) -> f64 {
        if self.wall <= 0.0 || self.jobs == 0 {
            return 0.0;
        }
        self.checker_wall / (self.jobs as f64 * self.wall)
    }
}
