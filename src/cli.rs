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
    /// List the solver and checker definitions: installed or not, version, cores, logics
    Checkers(crate::cmd::checkers::CheckersArgs),
    /// Fold the journals of every shard (shards/*/) into the campaign's
    Merge(crate::cmd::merge::MergeArgs),
    /// Run a campaign on a Slurm cluster as job arrays (submit, status, cancel)
    Slurm(crate::cmd::slurm::SlurmArgs),
}

#[cfg(test)]
mod tests {
    #[test]
    fn verify_cli() {
        use clap::CommandFactory;
        super::Cli::command().debug_assert();
    }
}
