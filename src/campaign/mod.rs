//! The campaign: what every stage shares, in three rooms that import one
//! way, each from the one below it and never from here.
//!
//! - [`verdict`] — the rules and how votes become verdicts: decision
//!   policies, rules editions, certification of `sat` answers, the
//!   minimality rule, division maps and the pair record the scorer
//!   consumes. It knows nothing of files or configuration.
//! - [`setup`] — the configuration and its loading: `campaign.toml` and
//!   its lines, the solvers under test, the checkers selected and left out,
//!   participants, validators, the preflight that refuses what cannot work,
//!   and the loaded [`setup::context::Context`] built once before any stage.
//! - [`ledger`] — the journals and what they prove: record types and file
//!   names, the provenance of each record and whether it is current, the
//!   named index, the facts reports open with, and the [`ledger::Loaded`]
//!   view the stages after naming read.
//!
//! Stages (name, solve, check, judge, score, report) depend on these rooms
//! and on the leaf modules (scanner, runner, answer, rebuild), never on each
//! other.

pub mod ledger;
pub mod setup;
pub mod verdict;
