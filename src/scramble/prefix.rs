//! The prefix of the scrambler's fresh names: one that, followed by a
//! digit, occurs nowhere in the input (see [`super::symtab`] for why that
//! makes fresh names collision-free), chosen by one pass over the bytes,
//! and the check the scrambler repeats on every command it reads.

use std::io::{self, Read};

/// Candidate prefixes in order of preference: `x_`, `y_`, `z_`, `v_`, `w_`,
/// `u_`, …, then two letters and `_`.
fn candidates() -> Vec<Vec<u8>> {
    let letters: Vec<u8> = b"xyzvwutsrqponmlkjihgfedcba".to_vec();
    let mut out: Vec<Vec<u8>> = letters.iter().map(|&l| vec![l, b'_']).collect();
    for &a in &letters {
        for &b in &letters {
            out.push(vec![a, b, b'_']);
        }
    }
    out
}

/// Whether `prefix` followed by an ASCII digit occurs in `bytes`.
pub fn occurs_with_digit(prefix: &[u8], bytes: &[u8]) -> bool {
    PrefixFinder::new(prefix).occurs_in(bytes)
}

/// A prebuilt search for "prefix followed by a digit".
pub struct PrefixFinder {
    finder: memchr::memmem::Finder<'static>,
    len: usize,
}

impl PrefixFinder {
    pub fn new(prefix: &[u8]) -> Self {
        PrefixFinder {
            finder: memchr::memmem::Finder::new(prefix).into_owned(),
            len: prefix.len(),
        }
    }

    pub fn occurs_in(&self, bytes: &[u8]) -> bool {
        self.finder
            .find_iter(bytes)
            .any(|at| bytes.get(at + self.len).is_some_and(|b| b.is_ascii_digit()))
    }
}

/// The first candidate prefix that, followed by a digit, occurs nowhere in
/// the input. One pass over the bytes; each `_` followed by a digit blocks
/// the candidates ending there.
pub fn choose_prefix<R: Read>(mut reader: R) -> io::Result<String> {
    let mut blocked1 = [false; 256];
    let mut blocked2: std::collections::HashSet<[u8; 2]> = Default::default();
    let mut buf = vec![0u8; 1 << 20];
    // The last three bytes of the previous block, then the block.
    let mut carry: Vec<u8> = Vec::with_capacity(3);
    let mut win: Vec<u8> = Vec::with_capacity(buf.len() + 3);
    loop {
        let n = match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        win.clear();
        win.extend_from_slice(&carry);
        win.extend_from_slice(&buf[..n]);
        // Positions p with win[p] == b'_' and win[p+1] a digit.
        for p in memchr::memchr_iter(b'_', &win) {
            if !win.get(p + 1).is_some_and(|b| b.is_ascii_digit()) {
                continue;
            }
            if p >= 1 {
                blocked1[win[p - 1] as usize] = true;
            }
            if p >= 2 {
                blocked2.insert([win[p - 2], win[p - 1]]);
            }
        }
        let keep = win.len().min(3);
        carry = win[win.len() - keep..].to_vec();
    }
    candidates()
        .into_iter()
        .find(|c| match c.len() {
            2 => !blocked1[c[0] as usize],
            _ => !blocked2.contains(&[c[0], c[1]]),
        })
        .map(|c| String::from_utf8(c).unwrap())
        .ok_or_else(|| {
            io::Error::other("every candidate prefix for fresh names occurs in the file")
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefix_avoids_the_file() {
        assert_eq!(choose_prefix(&b"(declare-fun x () Int)"[..]).unwrap(), "x_");
        assert_eq!(
            choose_prefix(&b"(declare-fun x_1 () Int)"[..]).unwrap(),
            "y_"
        );
        // A match split across the carry is still found.
        let mut text = vec![b' '; (1 << 20) - 1];
        text.extend_from_slice(b"x_9 y_1 z_0 v_x");
        assert_eq!(choose_prefix(&text[..]).unwrap(), "v_");
        assert!(occurs_with_digit(b"x_", b"ab x_12"));
        assert!(!occurs_with_digit(b"x_", b"ab x_ x_a"));
    }

    #[test]
    fn two_letter_fallback() {
        let mut text = Vec::new();
        for l in b'a'..=b'z' {
            text.extend_from_slice(&[l, b'_', b'1', b' ']);
        }
        assert_eq!(choose_prefix(&text[..]).unwrap(), "xx_");
        text.extend_from_slice(b"xx_1");
        assert_eq!(choose_prefix(&text[..]).unwrap(), "xy_");
    }
}
