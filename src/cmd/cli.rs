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
    /// Name every top-level assertion of eligible unsat benchmarks.
    Name(crate::cmd::name::NameArgs),
    /// Validate benchmarks strictly as SMT-LIB 2.6.
    Lint(crate::cmd::lint::LintArgs),
    /// Run the solvers under test of a campaign on its named benchmarks.
    Solve(crate::cmd::solve::SolveArgs),
    /// Rebuild and check every reported core of a campaign.
    Check(crate::cmd::check::CheckArgs),
    /// Run a whole campaign: name, solve, check, score, reports.
    Run(crate::cmd::run::RunArgs),
    /// Write a commented campaign config.
    Init(crate::cmd::init::InitArgs),
    /// Score (solver, benchmark) pairs under a rules edition and write reports.
    Score(crate::cmd::score::ScoreArgs),
    /// Check a solver's cores on your own benchmarks, for solver authors (CI: --junit).
    Selfcheck(crate::cmd::selfcheck::SelfcheckArgs),
    /// One pair's evidence: verdict, votes, core with lines, commands to repeat.
    Show(crate::cmd::show::ShowArgs),
    /// Scramble benchmarks with a seed (shuffle, rename, commute) and write descrambling maps.
    Scramble(crate::cmd::scramble::ScrambleArgs),
    /// Compare two runs (selfcheck --json files or campaigns): new and fixed failures, cores, answers.
    Diff(crate::cmd::diff::DiffArgs),
    /// Shrink a campaign's failing pair to a small benchmark that fails the same way.
    Shrink(crate::cmd::shrink::ShrinkArgs),
    /// ddSMT's test command during a shrink (exit 0: the file still fails).
    #[command(hide = true)]
    ShrinkJudge(crate::cmd::shrink::ShrinkJudgeArgs),
}

#[cfg(test)]
mod tests {
    #[test]
    fn verify_cli() {
        use clap::CommandFactory;
        super::Cli::command().debug_assert();
    }
}
