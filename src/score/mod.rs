//! Scoring: from [`PairRecord`]s to division rankings and track-wide
//! recognitions under a named rules edition. Pure functions over data; no
//! I/O. The SMT-COMP unsat-core rules are summarised in `docs/RULES.md`
//! (sources: the SMT-COMP 2016 rules §7; the 2015–2018 competition report
//! §7–8; the 2019 ranking refinements on the SMT-COMP mailing list, 4 July
//! 2019; the rules texts cited in docs/RULES.md).
//!
//! `rules` holds the editions, `pair` one pair's ⟨e, n, w, c⟩, `division`
//! families, weights and rankings, `recognition` the track-wide rankings,
//! `derived` the 2026 rule on derived solvers, `participants` the table
//! that says who competes.

pub mod answers;
pub mod beyond;
pub mod derived;
// The scoring vocabulary lives with the campaign, which parses it once.
pub use crate::campaign::{
    setup::participants,
    verdict::{division_map, editions, rules},
};
pub mod division;
pub mod incremental;
pub mod pair;
pub mod recognition;
pub mod result;

use crate::campaign::verdict::pair::{PairRecord, Verdict};
use crate::score::result::{
    BenchmarkBest, DivisionScore, PairRow, PerMode, Recognitions, ScoreReport, VirtualBest,
    SCHEMA_VERSION,
};
use crate::store::compact::shared;
use division::{family_of, family_weights, is_competitive, rank, solver_sums, SolverPairs};
use division_map::DivisionMap;
use pair::{score_pair, Mode};
use participants::Participants;
use rules::Rules;
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// What besides the rules shapes a score.
#[derive(Clone, Debug, Default)]
pub struct ScoreOptions {
    /// Who competes, for which team, under which name.
    pub participants: Participants,
    /// Re-judge checked cores from their checkers' tally under the edition's
    /// validation rule instead of taking the recorded verdict.
    pub rejudge: bool,
    /// Warnings from earlier stages (importers) to carry into the report.
    pub warnings: Vec<String>,
    /// Which logics each division groups (2021 on); `None`: a division is
    /// a logic.
    pub divisions: Option<DivisionMap>,
}

/// Score every pair, every division and the track under `rules`.
pub fn score_pairs(pairs: &[PairRecord], rules: &Rules, options: &ScoreOptions) -> ScoreReport {
    let refs: Vec<&PairRecord> = pairs.iter().collect();
    score_refs(&refs, rules, options)
}

/// [`score_pairs`] of records held elsewhere (a campaign's judged pairs:
/// at a million pairs a copy of each would cost hundreds of megabytes).
pub fn score_refs(pairs: &[&PairRecord], rules: &Rules, options: &ScoreOptions) -> ScoreReport {
    let mut warnings = options.warnings.clone();
    let (by_logic, excluded, rejudged) = by_logic(pairs, rules, options, &mut warnings);
    warn_contradictions(&by_logic, rules, &mut warnings);
    let participants = &options.participants;
    warn_unlisted(pairs, participants, &mut warnings);
    flag_negative_reductions(&by_logic, rules, &mut warnings);
    let (by_division, mut logics_of) = by_division(&by_logic, options, &mut warnings);
    // A logic that is its division's only one has the division's pairs, so
    // the division's score: made once, below.
    let division_of_alone: BTreeMap<String, &str> = logics_of
        .iter()
        .filter(|(_, logics)| logics.len() == 1)
        .map(|(division, logics)| (logics[0].clone(), *division))
        .collect();
    // The other logics' own scores first: what they hold is let go of
    // before the divisions' pairs and rows are made.
    let mut logics: Option<Vec<Result<DivisionScore, &str>>> =
        options.divisions.as_ref().map(|_| {
            by_logic
                .into_iter()
                .map(|(name, recs)| match division_of_alone.get(name) {
                    Some(division) => Err(*division),
                    None => {
                        let mut score =
                            score_division(name, recs, rules, participants, &mut Vec::new());
                        score.logics = vec![name.to_string()];
                        Ok(score)
                    }
                })
                .collect()
        });
    let mut divisions = Vec::new();
    // Each division's rows, `pair_rows[from..to]`.
    let mut spans = Vec::new();
    // Rows go straight to their place: a million of them moved from one
    // buffer to another would be held twice.
    let mut pair_rows = Vec::with_capacity(by_division.values().map(Vec::len).sum());
    for (name, recs) in by_division {
        let from = pair_rows.len();
        let mut score = score_division(name, recs, rules, participants, &mut pair_rows);
        score.logics = logics_of.remove(name).unwrap_or_default();
        divisions.push(score);
        spans.push(from..pair_rows.len());
    }
    let logics = logics.take().map(|all| {
        all.into_iter()
            .map(|score| score.unwrap_or_else(|division| logic_alone(&divisions, division)))
            .collect()
    });
    let derived = derived::compare(&divisions, rules, participants);
    warnings.extend(derived::warnings(&divisions, &derived, rules, participants));
    let division_rows: Vec<&[PairRow]> = spans.into_iter().map(|s| &pair_rows[s]).collect();
    let recognitions = recognitions(&divisions, &division_rows, rules, participants, &derived);
    drop(division_rows);
    ScoreReport {
        facts: None,
        provenance: None,
        schema_version: SCHEMA_VERSION,
        generator: format!("coreval {}", env!("CARGO_PKG_VERSION")),
        edition: rules.edition.name().to_string(),
        family: rules.family.name().to_string(),
        rules: *rules,
        pairs: pair_rows.len() as u64,
        excluded_pairs: excluded,
        rejudged_pairs: rejudged,
        division_map: options.divisions.as_ref().map(|m| m.source.clone()),
        divisions,
        logics,
        recognitions,
        derived,
        warnings,
        beyond: Vec::new(),
        refutations: Vec::new(),
        unconfirmed_sats: Vec::new(),
        incremental: Vec::new(),
        validators_from: None,
        validators: Vec::new(),
        pair_rows,
        occupancy: Vec::new(),
    }
}

/// Pairs with the verdict they are scored by, per logic (or division).
type Graded<'a> = BTreeMap<&'a str, Vec<(&'a PairRecord, Verdict)>>;

/// The verdict a pair is scored by: its own, or under `rejudge` a checked
/// core's judged again from its checkers' tally by the edition's rule.
pub fn scored_verdict(rec: &PairRecord, rules: &Rules, rejudge: bool) -> Verdict {
    match (&rec.checks, rejudge && rec.verdict.is_checked_core()) {
        (Some(t), true) => rules.core_verdict(t),
        _ => rec.verdict.clone(),
    }
}

/// The pairs scored, per logic, with their verdict (judged again from the
/// checks under `options.rejudge`): pairs under the edition's minimum of
/// assertions are excluded, a (solver, benchmark) pair seen twice is
/// scored once (a warning). Also the excluded and re-judged counts.
fn by_logic<'a>(
    pairs: &[&'a PairRecord],
    rules: &Rules,
    options: &ScoreOptions,
    warnings: &mut Vec<String>,
) -> (Graded<'a>, u64, u64) {
    let mut excluded = 0u64;
    let mut rejudged = 0u64;
    let mut seen: HashSet<(&str, &str)> = HashSet::default();
    let mut duplicates = Vec::new();
    let mut by_logic: Graded = BTreeMap::new();
    for rec in pairs {
        if rec.assertions < rules.min_assertions {
            excluded += 1;
            continue;
        }
        if !seen.insert((&rec.solver, &rec.benchmark)) {
            duplicates.push(format!("{} on {}", rec.solver, rec.benchmark));
            continue;
        }
        let verdict = scored_verdict(rec, rules, options.rejudge);
        if verdict != rec.verdict {
            rejudged += 1;
        }
        by_logic
            .entry(&rec.division)
            .or_default()
            .push((rec, verdict));
    }
    if !duplicates.is_empty() {
        warnings.push(format!(
            "{} duplicate (solver, benchmark) pairs ignored, first: {}",
            duplicates.len(),
            duplicates[0]
        ));
    }
    (by_logic, excluded, rejudged)
}

/// A warning on the pairs that contradicted themselves (no reduction).
fn warn_contradictions(by_logic: &Graded, rules: &Rules, warnings: &mut Vec<String>) {
    let contradictory: Vec<String> = by_logic
        .values()
        .flatten()
        .filter_map(|(r, _)| {
            Some(format!(
                "{} on {} ({})",
                r.solver,
                r.benchmark,
                r.contradiction?.label()
            ))
        })
        .collect();
    if let Some(first) = contradictory.first() {
        warnings.push(format!(
            "{} pair(s) contradicted themselves or failed after answering: no reduction{}; first: {first}",
            contradictory.len(),
            if rules.ill_formed_is_error {
                ", and contradictory output is an error under this edition"
            } else {
                ""
            }
        ));
    }
}

/// A warning per solver missing from a participants table.
fn warn_unlisted(pairs: &[&PairRecord], participants: &Participants, warnings: &mut Vec<String>) {
    if participants.is_empty() {
        return;
    }
    let unlisted: BTreeSet<&str> = pairs
        .iter()
        .map(|r| r.solver.as_ref())
        .filter(|s| !participants.lists(s))
        .collect();
    for s in unlisted {
        warnings.push(format!(
            "solver `{s}` is not in the participants table: shown under its own name, hors concours"
        ));
    }
}

/// The divisions: the map's grouping of the logics, or the logics
/// themselves; with the logics of each division.
fn by_division<'a>(
    by_logic: &Graded<'a>,
    options: &'a ScoreOptions,
    warnings: &mut Vec<String>,
) -> (Graded<'a>, BTreeMap<&'a str, Vec<String>>) {
    let mut by_division: Graded = BTreeMap::new();
    let mut logics_of: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for (logic, recs) in by_logic {
        let division = match &options.divisions {
            Some(map) => map.division_of(logic).unwrap_or_else(|| {
                warnings.push(format!(
                    "logic {logic} is in no division of {}: scored as a division of its own",
                    map.source
                ));
                logic
            }),
            None => logic,
        };
        by_division
            .entry(division)
            .or_default()
            .extend(recs.iter().cloned());
        logics_of
            .entry(division)
            .or_default()
            .push(logic.to_string());
    }
    (by_division, logics_of)
}

/// The score of the logic that `division` holds alone: the division's,
/// under the logic's name.
fn logic_alone(divisions: &[DivisionScore], division: &str) -> DivisionScore {
    let d = divisions
        .iter()
        .find(|d| d.name == division)
        .expect("each division with pairs is scored");
    let logic = d.logics[0].clone();
    DivisionScore {
        name: logic.clone(),
        logics: vec![logic],
        ..d.clone()
    }
}

/// Score one division: its pairs, the virtual best, both rankings. The
/// pairs' rows are added to `rows` (and scored from there: no other copy
/// of a pair is made).
fn score_division(
    name: &str,
    recs: Vec<(&PairRecord, Verdict)>,
    rules: &Rules,
    participants: &Participants,
    rows: &mut Vec<PairRow>,
) -> DivisionScore {
    // Each benchmark's family, held once for all the rows that repeat it.
    let mut families: BTreeMap<Arc<str>, Arc<str>> = BTreeMap::new();
    let mut assertions: BTreeMap<&str, u64> = BTreeMap::new();
    let mut family_at: HashMap<&str, Arc<str>> = HashMap::default();
    let mut distinct: HashSet<Arc<str>> = HashSet::default();
    for (rec, _) in &recs {
        family_at.entry(&rec.benchmark).or_insert_with(|| {
            let family = family_of(&rec.benchmark, &rec.division, rules.family);
            let one = shared(&mut distinct, &family);
            families.insert(rec.benchmark.shared(), Arc::clone(&one));
            assertions.insert(&rec.benchmark, rec.assertions);
            one
        });
    }
    let n = families.len() as u64;
    let weights = rules.family_weights.then(|| family_weights(&families));
    let division_name: Arc<str> = Arc::from(name);
    let start = rows.len();
    rows.extend(recs.into_iter().map(|(rec, verdict)| PairRow {
        logic: rec.division.shared(),
        solver: rec.solver.shared(),
        benchmark: rec.benchmark.shared(),
        division: Arc::clone(&division_name),
        family: Arc::clone(&family_at[&*rec.benchmark]),
        weight: weights.as_ref().map_or(1.0, |w| w[&*rec.benchmark]),
        assertions: rec.assertions,
        core_size: rec.core_size,
        sequential: score_pair(rec, &verdict, rules, Mode::Sequential),
        parallel: score_pair(rec, &verdict, rules, Mode::Parallel),
        verdict: rec.verdict.clone(),
        scored_verdict: verdict,
        status: rec.status,
        checks: rec.checks.as_ref().map(|t| (t.sat, t.unsat, t.unknown)),
        // Set below, once every pair of the benchmark is scored.
        best_reduction: 0,
        gap: 0,
        origin: rec.origin.clone(),
        contradiction: rec.contradiction,
    }));
    drop(family_at);
    let mine = &mut rows[start..];
    let best = recognition::virtual_best(mine.iter().map(|r| r.view(Mode::Parallel)));
    // Looked up for every pair: hashed, not ordered.
    let best_at: HashMap<Arc<str>, u64> = families
        .keys()
        .filter_map(|b| Some((Arc::clone(b), best.get(&**b)?.0)))
        .collect();
    // The solvers' names as the rows share them.
    let mut solver_names: HashMap<&str, Arc<str>> = HashMap::default();
    for r in mine.iter() {
        if !solver_names.contains_key(&*r.solver) {
            solver_names.insert(&r.solver, Arc::clone(&r.solver));
        }
    }
    let virtual_best = VirtualBest {
        correct: best.values().map(|v| v.0).sum(),
        benchmarks: Arc::new(
            families
                .iter()
                .map(|(b, fam)| {
                    let (n, who) = best.get(&**b).cloned().unwrap_or_default();
                    BenchmarkBest {
                        benchmark: Arc::clone(b),
                        family: Arc::clone(fam),
                        assertions: assertions[&**b],
                        best_reduction: n,
                        best_solvers: who.into_iter().map(|s| solver_names[s].clone()).collect(),
                    }
                })
                .collect(),
        ),
    };
    drop(best);
    for r in mine.iter_mut() {
        r.best_reduction = best_at.get(&r.benchmark).copied().unwrap_or(0);
        r.gap = r.best_reduction.saturating_sub(r.parallel.gain());
    }
    let mine = &rows[start..];
    let mut of_solver: BTreeMap<&str, Vec<&PairRow>> = BTreeMap::new();
    for r in mine {
        match of_solver.get_mut(&*r.solver) {
            Some(theirs) => theirs.push(r),
            None => {
                of_solver.insert(&r.solver, vec![r]);
            }
        }
    }
    let competitive = is_competitive(of_solver.keys().copied(), participants);
    let mode_score = |mode: Mode| {
        let sums = of_solver
            .iter()
            .map(|(solver, theirs)| {
                let sp = SolverPairs {
                    solver,
                    pairs: theirs
                        .iter()
                        .map(|r| (&*r.benchmark, r.score(mode)))
                        .collect(),
                    gap_to_best: theirs
                        .iter()
                        .map(|r| r.best_reduction.saturating_sub(r.score(mode).gain()))
                        .sum(),
                };
                solver_sums(&sp, weights.as_ref(), scale(rules, n), participants)
            })
            .collect();
        rank(sums, mode, rules, competitive, participants)
    };
    DivisionScore {
        name: name.to_string(),
        logics: Vec::new(),
        benchmarks: n,
        families: families.values().collect::<BTreeSet<_>>().len() as u64,
        assertions: assertions.values().sum(),
        competitive,
        sequential: mode_score(Mode::Sequential),
        parallel: mode_score(Mode::Parallel),
        virtual_best,
    }
}

/// What a division's weighted sums are multiplied by: its number of
/// benchmarks under an edition with weights and n-scaling, else 1.
fn scale(rules: &Rules, benchmarks: u64) -> f64 {
    if rules.family_weights && rules.n_scaling {
        benchmarks as f64
    } else {
        1.0
    }
}

/// A warning per pair whose core is larger than its benchmark's assertion
/// count (bad counts in the data): its reduction is negative, kept or
/// scored 0 as the edition did, never hidden.
fn flag_negative_reductions(
    by_logic: &BTreeMap<&str, Vec<(&PairRecord, Verdict)>>,
    rules: &Rules,
    warnings: &mut Vec<String>,
) {
    for (rec, verdict) in by_logic.values().flatten() {
        let n = pair::signed_reduction(rec);
        if n < 0 && *verdict == Verdict::Validated {
            warnings.push(format!(
                "negative reduction: {} on {}: core of {} names, but the data counts {} assertions; reduction {n} {}",
                rec.solver,
                rec.benchmark,
                rec.core_size.unwrap_or(0),
                rec.assertions,
                if rules.negative_reductions {
                    "counted, as the edition did"
                } else {
                    "scored 0"
                }
            ));
        }
    }
}

fn per_mode<T>(f: impl Fn(Mode) -> T) -> PerMode<T> {
    PerMode {
        sequential: f(Mode::Sequential),
        parallel: f(Mode::Parallel),
    }
}

/// The track-wide recognitions the edition has; `derived` says which
/// derived solvers may win them ([`derived::may_win_recognitions`]).
fn recognitions(
    divisions: &[DivisionScore],
    pairs: &[&[PairRow]],
    rules: &Rules,
    participants: &Participants,
    derived: &[crate::score::result::DerivedSolver],
) -> Recognitions {
    let may_win =
        |m: Mode| move |s: &str| derived::may_win_recognitions(s, m, derived, participants);
    let mut r = Recognitions::default();
    if rules.divisions_won {
        r.divisions_won = Some(per_mode(|m| recognition::divisions_won(divisions, m)));
    }
    if rules.lead_and_contribution {
        r.biggest_lead = Some(per_mode(|m| recognition::biggest_lead(divisions, m)));
        r.largest_contribution = Some(per_mode(|m| {
            let views = |d: usize| pairs[d].iter().map(move |r| r.view(m));
            recognition::largest_contribution(
                divisions,
                &views,
                m,
                rules,
                participants,
                &may_win(m),
            )
        }));
    }
    if let Some(params) = &rules.best_overall {
        r.best_overall = Some(per_mode(|m| {
            recognition::best_overall(divisions, m, params, &may_win(m))
        }));
    }
    r
}

#[cfg(test)]
mod tests;
