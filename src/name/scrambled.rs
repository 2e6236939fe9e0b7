//! `coreval name --scramble SEED`: each benchmark is scrambled
//! ([`crate::scramble`]) into a temporary file beside its output, and that
//! file is named instead of the original, so solvers only ever see the
//! scrambled, named version. The scrambler removes `(set-info :status …)`
//! (it must not reach solvers); the status kept in the descrambling map is
//! the one the eligibility check reads ([`super::NameOptions::known_status`]).
//! The map is written beside the named benchmark (`x.smt2` →
//! `x.descramble.json`): the named file's assertion N is the scrambled
//! file's assertion N, so the map takes a core back to the original
//! positions.

use crate::scramble::{scramble_to, ScrambleError, ScrambleOptions};
use std::path::Path;

/// Scramble `src` into `tmp`. `Ok(Err(why))`: the benchmark cannot be
/// scrambled (unreadable, malformed); `Err`: writing `tmp` failed (the
/// tool's failure: full or read-only disk), and `tmp` is gone.
pub fn scramble(
    src: &Path,
    tmp: &Path,
    opts: &ScrambleOptions,
) -> std::io::Result<Result<crate::scramble::DescrambleMap, String>> {
    match scramble_to(src, tmp, opts) {
        Ok(map) => Ok(Ok(map)),
        Err(e) => {
            let _ = std::fs::remove_file(tmp);
            let write_failure = e.chain().any(|c| {
                let io = c.downcast_ref::<std::io::Error>().or_else(|| {
                    match c.downcast_ref::<ScrambleError>() {
                        Some(ScrambleError::Io(io)) => Some(io),
                        _ => None,
                    }
                });
                io.is_some_and(crate::store::journal::is_write_failure)
            });
            if write_failure {
                Err(std::io::Error::other(format!("{e:#}")))
            } else {
                Ok(Err(format!("cannot scramble: {e:#}")))
            }
        }
    }
}

/// The part of an index entry's settings that scrambling adds (a change
/// of seed or transformation names every benchmark again).
pub fn settings(o: &ScrambleOptions) -> String {
    format!(
        ";scramble-seed={};shuffle={};rename={};commute={};window={}",
        o.seed, o.shuffle, o.rename, o.commute, o.window
    )
}
