//! The configuration and its loading: `campaign.toml` read and checked
//! ([`config`], [`config_lines`] for the line of each key), the solvers
//! under test ([`solvers`]; those whose runs BenchExec made, [`benchexec`]), the checkers selected for each solver and those
//! of its team left out ([`selection`]) by its team identity ([`team`]), participants and validators, the
//! preflight that refuses a configuration that cannot work before any work
//! starts ([`preflight`]), and the loaded campaign ([`context::Context`])
//! built once from all of it, and the reading of its journals with the
//! shards' ([`Campaign::read_journal`]). Imports only [`crate::campaign::verdict`]
//! among the campaign's rooms.

pub mod benchexec;
pub mod config;
pub mod config_lines;
pub mod context;
mod journals;
pub mod participants;
pub mod preflight;
pub mod selection;
pub mod solvers;
pub mod team;
pub mod validators;

pub use config::*;
