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
    /// List the solver and checker definitions: installed or not, version, cores, logics.
    ///
    /// Reads the definitions folder (--dir, else $COREVAL_CHECKERS, else ./checkers, else the
    /// checkers/ folder of the coreval sources) and runs each definition's version command.
    /// Prints a table (or JSON with --json) on stdout; writes no file.
    Checkers(crate::cmd::checkers::CheckersArgs),
    /// Fold the journals of every shard into the campaign's own journals.
    ///
    /// Reads CAMPAIGN/shards/*/{runs,cores,checks}.jsonl. Writes every record not there yet to
    /// CAMPAIGN/runs.jsonl, cores.jsonl and checks.jsonl (appended: a second merge changes nothing).
    Merge(crate::cmd::merge::MergeArgs),
    /// Run a campaign on a Slurm cluster as job arrays (submit, status, cancel).
    ///
    /// Reads CAMPAIGN/campaign.toml and its named benchmarks (run `coreval run CAMPAIGN
    /// --stage name` first). Writes CAMPAIGN/slurm/*.sbatch, CAMPAIGN/slurm.json (job ids) and
    /// task logs in CAMPAIGN/slurm/logs/; each task writes CAMPAIGN/shards/I-of-N/.
    Slurm(crate::cmd::slurm::SlurmArgs),
    /// Name every top-level assertion of eligible unsat benchmarks.
    ///
    /// Reads the .smt2 files under ROOT (or ROOT itself). Writes the named copy of each eligible
    /// one to the same relative path under OUT, and OUT/index.jsonl (one line per benchmark:
    /// named, ineligible with its reasons, or malformed).
    Name(crate::cmd::name::NameArgs),
    /// Validate benchmarks strictly as SMT-LIB 2.6.
    ///
    /// Reads the .smt2 files of every PATH (folders are searched). Prints one
    /// `file:line:column: message` per error on stdout; writes no file; exits with 1 when a file
    /// has an error.
    Lint(crate::cmd::lint::LintArgs),
    /// Run the solvers under test of a campaign on its named benchmarks.
    ///
    /// Reads CAMPAIGN/campaign.toml and CAMPAIGN/named/. Writes one record per finished run to
    /// CAMPAIGN/runs.jsonl, appended (CAMPAIGN/shards/I-of-N/runs.jsonl with --shard).
    Solve(crate::cmd::solve::SolveArgs),
    /// Rebuild and check every reported core of a campaign.
    ///
    /// Reads CAMPAIGN/campaign.toml, named/ and runs.jsonl. Writes the core-only benchmarks
    /// CAMPAIGN/cores/*.smt2 and appends to cores.jsonl and checks.jsonl (with --minimality also
    /// minimality.jsonl and minimality-checks.jsonl).
    Check(crate::cmd::check::CheckArgs),
    /// Run a whole campaign: name, solve, check, score, reports.
    ///
    /// Reads CAMPAIGN/campaign.toml and its benchmarks. Writes CAMPAIGN/named/, runs.jsonl,
    /// cores/, cores.jsonl, checks.jsonl and CAMPAIGN/reports/ (scores.json, pairs.csv,
    /// pairs.jsonl, report.md, report.html); prints a summary and the report's path.
    Run(crate::cmd::run::RunArgs),
    /// Write a commented campaign config.
    ///
    /// Reads nothing. Writes DIR/campaign.toml (DIR is created), documenting every key with its
    /// default; refuses to overwrite an existing one unless --force.
    Init(crate::cmd::init::InitArgs),
    /// Score (solver, benchmark) pairs under a rules edition and write reports.
    ///
    /// Reads a campaign's journals (CAMPAIGN), or imported results: StarExec job CSVs, the smtcomp
    /// tool's results and benchmark list, BenchExec XML, output folders. Writes CAMPAIGN/reports/
    /// for a campaign, else the files named by --json, --csv, --markdown and --html (Markdown on
    /// stdout when none is named).
    Score(crate::cmd::score::ScoreArgs),
    /// Check a solver's cores on your own benchmarks, for solver authors (CI: --junit).
    ///
    /// Reads the benchmark files and folders given, and runs the --solver command and the
    /// installed checkers on them. Prints one PASS, FAIL or SKIP line per benchmark on stdout;
    /// writes --junit FILE, and the benchmarks and cores of every FAIL and SKIP below
    /// coreval-selfcheck-kept/ (or --keep DIR).
    Selfcheck(crate::cmd::selfcheck::SelfcheckArgs),
    /// One pair's evidence: verdict, votes, core with lines, commands to repeat.
    ///
    /// Reads CAMPAIGN/campaign.toml, named/ and the journals (runs.jsonl, cores.jsonl,
    /// checks.jsonl) of a campaign. Prints the pair's verdict, every checker's vote with its
    /// certification, the core with the line of each assertion and the commands that repeat each
    /// run on stdout (for a certified refutation also the explanation); writes no file.
    Show(crate::cmd::show::ShowArgs),
    /// Scramble benchmarks with a seed (shuffle, rename, commute) and write descrambling maps.
    ///
    /// Reads a .smt2 file, or the .smt2 files of a folder. Writes each scrambled file to the same
    /// relative path under OUT, with its map beside it (x.smt2 -> x.descramble.json).
    Scramble(crate::cmd::scramble::ScrambleArgs),
    /// Select an edition's unsat-core benchmarks (2024-2026) from a benchmark list, with a seed.
    ///
    /// Reads the smtcomp tool's benchmark list (benchmarks-YYYY.json[.gz]) or a folder of .smt2
    /// files, and the single-query results given with --results. Writes the selected ids, one a
    /// line, to --out (a campaign's `benchmark_list`) and --report FILE (JSON); prints per logic
    /// the eligible, capped, new and picked counts, the totals and the exclusions on stdout.
    Select(crate::cmd::select::SelectArgs),
    /// Compare two runs (selfcheck --json files or campaigns): every change of verdict, cores, answers.
    ///
    /// Reads OLD and NEW: two `coreval selfcheck --json` files, or two scored campaign folders
    /// (their reports/pairs.jsonl). Prints every change of verdict counted by kind (validated ->
    /// not-validated: N), each changed pair under new or fixed failures, no longer or now passing,
    /// or other changes, then changed answers and cores that grew or shrank, on stdout; writes no
    /// file; exits with 1 when NEW is worse: a pair fails that did not, or no longer passes.
    Diff(crate::cmd::diff::DiffArgs),
    /// Shrink a campaign's failing pair to a small benchmark that fails the same way.
    ///
    /// Reads CAMPAIGN/campaign.toml, reports/pairs.jsonl (score the campaign first) and the
    /// benchmark below the campaign's benchmark root, and runs the solver and the checkers of
    /// other teams on candidates. Writes the reproducer to --out PATH (default
    /// CAMPAIGN/reproducers/<benchmark>.<solver>.smt2) and prints its path and size on stdout.
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
