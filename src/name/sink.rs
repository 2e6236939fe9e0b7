//! The named output, written and hashed on a second thread: the fast path
//! ([`super::fast`]) fills chunks of [`CHUNK`] bytes ([`Sink`]), and a
//! thread hashes each (BLAKE3, whose SIMD code wants large inputs) and
//! writes it with one `write` call, then hands the emptied chunk back to be
//! filled again. The hash is of exactly the bytes written, computed as they
//! are written, with no second read of the file.

use std::fs::File;
use std::io::{self, Write};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};

/// Bytes per chunk.
const CHUNK: usize = 256 << 10;

/// Chunks on their way to the writing thread.
const AHEAD: usize = 4;

/// Chunks in all: the one being filled, those on their way, the one being
/// written. They are made once and reused: a chunk freed and allocated
/// again costs fresh pages, zeroed by the kernel.
const CHUNKS: usize = AHEAD + 2;

/// The filling side: a [`Write`] that sends full chunks to the writer.
pub(super) struct Sink {
    buf: Vec<u8>,
    /// Chunks made so far.
    made: usize,
    tx: Option<SyncSender<Vec<u8>>>,
    back: Receiver<Vec<u8>>,
}

impl Sink {
    /// Send the current chunk (if it holds anything) and start another.
    fn send(&mut self) -> io::Result<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        // A chunk the writer is done with, or a new one while fewer than
        // `CHUNKS` exist (then the writer hands one back soon).
        let back = match self.made < CHUNKS {
            true => self.back.try_recv().ok(),
            false => self.back.recv().ok(),
        };
        let next = match back {
            Some(mut b) => {
                b.clear();
                b
            }
            None => {
                self.made += 1;
                Vec::with_capacity(CHUNK)
            }
        };
        let full = std::mem::replace(&mut self.buf, next);
        match &self.tx {
            Some(tx) if tx.send(full).is_ok() => Ok(()),
            // The writer stopped on an error, which its join returns.
            _ => Err(io::Error::other("the output writer stopped")),
        }
    }
}

impl Write for Sink {
    #[inline]
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        let room = CHUNK - self.buf.len();
        if data.len() <= room {
            self.buf.extend_from_slice(data);
            return Ok(data.len());
        }
        self.buf.extend_from_slice(&data[..room]);
        self.send()?;
        Ok(room)
    }

    #[inline]
    fn write_all(&mut self, mut data: &[u8]) -> io::Result<()> {
        if data.len() <= CHUNK - self.buf.len() {
            self.buf.extend_from_slice(data);
            return Ok(());
        }
        while !data.is_empty() {
            let n = self.write(data)?;
            data = &data[n..];
        }
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Run `fill` with a [`Sink`] whose bytes go to `file` (from its current
/// position) and into a BLAKE3 hash; returns what `fill` returned and the
/// hash (hex) of everything written. An error of `fill` or of the writes
/// is returned once the writer has stopped.
pub(super) fn with_sink<T, E: From<io::Error>>(
    file: &mut File,
    fill: impl FnOnce(&mut Sink) -> Result<T, E>,
) -> Result<(T, String), E> {
    let (tx, rx) = sync_channel::<Vec<u8>>(AHEAD);
    let (back_tx, back) = sync_channel::<Vec<u8>>(CHUNKS);
    std::thread::scope(|scope| {
        let writer = scope.spawn(move || -> io::Result<blake3::Hasher> {
            let mut hasher = blake3::Hasher::new();
            for chunk in rx {
                hasher.update(&chunk);
                file.write_all(&chunk)?;
                let _ = back_tx.try_send(chunk);
            }
            Ok(hasher)
        });
        let mut sink = Sink {
            buf: Vec::with_capacity(CHUNK),
            made: 1,
            tx: Some(tx),
            back,
        };
        let filled = fill(&mut sink).and_then(|t| {
            sink.send()?;
            Ok(t)
        });
        sink.tx = None; // ends the writer's loop
        let written = match writer.join() {
            Ok(w) => w,
            Err(panic) => std::panic::resume_unwind(panic),
        };
        match (filled, written) {
            (Ok(t), Ok(hasher)) => Ok((t, hasher.finalize().to_hex().to_string())),
            // The writer's error explains a fill that stopped on it.
            (_, Err(e)) => Err(e.into()),
            (Err(e), Ok(_)) => Err(e),
        }
    })
}
