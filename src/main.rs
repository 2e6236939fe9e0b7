//! The `coreval` binary: parse arguments, call the subcommand, map the
//! result to a documented exit code (`Error: …` and 2 for tool errors).

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

/// mimalloc's `mi_option_purge_delay` and `mi_option_allow_thp`
/// (mimalloc.h, v2; the `-sys` crate names no constant for them).
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;
const MI_OPTION_ALLOW_THP: libmimalloc_sys::mi_option_t = 37;

fn main() -> ExitCode {
    // Pages freed by one thread go back to the system after 10 ms instead
    // of mimalloc's default 1 s: what the naming and parsing threads free
    // is otherwise still resident when the next stage allocates (a
    // 100 000-pair `run` with nothing to do: 174 → 134 MB, same time).
    // SAFETY: sets a global option; no allocation depends on its value.
    // `MIMALLOC_PURGE_DELAY` in the environment, mimalloc's own setting,
    // still wins.
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
        unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, 10) };
    }
    // No transparent huge pages for coreval's heap: with pages given back
    // after 10 ms, each 2 MiB page taken again is cleared whole by the
    // kernel (a million-pair `run` with nothing to do: 3.8–4.7 → 2.5–2.9 s
    // of system time, 20 MB less at the peak). Solvers are not concerned:
    // this is mimalloc's setting, not the process's.
    if std::env::var_os("MIMALLOC_ALLOW_THP").is_none() {
        // SAFETY: as above.
        unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_ALLOW_THP, 0) };
    }
    // Started as the runner's trampoline: do that and exit.
    coreval::runner::trampoline_main();
    // Runs go through a trampoline, so that what they measure is the
    // solver's own (`runner/trampoline.rs`): `coreval-trampoline` beside
    // this executable, or this executable again.
    let exe = std::env::current_exe().ok();
    coreval::runner::use_trampoline(coreval::runner::trampoline_for(exe.as_deref()));
    coreval::trace::phase("main");
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
        Command::Show(a) => coreval::cmd::show::run(a),
        Command::Diff(a) => coreval::cmd::diff::run(a),
        Command::Shrink(a) => coreval::cmd::shrink::run(a),
        Command::ShrinkJudge(a) => coreval::cmd::shrink::judge(a),
    };
    // No run is going on any more: the job slots' pid record files go.
    coreval::runner::remove_slot_files();
    coreval::trace::phase("exit");
    match result {
        Ok(code) => ExitCode::from(code),
        Err(err) => {
            if is_broken_pipe(&err) {
                return ExitCode::from(exit::OK);
            }
            eprintln!("Error: {err:#}");
            ExitCode::from(exit::TOOL_ERROR)
        }
    }
}

/// A closed pipe on stdout (`coreval … | head`) is not an error.
fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|e| {
        e.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
