//! One team identity for a solver under test, the same for `coreval run`
//! and `coreval selfcheck`: a checker is of the solver's own team (and so
//! left out when checking is independent) when its team is
//! - *declared*: the solver's `team` (or its definition's), its `teams`,
//!   or the team of a checker its command names or runs
//!   ([`crate::checkers::identity::runs`]);
//! - of a checker whose program has the *same content* as the solver's (a
//!   copy of cvc5's binary under another name is cvc5,
//!   [`crate::checkers::identity::same_content`]), found at load;
//! - or of a checker whose program was *executed by the solver*: seen in
//!   its runs' process trees ([`crate::runner`] records them in each run
//!   record's `programs`), learnt as the runs are read
//!   ([`Executed::note`]), so a wrapper script that starts `/usr/bin/cvc5`
//!   without spelling its name is team cvc before cvc5 judges its cores.
//!
//! [`Why`] says which of the three, first that applies, in the words the
//! reports show.

use crate::checkers::SolverDef;
use std::path::PathBuf;
use std::sync::{Arc, RwLock};

/// Why a checker is of the solver's own team.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Why {
    /// Its team is declared (the config, the definition, the command).
    Declared,
    /// Its program is byte for byte the solver's.
    SameProgram,
    /// Its program ran in the solver's process tree.
    Executed,
}

impl Why {
    /// The reason in the reports' words.
    pub fn words(self) -> &'static str {
        match self {
            Why::Declared => "declared team",
            Why::SameProgram => "same program content",
            Why::Executed => "executed by the solver",
        }
    }

    /// A pair's `not_counted` text for a checker left out for it.
    pub fn left_out(self) -> &'static str {
        match self {
            Why::Declared => "left out: the solver's own team (declared team)",
            Why::SameProgram => "left out: the solver's own team (same program content)",
            Why::Executed => "left out: the solver's own team (executed by the solver)",
        }
    }
}

/// A checker found of the solver's team other than by declaration: its
/// name, its team and why (`runs /usr/bin/cvc5`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Member {
    pub checker: String,
    pub team: String,
    pub why: String,
}

/// The members whose program ran in a solver's runs, learnt as its run
/// records are read; shared by every copy of the solver (the stages of one
/// process learn them once).
#[derive(Clone, Debug, Default)]
pub struct Executed(Arc<RwLock<Vec<Member>>>);

impl Executed {
    /// Learn from `programs`, seen running in the solver's process trees:
    /// the checkers of `defs` among them that were not known yet.
    pub fn note<'p>(
        &self,
        programs: impl IntoIterator<Item = &'p str>,
        defs: &[SolverDef],
    ) -> Vec<Member> {
        let mut seen: Vec<PathBuf> = programs.into_iter().map(PathBuf::from).collect();
        seen.sort();
        seen.dedup();
        if seen.is_empty() {
            return Vec::new();
        }
        let found = members(crate::checkers::identity::runs_seen(&seen, defs), defs);
        let mut known = self.0.write().unwrap_or_else(|p| p.into_inner());
        let new: Vec<Member> = found
            .into_iter()
            .filter(|m| !known.iter().any(|k| k.checker == m.checker))
            .collect();
        known.extend(new.iter().cloned());
        new
    }

    /// Whether a checker of `team` was seen running.
    pub fn has_team(&self, team: &str) -> bool {
        let known = self.0.read().unwrap_or_else(|p| p.into_inner());
        known.iter().any(|m| m.team == team)
    }

    /// Every member seen so far.
    pub fn all(&self) -> Vec<Member> {
        self.0.read().unwrap_or_else(|p| p.into_inner()).clone()
    }
}

/// The checkers of `found` (name, why) with their teams from `defs`.
pub fn members(found: Vec<(String, String)>, defs: &[SolverDef]) -> Vec<Member> {
    found
        .into_iter()
        .filter_map(|(checker, why)| {
            let team = defs.iter().find(|d| d.name == checker)?.team.clone();
            Some(Member { checker, team, why })
        })
        .collect()
}

/// The first of the three that puts a checker of `team` in the solver's
/// team: `declared` teams, then `same` (members by program content), then
/// `executed`.
pub fn why(team: &str, declared: &[String], same: &[Member], executed: &Executed) -> Option<Why> {
    if declared.iter().any(|t| t == team) {
        Some(Why::Declared)
    } else if same.iter().any(|m| m.team == team) {
        Some(Why::SameProgram)
    } else if executed.has_team(team) {
        Some(Why::Executed)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declared_first_then_content_then_execution() {
        let defs = crate::checkers::load_dir(
            &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("checkers"),
        )
        .unwrap();
        let z3 = defs.iter().find(|d| d.name == "z3").unwrap();
        let Some(program) = z3.program() else { return };
        let executed = Executed::default();
        assert_eq!(why("z3", &[], &[], &executed), None);
        let p = program.to_string_lossy().into_owned();
        let new = executed.note([p.as_str(), p.as_str(), "/bin/sh"], &defs);
        assert_eq!(
            new.iter().map(|m| m.checker.as_str()).collect::<Vec<_>>(),
            ["z3"]
        );
        assert!(executed.note([p.as_str()], &defs).is_empty(), "learnt once");
        assert_eq!(why("z3", &[], &[], &executed), Some(Why::Executed));
        let same = [Member {
            checker: "z3".into(),
            team: "z3".into(),
            why: String::new(),
        }];
        assert_eq!(why("z3", &[], &same, &executed), Some(Why::SameProgram));
        assert_eq!(
            why("z3", &["z3".into()], &same, &executed),
            Some(Why::Declared)
        );
    }
}
