//! Input files are regular files. Opening a FIFO for reading blocks until a
//! writer appears (uninterruptibly, as far as Ctrl-C is concerned: the
//! signal only sets a flag the blocked thread never reads), and a device
//! such as `/dev/zero` reads forever. Every benchmark (or other input) is
//! therefore checked before it is opened, and opened with `O_NONBLOCK` so
//! that one swapped for a FIFO after the check cannot block either; the
//! opened file is checked again with `fstat`.

use std::fs::{File, Metadata, OpenOptions};
use std::io;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;

/// What a file that is not regular is, in words: `a FIFO`, `a socket`…
pub fn kind(meta: &Metadata) -> &'static str {
    let t = meta.file_type();
    if t.is_dir() {
        "a folder"
    } else if t.is_fifo() {
        "a FIFO"
    } else if t.is_socket() {
        "a socket"
    } else if t.is_char_device() {
        "a character device"
    } else if t.is_block_device() {
        "a block device"
    } else if t.is_file() {
        "a regular file"
    } else {
        "not a file"
    }
}

/// The error for a path that is not a regular file.
fn not_regular(meta: &Metadata) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("not a regular file ({})", kind(meta)),
    )
}

/// Open `path` for reading if it is a regular file (symbolic links are
/// followed); anything else is an `InvalidInput` error that says what it
/// is, without blocking.
pub fn open(path: &Path) -> io::Result<File> {
    let meta = std::fs::metadata(path)?;
    if !meta.is_file() {
        return Err(not_regular(&meta));
    }
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(not_regular(&meta));
    }
    // Back to blocking reads (no effect on a regular file, but plain).
    // SAFETY: fcntl(2) on a descriptor we own.
    unsafe {
        let fd = std::os::fd::AsRawFd::as_raw_fd(&file);
        let flags = libc::fcntl(fd, libc::F_GETFL);
        if flags >= 0 {
            libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK);
        }
    }
    Ok(file)
}

/// The whole content of the regular file `path` (see [`open`]).
pub fn read(path: &Path) -> io::Result<Vec<u8>> {
    let mut buf = Vec::new();
    io::Read::read_to_end(&mut open(path)?, &mut buf)?;
    Ok(buf)
}

/// The whole content of the regular file `path` as UTF-8 text.
pub fn read_to_string(path: &Path) -> io::Result<String> {
    String::from_utf8(read(path)?).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    #[test]
    fn a_fifo_is_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("b.smt2");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: mkfifo(3) with a valid C string.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
        let start = Instant::now();
        let e = open(&fifo).unwrap_err();
        assert!(e.to_string().contains("a FIFO"), "{e}");
        assert!(start.elapsed() < Duration::from_secs(2));
        let e = read(Path::new("/dev/zero")).unwrap_err();
        assert!(e.to_string().contains("character device"), "{e}");
        let f = dir.path().join("ok.smt2");
        std::fs::write(&f, "(check-sat)\n").unwrap();
        assert_eq!(read(&f).unwrap(), b"(check-sat)\n");
    }
}
