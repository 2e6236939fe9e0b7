//! One streaming pass over a benchmark: the facts eligibility needs.
//!
//! [`Analyzer::observe`] looks at one command the scanner produced and
//! classifies it; the naming rewriter calls it for every command it writes,
//! and [`analyze`] drives it alone. Only the commands that can carry
//! information are tokenised: the head of every command, the arguments of
//! `set-logic`, `set-info` and `set-option`, and — when the bytes `:named`
//! occur in a command, or once the file has named a term — the whole
//! command, to find `(! t … :named X …)` groups and uses of those names.

use super::{At, BenchmarkInfo, Ineligibility, Reason};
use crate::smtlib::lexer::{Lexer, Token, TokenKind};
use crate::smtlib::scanner::{Command, Scanner};
use crate::smtlib::symbol::normalize_bytes;
use crate::smtlib::SyntaxError;
use anyhow::{Context, Result};
use std::collections::HashSet;
use std::path::Path;

/// What a command means to the naming rewriter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// `assert`: gets a name.
    Assert,
    /// `check-sat`: followed by `(get-unsat-core)`.
    CheckSat,
    /// `check-sat-assuming`: copied, followed by `(get-unsat-assumptions)`
    /// in an incremental script that is named.
    CheckSatAssuming,
    /// `set-logic`: preceded by `(set-option :produce-unsat-cores true)`.
    SetLogic,
    /// `get-unsat-core`: written once, right after `check-sat`.
    GetUnsatCore,
    /// Would disturb a core run: output requests (`get-model`, `get-value`,
    /// `get-proof`, `get-assignment`, `get-info`, `get-option`,
    /// `get-assertions`, `get-unsat-assumptions`, `echo`) and the options
    /// `:print-success`, `:produce-unsat-cores`, `:produce-models`,
    /// `:regular-output-channel`, `:diagnostic-output-channel`.
    Remove,
    /// Everything else: copied as it is.
    Keep,
}

/// Output requests the rewriter drops.
const REMOVED_HEADS: &[&str] = &[
    "get-model",
    "get-value",
    "get-proof",
    "get-assignment",
    "get-info",
    "get-option",
    "get-assertions",
    "get-unsat-assumptions",
    "echo",
];

/// Options the rewriter drops (it sets `:produce-unsat-cores` itself).
const REMOVED_OPTIONS: &[&str] = &[
    ":print-success",
    ":produce-unsat-cores",
    ":produce-models",
    ":regular-output-channel",
    ":diagnostic-output-channel",
];

/// Commands allowed in a track benchmark besides the removed ones
/// (RULES.md §1).
const ALLOWED_HEADS: &[&str] = &[
    "set-option",
    "set-logic",
    "set-info",
    "declare-sort",
    "define-sort",
    "declare-fun",
    "declare-const",
    "define-fun",
    "define-fun-rec",
    "define-funs-rec",
    "declare-datatype",
    "declare-datatypes",
    "assert",
    "check-sat",
    "get-unsat-core",
    "exit",
];

/// One `:named` attribute inside a command, with the spans a rewriter needs
/// (byte offsets into the command's text).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NamedAttr {
    /// The name, in normal form.
    pub name: String,
    /// From the spaces before `:named` to the end of the name.
    pub attr: (usize, usize),
    /// The `(! …)` group: its `(` and one past its `)`.
    pub group: (usize, usize),
    /// The annotated term inside the group.
    pub term: (usize, usize),
    /// Whether `:named` is the group's only attribute.
    pub sole: bool,
    /// Whether the group is the term of an `assert` (a top-level name).
    pub top_level: bool,
}

/// What [`Analyzer::observe`] learned about one command.
#[derive(Clone, Debug)]
pub struct Observation {
    pub class: Class,
    /// `set-option` or `set-info` (what may precede `set-logic`).
    pub preamble: bool,
    /// For an assertion, its 1-based number.
    pub assertion: usize,
    /// For an assertion, [`Command::args_span`]: its term.
    pub term: (usize, usize),
    /// The `:named` attributes of the command, in text order.
    pub named: Vec<NamedAttr>,
}

/// The streaming analysis; see the module documentation.
pub struct Analyzer {
    info: BenchmarkInfo,
    names: HashSet<Vec<u8>>,
    used: HashSet<Vec<u8>>,
    several_check_sat: Option<usize>,
    /// The last `(set-info :status …)`.
    status_at: Option<At>,
    named_finder: memchr::memmem::Finder<'static>,
}

impl Default for Analyzer {
    fn default() -> Self {
        Self::new()
    }
}

impl Analyzer {
    pub fn new() -> Self {
        Analyzer {
            info: BenchmarkInfo::default(),
            names: HashSet::new(),
            used: HashSet::new(),
            several_check_sat: None,
            status_at: None,
            named_finder: memchr::memmem::Finder::new(b":named"),
        }
    }

    fn finding(&mut self, cmd: &Command, reason: Reason) {
        self.info.findings.push(Ineligibility {
            reason,
            at: Some(at(cmd, cmd.head())),
        });
    }

    /// Record that the input is not valid SMT-LIB at `line`:`column`
    /// (a scan error, or the strict parser's verdict on a command).
    pub fn malformed(&mut self, line: u64, column: u64, head: &str, message: String) {
        self.info.findings.push(Ineligibility {
            reason: Reason::Malformed { message },
            at: Some(At {
                line,
                column,
                head: head.to_string(),
            }),
        });
    }

    /// Record a scan error (the pass stops there).
    pub fn scan_error(&mut self, e: &SyntaxError) {
        self.malformed(e.line, e.column, "", e.message.clone());
    }

    /// Classify and record one command.
    pub fn observe(&mut self, cmd: &Command) -> Observation {
        let head = cmd.head();
        let info = &mut self.info;
        info.largest_command = info.largest_command.max(cmd.text.len() as u64);
        let mut assertion = 0;
        let mut term = (0, 0);
        let class = match head {
            "assert" => {
                info.assertions += 1;
                assertion = info.assertions;
                if info.check_sats > 0 {
                    self.finding(cmd, Reason::AssertAfterCheckSat);
                }
                term = cmd.args_span();
                if term.0 >= term.1 {
                    self.finding(cmd, malformed("assert without a term"));
                }
                Class::Assert
            }
            "check-sat" => {
                info.check_sats += 1;
                if info.check_sats == 2 {
                    info.incremental = true;
                    self.several_check_sat = Some(info.findings.len());
                    self.finding(cmd, Reason::SeveralCheckSat { count: 2 });
                }
                Class::CheckSat
            }
            "set-logic" => {
                if info.logic.is_some() {
                    self.finding(cmd, Reason::SetLogicTwice);
                } else {
                    match argument(&cmd.text, 0).filter(|t| t.is_symbol()) {
                        Some(t) => info.logic = Some(text_of(t.symbol(&cmd.text))),
                        None => self.finding(cmd, malformed("set-logic without a logic symbol")),
                    }
                }
                Class::SetLogic
            }
            "set-info" => {
                let key = argument(&cmd.text, 0);
                if key.is_some_and(|k| k.bytes(&cmd.text) == b":status") {
                    match argument(&cmd.text, 1).filter(|t| t.is_symbol()) {
                        Some(v) => {
                            info.status = Some(text_of(v.symbol(&cmd.text)));
                            self.status_at = Some(at(cmd, head));
                        }
                        None => self.finding(cmd, malformed("':status' without a value")),
                    }
                }
                Class::Keep
            }
            "set-option" => {
                let key = argument(&cmd.text, 0).map(|k| k.bytes(&cmd.text));
                if key.is_some_and(|k| REMOVED_OPTIONS.iter().any(|o| o.as_bytes() == k)) {
                    Class::Remove
                } else {
                    Class::Keep
                }
            }
            "get-unsat-core" => Class::GetUnsatCore,
            "push" | "pop" => {
                info.incremental = true;
                self.finding(cmd, Reason::PushPop);
                Class::Keep
            }
            "check-sat-assuming" => {
                info.check_sats_assuming += 1;
                info.incremental = true;
                self.finding(cmd, Reason::CheckSatAssuming);
                Class::CheckSatAssuming
            }
            "reset" | "reset-assertions" => {
                self.finding(cmd, Reason::Reset);
                Class::Keep
            }
            "" => {
                self.finding(cmd, malformed("a command must start with a symbol"));
                Class::Keep
            }
            h if REMOVED_HEADS.contains(&h) => Class::Remove,
            h if ALLOWED_HEADS.contains(&h) => Class::Keep,
            _ => {
                self.finding(cmd, Reason::NotAllowed);
                Class::Keep
            }
        };
        let mut named = Vec::new();
        let maybe_named = || {
            memchr::memchr(b':', &cmd.text)
                .is_some_and(|k| self.named_finder.find(&cmd.text[k..]).is_some())
        };
        if !self.names.is_empty() || maybe_named() {
            match scan_named(&cmd.text, class == Class::Assert) {
                Ok((attrs, uses)) => {
                    self.record_names(cmd, assertion, &attrs, &uses);
                    named = attrs;
                }
                Err((offset, message)) => {
                    let (line, column) = cmd.position(offset);
                    self.malformed(line, column, head, message);
                }
            }
        }
        Observation {
            class,
            preamble: matches!(head, "set-option" | "set-info"),
            assertion,
            term,
            named,
        }
    }

    /// [`Analyzer::observe`] for an assertion of `len` bytes that the
    /// caller knows is plain: its head is `assert`, its term is not empty
    /// and it holds no `:` byte. Its number, or `None` (nothing recorded)
    /// when `observe` has more to do with it: the file has named a term,
    /// or a `check-sat` came before.
    pub fn plain_assertion(&mut self, len: usize) -> Option<usize> {
        if !self.plain_possible() {
            return None;
        }
        let info = &mut self.info;
        info.largest_command = info.largest_command.max(len as u64);
        info.assertions += 1;
        Some(info.assertions)
    }

    /// Whether [`Analyzer::plain_assertion`] would take an assertion now.
    pub fn plain_possible(&self) -> bool {
        self.names.is_empty() && self.info.check_sats == 0
    }

    fn record_names(
        &mut self,
        cmd: &Command,
        assertion: usize,
        attrs: &[NamedAttr],
        uses: &[(usize, usize)],
    ) {
        for a in attrs {
            if a.top_level {
                self.info.top_level_names.push((assertion, a.name.clone()));
            } else {
                self.info.nested_names.push(a.name.clone());
            }
            if self.info.first_name.is_none() {
                let spaces = cmd.text[a.attr.0..]
                    .iter()
                    .take_while(|b| matches!(b, b' ' | b'\t'))
                    .count();
                let (line, column) = cmd.position(a.attr.0 + spaces);
                let head = cmd.head().to_string();
                self.info.first_name = Some((a.name.clone(), At { line, column, head }));
            }
            self.names.insert(a.name.as_bytes().to_vec());
        }
        for &(s, e) in uses {
            let sym = normalize_bytes(&cmd.text[s..e]);
            if self.names.contains(sym) && self.used.insert(sym.to_vec()) {
                let (line, column) = cmd.position(s);
                let head = cmd.head().to_string();
                self.info
                    .used_names
                    .push((text_of(sym), At { line, column, head }));
            }
        }
    }

    /// The facts, for the file at `path` of `size` bytes.
    pub fn finish(mut self, path: &Path, size: u64) -> BenchmarkInfo {
        if let Some(i) = self.several_check_sat {
            self.info.findings[i].reason = Reason::SeveralCheckSat {
                count: self.info.check_sats,
            };
        }
        if let (Some(status), Some(at)) = (&self.info.status, self.status_at) {
            if status != "unsat" {
                self.info.findings.push(Ineligibility {
                    reason: Reason::StatusNotUnsat {
                        status: status.clone(),
                    },
                    at: Some(at),
                });
            }
        }
        self.info.path = path.to_path_buf();
        self.info.size = size;
        self.info
    }
}

/// Analyze the benchmark at `path` in one streaming pass. A file that is
/// not valid SMT-LIB gives `Ok` with a [`Reason::Malformed`] finding; `Err`
/// is for files that cannot be opened.
pub fn analyze(path: &Path) -> Result<BenchmarkInfo> {
    let file = crate::store::regular::open(path)
        .with_context(|| format!("cannot open {}", path.display()))?;
    let size = file.metadata().map(|m| m.len()).unwrap_or(0);
    let mut scanner = Scanner::new(file);
    let mut analyzer = Analyzer::new();
    loop {
        match scanner.next_command() {
            Ok(Some(cmd)) => {
                analyzer.observe(&cmd);
            }
            Ok(None) => break,
            Err(e) => {
                analyzer.scan_error(&e);
                break;
            }
        }
    }
    Ok(analyzer.finish(path, size))
}

fn malformed(message: &str) -> Reason {
    Reason::Malformed {
        message: message.to_string(),
    }
}

fn at(cmd: &Command, head: &str) -> At {
    At {
        line: cmd.line,
        column: cmd.column,
        head: head.to_string(),
    }
}

fn text_of(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The `n`-th token after the head of a command (0-based).
fn argument(text: &[u8], n: usize) -> Option<Token> {
    Lexer::new(text).nth(n + 2)?.ok()
}

/// A parenthesised group being read by [`scan_named`].
struct Frame {
    open: usize,
    /// Items completed directly inside (tokens and groups).
    items: usize,
    /// `(! …)`
    bang: bool,
    /// The group is the term of an `assert`.
    top: bool,
    term: (usize, usize),
    attrs: usize,
    /// Indices in the output of this group's `:named` attributes.
    named: Vec<usize>,
    /// After `:named`: where the attribute starts.
    expect_name: Option<usize>,
}

type Span = (usize, usize);

/// The `:named` attributes of a command and the symbols it uses (every
/// symbol but the head and the names themselves), or the offset and text of
/// a syntax error.
fn scan_named(
    text: &[u8],
    is_assert: bool,
) -> Result<(Vec<NamedAttr>, Vec<Span>), (usize, String)> {
    let mut out: Vec<NamedAttr> = Vec::new();
    let mut uses = Vec::new();
    let mut stack: Vec<Frame> = Vec::new();
    for tok in Lexer::new(text) {
        let tok = tok.map_err(|e| (e.offset, e.message))?;
        match tok.kind {
            TokenKind::Open => {
                let top = is_assert && stack.len() == 1 && stack[0].items == 1;
                stack.push(Frame {
                    open: tok.start,
                    items: 0,
                    bang: false,
                    top,
                    term: (0, 0),
                    attrs: 0,
                    named: Vec::new(),
                    expect_name: None,
                });
            }
            TokenKind::Close => {
                let Some(f) = stack.pop() else {
                    return Err((tok.start, "unbalanced ')'".into()));
                };
                if f.expect_name.is_some() {
                    return Err((tok.start, "':named' without a name".into()));
                }
                for &i in &f.named {
                    let a = &mut out[i];
                    a.group = (f.open, tok.end);
                    a.term = f.term;
                    a.sole = f.attrs == 1;
                    a.top_level = f.top;
                }
                if let Some(p) = stack.last_mut() {
                    complete_item(p, (f.open, tok.end));
                }
            }
            _ => {
                let outermost = stack.len() == 1;
                let Some(p) = stack.last_mut() else {
                    return Err((tok.start, "token outside a command".into()));
                };
                if let Some(attr_start) = p.expect_name.take() {
                    if !tok.is_symbol() {
                        return Err((tok.start, "':named' must be followed by a symbol".into()));
                    }
                    p.named.push(out.len());
                    out.push(NamedAttr {
                        name: text_of(tok.symbol(text)),
                        attr: (attr_start, tok.end),
                        group: (0, 0),
                        term: (0, 0),
                        sole: false,
                        top_level: false,
                    });
                } else if p.items == 0 && tok.kind == TokenKind::Symbol && tok.bytes(text) == b"!" {
                    p.bang = true;
                } else if p.bang && p.items >= 2 && tok.kind == TokenKind::Keyword {
                    p.attrs += 1;
                    if tok.bytes(text) == b":named" {
                        let mut s = tok.start;
                        while s > 0 && matches!(text[s - 1], b' ' | b'\t') {
                            s -= 1;
                        }
                        p.expect_name = Some(s);
                    }
                } else if tok.is_symbol() && !(outermost && p.items == 0) {
                    uses.push((tok.start, tok.end));
                }
                complete_item(p, (tok.start, tok.end));
            }
        }
    }
    Ok((out, uses))
}

fn complete_item(f: &mut Frame, span: Span) {
    if f.bang && f.items == 1 {
        f.term = span;
    }
    f.items += 1;
}
