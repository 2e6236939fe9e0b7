//! `coreval name`: the named version of a benchmark, as a streaming rewrite
//! (bytes in, bytes out) over the scanner's commands.
//!
//! - `(set-option :produce-unsat-cores true)` goes right before `set-logic`
//!   (yices refuses it later), or before the first command that is not
//!   `set-option`/`set-info` when there is no `set-logic` yet;
//! - every top-level assertion `(assert t)` becomes `(assert (! t :named PN))`
//!   for its number N, with `t` the command's argument span, so the text of
//!   `t` and every comment around it stay byte for byte;
//! - `(get-unsat-core)` follows every `check-sat`, and existing
//!   `get-unsat-core` commands are dropped (no duplicate);
//! - commands that would disturb a core run are dropped
//!   ([`Class::Remove`]); the text between commands is kept verbatim;
//! - existing `:named` attributes are handled by [`NamedPolicy`];
//! - an incremental or assumption script (eligible with
//!   [`Policy::incremental`]) is named the same way, every assertion of
//!   every scope numbered in file order; `(get-unsat-assumptions)` follows
//!   every `check-sat-assuming` (existing ones are dropped), and when the
//!   script has a `check-sat-assuming`,
//!   `(set-option :produce-unsat-assumptions true)` is written beside
//!   `:produce-unsat-cores` (the script's own is dropped).
//!
//! The prefix `P` cannot clash with any symbol of the file (see [`prefix`]).
//! The same pass feeds the [`Analyzer`], so the report says whether the
//! benchmark is eligible; a caller writes to a temporary file and keeps it
//! only then.

mod folder;
pub mod prefix;
mod scrambled;

use crate::campaign::ledger::index::top_level_names;
pub use folder::{name_tree, NameSummary, TreeOptions};

use crate::benchmark::{
    Analyzer, BenchmarkInfo, Class, Ineligibility, NamedAttr, NamedPolicy, Observation, Policy,
};
use crate::smtlib::lint;
use crate::smtlib::scanner::prefetch::with_commands;
use crate::smtlib::scanner::{Command, Scanner};
use std::collections::HashSet;
use std::io::{self, BufWriter, Read, Seek, SeekFrom, Write};
use std::sync::atomic::{AtomicBool, Ordering};

/// Capacity of the output buffer.
const OUT_BUFFER: usize = 1 << 20;

/// Files at least this large are scanned on a second thread while they
/// are rewritten ([`name_file`]); smaller ones are not worth a thread.
const PREFETCH_MIN: u64 = 4 << 20;

/// How to name.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NameOptions {
    /// A fixed prefix (`--prefix smtcomp` gives the official names); `None`
    /// chooses one that cannot clash.
    pub prefix: Option<String>,
    /// Eligibility settings, including the existing-names policy.
    pub policy: Policy,
    /// Validate every command with the strict SMT-LIB parser
    /// ([`crate::smtlib::lint`]); a failure makes the file malformed.
    pub strict: bool,
    /// The expected status when the script states none: a scrambled
    /// benchmark's, kept in its descrambling map (the scrambler removes
    /// `:status` so that solvers cannot read it).
    pub known_status: Option<String>,
}

/// What naming one script produced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NameReport {
    /// The prefix of the generated names.
    pub prefix: String,
    /// Number of top-level assertions, all named.
    pub assertions: usize,
    /// Assertions that kept their existing name (policy `keep`): 1-based
    /// number and name (normal form). Every other assertion N is `PN`.
    pub kept: Vec<(usize, String)>,
    /// `:named` names left inside terms of the output (normal forms).
    pub nested_names: Vec<String>,
    /// The facts about the input.
    pub info: BenchmarkInfo,
    /// Why the benchmark may not enter the track under the options' policy
    /// (empty: eligible, the output is the named benchmark).
    pub reasons: Vec<Ineligibility>,
    /// BLAKE3 (hex) of the bytes written to the output, computed as they
    /// were written ([`name_file`]; `None` from [`name_script`]).
    pub output_hash: Option<String>,
}

/// A writer that passes bytes on and hashes (BLAKE3) exactly those written,
/// so that a named file's hash needs no second read of it.
struct Hashing<W> {
    inner: W,
    hasher: blake3::Hasher,
}

impl<W: Write> Hashing<W> {
    fn new(inner: W) -> Hashing<W> {
        Hashing {
            inner,
            hasher: blake3::Hasher::new(),
        }
    }

    fn hex(&self) -> String {
        self.hasher.finalize().to_hex().to_string()
    }
}

impl<W: Write> Write for Hashing<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hasher.update(&buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

impl NameReport {
    /// True when the output may be used.
    pub fn eligible(&self) -> bool {
        self.reasons.is_empty()
    }

    /// The top-level names in assertion order.
    pub fn names(&self) -> Vec<String> {
        top_level_names(&self.prefix, self.assertions, &self.kept)
    }
}

/// Why a script could not be named at all.
#[derive(Debug, thiserror::Error)]
pub enum NameError {
    #[error("prefix '{prefix}' cannot be used: {why}")]
    BadPrefix { prefix: String, why: String },
    #[error(
        "names with prefix '{prefix}' would clash with '{found}' at line {line}, column {column} \
         (the bytes '{prefix}' followed by a digit occur in the file; choose another --prefix)"
    )]
    Clash {
        prefix: String,
        found: String,
        line: u64,
        column: u64,
    },
    #[error("{0}")]
    Io(#[from] io::Error),
}

/// Name the script read from `input` (from its current position; it is read
/// twice, once to choose the prefix) into `output`. A script that is not
/// valid SMT-LIB is not an `Err`: the report then has a `Malformed` reason
/// and the output is incomplete.
pub fn name_script<R: Read + Seek + Send, W: Write>(
    mut input: R,
    output: W,
    opts: &NameOptions,
) -> Result<NameReport, NameError> {
    let start = input.stream_position()?;
    let prefix = match prefix::choose(&mut input, opts.prefix.as_deref()) {
        Ok(p) => p,
        Err(prefix::PrefixError::Io(e)) => return Err(e.into()),
        Err(prefix::PrefixError::Invalid(why)) => {
            return Err(NameError::BadPrefix {
                prefix: opts.prefix.clone().unwrap_or_default(),
                why,
            })
        }
        Err(prefix::PrefixError::Clash { offset, found }) => {
            input.seek(SeekFrom::Start(start))?;
            let (line, column) = prefix::locate(&mut input, offset)?;
            return Err(NameError::Clash {
                prefix: opts.prefix.clone().unwrap_or_default(),
                found,
                line,
                column,
            });
        }
    };
    input.seek(SeekFrom::Start(start))?;
    let assuming = asks_assumptions(&mut input, opts)?;
    input.seek(SeekFrom::Start(start))?;
    let report = rewrite(input, output, prefix, opts, false, None, assuming)?;
    Ok(report.expect("no clash watch"))
}

/// Name the file `input` into the file `output` (both at their start) in
/// one pass when possible: the rewrite runs with the prefix it would most
/// likely choose (`cv`, or the fixed one) and watches the bytes it reads for
/// that prefix followed by a digit; only when it sees one does it start
/// over with [`name_script`] (which chooses the prefix first, or reports
/// the clash with its position). Saves reading every file twice.
pub fn name_file(
    input: &mut std::fs::File,
    output: &mut std::fs::File,
    opts: &NameOptions,
) -> Result<NameReport, NameError> {
    let tentative = opts
        .prefix
        .clone()
        .unwrap_or_else(|| prefix::FIRST.to_string());
    if let Err(why) = prefix::validate(&tentative) {
        return Err(NameError::BadPrefix {
            prefix: tentative,
            why,
        });
    }
    let size = input.metadata().ok().map(|m| m.len());
    let assuming = asks_assumptions(&mut *input, opts)?;
    input.seek(SeekFrom::Start(0))?;
    let mut hashed = Hashing::new(&mut *output);
    if let Some(mut report) = rewrite(
        &mut *input,
        &mut hashed,
        tentative,
        opts,
        true,
        size,
        assuming,
    )? {
        report.output_hash = Some(hashed.hex());
        return Ok(report);
    }
    input.seek(SeekFrom::Start(0))?;
    output.set_len(0)?;
    output.seek(SeekFrom::Start(0))?;
    let mut hashed = Hashing::new(output);
    let mut report = name_script(input, &mut hashed, opts)?;
    report.output_hash = Some(hashed.hex());
    Ok(report)
}

/// Whether the named script will ask for unsat assumptions: incremental
/// scripts are accepted and the bytes `check-sat-assuming` occur in the
/// input (read to its end; the caller seeks back). Without
/// [`Policy::incremental`] nothing is read.
fn asks_assumptions<R: Read>(input: &mut R, opts: &NameOptions) -> io::Result<bool> {
    if !opts.policy.incremental {
        return Ok(false);
    }
    let finder = memchr::memmem::Finder::new(b"check-sat-assuming");
    let mut buf = vec![0u8; 1 << 16];
    let mut carry = 0;
    loop {
        let n = input.read(&mut buf[carry..])?;
        if n == 0 {
            return Ok(false);
        }
        let end = carry + n;
        if finder.find(&buf[..end]).is_some() {
            return Ok(true);
        }
        // Keep the tail that could start a match across reads.
        let keep = end.min(17);
        buf.copy_within(end - keep..end, 0);
        carry = keep;
    }
}

/// The rewrite with `prefix`; with `watch`, `Ok(None)` as soon as the bytes
/// of `prefix` followed by a digit are seen (the output is then partial).
/// With the input's length `input_len` of at least [`PREFETCH_MIN`], the
/// input is read and scanned on a second thread
/// ([`prefetch`](crate::smtlib::scanner::prefetch)).
fn rewrite<R: Read + Send, W: Write>(
    mut input: R,
    output: W,
    prefix: String,
    opts: &NameOptions,
    watch: bool,
    input_len: Option<u64>,
    assumptions: bool,
) -> Result<Option<NameReport>, NameError> {
    let clash = AtomicBool::new(false);
    let input = prefix::Watch::new(&mut input, watch.then_some(prefix.as_str()), &clash);
    let mut out = BufWriter::with_capacity(OUT_BUFFER, output);
    let mut rw = Rewriter {
        prefix: prefix.as_bytes(),
        policy: opts.policy.named,
        option_written: false,
        kept: Vec::new(),
        tail: Vec::with_capacity(64),
        number: Counter::default(),
        assumptions,
    };
    let mut analyzer = Analyzer::new();
    let mut size = 0u64;
    let mut strict = opts.strict.then(lint::StrictParser::new);
    let clashed = || clash.load(Ordering::Relaxed);
    let mut scanner = Scanner::new(input);
    if let Some(n) = input_len {
        scanner = scanner.with_size_hint(n);
    }
    let prefetch = input_len.is_some_and(|n| n >= PREFETCH_MIN);
    let finished = with_commands(
        scanner,
        prefetch,
        |_| (),
        |scanner| -> io::Result<bool> {
            loop {
                match scanner.next_command() {
                    Ok(Some((cmd, ()))) => {
                        if clashed() {
                            return Ok(false);
                        }
                        out.write_all(scanner.gap())?;
                        size = cmd.offset + cmd.text.len() as u64;
                        if let Some(parser) = strict.as_mut() {
                            if let Err(e) = parser.check(&cmd) {
                                analyzer.malformed(e.line, e.column, cmd.head(), e.message);
                            }
                        }
                        let obs = analyzer.observe(&cmd);
                        rw.write(&mut out, &cmd, &obs)?;
                        scanner.recycle(cmd);
                    }
                    Ok(None) => {
                        if clashed() {
                            return Ok(false);
                        }
                        out.write_all(scanner.gap())?;
                        size += scanner.gap().len() as u64;
                        return Ok(true);
                    }
                    Err(e) => {
                        analyzer.scan_error(&e);
                        return Ok(true);
                    }
                }
            }
        },
    )?;
    if !finished {
        return Ok(None);
    }
    out.flush()?;
    let mut info = analyzer.finish(std::path::Path::new(""), size);
    if info.status.is_none() {
        info.status = opts.known_status.clone();
    }
    let reasons = info.ineligibility(&opts.policy);
    let kept = rw.kept;
    let kept_set: HashSet<&str> = kept.iter().map(|(_, n)| n.as_str()).collect();
    let nested_names = match opts.policy.named {
        NamedPolicy::Strip => Vec::new(),
        NamedPolicy::Keep => info
            .nested_names
            .iter()
            .chain(info.top_level_names.iter().map(|(_, n)| n))
            .filter(|n| !kept_set.contains(n.as_str()))
            .cloned()
            .collect(),
        NamedPolicy::Skip => info
            .top_level_names
            .iter()
            .map(|(_, n)| n.clone())
            .chain(info.nested_names.iter().cloned())
            .collect(),
    };
    Ok(Some(NameReport {
        prefix,
        assertions: info.assertions,
        nested_names,
        kept,
        info,
        reasons,
        output_hash: None,
    }))
}

/// The per-command part of the rewrite.
struct Rewriter<'p> {
    prefix: &'p [u8],
    policy: NamedPolicy,
    option_written: bool,
    kept: Vec<(usize, String)>,
    /// The end of the current assertion, written at once.
    tail: Vec<u8>,
    /// The current assertion number.
    number: Counter,
    /// Ask for unsat assumptions (an incremental script with
    /// `check-sat-assuming`, see [`asks_assumptions`]).
    assumptions: bool,
}

impl Rewriter<'_> {
    fn write<W: Write>(&mut self, out: &mut W, cmd: &Command, obs: &Observation) -> io::Result<()> {
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
                let (s, e) = obs.term;
                out.write_all(&text[..s])?;
                out.write_all(b"(! ")?;
                write_without(out, text, (s, e), &strip)?;
                // ` :named PN)` and the rest of the command in one write.
                let n = self.number.set(obs.assertion);
                let tail = &mut self.tail;
                tail.clear();
                tail.extend_from_slice(b" :named ");
                tail.extend_from_slice(self.prefix);
                tail.extend_from_slice(n);
                tail.push(b')');
                tail.extend_from_slice(&text[e..]);
                out.write_all(tail)
            }
            Class::SetLogic | Class::Keep => write_without(out, text, (0, text.len()), &strip),
        }
    }
}

/// Whether `text` is `(set-option KEY …)`.
fn is_option(text: &[u8], key: &[u8]) -> bool {
    let mut words = text
        .split(|b| b.is_ascii_whitespace() || *b == b'(' || *b == b')')
        .filter(|w| !w.is_empty());
    words.next() == Some(b"set-option") && words.next() == Some(key)
}

/// A decimal number kept as ASCII digits: assertions are numbered one after
/// the other, so the next name costs an increment, not a conversion.
#[derive(Default)]
struct Counter {
    value: usize,
    digits: Vec<u8>,
}

impl Counter {
    /// The digits of `n` (incremented when `n` follows the last value).
    fn set(&mut self, n: usize) -> &[u8] {
        if n == self.value + 1 && !self.digits.is_empty() {
            let mut k = self.digits.len();
            loop {
                if k == 0 {
                    self.digits.insert(0, b'1');
                    break;
                }
                k -= 1;
                if self.digits[k] == b'9' {
                    self.digits[k] = b'0';
                } else {
                    self.digits[k] += 1;
                    break;
                }
            }
        } else {
            self.digits.clear();
            self.digits.extend_from_slice(n.to_string().as_bytes());
        }
        self.value = n;
        &self.digits
    }
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

#[cfg(test)]
mod tests;
