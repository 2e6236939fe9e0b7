//! One module per subcommand: its clap arguments and the function that turns
//! them into a validated configuration, calls the stages and returns an
//! exit code (see [`crate::cmd::exit`]).

pub mod answers;
pub mod check;
pub mod checkers;
pub mod cli;
pub mod diff;
pub mod exit;
pub mod init;
pub mod interrupt;
pub mod lint;
pub mod merge;
pub mod name;
pub mod out;
pub mod run;
pub mod score;
pub mod score_args;
pub mod scramble;
pub mod select;
pub mod selfcheck;
pub mod show;
pub mod shrink;
pub mod slurm;
pub mod solve;
pub mod writable;
