//! Command-line surface: the clap derive structs, one variant per
//! subcommand. Each subcommand's own arguments and its run function live in
//! `src/cmd/<subcommand>.rs`; nothing below `cmd` sees clap.

use clap::{Parser, Subcommand};

#[derive(Parser, Debug)]
#[command(name = "coreval", version, about = "Validate SMT solvers' unsat cores")]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Scramble benchmarks with a seed (shuffle, rename, commute) and write descrambling maps.
    Scramble(crate::cmd::scramble::ScrambleArgs),
}

#[cfg(test)]
mod tests {
    #[test]
    fn verify_cli() {
        use clap::CommandFactory;
        super::Cli::command().debug_assert();
    }
}
