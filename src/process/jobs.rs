//! How many parallel jobs a command runs. `0` means one per available core;
//! a request beyond what the machine can use is capped at [`PER_CORE`]
//! jobs per available core, and at a quarter of the process limit
//! (`RLIMIT_NPROC`: each job is a thread and, while it runs, a trampoline
//! and a solver), with a note saying so. Huge values (`--jobs 100000`)
//! would otherwise start as many threads, and every stop would wait on
//! them.

/// Jobs per available core at most.
pub const PER_CORE: usize = 4;

/// The cores this process may use (`available_parallelism`, 1 if unknown).
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The most jobs this machine runs at once.
pub fn cap() -> usize {
    let mut limit = libc::rlimit {
        rlim_cur: libc::RLIM_INFINITY,
        rlim_max: libc::RLIM_INFINITY,
    };
    // SAFETY: getrlimit writes into a valid struct.
    let nproc = if unsafe { libc::getrlimit(libc::RLIMIT_NPROC, &mut limit) } == 0
        && limit.rlim_cur != libc::RLIM_INFINITY
    {
        usize::try_from(limit.rlim_cur / 4).unwrap_or(usize::MAX)
    } else {
        usize::MAX
    };
    (PER_CORE * cores()).min(nproc).max(1)
}

/// The jobs to run for a request of `requested` (0: one per core), and a
/// note when the request was capped.
pub fn resolve(requested: usize) -> (usize, Option<String>) {
    if requested == 0 {
        return (cores(), None);
    }
    let cap = cap();
    if requested <= cap {
        return (requested, None);
    }
    let note = format!(
        "jobs {requested} capped at {cap} ({PER_CORE} per available core, {} here; \
         at most a quarter of the process limit)",
        cores()
    );
    (cap, Some(note))
}

/// [`resolve`], the note (if any) printed on stderr: for the commands'
/// `--jobs` options and the campaign's `jobs`.
pub fn noted(requested: usize) -> usize {
    let (n, note) = resolve(requested);
    if let Some(note) = note {
        eprintln!("note: {note}");
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_is_one_per_core_and_huge_is_capped() {
        assert_eq!(resolve(0), (cores(), None));
        assert_eq!(resolve(1), (1, None));
        let (n, note) = resolve(4_000_000_000);
        assert_eq!(n, cap());
        assert!(n <= PER_CORE * cores());
        assert!(note.unwrap().contains("capped at"));
    }
}
