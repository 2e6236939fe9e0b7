//! Choosing a name prefix that cannot clash with the file's own symbols.
//!
//! Names are `P1 … PA`. A prefix `P` is safe when the bytes of `P` followed
//! by an ASCII digit occur nowhere in the file. The check is byte-level
//! (one `memchr::memmem` pass), so it is conservative: it also refuses a
//! prefix whose names merely appear in a comment, a string literal or inside
//! a quoted symbol (`|x smtcomp1|`), and it needs no symbol table. Since
//! `PN` never occurs, neither `PN` nor `|PN|` can be a symbol of the file,
//! nor an existing `:named` name.

use crate::smtlib::symbol::is_symbol_byte;
use std::io::{self, Read, Seek, SeekFrom};
use std::sync::atomic::{AtomicBool, Ordering};

/// Automatic prefixes, tried in order; then `cv` followed by letters.
const CANDIDATES: &[&str] = &["cv", "cv_", "cvx", "cv_x", "cvn", "cv_n", "cvq", "cv_q"];

/// The automatic prefix of almost every file.
pub const FIRST: &str = CANDIDATES[0];

/// A reader that watches the bytes passing through it for a prefix
/// followed by a digit (see the module documentation), for a rewrite that
/// goes ahead with a prefix before having read the whole file. It searches
/// each block once as it is read, keeping the last bytes of the previous
/// block so that a match across two blocks is seen.
pub struct Watch<'s, R> {
    inner: R,
    /// `None`: a plain pass-through reader.
    finder: Option<memchr::memmem::Finder<'static>>,
    /// The end of the previous block (at most the prefix's length).
    tail: Vec<u8>,
    window: Vec<u8>,
    /// Set once the prefix followed by a digit went through (a prefix at
    /// the very end of a block is decided with the next one).
    seen: &'s AtomicBool,
}

impl<'s, R: Read> Watch<'s, R> {
    pub fn new(inner: R, prefix: Option<&str>, seen: &'s AtomicBool) -> Self {
        Watch {
            inner,
            finder: prefix.map(|p| memchr::memmem::Finder::new(p.as_bytes()).into_owned()),
            tail: Vec::new(),
            window: Vec::new(),
            seen,
        }
    }

    fn watch(&mut self, block: &[u8]) {
        let Some(finder) = &self.finder else {
            return;
        };
        let len = finder.needle().len();
        let hit = |bytes: &[u8]| {
            finder
                .find_iter(bytes)
                .any(|p| bytes.get(p + len).is_some_and(u8::is_ascii_digit))
        };
        let found = if self.tail.is_empty() {
            hit(block)
        } else {
            // Only the junction needs the copy; the block is searched in place.
            let head = &block[..block.len().min(len)];
            self.window.clear();
            self.window.extend_from_slice(&self.tail);
            self.window.extend_from_slice(head);
            hit(&self.window) || hit(block)
        };
        if found {
            self.seen.store(true, Ordering::Relaxed);
        }
        let keep = block.len().min(len);
        if keep == len || self.tail.len() + keep > len {
            let mut t = std::mem::take(&mut self.tail);
            t.extend_from_slice(&block[block.len() - keep..]);
            let cut = t.len().saturating_sub(len);
            t.drain(..cut);
            self.tail = t;
        } else {
            self.tail.extend_from_slice(block);
        }
    }
}

impl<R: Read> Read for Watch<'_, R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(out)?;
        self.watch(&out[..n]);
        Ok(n)
    }
}

/// Going back in the input: the bytes read before are not watched again
/// across the jump (a match across it would be no match of the file).
impl<R: Seek> Seek for Watch<'_, R> {
    fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        self.tail.clear();
        self.inner.seek(pos)
    }
}

/// Why no prefix could be used.
#[derive(Debug)]
pub enum PrefixError {
    /// The prefix is not the start of a simple symbol.
    Invalid(String),
    /// `found` (the prefix followed by a digit) occurs at byte `offset`.
    Clash {
        offset: u64,
        found: String,
    },
    Io(io::Error),
}

impl From<io::Error> for PrefixError {
    fn from(e: io::Error) -> Self {
        PrefixError::Io(e)
    }
}

/// Check that `p` can start simple symbols: non-empty, simple-symbol bytes
/// only, no leading digit. (`P` followed by digits is then never a reserved
/// word either.)
pub fn validate(p: &str) -> Result<(), String> {
    let b = p.as_bytes();
    if b.is_empty() {
        return Err("the prefix is empty".into());
    }
    if b[0].is_ascii_digit() {
        return Err("a symbol cannot start with a digit".into());
    }
    if let Some(&c) = b.iter().find(|&&c| !is_symbol_byte(c)) {
        return Err(format!(
            "'{}' cannot appear in a simple symbol",
            (c as char).escape_default()
        ));
    }
    Ok(())
}

/// The `k`-th generated candidate after [`CANDIDATES`]: `cv` and `k` in
/// base 26 letters (`cva`, `cvb`, …, `cvba`, …).
fn generated(mut k: usize) -> String {
    let mut s = Vec::new();
    loop {
        s.push(b'a' + (k % 26) as u8);
        k /= 26;
        if k == 0 {
            break;
        }
    }
    s.reverse();
    format!("cv{}", String::from_utf8(s).expect("ascii"))
}

/// Read `input` from its current position to the end and return the
/// prefix: `wanted` if it does not clash, else the clash; without `wanted`
/// the first automatic candidate that does not clash (when a whole batch
/// clashes — a file written to defeat them — the input is read again with
/// the next batch). Offsets in errors are relative to the start position.
pub fn choose<R: Read + Seek>(input: &mut R, wanted: Option<&str>) -> Result<String, PrefixError> {
    let start = input.stream_position()?;
    if let Some(p) = wanted {
        validate(p).map_err(PrefixError::Invalid)?;
        let hits = first_clashes(&mut *input, &[p.to_string()])?;
        return match hits.into_iter().next().flatten() {
            None => Ok(p.to_string()),
            Some((offset, found)) => Err(PrefixError::Clash { offset, found }),
        };
    }
    let mut batch: Vec<String> = CANDIDATES.iter().map(|s| s.to_string()).collect();
    let mut next = 0;
    loop {
        input.seek(SeekFrom::Start(start))?;
        let hits = first_clashes(&mut *input, &batch)?;
        if let Some(i) = hits.iter().position(|h| h.is_none()) {
            return Ok(batch.swap_remove(i));
        }
        batch = (next..next + 64).map(generated).collect();
        next += 64;
    }
}

/// For each candidate, the first offset where it is followed by a digit
/// (and the symbol found there), in one pass over `input`.
fn first_clashes<R: Read>(
    mut input: R,
    candidates: &[String],
) -> io::Result<Vec<Option<(u64, String)>>> {
    let mut hits: Vec<Option<(u64, String)>> = vec![None; candidates.len()];
    let common = common_prefix(candidates);
    let finder = memchr::memmem::Finder::new(common.as_bytes());
    let longest = candidates.iter().map(|c| c.len()).max().unwrap_or(0);
    // The window keeps the last `keep` bytes of the previous block so that
    // a candidate and its digit across a block boundary are seen.
    let keep = longest;
    const BLOCK: usize = 1 << 20;
    let mut buf = vec![0u8; BLOCK + keep + 64];
    let mut filled = 0; // bytes of the window in `buf`
    let mut base = 0u64; // absolute offset of buf[0]
    loop {
        let n = read_full(&mut input, &mut buf[filled..filled + BLOCK])?;
        let end = filled + n;
        let at_eof = n == 0;
        let window = &buf[..end];
        for p in finder.find_iter(window) {
            for (i, c) in candidates.iter().enumerate() {
                if hits[i].is_some() {
                    continue;
                }
                let c = c.as_bytes();
                let d = p + c.len();
                if d < end && window[p..].starts_with(c) && window[d].is_ascii_digit() {
                    let mut e = d;
                    while e < end && is_symbol_byte(window[e]) && e - p < 80 {
                        e += 1;
                    }
                    let found = String::from_utf8_lossy(&window[p..e]).into_owned();
                    hits[i] = Some((base + p as u64, found));
                }
            }
        }
        if at_eof || hits.iter().all(|h| h.is_some()) {
            return Ok(hits);
        }
        let tail = end.saturating_sub(keep);
        buf.copy_within(tail..end, 0);
        base += tail as u64;
        filled = end - tail;
    }
}

/// Fill as much of `out` as the input gives before its end.
fn read_full<R: Read>(input: &mut R, out: &mut [u8]) -> io::Result<usize> {
    let mut n = 0;
    while n < out.len() {
        match input.read(&mut out[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

fn common_prefix(c: &[String]) -> String {
    let first = c[0].as_bytes();
    let mut len = first.len();
    for s in &c[1..] {
        len = len.min(
            first
                .iter()
                .zip(s.as_bytes())
                .take_while(|(a, b)| a == b)
                .count(),
        );
    }
    c[0][..len.max(1).min(first.len())].to_string()
}

/// 1-based line and column of byte `offset` of `input`.
pub fn locate<R: Read>(mut input: R, offset: u64) -> io::Result<(u64, u64)> {
    let mut buf = vec![0u8; 1 << 16];
    let (mut line, mut line_start, mut pos) = (1u64, 0u64, 0u64);
    while pos < offset {
        let want = ((offset - pos) as usize).min(buf.len());
        let n = input.read(&mut buf[..want])?;
        if n == 0 {
            break;
        }
        for nl in memchr::memchr_iter(b'\n', &buf[..n]) {
            line += 1;
            line_start = pos + nl as u64 + 1;
        }
        pos += n as u64;
    }
    Ok((line, offset - line_start + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pick(src: &str, wanted: Option<&str>) -> Result<String, PrefixError> {
        choose(&mut io::Cursor::new(src.as_bytes()), wanted)
    }

    #[test]
    fn first_free_candidate() {
        assert_eq!(pick("(assert p)", None).unwrap(), "cv");
        assert_eq!(pick("(assert cv1)", None).unwrap(), "cv_");
        assert_eq!(pick("; cv1 cv_2\n(assert |cvx3|)", None).unwrap(), "cv_x");
        // `cv` followed by a non-digit does not clash.
        assert_eq!(pick("(assert cvc5)", None).unwrap(), "cv");
    }

    #[test]
    fn generated_candidates_after_a_hostile_file() {
        let mut src = String::new();
        for c in CANDIDATES {
            src.push_str(&format!("{c}0 "));
        }
        assert_eq!(pick(&src, None).unwrap(), "cva");
        src.push_str("cva7");
        assert_eq!(pick(&src, None).unwrap(), "cvb");
        assert_eq!(generated(26), "cvba");
    }

    #[test]
    fn fixed_prefix_reports_the_clash() {
        let src = "(declare-fun x () Int)\n(assert (= |smtcomp12| x))";
        match pick(src, Some("smtcomp")) {
            Err(PrefixError::Clash { offset, found }) => {
                assert_eq!(found, "smtcomp12");
                assert_eq!(locate(src.as_bytes(), offset).unwrap(), (2, 13));
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(pick(src, Some("smt")).unwrap(), "smt");
        assert!(matches!(
            pick(src, Some("smtcomp1")),
            Err(PrefixError::Clash { .. })
        ));
        assert!(matches!(
            pick(src, Some("1a")),
            Err(PrefixError::Invalid(_))
        ));
        assert!(matches!(
            pick(src, Some("a b")),
            Err(PrefixError::Invalid(_))
        ));
    }

    #[test]
    fn watch_sees_a_clash_across_reads() {
        use std::io::Read;
        for split in 0..8 {
            let src = b"(a cv1)";
            let seen = AtomicBool::new(false);
            let mut w = Watch::new(&src[..], Some("cv"), &seen);
            let mut out = [0u8; 16];
            // Two reads, split anywhere.
            let n = w.read(&mut out[..split.min(src.len())]).unwrap();
            assert!(n == split.min(src.len()));
            while w.read(&mut out).unwrap() > 0 {}
            assert!(seen.load(Ordering::Relaxed), "split at {split}");
        }
        for (src, prefix) in [(&b"(a cvc5) cv"[..], Some("cv")), (b"(a cv1)", None)] {
            let seen = AtomicBool::new(false);
            let mut w = Watch::new(src, prefix, &seen);
            let mut out = [0u8; 3];
            while w.read(&mut out).unwrap() > 0 {}
            assert!(!seen.load(Ordering::Relaxed));
        }
    }

    #[test]
    fn clash_across_block_boundary() {
        let mut src = vec![b' '; (1 << 20) - 1];
        src.extend_from_slice(b"cv7");
        assert_eq!(choose(&mut io::Cursor::new(&src), None).unwrap(), "cv_");
        let mut src = vec![b' '; (1 << 20) - 2];
        src.extend_from_slice(b"cv");
        assert_eq!(choose(&mut io::Cursor::new(&src), None).unwrap(), "cv");
    }
}
