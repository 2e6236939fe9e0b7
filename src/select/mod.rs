//! The unsat-core track's benchmark selection (`coreval select`), editions
//! 2024 to 2026: which benchmarks are eligible, how many of each logic are
//! taken ([`cap`]), and which ([`draw`]).
//!
//! A benchmark is eligible when
//! - its status is `unsat`, or `unknown` (or absent) and at least two
//!   single-query results said `unsat` (the `smtcomp` tool's reading of
//!   "some sound solver answered unsat");
//! - no single-query result said `sat` while another said `unsat` (the
//!   tool drops such a benchmark; the rules say it "may be retained":
//!   [`Options::keep_conflicts`] keeps it);
//! - it has at least two assertions.
//!
//! An excluded benchmark is counted once, under the first of these
//! reasons that applies, in this order: its status, too few `unsat`
//! answers, the `sat`/`unsat` conflict, too few assertions
//! ([`Exclusion`]). Only the list's non-incremental benchmarks are
//! considered.

pub mod cap;
pub mod draw;
pub mod input;

use crate::campaign::verdict::rules::Edition;
use cap::CapRule;
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};

/// One benchmark of the list, as the selection needs it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Candidate {
    /// Its id: `LOGIC/FAMILY…/NAME`, or its path below the folder read.
    pub id: String,
    pub logic: String,
    /// The first folder below the logic (`.` for none).
    pub family: String,
    /// `unsat`, `sat`, `unknown`; `None` when the list gives none.
    pub status: Option<String>,
    /// Top-level assertions.
    pub asserts: u64,
}

/// The single-query answers of one benchmark.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Answers {
    pub sat: usize,
    pub unsat: usize,
}

/// `unsat` answers that make a benchmark of unknown status eligible.
pub const UNSAT_ANSWERS_NEEDED: usize = 2;

/// Why a benchmark is not eligible.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exclusion {
    /// Its status is `sat` (or anything but `unsat` and `unknown`).
    NotUnsat,
    /// Status unknown, fewer than two single-query `unsat` answers.
    UnknownUnconfirmed,
    /// A single-query result said `sat`, another `unsat`.
    Conflict,
    /// Fewer than two assertions.
    FewAsserts,
}

/// Why `c` is not eligible with the answers `a`, if it is not.
pub fn exclusion(c: &Candidate, a: Answers, keep_conflicts: bool) -> Option<Exclusion> {
    match c.status.as_deref() {
        Some("unsat") => {}
        None | Some("unknown") if a.unsat >= UNSAT_ANSWERS_NEEDED => {}
        None | Some("unknown") => return Some(Exclusion::UnknownUnconfirmed),
        Some(_) => return Some(Exclusion::NotUnsat),
    }
    if a.sat > 0 && a.unsat > 0 && !keep_conflicts {
        return Some(Exclusion::Conflict);
    }
    (c.asserts < 2).then_some(Exclusion::FewAsserts)
}

/// How to select.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// `smtcomp-2024`, `-2025` or `-2026`.
    pub edition: Edition,
    /// The competition's seed, the same for every random step.
    pub seed: u32,
    /// Keep a benchmark with both `sat` and `unsat` single-query answers
    /// (the rules allow it; the tool, and the default, drop it).
    pub keep_conflicts: bool,
}

/// One logic's counts.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct LogicCount {
    pub logic: String,
    pub eligible: usize,
    pub cap: usize,
    /// Eligible benchmarks of a new family (one named after the previous year).
    pub new: usize,
    pub new_families: usize,
    pub picked: usize,
}

/// The excluded benchmarks, counted by reason.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Excluded {
    /// Fewer than two assertions.
    pub few_asserts: usize,
    /// Status `sat` (or another but `unsat`, `unknown`).
    pub not_unsat: usize,
    /// Both `sat` and `unsat` single-query answers.
    pub conflict: usize,
    /// Status unknown and fewer than two `unsat` answers.
    pub unknown_unconfirmed: usize,
    /// Files of a folder that are no script of the track: not SMT-LIB, no
    /// `set-logic`, or an incremental script.
    pub unusable: usize,
}

/// What the selection picked, and its counts.
#[derive(Clone, Debug, Serialize)]
pub struct Selection {
    pub edition: String,
    pub seed: u32,
    pub keep_conflicts: bool,
    /// Benchmarks read (the unusable files of a folder included).
    pub read: usize,
    pub logics: Vec<LogicCount>,
    /// The sums over the logics (`logic` is `total`).
    pub total: LogicCount,
    pub excluded: Excluded,
    /// The picked ids, sorted.
    #[serde(skip)]
    pub picked: Vec<String>,
}

/// Select from `candidates` with the single-query answers `answers` (by
/// id); `unusable` files were read but are no candidates. `Err` for an
/// edition whose selection coreval does not know.
pub fn select(
    candidates: &[Candidate],
    unusable: usize,
    answers: &HashMap<String, Answers>,
    opts: &Options,
) -> anyhow::Result<Selection> {
    let Some(rule) = CapRule::of(opts.edition) else {
        anyhow::bail!(
            "coreval select knows the selection of smtcomp-2024, smtcomp-2025 and smtcomp-2026, \
             not of {}",
            opts.edition.name()
        );
    };
    let new_prefix = cap::year(opts.edition).saturating_sub(1).to_string();
    let mut excluded = Excluded {
        unusable,
        ..Excluded::default()
    };
    let mut by_logic: BTreeMap<&str, Vec<&Candidate>> = BTreeMap::new();
    for c in candidates {
        let a = answers.get(&c.id).copied().unwrap_or_default();
        match exclusion(c, a, opts.keep_conflicts) {
            None => by_logic.entry(&c.logic).or_default().push(c),
            Some(Exclusion::NotUnsat) => excluded.not_unsat += 1,
            Some(Exclusion::UnknownUnconfirmed) => excluded.unknown_unconfirmed += 1,
            Some(Exclusion::Conflict) => excluded.conflict += 1,
            Some(Exclusion::FewAsserts) => excluded.few_asserts += 1,
        }
    }
    let mut picked = Vec::new();
    let mut logics = Vec::new();
    let mut total = LogicCount {
        logic: "total".into(),
        ..LogicCount::default()
    };
    for (logic, mut members) in by_logic {
        members.sort_by(|a, b| a.id.cmp(&b.id));
        members.dedup_by(|a, b| a.id == b.id);
        let families: Vec<&str> = members.iter().map(|c| c.family.as_str()).collect();
        let limit = rule.cap(members.len());
        let d = draw::draw(&families, |f| f.starts_with(&new_prefix), limit, opts.seed);
        picked.extend(d.picked.iter().map(|&i| members[i].id.clone()));
        let count = LogicCount {
            logic: logic.to_string(),
            eligible: members.len(),
            cap: limit,
            new: d.new,
            new_families: d.new_families,
            picked: d.picked.len(),
        };
        total.eligible += count.eligible;
        total.cap += count.cap;
        total.new += count.new;
        total.new_families += count.new_families;
        total.picked += count.picked;
        logics.push(count);
    }
    picked.sort();
    Ok(Selection {
        edition: opts.edition.name().to_string(),
        seed: opts.seed,
        keep_conflicts: opts.keep_conflicts,
        read: candidates.len() + unusable,
        logics,
        total,
        excluded,
        picked,
    })
}

impl Selection {
    /// The report as text: a row per logic, the totals, the exclusions.
    pub fn text(&self) -> String {
        let width = (self.logics.iter().map(|l| l.logic.len()))
            .chain([5])
            .max()
            .unwrap_or(5);
        let mut out = format!(
            "{:<width$}  {:>8}  {:>6}  {:>6}  {:>12}  {:>6}\n",
            "logic", "eligible", "cap", "new", "new families", "picked"
        );
        for l in self.logics.iter().chain([&self.total]) {
            out += &format!(
                "{:<width$}  {:>8}  {:>6}  {:>6}  {:>12}  {:>6}\n",
                l.logic, l.eligible, l.cap, l.new, l.new_families, l.picked
            );
        }
        let e = &self.excluded;
        let all = e.few_asserts + e.not_unsat + e.conflict + e.unknown_unconfirmed + e.unusable;
        out += &format!(
            "{} benchmarks read, {all} excluded: {} fewer than 2 assertions, {} status not unsat, \
             {} sat/unsat conflict{}, {} unknown without {UNSAT_ANSWERS_NEEDED} unsat answers",
            self.read,
            e.few_asserts,
            e.not_unsat,
            e.conflict,
            if self.keep_conflicts { " (kept)" } else { "" },
            e.unknown_unconfirmed,
        );
        if e.unusable > 0 {
            out += &format!(", {} unusable files", e.unusable);
        }
        out + "\n"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bench(status: Option<&str>, asserts: u64) -> Candidate {
        Candidate {
            id: "L/f/x.smt2".into(),
            logic: "L".into(),
            family: "f".into(),
            status: status.map(str::to_string),
            asserts,
        }
    }

    #[test]
    fn eligibility_and_its_order() {
        let none = Answers::default();
        let two = Answers { sat: 0, unsat: 2 };
        let torn = Answers { sat: 1, unsat: 2 };
        assert_eq!(exclusion(&bench(Some("unsat"), 2), none, false), None);
        assert_eq!(
            exclusion(&bench(Some("unsat"), 1), none, false),
            Some(Exclusion::FewAsserts)
        );
        assert_eq!(
            exclusion(&bench(Some("sat"), 1), none, false),
            Some(Exclusion::NotUnsat)
        );
        assert_eq!(
            exclusion(
                &bench(Some("unknown"), 5),
                Answers { sat: 0, unsat: 1 },
                false
            ),
            Some(Exclusion::UnknownUnconfirmed)
        );
        assert_eq!(exclusion(&bench(None, 5), two, false), None);
        assert_eq!(exclusion(&bench(Some("unknown"), 5), two, false), None);
        assert_eq!(
            exclusion(&bench(Some("unsat"), 5), torn, false),
            Some(Exclusion::Conflict)
        );
        assert_eq!(exclusion(&bench(Some("unsat"), 5), torn, true), None);
    }

    #[test]
    fn editions_before_the_tool_are_refused() {
        let opts = Options {
            edition: Edition::Smtcomp2023,
            seed: 1,
            keep_conflicts: false,
        };
        let err = select(&[], 0, &HashMap::new(), &opts).unwrap_err();
        assert!(err.to_string().contains("smtcomp-2023"), "{err}");
    }
}
