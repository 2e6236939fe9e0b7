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
//!   ([`Class::Remove`](crate::benchmark::Class::Remove)); the text between commands is kept verbatim;
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

mod fast;
mod folder;
pub mod prefix;
mod rewriter;
mod scrambled;
mod sink;

use crate::campaign::ledger::index::top_level_names;
pub use folder::{name_tree, NameSummary, TreeOptions};

use crate::benchmark::{Analyzer, BenchmarkInfo, Ineligibility, NamedPolicy, Policy};
use crate::smtlib::lint;
use crate::smtlib::scanner::prefetch::{with_commands, Commands};
use crate::smtlib::scanner::{Command, Scanner};
use rewriter::{Labels, Rewriter};
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
    if !opts.strict {
        let fast = rewrite_fast(input, output, &tentative, opts, size, assuming)?;
        if let Some(report) = fast {
            return Ok(report);
        }
    } else {
        let mut hashed = Hashing::new(&mut *output);
        let slow = rewrite(
            &mut *input,
            &mut hashed,
            tentative,
            opts,
            true,
            size,
            assuming,
        )?;
        if let Some(mut report) = slow {
            report.output_hash = Some(hashed.hex());
            return Ok(report);
        }
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
    let mut pass = Pass::new(prefix.as_bytes(), opts, assumptions);
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
        |source| pass.drive(source, &mut out, &clashed),
    )?;
    if !finished {
        return Ok(None);
    }
    out.flush()?;
    Ok(Some(pass.report(opts)))
}

/// [`rewrite`] of a file into a file, watching for `prefix`, by the fast
/// path ([`fast`]); the report has the output's hash.
fn rewrite_fast(
    input: &mut std::fs::File,
    output: &mut std::fs::File,
    prefix: &str,
    opts: &NameOptions,
    input_len: Option<u64>,
    assumptions: bool,
) -> Result<Option<NameReport>, NameError> {
    let clash = AtomicBool::new(false);
    let input = prefix::Watch::new(input, Some(prefix), &clash);
    let mut pass = Pass::new(prefix.as_bytes(), opts, assumptions);
    let clashed = || clash.load(Ordering::Relaxed);
    let reserved = input_len.is_some_and(|n| sink::reserve(output, n + n / 3));
    let (finished, hash) = sink::with_sink(output, prefix.as_bytes(), |out| {
        fast::run(input, &mut pass, out, &clashed, input_len).map_err(NameError::from)
    })?;
    if !finished {
        return Ok(None);
    }
    if reserved {
        // Give back the room reserved past the end of what was written.
        let end = output.stream_position()?;
        output.set_len(end)?;
    }
    let mut report = pass.report(opts);
    report.output_hash = Some(hash);
    Ok(Some(report))
}

/// One naming pass: the rewriter, the analysis and the strict parser fed
/// with every command, by the byte scanner ([`Pass::drive`]) or the fast
/// path ([`fast`]).
struct Pass<'p> {
    rw: Rewriter<'p>,
    analyzer: Analyzer,
    strict: Option<lint::StrictParser>,
    /// Bytes of the input up to the end of the last command (or of the
    /// input).
    size: u64,
}

impl<'p> Pass<'p> {
    fn new(prefix: &'p [u8], opts: &NameOptions, assumptions: bool) -> Self {
        Pass {
            rw: Rewriter {
                prefix,
                policy: opts.policy.named,
                option_written: false,
                kept: Vec::new(),
                labels: Labels::new(prefix),
                assumptions,
            },
            analyzer: Analyzer::new(),
            strict: opts.strict.then(lint::StrictParser::new),
            size: 0,
        }
    }

    /// One command, as the byte scanner gives it.
    fn command<W: Write>(&mut self, out: &mut W, cmd: &Command) -> io::Result<()> {
        self.size = cmd.offset + cmd.text.len() as u64;
        if let Some(parser) = self.strict.as_mut() {
            if let Err(e) = parser.check(cmd) {
                self.analyzer
                    .malformed(e.line, e.column, cmd.head(), e.message);
            }
        }
        let obs = self.analyzer.observe(cmd);
        self.rw.write(out, cmd, &obs)
    }

    /// Every command of `source` with the gaps between them; `Ok(false)`
    /// when `clashed` says the prefix was seen (the output is partial).
    fn drive<W: Write>(
        &mut self,
        source: &mut dyn Commands<()>,
        out: &mut W,
        clashed: &dyn Fn() -> bool,
    ) -> io::Result<bool> {
        loop {
            match source.next_command() {
                Ok(Some((cmd, ()))) => {
                    if clashed() {
                        return Ok(false);
                    }
                    out.write_all(source.gap())?;
                    self.command(out, &cmd)?;
                    source.recycle(cmd);
                }
                Ok(None) => {
                    if clashed() {
                        return Ok(false);
                    }
                    out.write_all(source.gap())?;
                    self.size += source.gap().len() as u64;
                    return Ok(true);
                }
                Err(e) => {
                    self.analyzer.scan_error(&e);
                    return Ok(true);
                }
            }
        }
    }

    /// The report once every command went through.
    fn report(self, opts: &NameOptions) -> NameReport {
        let prefix = String::from_utf8_lossy(self.rw.prefix).into_owned();
        let mut info = self.analyzer.finish(std::path::Path::new(""), self.size);
        if info.status.is_none() {
            info.status = opts.known_status.clone();
        }
        let reasons = info.ineligibility(&opts.policy);
        let kept = self.rw.kept;
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
        NameReport {
            prefix,
            assertions: info.assertions,
            nested_names,
            kept,
            info,
            reasons,
            output_hash: None,
        }
    }
}

#[cfg(test)]
mod tests;
