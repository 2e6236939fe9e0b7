//! The per-command part of naming ([`Rewriter`]): what each command
//! becomes in the named script, given what the [`Analyzer`](crate::benchmark::Analyzer)
//! observed about it; shared by the byte scanner's pass and the block
//! scanner's fast path ([`super::fast`]).

use crate::benchmark::{Class, NamedAttr, NamedPolicy, Observation};
use crate::smtlib::scanner::Command;
use std::collections::HashSet;
use std::io::{self, Write};

/// The per-command part of the rewrite.
pub(super) struct Rewriter<'p> {
    pub(super) prefix: &'p [u8],
    pub(super) policy: NamedPolicy,
    pub(super) option_written: bool,
    pub(super) kept: Vec<(usize, String)>,
    pub(super) labels: Labels,
    /// Ask for unsat assumptions (an incremental script with
    /// `check-sat-assuming`, see [`asks_assumptions`]).
    pub(super) assumptions: bool,
}

impl Rewriter<'_> {
    pub(super) fn write<W: Write>(
        &mut self,
        out: &mut W,
        cmd: &Command,
        obs: &Observation,
    ) -> io::Result<()> {
        let text = &cmd.text;
        let named = &obs.named;
        if !self.option_written && !obs.preamble {
            out.write_all(b"(set-option :produce-unsat-cores true)\n")?;
            if self.assumptions {
                out.write_all(b"(set-option :produce-unsat-assumptions true)\n")?;
            }
            self.option_written = true;
        }
        if self.assumptions && is_option(text, b":produce-unsat-assumptions") {
            return Ok(());
        }
        let strip = if self.policy == NamedPolicy::Strip {
            strip_spans(named)
        } else {
            Vec::new()
        };
        match obs.class {
            Class::Remove | Class::GetUnsatCore => Ok(()),
            Class::CheckSat => {
                out.write_all(text)?;
                out.write_all(b"\n(get-unsat-core)")
            }
            Class::CheckSatAssuming => {
                write_without(out, text, (0, text.len()), &strip)?;
                out.write_all(b"\n(get-unsat-assumptions)")
            }
            Class::Assert => {
                if self.policy == NamedPolicy::Keep {
                    if let Some(a) = named.iter().find(|a| a.top_level) {
                        self.kept.push((obs.assertion, a.name.clone()));
                        return out.write_all(text);
                    }
                }
                self.assert(out, text, obs.term, obs.assertion, &strip)
            }
            Class::SetLogic | Class::Keep => write_without(out, text, (0, text.len()), &strip),
        }
    }
}

impl Rewriter<'_> {
    /// Assertion `number`, `text`, as `(! term :named PN)` around its term
    /// `text[s..e]`, without the `strip` spans.
    pub(super) fn assert<W: Write>(
        &mut self,
        out: &mut W,
        text: &[u8],
        (s, e): (usize, usize),
        number: usize,
        strip: &[(usize, usize)],
    ) -> io::Result<()> {
        out.write_all(&text[..s])?;
        out.write_all(b"(! ")?;
        write_without(out, text, (s, e), strip)?;
        out.write_all(self.label(number))?;
        out.write_all(&text[e..])
    }

    /// ` :named PN)` for assertion `number`.
    #[inline]
    pub(super) fn label(&mut self, number: usize) -> &[u8] {
        self.labels.label(number)
    }
}

/// The ` :named PN)` that closes assertion N. Assertions are numbered one
/// after the other, so the next label costs an increment of its digits in
/// place, not a conversion.
#[derive(Clone)]
pub(super) struct Labels {
    /// ` :named P`, then the digits of `value` and `)` (up to `end`), then
    /// [`PAD`] zero bytes.
    label: Vec<u8>,
    head: usize,
    end: usize,
    value: usize,
}

/// Bytes after a label, so that a copy of this fixed size takes a short
/// label whole ([`Labels::write`]).
pub(super) const PAD: usize = 32;

impl Labels {
    pub(super) fn new(prefix: &[u8]) -> Self {
        let mut label = Vec::with_capacity(32 + PAD);
        label.extend_from_slice(b" :named ");
        label.extend_from_slice(prefix);
        let head = label.len();
        label.resize(head + PAD, 0);
        Labels {
            head,
            end: head,
            label,
            value: 0,
        }
    }

    /// The length of the longest label (20 digits).
    pub(super) fn longest(&self) -> usize {
        self.head + 21
    }

    /// ` :named PN)` for assertion `n`.
    #[inline]
    pub(super) fn label(&mut self, n: usize) -> &[u8] {
        self.padded(n);
        &self.label[..self.end]
    }

    /// Write [`Labels::label`] at the start of `dst`, which has room for
    /// [`PAD`] bytes more; its length. Below 10^8, the head is copied as
    /// [`PAD`] bytes and the digits made in a register ([`digits8`]) and
    /// stored at once: no byte is read back just after it was stored
    /// (such a read waits for the store).
    #[inline]
    pub(super) fn write(&mut self, n: usize, dst: &mut [u8]) -> usize {
        let h = self.head;
        if h <= PAD && (1..100_000_000).contains(&n) {
            dst[..PAD].copy_from_slice(&self.label[..PAD]);
            let d = digits8(n as u32);
            // The leading zeros are the low bytes that are 0.
            let len = 8 - (d.trailing_zeros() / 8) as usize;
            let text = (d | 0x3030_3030_3030_3030) >> (8 * (8 - len));
            dst[h..h + 8].copy_from_slice(&text.to_le_bytes());
            dst[h + len] = b')';
            // The digits kept in `label` are not this label's.
            self.end = h;
            self.value = n;
            return h + len + 1;
        }
        let label = self.label(n);
        dst[..label.len()].copy_from_slice(label);
        label.len()
    }

    #[inline]
    fn padded(&mut self, n: usize) {
        let end = self.end;
        if n != self.value + 1
            || end == self.head
            || !increment(&mut self.label[self.head..end - 1])
        {
            self.label.truncate(self.head);
            self.label.extend_from_slice(n.to_string().as_bytes());
            self.label.push(b')');
            self.end = self.label.len();
            self.label.resize(self.end + PAD, 0);
        }
        self.value = n;
    }
}

/// The 8 decimal digits of `n` < 10^8 (leading zeros included), most
/// significant first in memory order, as values 0..=9 in the bytes of a
/// little-endian `u64`: halves of 4 digits, split by 100 then by 10 in
/// every lane at once (the multiplications by 5243 / 2^19 and 103 / 2^10
/// divide exactly in these ranges).
#[inline]
fn digits8(n: u32) -> u64 {
    let x = (n / 10_000) as u64 | ((n % 10_000) as u64) << 32;
    let q = ((x * 5243) >> 19) & 0x0000_007f_0000_007f;
    let y = q | (x - q * 100) << 16;
    let q = ((y * 103) >> 10) & 0x000f_000f_000f_000f;
    q | (y - q * 10) << 8
}

/// Add one to the decimal `digits`; false when they are all 9s (the number
/// needs one more digit).
#[inline]
fn increment(digits: &mut [u8]) -> bool {
    for d in digits.iter_mut().rev() {
        if *d == b'9' {
            *d = b'0';
        } else {
            *d += 1;
            return true;
        }
    }
    false
}

/// Whether `text` is `(set-option KEY …)`.
fn is_option(text: &[u8], key: &[u8]) -> bool {
    let mut words = text
        .split(|b| b.is_ascii_whitespace() || *b == b'(' || *b == b')')
        .filter(|w| !w.is_empty());
    words.next() == Some(b"set-option") && words.next() == Some(key)
}

/// The spans to delete to strip every `:named` attribute: the attribute
/// itself, or, when a group has only `:named` attributes, the whole group
/// around its term (`(! t :named x)` → `t`: SMT-LIB requires at least one
/// attribute). Sorted, disjoint.
fn strip_spans(named: &[NamedAttr]) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut unwrapped = HashSet::new();
    for a in named {
        if a.sole {
            if unwrapped.insert(a.group) {
                spans.push((a.group.0, a.term.0));
                spans.push((a.term.1, a.group.1));
            }
        } else {
            spans.push(a.attr);
        }
    }
    spans.sort_unstable();
    spans
}

/// Write `text[span]` without the `deleted` spans.
fn write_without<W: Write>(
    out: &mut W,
    text: &[u8],
    span: (usize, usize),
    deleted: &[(usize, usize)],
) -> io::Result<()> {
    let mut pos = span.0;
    for &(s, e) in deleted {
        if s >= pos && e <= span.1 {
            out.write_all(&text[pos..s])?;
            pos = e;
        }
    }
    out.write_all(&text[pos..span.1])
}
