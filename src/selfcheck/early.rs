//! Which verdicts are final before a selfcheck ends, and telling each one
//! once ([`Early`]): the `decided:` lines of a terminal.
//!
//! A verdict that rests on a checker's vote is final only once the
//! solver's team is: every run of the author's has ended, since a run
//! still going may yet be seen running a checker's program, which joins
//! the team and takes that checker's vote away ([`super::team`]). So:
//!
//! - a benchmark that cannot be named: once naming is over;
//! - a verdict that needs no checker and no reference ([`without_votes`]:
//!   no answer, timeout, `unknown`, an ill-formed core, `unsat` without a
//!   core, `sat` on a benchmark declared `unsat`, and whatever the run's
//!   flags add to these): as its run ends, while the others still run;
//! - a core's verdict: once the author's cores are checked, before the
//!   references run, when later answers cannot change it ([`settled`]);
//! - the rest (a `sat` the references decide, an undecided core): at the
//!   end, with every detail.
//!
//! The ordered list at the end is classified from scratch as before;
//! [`Early::last`] compares it with what was told.

use super::outcome::{BenchResult, Outcome};
use crate::campaign::ledger::index::Bench;
use crate::campaign::ledger::records::RunRecord;
use crate::campaign::verdict::pair::{PairVerdict, Verdict};
use crate::campaign::verdict::policy::CheckAnswer;
use std::collections::HashMap;

/// The verdicts told so far, by benchmark.
#[derive(Default)]
pub struct Early {
    told: HashMap<String, (Outcome, String)>,
}

impl Early {
    /// Tell `r` through `decided`, unless it was told already.
    pub fn tell(&mut self, r: &BenchResult, decided: &mut dyn FnMut(&BenchResult)) {
        if !self.told.contains_key(&r.path) {
            self.told
                .insert(r.path.clone(), (r.outcome, r.verdict.clone()));
            decided(r);
        }
    }

    /// The final result `r`: told now if it was not yet. One told before
    /// is this verdict by construction; were it not, the difference is
    /// said (the ordered list is the truth).
    pub fn last(
        &mut self,
        r: &BenchResult,
        decided: &mut dyn FnMut(&BenchResult),
        warn: &mut dyn FnMut(String),
    ) {
        match self.told.get(&r.path) {
            None => self.tell(r, decided),
            Some((o, v)) if *o == r.outcome && *v == r.verdict => {}
            Some((o, v)) => warn(format!(
                "{}: told as decided ({o:?} {v}) before its final verdict ({:?} {}), a coreval bug: \
                 the list below is right",
                r.path, r.outcome, r.verdict
            )),
        }
    }
}

/// Whether the verdict on `run` rests on the run and its benchmark alone:
/// no checker judges it ([`crate::judge::verdict_without_check`]) and no
/// reference decides it (a `sat` is decided by the references unless the
/// benchmark is declared `unsat`).
pub fn without_votes(run: &RunRecord, bench: &Bench) -> bool {
    match crate::judge::verdict_without_check(run, bench) {
        None => false,
        Some(Verdict::SatUnconfirmed) => false,
        Some(_) => true,
    }
}

/// Whether a checked pair's verdict is final before the references run
/// and before more answers come (a core shared with a reference may be
/// asked again for it): the policy decided (the answers left cannot change
/// that), a validated core has an independent `unsat` (or no checker at
/// all can judge it), and a `sat` needs no reference (the benchmark is
/// known unsat: [`Verdict::of_sat`]).
pub fn settled(v: &PairVerdict, no_checker: bool) -> bool {
    if v.pending {
        return false;
    }
    match v.pair.verdict {
        Verdict::SatUnconfirmed => false,
        Verdict::Validated => no_checker || v.checkers.values().any(|a| *a == CheckAnswer::Unsat),
        _ => true,
    }
}
