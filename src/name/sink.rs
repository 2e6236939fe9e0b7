//! The named output, made, hashed and written on a second thread.
//!
//! The fast path ([`super::fast`]) sends each read buffer it is done with
//! as a [`Batch`]: the input bytes and the [`Edit`]s that turn them into
//! the output (`(! ` and ` :named PN)` around each plain assertion's term,
//! or a command's whole output made by the byte scanner's pass). The
//! writing thread copies the unchanged bytes and the inserted ones into an
//! output chunk, hashes it (BLAKE3, whose SIMD code wants large inputs) and
//! writes it with one `write` call; a long unchanged run (a giant command)
//! is hashed and written straight from the input buffer. The rest of the
//! output (what the byte scanner writes after taking over) goes as plain
//! bytes through [`Sink`]'s [`Write`]. A giant assertion is sent in parts
//! after a checkpoint ([`Edit::Checkpoint`]: the output's length and hash
//! there), which [`Sink::rewind`] goes back to when its end shows that it
//! must be named another way. Buffers come back to be filled
//! again, so nothing is allocated per batch. The hash is of exactly the
//! bytes written, computed as they are written.

use super::rewriter::{Labels, PAD};
use std::fs::File;
use std::io::{self, Seek, SeekFrom, Write};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};

/// Bytes per output chunk.
const CHUNK: usize = 256 << 10;

/// Messages on their way to the writing thread.
const AHEAD: usize = 4;

/// An unchanged run at least this long is written from the input buffer
/// instead of being copied into the output chunk.
const DIRECT: usize = 1 << 20;

/// A run this short or shorter is copied as this many bytes at once.
const SHORT: usize = 128;

/// A change to the input bytes of a [`Batch`] (offsets into its input).
#[derive(Clone, Copy, Debug)]
pub(super) enum Edit {
    /// `(! ` before `input[s]`, ` :named PN)` of assertion `n` before
    /// `input[e]`.
    Assert { s: usize, e: usize, n: usize },
    /// `input[start..end]` becomes `side[from..to]`.
    Replace {
        start: usize,
        end: usize,
        from: usize,
        to: usize,
    },
    /// The output up to `input[at]` is final; what follows (a giant
    /// command sent in parts) may be taken back by [`Sink::rewind`].
    Checkpoint { at: usize },
    /// `(! ` before `input[s]` (a giant assertion's term starts).
    Open { s: usize },
    /// ` :named PN)` of assertion `n` before `input[e]` (its term ends).
    Label { e: usize, n: usize },
}

/// Input bytes `input[..to]` and the edits that make them the output.
#[derive(Default)]
pub(super) struct Batch {
    pub(super) input: Vec<u8>,
    pub(super) to: usize,
    /// In input order, disjoint.
    pub(super) edits: Vec<Edit>,
    /// The replacement bytes of [`Edit::Replace`].
    pub(super) side: Vec<u8>,
}

enum Msg {
    Bytes(Vec<u8>),
    Batch(Batch),
    /// Back to the last checkpoint: the output after it is cut off and
    /// the hash is the checkpoint's.
    Rewind,
}

/// The filling side.
pub(super) struct Sink {
    /// Plain bytes not sent yet.
    bytes: Vec<u8>,
    tx: Option<SyncSender<Msg>>,
    back: Receiver<Msg>,
    spare_bytes: Vec<Vec<u8>>,
    spare_batches: Vec<Batch>,
}

impl Sink {
    /// Take back what the writer is done with.
    fn collect(&mut self) {
        while let Ok(m) = self.back.try_recv() {
            match m {
                Msg::Bytes(b) => self.spare_bytes.push(b),
                Msg::Batch(b) => self.spare_batches.push(b),
                Msg::Rewind => {}
            }
        }
    }

    fn send(&mut self, m: Msg) -> io::Result<()> {
        match &self.tx {
            Some(tx) if tx.send(m).is_ok() => Ok(()),
            // The writer stopped on an error, which its join returns.
            _ => Err(io::Error::other("the output writer stopped")),
        }
    }

    /// Send the plain bytes (if any).
    fn send_bytes(&mut self) -> io::Result<()> {
        if self.bytes.is_empty() {
            return Ok(());
        }
        self.collect();
        let mut next = self
            .spare_bytes
            .pop()
            .unwrap_or_else(|| Vec::with_capacity(CHUNK));
        next.clear();
        let full = std::mem::replace(&mut self.bytes, next);
        self.send(Msg::Bytes(full))
    }

    /// An empty batch whose input buffer has `len` bytes (zeroed when
    /// new), for the next read.
    pub(super) fn batch(&mut self, len: usize) -> Batch {
        self.collect();
        let mut b = self.spare_batches.pop().unwrap_or_else(|| Batch {
            // About one edit per 64 bytes (small assertions).
            edits: Vec::with_capacity(len / 64),
            ..Batch::default()
        });
        b.input.resize(len, 0);
        b.to = 0;
        b.edits.clear();
        b.side.clear();
        b
    }

    /// Send `batch` to be made into output, after the plain bytes written
    /// before it.
    pub(super) fn send_batch(&mut self, batch: Batch) -> io::Result<()> {
        self.send_bytes()?;
        self.send(Msg::Batch(batch))
    }

    /// Take back the output sent after the last [`Edit::Checkpoint`].
    pub(super) fn rewind(&mut self) -> io::Result<()> {
        self.send_bytes()?;
        self.send(Msg::Rewind)
    }
}

impl Write for Sink {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        let room = CHUNK - self.bytes.len().min(CHUNK);
        if room == 0 {
            self.send_bytes()?;
            return self.write(data);
        }
        let n = data.len().min(room);
        self.bytes.extend_from_slice(&data[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The writing thread: makes, hashes and writes.
struct Writer<'f> {
    file: &'f mut File,
    hasher: blake3::Hasher,
    labels: Labels,
    /// The output chunk being made, `out[..len]`; the buffer has room for
    /// copies of a fixed size that run past what they copy.
    out: Vec<u8>,
    len: usize,
    /// The last checkpoint: the output's length and hash there.
    checkpoint: Option<(u64, blake3::Hasher)>,
}

impl Writer<'_> {
    /// Append `bytes`: hashed and written straight from where they are
    /// when they are [`DIRECT`] or more.
    fn put(&mut self, bytes: &[u8]) -> io::Result<()> {
        if bytes.len() >= DIRECT || self.len + bytes.len() > self.out.len() {
            self.flush()?;
            if bytes.len() > self.out.len() / 2 {
                self.hasher.update(bytes);
                return self.file.write_all(bytes);
            }
        }
        self.out[self.len..self.len + bytes.len()].copy_from_slice(bytes);
        self.len += bytes.len();
        Ok(())
    }

    /// Append `src[from..to]`: a short run (a small assertion's head or
    /// term) as one copy of [`SHORT`] bytes, which the next copy
    /// overwrites past the run (no call per run).
    #[inline]
    fn put_run(&mut self, src: &[u8], from: usize, to: usize) -> io::Result<()> {
        let (o, n) = (self.len, to - from);
        if n <= SHORT && from + SHORT <= src.len() && o + SHORT <= self.out.len() {
            self.out[o..o + SHORT].copy_from_slice(&src[from..from + SHORT]);
            self.len += n;
            return Ok(());
        }
        self.put(&src[from..to])
    }

    fn flush(&mut self) -> io::Result<()> {
        let out = &self.out[..self.len];
        self.hasher.update(out);
        self.file.write_all(out)?;
        self.len = 0;
        Ok(())
    }

    fn batch(&mut self, b: &Batch) -> io::Result<()> {
        let mut pos = 0;
        for edit in &b.edits {
            match *edit {
                Edit::Assert { s, e, n } => {
                    self.put_run(&b.input, pos, s)?;
                    self.put_open()?;
                    self.put_run(&b.input, s, e)?;
                    self.put_label(n)?;
                    pos = e;
                }
                Edit::Replace {
                    start,
                    end,
                    from,
                    to,
                } => {
                    self.put(&b.input[pos..start])?;
                    self.put(&b.side[from..to])?;
                    pos = end;
                }
                Edit::Checkpoint { at } => {
                    self.put(&b.input[pos..at])?;
                    self.flush()?;
                    let len = self.file.stream_position()?;
                    self.checkpoint = Some((len, self.hasher.clone()));
                    pos = at;
                }
                Edit::Open { s } => {
                    self.put(&b.input[pos..s])?;
                    self.put_open()?;
                    pos = s;
                }
                Edit::Label { e, n } => {
                    self.put(&b.input[pos..e])?;
                    self.put_label(n)?;
                    pos = e;
                }
            }
        }
        self.put(&b.input[pos..b.to])?;
        self.flush()
    }

    /// `(! `, copied as 3 bytes (no call).
    #[inline]
    fn put_open(&mut self) -> io::Result<()> {
        if self.len + 3 > self.out.len() {
            self.flush()?;
        }
        self.out[self.len..self.len + 3].copy_from_slice(b"(! ");
        self.len += 3;
        Ok(())
    }

    /// ` :named PN)` of assertion `n`.
    #[inline]
    fn put_label(&mut self, n: usize) -> io::Result<()> {
        if self.len + self.labels.longest() + PAD > self.out.len() {
            self.flush()?;
        }
        self.len += self.labels.write(n, &mut self.out[self.len..]);
        Ok(())
    }

    /// Back to the last checkpoint.
    fn rewind(&mut self) -> io::Result<()> {
        let (len, hasher) = self
            .checkpoint
            .take()
            .ok_or_else(|| io::Error::other("no checkpoint to go back to"))?;
        self.len = 0;
        self.file.set_len(len)?;
        self.file.seek(SeekFrom::Start(len))?;
        self.hasher = hasher;
        Ok(())
    }
}

/// Reserve `len` bytes of disk for `file` from its start, its size left as
/// it is (`fallocate` with `FALLOC_FL_KEEP_SIZE`): the writes then fill
/// blocks already allocated instead of reserving them one by one (on ext4,
/// about a quarter of a large write's CPU time). Whether blocks may have
/// been reserved (not on every file system; some on a full disk): the
/// caller then cuts off what is left over with `set_len` at the end of
/// what it wrote.
pub(super) fn reserve(file: &File, len: u64) -> bool {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        let Ok(len) = libc::off_t::try_from(len) else {
            return false;
        };
        // SAFETY: a plain system call on the descriptor of an open file;
        // no memory is passed.
        let r = unsafe { libc::fallocate(file.as_raw_fd(), libc::FALLOC_FL_KEEP_SIZE, 0, len) };
        r == 0 || io::Error::last_os_error().raw_os_error() == Some(libc::ENOSPC)
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (file, len);
        false
    }
}

/// Run `fill` with a [`Sink`] whose bytes go to `file` (from its current
/// position) and into a BLAKE3 hash, labels with `prefix`; returns what
/// `fill` returned and the hash (hex) of everything written. An error of
/// `fill` or of the writes is returned once the writer has stopped.
pub(super) fn with_sink<T, E: From<io::Error>>(
    file: &mut File,
    prefix: &[u8],
    fill: impl FnOnce(&mut Sink) -> Result<T, E>,
) -> Result<(T, String), E> {
    let (tx, rx) = sync_channel::<Msg>(AHEAD);
    let (back_tx, back) = sync_channel::<Msg>(2 * AHEAD + 4);
    let labels = Labels::new(prefix);
    std::thread::scope(|scope| {
        let writer = std::thread::Builder::new().name("coreval-write".into());
        let writer = writer.spawn_scoped(scope, move || -> io::Result<blake3::Hasher> {
            let mut w = Writer {
                file,
                hasher: blake3::Hasher::new(),
                labels,
                out: vec![0; CHUNK + (CHUNK >> 2)],
                len: 0,
                checkpoint: None,
            };
            for m in rx {
                match &m {
                    Msg::Bytes(b) => {
                        w.put(b)?;
                        w.flush()?;
                    }
                    Msg::Batch(b) => w.batch(b)?,
                    Msg::Rewind => w.rewind()?,
                }
                let _ = back_tx.try_send(m);
            }
            Ok(w.hasher)
        })?;
        let mut sink = Sink {
            bytes: Vec::with_capacity(CHUNK),
            tx: Some(tx),
            back,
            spare_bytes: Vec::new(),
            spare_batches: Vec::new(),
        };
        let filled = fill(&mut sink).and_then(|t| {
            sink.send_bytes()?;
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
