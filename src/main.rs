//! The `coreval` binary: parse arguments, call the subcommand, map the
//! result to a documented exit code (`Error: …` and 2 for tool errors).
//! A closed stdout is no error: the subcommands print through
//! `coreval::cmd::out`, which ends the output quietly and keeps the code.

use clap::Parser;
use coreval::cmd::cli::{Cli, Command};
use coreval::cmd::exit;
use std::process::ExitCode;

/// mimalloc instead of the system allocator: every command the scanner
/// returns is one allocation, freed on another thread when a big file is
/// scanned ahead (`smtlib::scanner::prefetch`), where glibc's allocator
/// spent a fifth of the time (`cargo bench --bench naming`: 387 → 565 MB/s
/// on 1.3 M small assertions).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Transparent huge pages off before the first allocation
/// (`coreval::process::hugepages`): a constructor with a priority (`.init_array.NNNNN`
/// runs before the plain `.init_array`, where mimalloc's is), not in the
/// library, whose tests keep the setting they started with.
#[used]
#[link_section = ".init_array.00200"]
static HUGE_PAGES_OFF: extern "C" fn() = coreval::process::hugepages::off_before_main;

fn main() -> ExitCode {
    coreval::process::allocator::configure();
    // Started as the runner's trampoline: do that and exit.
    coreval::runner::trampoline_main();
    // Runs go through a trampoline, so that what they measure is the
    // solver's own (`runner/trampoline.rs`): `coreval-trampoline` beside
    // this executable, or this executable again.
    let exe = std::env::current_exe().ok();
    coreval::runner::use_trampoline(coreval::runner::trampoline_for(exe.as_deref()));
    coreval::process::trace::phase("main");
    let cli = Cli::parse();
    let result: anyhow::Result<u8> = match cli.command {
        Command::Checkers(a) => coreval::cmd::checkers::run(a),
        Command::Merge(a) => coreval::cmd::merge::run(a),
        Command::Slurm(a) => coreval::cmd::slurm::run(a),
        Command::Name(a) => coreval::cmd::name::run(a),
        Command::Lint(a) => coreval::cmd::lint::run(a),
        Command::Solve(a) => coreval::cmd::solve::run(a),
        Command::Check(a) => coreval::cmd::check::run(a),
        Command::Init(a) => coreval::cmd::init::run(a),
        Command::Run(a) => coreval::cmd::run::run(a),
        Command::Score(a) => coreval::cmd::score::run(a),
        Command::Selfcheck(a) => coreval::cmd::selfcheck::run(a),
        Command::Scramble(a) => coreval::cmd::scramble::run(a),
        Command::Select(a) => coreval::cmd::select::run(a),
        Command::Show(a) => coreval::cmd::show::run(a),
        Command::Diff(a) => coreval::cmd::diff::run(a),
        Command::Shrink(a) => coreval::cmd::shrink::run(a),
        Command::ShrinkJudge(a) => coreval::cmd::shrink::judge(a),
    };
    // No run is going on any more: the job slots' pid record files go.
    coreval::runner::remove_slot_files();
    coreval::runner::cgroup::release();
    coreval::process::trace::phase("exit");
    match result {
        Ok(code) => ExitCode::from(code),
        Err(err) => {
            eprintln!("Error: {err:#}");
            ExitCode::from(exit::TOOL_ERROR)
        }
    }
}
