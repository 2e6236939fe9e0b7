//! Track-wide recognitions (RULES.md §7) and the per-benchmark virtual best:
//! competitive divisions won (2015–2018), biggest lead and largest
//! contribution (2019 refinements, seed 004), best overall (2025).

use super::pair::{Mode, PairScore};
use super::participants::Participants;
use super::rules::{BestOverall, Rules};
use crate::score::result::{Contribution, DivisionScore, DivisionsWon, Lead, ModeScore, Overall};
use std::collections::{BTreeMap, BTreeSet};

/// One scored pair as the recognitions need it.
#[derive(Clone, Copy, Debug)]
pub struct PairView<'a> {
    /// Solver (data name).
    pub solver: &'a str,
    /// Benchmark id.
    pub benchmark: &'a str,
    /// Its score in the mode at hand.
    pub score: PairScore,
}

impl crate::score::result::PairRow {
    /// The pair as the track-wide recognitions see it in `mode`.
    pub fn view(&self, mode: Mode) -> PairView<'_> {
        PairView {
            solver: &self.solver,
            benchmark: &self.benchmark,
            score: self.score(mode),
        }
    }
}

/// Per benchmark: the largest reduction among pairs without error, and the
/// solvers that reached it (none when it is 0).
pub fn virtual_best<'a>(
    pairs: impl IntoIterator<Item = PairView<'a>>,
) -> BTreeMap<&'a str, (u64, Vec<&'a str>)> {
    // Hashed while the pairs go by, ordered once at the end (a million
    // pairs, a few hundred thousand benchmarks).
    let mut best: rustc_hash::FxHashMap<&str, (u64, Vec<&str>)> = Default::default();
    for p in pairs {
        let entry = best.entry(p.benchmark).or_insert((0, Vec::new()));
        let n = if p.score.e == 0 { p.score.gain() } else { 0 };
        if n > entry.0 {
            *entry = (n, vec![p.solver]);
        } else if n == entry.0 && n > 0 {
            entry.1.push(p.solver);
        }
    }
    best.into_iter().collect()
}

fn mode_of(d: &DivisionScore, mode: Mode) -> &ModeScore {
    match mode {
        Mode::Sequential => &d.sequential,
        Mode::Parallel => &d.parallel,
    }
}

/// Competitive divisions won per solver (2015–2018), most first.
pub fn divisions_won(divisions: &[DivisionScore], mode: Mode) -> Vec<DivisionsWon> {
    let mut won: BTreeMap<&str, (String, Vec<String>)> = BTreeMap::new();
    for d in divisions.iter().filter(|d| d.competitive) {
        let m = mode_of(d, mode);
        if let Some(w) = &m.winner {
            let display = m
                .solvers
                .iter()
                .find(|s| &s.solver == w)
                .map(|s| s.display.clone())
                .unwrap_or_default();
            won.entry(w)
                .or_insert((display, Vec::new()))
                .1
                .push(d.name.clone());
        }
    }
    let mut out: Vec<DivisionsWon> = won
        .into_iter()
        .map(|(s, (display, divisions))| DivisionsWon {
            solver: s.to_string(),
            display,
            won: divisions.len() as u64,
            divisions,
        })
        .collect();
    out.sort_by(|a, b| b.won.cmp(&a.won).then_with(|| a.solver.cmp(&b.solver)));
    out
}

/// Biggest lead (2019 §7.3.1 as refined): per competitive division, the best
/// competing solver against the second, (n₁+1)/(n₂+1), ties by
/// (t₂+1)/(t₁+1); divisions whose best has no reduction are skipped.
pub fn biggest_lead(divisions: &[DivisionScore], mode: Mode) -> Vec<Lead> {
    let mut out = Vec::new();
    for d in divisions.iter().filter(|d| d.competitive) {
        let mut competing = mode_of(d, mode).solvers.iter().filter(|s| s.competing);
        let (Some(first), Some(second)) = (competing.next(), competing.next()) else {
            continue;
        };
        if first.correct <= 0.0 {
            continue;
        }
        let (t1, t2) = match mode {
            Mode::Sequential => (first.cpu, second.cpu),
            Mode::Parallel => (first.wall, second.wall),
        };
        out.push(Lead {
            division: d.name.clone(),
            first: first.solver.clone(),
            second: second.solver.clone(),
            first_display: first.display.clone(),
            second_display: second.display.clone(),
            score: (1.0 + first.correct) / (1.0 + second.correct),
            time: (1.0 + t2) / (1.0 + t1),
        });
    }
    out.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then(b.time.total_cmp(&a.time))
            .then_with(|| a.division.cmp(&b.division))
    });
    out
}

/// The benchmarks of a set of pairs, each pair's benchmark as its rank in
/// sorted order: [`vbss`] keeps one slot per benchmark instead of looking
/// each pair up in an ordered map (a division's pairs are scanned once per
/// solver left out), and still sums in the benchmarks' order.
struct Ranked {
    of_pair: Vec<u32>,
    benchmarks: usize,
}

impl Ranked {
    fn of(pairs: &[PairView<'_>]) -> Ranked {
        // By the id's address first (the rows share each benchmark's id:
        // no text is read for a million pairs), then the few distinct ids
        // by text, so that equal texts held apart still rank as one.
        let mut at: rustc_hash::FxHashMap<(usize, usize), u32> = Default::default();
        let mut texts: Vec<&str> = Vec::new();
        let of_text: Vec<u32> = pairs
            .iter()
            .map(|p| {
                let key = (p.benchmark.as_ptr() as usize, p.benchmark.len());
                *at.entry(key).or_insert_with(|| {
                    texts.push(p.benchmark);
                    texts.len() as u32 - 1
                })
            })
            .collect();
        let mut order: Vec<u32> = (0..texts.len() as u32).collect();
        order.sort_unstable_by_key(|&t| texts[t as usize]);
        let (mut rank, mut benchmarks) = (vec![0u32; texts.len()], 0u32);
        for (i, &t) in order.iter().enumerate() {
            if i > 0 && texts[order[i - 1] as usize] != texts[t as usize] {
                benchmarks += 1;
            }
            rank[t as usize] = benchmarks;
        }
        Ranked {
            of_pair: of_text.iter().map(|&t| rank[t as usize]).collect(),
            benchmarks: if texts.is_empty() {
                0
            } else {
                benchmarks as usize + 1
            },
        }
    }
}

/// vbss_n and vbss_t of a set of pairs: per benchmark the largest reduction,
/// among those the shortest time (a pair without reduction costs T), summed
/// in the benchmarks' order.
fn vbss(
    pairs: &[PairView<'_>],
    ranked: &Ranked,
    without: Option<&str>,
    mode: Mode,
    t: f64,
) -> (f64, f64) {
    let mut best: Vec<Option<(u64, f64)>> = vec![None; ranked.benchmarks];
    for (p, &b) in pairs.iter().zip(&ranked.of_pair) {
        if Some(p.solver) == without {
            continue;
        }
        let gain = p.score.gain();
        let time = if gain == 0 {
            t
        } else {
            match mode {
                Mode::Sequential => p.score.cpu,
                Mode::Parallel => p.score.wall,
            }
        };
        let e = best[b as usize].get_or_insert((gain, time));
        if gain > e.0 || (gain == e.0 && time < e.1) {
            *e = (gain, time);
        }
    }
    best.iter()
        .flatten()
        .fold((0.0, 0.0), |(n, s), (bn, bt)| (n + *bn as f64, s + bt))
}

/// Largest contribution (2019 §7.3.2 as refined): in each division with more
/// than two sound competing solvers, the solver whose removal lowers the
/// virtual best most, impacts normalised by the division's share of all
/// competitive solver/benchmark pairs of the eligible divisions.
/// `pairs(i)` are the scored pairs of `divisions[i]` (made when needed, and
/// only the sound competitors' kept: a division may have a million);
/// `participants` says who competes and under which name; `may_win` which
/// of them may be a division's top solver (2026: a derived solver stays in
/// the virtual best but wins only as `derived` allows).
pub fn largest_contribution<'a, I: Iterator<Item = PairView<'a>>>(
    divisions: &[DivisionScore],
    pairs: &impl Fn(usize) -> I,
    mode: Mode,
    rules: &Rules,
    participants: &Participants,
    may_win: &dyn Fn(&str) -> bool,
) -> Vec<Contribution> {
    let competing = |s: &str| participants.get(s).competing;
    let mut total_pairs = 0.0;
    let mut tops = Vec::new();
    for (i, d) in divisions.iter().enumerate() {
        let mut all: BTreeSet<&str> = BTreeSet::new();
        let mut unsound: BTreeSet<&str> = BTreeSet::new();
        for p in pairs(i).filter(|p| competing(p.solver)) {
            all.insert(p.solver);
            if p.score.e > 0 {
                unsound.insert(p.solver);
            }
        }
        let sound: Vec<&str> = all.difference(&unsound).copied().collect();
        if sound.len() <= 2 {
            continue;
        }
        total_pairs += (d.benchmarks * all.len() as u64) as f64;
        let sound_pairs: Vec<PairView<'_>> = pairs(i)
            .filter(|p| competing(p.solver) && !unsound.contains(p.solver))
            .collect();
        let ranked = Ranked::of(&sound_pairs);
        let (vbs_n, vbs_t) = vbss(&sound_pairs, &ranked, None, mode, rules.time_limit);
        if vbs_n == 0.0 {
            continue;
        }
        let mut best: Option<(f64, f64, &str)> = None;
        for s in sound.iter().filter(|s| may_win(s)) {
            let (n, t) = vbss(&sound_pairs, &ranked, Some(s), mode, rules.time_limit);
            let impact_n = 1.0 - n / vbs_n;
            let impact_t = if t > 0.0 { 1.0 - vbs_t / t } else { 0.0 };
            let better = match best {
                None => true,
                Some((bn, bt, _)) => impact_n > bn || (impact_n == bn && impact_t > bt),
            };
            if better {
                best = Some((impact_n, impact_t, s));
            }
        }
        if let Some((n, t, s)) = best {
            tops.push((d, all.len() as u64, n, t, s.to_string()));
        }
    }
    let mut out: Vec<Contribution> = tops
        .into_iter()
        .map(|(d, solvers, n, t, solver)| {
            let weight = (solvers * d.benchmarks) as f64 / total_pairs;
            Contribution {
                division: d.name.clone(),
                display: participants.get(&solver).display,
                solver,
                score: n * weight,
                time: t * weight,
                raw_score: n,
                raw_time: t,
                solvers,
                benchmarks: d.benchmarks,
            }
        })
        .collect();
    out.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then(b.time.total_cmp(&a.time))
            .then_with(|| a.division.cmp(&b.division))
    });
    out
}

/// Best overall (2025): Σ over the competitive divisions a solver entered of
/// ((n_D/N_D)² if it made no error, else the penalty) × log N_D, with N_D the
/// division's number of named assertions; `may_win` says who competes for
/// it (2026: a derived solver only as `derived` allows).
pub fn best_overall(
    divisions: &[DivisionScore],
    mode: Mode,
    params: &BestOverall,
    may_win: &dyn Fn(&str) -> bool,
) -> Vec<Overall> {
    let mut acc: BTreeMap<&str, Overall> = BTreeMap::new();
    for d in divisions
        .iter()
        .filter(|d| d.competitive && d.assertions > 0)
    {
        let nd = d.assertions as f64;
        for s in &mode_of(d, mode).solvers {
            let term = if s.error_pairs == 0 {
                (s.correct / nd).powi(2)
            } else {
                params.error_penalty
            } * nd.log(params.log_base);
            let o = acc.entry(&s.solver).or_insert_with(|| Overall {
                solver: s.solver.clone(),
                display: s.display.clone(),
                competing: may_win(&s.solver),
                score: 0.0,
                divisions: 0,
            });
            o.score += term;
            o.divisions += 1;
        }
    }
    let mut out: Vec<Overall> = acc.into_values().collect();
    out.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| a.solver.cmp(&b.solver))
    });
    out
}

#[cfg(test)]
mod tests;
