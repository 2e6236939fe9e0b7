//! The benchmark model: which `.smt2` files a root holds, their stable ids,
//! division (logic) and family, and whether each may enter the unsat-core
//! track — with the reasons as data, each naming the command that caused it.
//!
//! Facts come from one streaming pass with the scanner ([`analyze`], or the
//! [`Analyzer`] the naming rewriter drives while it writes); the verdict
//! depends on settings that differ between editions and users ([`Policy`]),
//! so it is computed from the facts by [`BenchmarkInfo::ineligibility`].
//!
//! Decisions (see docs/organizers.md, "`coreval name` and `coreval lint`"):
//! - `get-model`, `get-value`, `get-proof`, `get-assignment`, `get-info`,
//!   `get-option`, `get-assertions`, `get-unsat-assumptions` and `echo` are
//!   allowed: naming removes them, as they would disturb a core run.
//! - A missing `:status` is its own reason ([`Reason::NoStatus`]), which a
//!   caller may accept; any status but `unsat` is [`Reason::StatusNotUnsat`].
//! - An `assert` after the `check-sat` is a reason of its own: the core is
//!   asked right after `check-sat`, so such an assertion can never be in it.

mod analyze;
mod discover;
pub mod task;

pub use analyze::{analyze, Analyzer, Class, NamedAttr, Observation};
pub use discover::{discover, BenchmarkFile, Discovery, Families, Family};

use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::{Path, PathBuf};

/// What to do with benchmarks that already contain `:named` terms.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum NamedPolicy {
    /// Leave them out of the track (2018 onwards): reason [`Reason::ExistingNames`].
    #[default]
    Skip,
    /// Remove the existing `:named` attributes, then name as usual; a file
    /// whose names are used as symbols elsewhere cannot be stripped safely
    /// and is left out ([`Reason::NameUsedInTerm`]).
    Strip,
    /// Keep every existing name; a top-level assertion that already is
    /// `(! t … :named X …)` keeps `X` as its name, nested names stay and are
    /// listed so that a core naming them can be flagged.
    Keep,
}

/// The settings eligibility depends on.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Policy {
    /// Fewer top-level assertions than this is a reason (2 from 2024 on:
    /// a benchmark with one assertion can only be reduced by 0).
    pub min_assertions: usize,
    /// Accept a benchmark without `(set-info :status …)` (its status is
    /// then known from elsewhere, e.g. a manifest).
    pub allow_no_status: bool,
    /// Existing `:named` terms.
    pub named: NamedPolicy,
    /// Accept any declared `:status` (`sat`, `unknown`…), not only `unsat`:
    /// `coreval selfcheck` runs authors' benchmarks whatever they declare.
    #[serde(default)]
    pub accept_any_status: bool,
    /// Accept incremental and assumption scripts (`push`/`pop`, several
    /// `check-sat`s, `check-sat-assuming`; campaign key `[naming]
    /// incremental`): their cores are judged query by query.
    #[serde(default)]
    pub incremental: bool,
}

impl Default for Policy {
    fn default() -> Self {
        Policy {
            min_assertions: 2,
            allow_no_status: false,
            named: NamedPolicy::Skip,
            accept_any_status: false,
            incremental: false,
        }
    }
}

/// Where a reason comes from: the command's position and head symbol.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct At {
    /// 1-based line.
    pub line: u64,
    /// 1-based byte column.
    pub column: u64,
    /// The command's head (`push`, `check-sat`…), `""` for a scan error.
    pub head: String,
}

/// Why a benchmark may not enter the track.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "reason", rename_all = "kebab-case")]
pub enum Reason {
    /// Not valid SMT-LIB (scanner, or strict parser with `--strict`).
    Malformed { message: String },
    /// No `set-logic`: the division is unknown.
    NoLogic,
    /// A second `set-logic`.
    SetLogicTwice,
    /// No `(set-info :status …)`.
    NoStatus,
    /// `:status` is `sat`, `unknown` or anything but `unsat`.
    StatusNotUnsat { status: String },
    /// No `check-sat`.
    NoCheckSat,
    /// More than one `check-sat` (incremental script).
    SeveralCheckSat { count: usize },
    /// `push` or `pop`.
    PushPop,
    /// `check-sat-assuming`.
    CheckSatAssuming,
    /// `reset` or `reset-assertions`.
    Reset,
    /// A command outside the track's set (RULES.md §1).
    NotAllowed,
    /// An `assert` after the `check-sat`.
    AssertAfterCheckSat,
    /// Fewer top-level assertions than the policy's minimum.
    TooFewAssertions { found: usize, min: usize },
    /// The file already names terms (policy `skip`); the first one.
    ExistingNames { name: String },
    /// A `:named` name is used as a symbol elsewhere, so the name cannot be
    /// stripped (policy `strip`).
    NameUsedInTerm { name: String },
}

impl Reason {
    /// True for reasons that mean the file is broken, not merely outside
    /// the track: these make `coreval name` exit with 1.
    pub fn is_malformed(&self) -> bool {
        matches!(self, Reason::Malformed { .. })
    }
}

/// One reason and the command that caused it (`None` for absences such as
/// [`Reason::NoStatus`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ineligibility {
    #[serde(flatten)]
    pub reason: Reason,
    pub at: Option<At>,
}

/// Where the user changes what made a benchmark ineligible, so that a hint
/// names what they edit: the options of `coreval name`, or the `[naming]`
/// keys of a campaign's `campaign.toml`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Settings {
    /// Command-line options (`--allow-no-status`, `--min-assertions`, …).
    Flags,
    /// `campaign.toml` keys (`naming.allow_no_status`, …).
    Campaign,
    /// `coreval selfcheck`, which has none of these settings: no hint.
    Selfcheck,
}

impl Ineligibility {
    /// `path:line:col: message` (or `path: message` without a position),
    /// its hints naming `coreval name`'s options.
    pub fn in_file(&self, path: &Path) -> String {
        self.in_file_for(path, Settings::Flags)
    }

    /// [`Ineligibility::in_file`] with hints naming `settings`.
    pub fn in_file_for(&self, path: &Path, settings: Settings) -> String {
        let message = self.describe(settings);
        match &self.at {
            Some(at) => format!("{}:{}:{}: {message}", path.display(), at.line, at.column),
            None => format!("{}: {message}", path.display()),
        }
    }

    /// The reason in words, with a hint naming `settings` where one helps.
    pub fn describe(&self, settings: Settings) -> String {
        let head = self.at.as_ref().map(|a| a.head.as_str()).unwrap_or("");
        // `text` then `before` + the setting + `after`, where one applies.
        let hint = |text: String, before: &str, option: &str, campaign_key: &str, after: &str| {
            match settings {
                Settings::Flags => format!("{text}{before}{option}{after}"),
                Settings::Campaign => {
                    format!("{text}{before}{campaign_key} in campaign.toml{after}")
                }
                Settings::Selfcheck => text,
            }
        };
        match &self.reason {
            Reason::Malformed { message } => format!("malformed: {message}"),
            Reason::NoLogic => "no set-logic: the division is unknown".into(),
            Reason::SetLogicTwice => "a second set-logic".into(),
            Reason::NoStatus => hint(
                "no (set-info :status unsat)".into(),
                " (accept with ",
                "--allow-no-status",
                "naming.allow_no_status = true",
                ")",
            ),
            Reason::StatusNotUnsat { status } => {
                format!("status is '{status}', the track needs 'unsat'")
            }
            Reason::NoCheckSat => "no check-sat".into(),
            Reason::SeveralCheckSat { count } => {
                format!("{count} check-sat commands, the track needs exactly one")
            }
            Reason::PushPop => format!("'{head}': incremental scripts are not in the track"),
            Reason::CheckSatAssuming => "check-sat-assuming is not in the track".into(),
            Reason::Reset => format!("'{head}' is not in the track"),
            Reason::NotAllowed => format!("command '{head}' is not allowed in the track"),
            Reason::AssertAfterCheckSat => {
                "assert after check-sat: it could never be part of the core".into()
            }
            Reason::TooFewAssertions { found, min } => hint(
                format!("{found} top-level assertion(s), fewer than the minimum {min}"),
                " (see ",
                "--min-assertions",
                "naming.min_assertions",
                ")",
            ),
            Reason::ExistingNames { name } => hint(
                format!("already names terms (':named {name}')"),
                "; see ",
                "--named-policy",
                "naming.named_policy",
                "",
            ),
            Reason::NameUsedInTerm { name } => {
                format!("the name '{name}' is used as a symbol, so its ':named' cannot be stripped")
            }
        }
    }
}

impl fmt::Display for Ineligibility {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.describe(Settings::Flags))
    }
}

/// Everything one pass over a benchmark learns.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BenchmarkInfo {
    /// The file read (empty when the script came from a reader, as in
    /// the naming stage).
    pub path: PathBuf,
    /// Its size in bytes (bytes scanned when the scan stopped at an error).
    pub size: u64,
    /// The `set-logic` symbol (normal form).
    pub logic: Option<String>,
    /// The last `(set-info :status X)` value, `None` when absent.
    pub status: Option<String>,
    /// Top-level assertions (`assert` commands).
    pub assertions: usize,
    /// `check-sat` commands.
    pub check_sats: usize,
    /// `check-sat-assuming` commands.
    #[serde(default)]
    pub check_sats_assuming: usize,
    /// An incremental or assumption script: `push`/`pop`, several
    /// `check-sat`s or `check-sat-assuming`.
    #[serde(default)]
    pub incremental: bool,
    /// Existing names of top-level assertions `(assert (! t :named X))`,
    /// with the 1-based number of the assertion, in order.
    pub top_level_names: Vec<(usize, String)>,
    /// Existing names of nested terms (and of terms outside assertions).
    pub nested_names: Vec<String>,
    /// Size of the largest command in bytes.
    pub largest_command: u64,
    /// Policy-independent reasons, in file order.
    pub findings: Vec<Ineligibility>,
    /// The first `:named` attribute, if any.
    pub first_name: Option<(String, At)>,
    /// Names used as symbols elsewhere in the file (first use each).
    pub used_names: Vec<(String, At)>,
}

impl BenchmarkInfo {
    /// True when the file could not be read as SMT-LIB.
    pub fn is_malformed(&self) -> bool {
        self.findings.iter().any(|f| f.reason.is_malformed())
    }

    /// Every reason why the benchmark may not enter the track under
    /// `policy`; empty means eligible.
    pub fn ineligibility(&self, policy: &Policy) -> Vec<Ineligibility> {
        let mut out = self.findings.clone();
        if policy.accept_any_status {
            out.retain(|f| !matches!(f.reason, Reason::StatusNotUnsat { .. }));
        }
        if self.is_malformed() {
            return out;
        }
        let none = |reason| Ineligibility { reason, at: None };
        if self.logic.is_none() {
            out.push(none(Reason::NoLogic));
        }
        if self.status.is_none() && !policy.allow_no_status {
            out.push(none(Reason::NoStatus));
        }
        let incremental = policy.incremental && self.incremental;
        if incremental {
            // Judged query by query: scopes, several queries, assertions
            // between them and a status per query are what such scripts are.
            out.retain(|f| {
                !matches!(
                    f.reason,
                    Reason::PushPop
                        | Reason::SeveralCheckSat { .. }
                        | Reason::CheckSatAssuming
                        | Reason::AssertAfterCheckSat
                        | Reason::StatusNotUnsat { .. }
                )
            });
        }
        if self.check_sats == 0 && !(incremental && self.check_sats_assuming > 0) {
            out.push(none(Reason::NoCheckSat));
        }
        if self.assertions < policy.min_assertions {
            out.push(none(Reason::TooFewAssertions {
                found: self.assertions,
                min: policy.min_assertions,
            }));
        }
        match policy.named {
            NamedPolicy::Skip => {
                if let Some((name, at)) = &self.first_name {
                    out.push(Ineligibility {
                        reason: Reason::ExistingNames { name: name.clone() },
                        at: Some(at.clone()),
                    });
                }
            }
            NamedPolicy::Strip => {
                for (name, at) in &self.used_names {
                    out.push(Ineligibility {
                        reason: Reason::NameUsedInTerm { name: name.clone() },
                        at: Some(at.clone()),
                    });
                }
            }
            NamedPolicy::Keep => {}
        }
        out
    }
}

#[cfg(test)]
mod tests;
