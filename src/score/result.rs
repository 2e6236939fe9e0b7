//! The scoring result as one `Serialize` struct: this file *is* the JSON
//! schema of `coreval score --json`, and every other report format renders
//! the same value. Every field that reaches JSON has a doc comment.

use crate::campaign::verdict::pair::{Contradiction, RunStatus, Verdict};
use crate::score::pair::PairScore;
use crate::score::rules::Rules;
use serde::Serialize;
use std::sync::Arc;

/// Version of the JSON layout below; bumped on any incompatible change.
pub const SCHEMA_VERSION: u32 = 1;

/// Everything `coreval score` computed.
#[derive(Clone, Debug, Serialize)]
pub struct ScoreReport {
    /// A campaign's facts (absent for imported results): what the scores
    /// rest on, first in every report.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub facts: Option<crate::campaign::ledger::facts::Facts>,
    /// Hashes of the campaign's configuration and named index.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provenance: Option<crate::campaign::ledger::facts::InputHashes>,
    /// Version of this layout (see `SCHEMA_VERSION`).
    pub schema_version: u32,
    /// The program that wrote the report (`coreval x.y.z`).
    pub generator: String,
    /// The rules edition used, e.g. `smtcomp-2019`.
    pub edition: String,
    /// The family definition used: `first-folder` or `directory`.
    pub family: String,
    /// Every parameter of the edition, as applied.
    pub rules: Rules,
    /// Pairs scored.
    pub pairs: u64,
    /// Pairs left out because their benchmark has fewer named assertions
    /// than the edition's minimum.
    pub excluded_pairs: u64,
    /// Pairs whose verdict was re-judged from the checkers' tally to a
    /// different verdict (only with `--rejudge`).
    pub rejudged_pairs: u64,
    /// The logic → division map used (a file, or `divisions/<edition>.toml`);
    /// absent when a division is a logic.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub division_map: Option<String>,
    /// One entry per division, by name (a division is a logic up to 2020,
    /// a group of logics from 2021).
    pub divisions: Vec<DivisionScore>,
    /// With a division map: the same results per logic (each entry's
    /// `logics` holds its one logic). Absent when a division is a logic.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub logics: Option<Vec<DivisionScore>>,
    /// Track-wide recognitions of the edition.
    pub recognitions: Recognitions,
    /// Under an edition with the derived-solver rule (2026): each derived
    /// solver against its base, per mode, over the track and per division
    /// (absent otherwise, or when no solver is derived).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub derived: Vec<DerivedSolver>,
    /// Things the user should know: unlisted participants, import problems.
    pub warnings: Vec<String>,
    /// Campaigns with `[check] minimality` or `best_known`: per solver, the
    /// minimality of its validated cores and its gap to the best-known
    /// cores (absent otherwise).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub beyond: Vec<SolverBeyond>,
    /// Per solver with a refuted core or a model-rejected `sat` on one of
    /// its cores: how its refutations stand (docs/organizers.md, "Certified
    /// refutations"); absent when there is none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub refutations: Vec<SolverRefutations>,
    /// The `sat` answers on benchmarks not known to be unsat (no `unsat`
    /// status, no validated core): no error, listed (`sat-unconfirmed`);
    /// absent when there is none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unconfirmed_sats: Vec<UnconfirmedSat>,
    /// Per solver with incremental or assumption scripts: their cores'
    /// verdicts, outside the divisions' scores; absent when there is none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub incremental: Vec<SolverIncremental>,
    /// Campaigns with `[check] validators_from`: the single-query results
    /// file, and each division's validators (absent otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub validators_from: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub validators: Vec<crate::campaign::setup::validators::DivisionValidators>,
    /// One row per pair with every flag; written by the CSV report, left out
    /// of JSON to keep it small.
    #[serde(skip)]
    pub pair_rows: Vec<PairRow>,
    /// How busy each stage's worker slots were, for the HTML report's
    /// occupancy plots; left out of JSON (times differ from run to run).
    #[serde(skip)]
    pub occupancy: Vec<Occupancy>,
}

/// The runs of one stage on a timeline, against its worker slots: what an
/// occupancy plot (running jobs over time) is drawn from.
#[derive(Clone, Debug, Default)]
pub struct Occupancy {
    /// `solve` or `check`.
    pub stage: String,
    /// Worker slots (`jobs`).
    pub slots: usize,
    /// (start, end) of every run, Unix seconds.
    pub runs: Vec<(f64, f64)>,
}

impl Occupancy {
    /// Seconds from the first start to the last end.
    pub fn span(&self) -> f64 {
        let first = self.runs.iter().map(|r| r.0).fold(f64::INFINITY, f64::min);
        let last = self
            .runs
            .iter()
            .map(|r| r.1)
            .fold(f64::NEG_INFINITY, f64::max);
        (last - first).max(0.0)
    }

    /// Share of slot time spent in runs over the span (1.0: every slot was
    /// busy from the first start to the last end).
    pub fn busy_share(&self) -> f64 {
        let busy: f64 = self.runs.iter().map(|r| (r.1 - r.0).max(0.0)).sum();
        let room = self.span() * self.slots.max(1) as f64;
        if room > 0.0 {
            busy / room
        } else {
            0.0
        }
    }
}

/// One division's results.
#[derive(Clone, Debug, Serialize)]
pub struct DivisionScore {
    /// Division name (up to 2020 the logic).
    pub name: String,
    /// The logics of the division present in the data.
    pub logics: Vec<String>,
    /// N: number of distinct benchmarks in the division.
    pub benchmarks: u64,
    /// Number of benchmark families (by the family definition used).
    pub families: u64,
    /// Total of named assertions over the division's benchmarks (N_D of the
    /// 2025 best-overall ranking).
    pub assertions: u64,
    /// At least two competing solvers of different teams entered.
    pub competitive: bool,
    /// Sequential performance (virtual CPU limit T, ranked by CPU time).
    pub sequential: ModeScore,
    /// Parallel performance (raw score, ranked by wall time).
    pub parallel: ModeScore,
    /// The virtual best solver of the division: per benchmark the largest
    /// validated reduction (parallel score) and who reached it.
    pub virtual_best: VirtualBest,
}

/// A division's ranking in one mode.
#[derive(Clone, Debug, Serialize)]
pub struct ModeScore {
    /// The best competing solver (data name), when the division is
    /// competitive and (2019 on) that solver has some reduction.
    pub winner: Option<String>,
    /// Every solver of the division, best first.
    pub solvers: Vec<SolverScore>,
}

/// One solver's division score in one mode.
#[derive(Clone, Debug, Serialize)]
pub struct SolverScore {
    /// Solver name as in the data.
    pub solver: String,
    /// Name to show (participants table; else the data name).
    pub display: String,
    /// Team (participants table; else the solver name).
    pub team: String,
    /// Entered by its authors; hors concours solvers are ranked and shown
    /// but cannot win.
    pub competing: bool,
    /// Error score: Σ e (2016–2018: Σ α′·e·N).
    pub errors: f64,
    /// Reduction score: Σ n (2016–2018: Σ α′·n·N).
    pub correct: f64,
    /// CPU time score: Σ c (2016–2018: Σ α′·c, a weighted average).
    pub cpu: f64,
    /// Wall time score: Σ w (2016–2018: Σ α′·w).
    pub wall: f64,
    /// Pairs counted as timeouts in this mode.
    pub timeouts: u64,
    /// Pairs that hit the memory limit.
    pub memouts: u64,
    /// 1-based rank among all solvers of the division; solvers equal in
    /// every compared component share a rank.
    pub rank: u32,
    /// Pairs of this solver in the division.
    pub pairs: u64,
    /// Pairs with e = 1 (unweighted).
    pub error_pairs: u64,
    /// Σ over the solver's pairs of (best validated reduction − its own
    /// reduction): how far it is from the virtual best.
    pub gap_to_best: u64,
}

/// One solver's figures beyond the track rules (campaign reports only).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SolverBeyond {
    /// Solver name as in the data.
    pub solver: String,
    /// Validated cores proven subset-minimal.
    pub minimal: u64,
    /// Validated cores with a member proven removable.
    pub redundant: u64,
    /// Validated cores whose minimality was not decided (budget, checkers).
    pub minimality_unknown: u64,
    /// Members proven removable, summed over its redundant cores.
    pub removable_members: u64,
    /// Validated pairs whose benchmark has a best-known core.
    pub compared: u64,
    /// Of those, pairs whose core is as small as the best-known one.
    pub at_best_known: u64,
    /// Σ of its reductions on the compared pairs.
    pub reduction: u64,
    /// Σ of the best-known reductions on the same benchmarks.
    pub best_known_reduction: u64,
    /// Σ (its core size − the best-known size): assertions it could still drop.
    pub size_gap: u64,
}

/// The division's virtual best solver.
#[derive(Clone, Debug, Serialize)]
pub struct VirtualBest {
    /// Σ over benchmarks of the best validated reduction (unweighted).
    pub correct: u64,
    /// Per benchmark, sorted by benchmark id (one list shared by a
    /// division and its logic when the division has that logic alone).
    pub benchmarks: Arc<Vec<BenchmarkBest>>,
}

/// The best validated reduction on one benchmark.
#[derive(Clone, Debug, Serialize)]
pub struct BenchmarkBest {
    /// Benchmark id (shared with the pairs' rows).
    pub benchmark: Arc<str>,
    /// Its family.
    pub family: Arc<str>,
    /// A: named top-level assertions.
    pub assertions: u64,
    /// Largest reduction of a validated core (0 when none).
    pub best_reduction: u64,
    /// Solvers that reached it (empty when it is 0).
    pub best_solvers: Vec<Arc<str>>,
}

/// A value per mode.
#[derive(Clone, Debug, Serialize)]
pub struct PerMode<T> {
    /// Sequential performance.
    pub sequential: T,
    /// Parallel performance.
    pub parallel: T,
}

/// Track-wide recognitions; each is present when the edition has it.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Recognitions {
    /// 2015–2018: competitive divisions won per solver, most first.
    pub divisions_won: Option<PerMode<Vec<DivisionsWon>>>,
    /// 2019 on: biggest lead per competitive division, biggest first.
    pub biggest_lead: Option<PerMode<Vec<Lead>>>,
    /// 2019 on: largest contribution to the virtual best solver, one entry
    /// per eligible division (its top solver), largest first.
    pub largest_contribution: Option<PerMode<Vec<Contribution>>>,
    /// 2025: best overall score per solver, best first.
    pub best_overall: Option<PerMode<Vec<Overall>>>,
}

/// Divisions won by one solver.
#[derive(Clone, Debug, Serialize)]
pub struct DivisionsWon {
    /// Solver (data name).
    pub solver: String,
    /// Name to show.
    pub display: String,
    /// Number of competitive divisions won.
    pub won: u64,
    /// Their names.
    pub divisions: Vec<String>,
}

/// The lead of a division's winner over its runner-up.
#[derive(Clone, Debug, Serialize)]
pub struct Lead {
    /// Division.
    pub division: String,
    /// Best competing solver.
    pub first: String,
    /// Second competing solver.
    pub second: String,
    /// Name to show for the first.
    pub first_display: String,
    /// Name to show for the second.
    pub second_display: String,
    /// (n₁ + 1)/(n₂ + 1).
    pub score: f64,
    /// Tie-break: (t₂ + 1)/(t₁ + 1), t = CPU (sequential) or wall (parallel).
    pub time: f64,
}

/// A solver's contribution to a division's virtual best solver.
#[derive(Clone, Debug, Serialize)]
pub struct Contribution {
    /// Division.
    pub division: String,
    /// The solver whose removal hurts the virtual best most.
    pub solver: String,
    /// Name to show (participants table; else the data name).
    pub display: String,
    /// 1 − vbss_n(S−s)/vbss_n(S), normalised by the division's share of
    /// competitive solver/benchmark pairs.
    pub score: f64,
    /// 1 − vbss_t(S)/vbss_t(S−s), normalised the same way (tie-break).
    pub time: f64,
    /// Impact on the reduction before normalisation.
    pub raw_score: f64,
    /// Impact on time before normalisation.
    pub raw_time: f64,
    /// Competing solvers in the division, sound or not.
    pub solvers: u64,
    /// Benchmarks in the division.
    pub benchmarks: u64,
}

/// A solver's 2025 best-overall score.
#[derive(Clone, Debug, Serialize)]
pub struct Overall {
    /// Solver (data name).
    pub solver: String,
    /// Name to show.
    pub display: String,
    /// Entered by its authors.
    pub competing: bool,
    /// Σ over competitive divisions entered of ((n_D/N_D)² or the error
    /// penalty) × log N_D, N_D = the division's named assertions.
    pub score: f64,
    /// Divisions that contributed.
    pub divisions: u64,
}

/// A derived solver against its base over the track, per mode (2026's
/// rule, `score::derived`).
#[derive(Clone, Debug, Serialize)]
pub struct DerivedSolver {
    /// The derived solver (data name).
    pub solver: String,
    /// Its base solver (data name).
    pub base: String,
    /// The comparison in each mode.
    pub modes: PerMode<DerivedMode>,
}

/// One mode's comparison of a derived solver with its base.
#[derive(Clone, Debug, Default, Serialize)]
pub struct DerivedMode {
    /// The derived solver's PAR-2 score summed over the divisions both
    /// entered.
    pub par2: f64,
    /// The base solver's, over the same divisions.
    pub base_par2: f64,
    /// 1 − par2 / base_par2 (absent when the base has no time).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub improvement: Option<f64>,
    /// The track-wide PAR-2 score improves on the base's by the margin.
    pub improves_in_track: bool,
    /// The divisions both entered, by name.
    pub divisions: Vec<String>,
    /// Those in which it improves on its base by the margin (where it may
    /// win).
    pub improves_in: Vec<String>,
    /// It may win the track-wide recognitions: it improves on its base in
    /// at least one division (or the base entered none of its divisions).
    pub may_win_recognitions: bool,
}

/// One pair with every flag (the per-pair CSV row).
#[derive(Clone, Debug, Serialize)]
pub struct PairRow {
    /// The benchmark's logic (its division up to 2020).
    pub logic: Arc<str>,
    /// Solver (data name).
    pub solver: Arc<str>,
    /// Benchmark id.
    pub benchmark: Arc<str>,
    /// Division.
    pub division: Arc<str>,
    /// Family (by the definition used).
    pub family: Arc<str>,
    /// Normalised family weight α′ (1 without weights).
    pub weight: f64,
    /// A.
    pub assertions: u64,
    /// |core| when there was one.
    pub core_size: Option<u64>,
    /// Verdict as recorded (written as its label).
    #[serde(with = "crate::campaign::verdict::pair::verdict_label")]
    pub verdict: Verdict,
    /// Verdict scored (differs only when re-judged).
    #[serde(with = "crate::campaign::verdict::pair::verdict_label")]
    pub scored_verdict: Verdict,
    /// Run status: complete, timeout, memout.
    pub status: RunStatus,
    /// Checkers that said sat / unsat / unknown, when known.
    pub checks: Option<(u32, u32, u32)>,
    /// Sequential score of the pair.
    pub sequential: PairScore,
    /// Parallel score of the pair.
    pub parallel: PairScore,
    /// Best validated reduction on the benchmark.
    pub best_reduction: u64,
    /// best_reduction − this pair's parallel reduction.
    pub gap: u64,
    /// Where the record came from.
    pub origin: Option<Box<str>>,
    /// `contradictory-output` or `failed-after-answer` (scored as docs/organizers.md's
    /// "Contradictory output" says), else none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub contradiction: Option<Contradiction>,
}

impl PairRow {
    /// The pair's score in `mode`.
    pub fn score(&self, mode: crate::score::pair::Mode) -> PairScore {
        match mode {
            crate::score::pair::Mode::Sequential => self.sequential,
            crate::score::pair::Mode::Parallel => self.parallel,
        }
    }
}

/// How one solver's refuted cores stand once the checkers' models were
/// checked.
#[derive(Clone, Debug, Default, PartialEq, Serialize, serde::Deserialize)]
pub struct SolverRefutations {
    pub solver: String,
    /// Refuted cores.
    pub refuted: u64,
    /// Refuted cores with a `sat` vote whose model satisfies the core.
    pub certified: u64,
    /// Refuted cores with no such vote.
    pub uncertified: u64,
    /// Cores (refuted or not) on which a checker's `sat` came with a model
    /// that falsifies the core: the checker's fault, shown as a dispute.
    pub model_rejected: u64,
}

/// Per solver with incremental or assumption scripts (`[naming]
/// incremental`): how its cores and unsat-assumption sets stand. Not part
/// of any division's score (docs/organizers.md, "Incremental and assumption cores in
/// campaigns").
#[derive(Clone, Debug, Default, PartialEq, Serialize, serde::Deserialize)]
pub struct SolverIncremental {
    pub solver: String,
    /// Scripts run.
    pub scripts: u64,
    /// `unsat` answers followed by a core or an unsat-assumption set.
    pub unsat_answers: u64,
    /// Of these, validated.
    pub validated: u64,
    /// Scripts that failed: a refuted or ill-formed answer, `unsat`
    /// without a core, output contradicting the script.
    pub failed: u64,
    /// Each failed script: `benchmark:line: verdict`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failures: Vec<String>,
}

/// A `sat` answer with no evidence against it: the benchmark has no
/// `unsat` status and no validated core.
#[derive(Clone, Debug, Default, Serialize, PartialEq, Eq)]
pub struct UnconfirmedSat {
    pub solver: String,
    pub benchmark: String,
    /// The benchmark's declared status (`sat`), when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
}
