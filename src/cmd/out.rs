//! What the subcommands print on stdout goes through one writer
//! ([`Stdout`], with the macros [`crate::out!`] and [`crate::outln!`] in
//! place of `print!` and `println!`): a closed stdout (`coreval … | head
//! -1`) ends the output quietly. What is left to print is dropped, the
//! command goes on to its end and exits with the code it would have had
//! (`coreval diff A B | head -1` still exits 1 on a regression, which
//! `set -o pipefail` sees); `println!` would panic there ("failed printing
//! to stdout: Broken pipe", with a backtrace). Any other error of stdout
//! (a full disk behind `> FILE`) is the command's error.
//!
//! `tests/closed_pipe.rs` runs every subcommand that prints into a closed
//! pipe and holds `src/` to this writer.

use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};

/// Set once a write found stdout closed: everything after it is dropped.
static CLOSED: AtomicBool = AtomicBool::new(false);

/// stdout, where a closed pipe is the end of the output, not an error.
#[derive(Clone, Copy, Debug, Default)]
pub struct Stdout;

/// The writer: `writeln!(cmd::out::stdout(), …)?`, or pass it where a
/// `Write` is wanted.
pub fn stdout() -> Stdout {
    Stdout
}

/// Whether stdout was found closed (the rest of the output dropped).
pub fn closed() -> bool {
    CLOSED.load(Ordering::Relaxed)
}

/// `r`, or nothing when stdout turns out closed (remembered).
fn unless_closed<T>(r: io::Result<T>, dropped: T) -> io::Result<T> {
    match r {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
            CLOSED.store(true, Ordering::Relaxed);
            Ok(dropped)
        }
        r => r,
    }
}

impl Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if closed() {
            return Ok(buf.len());
        }
        unless_closed(io::stdout().lock().write(buf), buf.len())
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        if closed() {
            return Ok(());
        }
        unless_closed(io::stdout().lock().write_all(buf), ())
    }

    fn flush(&mut self) -> io::Result<()> {
        if closed() {
            return Ok(());
        }
        unless_closed(io::stdout().lock().flush(), ())
    }
}

/// What [`crate::out!`] and [`crate::outln!`] call.
pub fn write_fmt(args: std::fmt::Arguments<'_>) -> io::Result<()> {
    Stdout.write_fmt(args)
}

/// `print!` that ends quietly on a closed stdout; an `io::Result` to `?`.
#[macro_export]
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::cmd::out::write_fmt(format_args!($($arg)*))
    };
}

/// `println!` that ends quietly on a closed stdout; an `io::Result` to `?`.
#[macro_export]
macro_rules! outln {
    () => {
        $crate::cmd::out::write_fmt(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::cmd::out::write_fmt(format_args!("{}\n", format_args!($($arg)*)))
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_broken_pipe_is_the_end_of_the_output_and_other_errors_stay() {
        let other = io::Error::new(io::ErrorKind::StorageFull, "disk full");
        assert!(unless_closed(Err::<usize, _>(other), 0).is_err());
        assert!(!closed());
        let pipe = io::Error::from(io::ErrorKind::BrokenPipe);
        assert_eq!(unless_closed(Err(pipe), 7).unwrap(), 7);
        assert!(closed());
        // Dropped from now on, without touching the real stdout.
        assert!(Stdout.write_all(b"after").is_ok());
        CLOSED.store(false, Ordering::Relaxed);
    }
}
