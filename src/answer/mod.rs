//! Solver stdout → answer, core and anomaly flags; core well-formedness.
//!
//! [`parse_output`] is a pure function over the bytes a solver printed. It
//! knows every form recorded in `docs/SOLVERS.md`: `success` and
//! `unsupported` lines, warnings on stdout (boolector's `[btorsmt2] WARNING
//! …`), `file:line: message` diagnostics (boolector), `(error "…")`
//! responses whose message is not escaped or spans several lines, cores on
//! one line (z3, bitwuzla's `( a1)`), one name per line (cvc5, cvc4) or
//! wrapped (yices), quoted names (`|a b|`, names containing a newline), empty
//! cores `()`, z3's `timeout` (`-T`) and cvc5's API `unknown (TIMEOUT)`.
//!
//! The answer is the first `sat`/`unsat`/`unknown`/`timeout` line; the core
//! is the first list after an `unsat` answer. That list is the core response
//! whatever it holds: when it is not a flat list of symbols (a list inside
//! it, a string or keyword in it, or no closing `)` before the end of the
//! output) the core is ill-formed ([`ParsedOutput::core_problem`], with the
//! line), not missing; only an `unsat` with no list after it has no core.
//! Lists that start with a keyword (`(:reason-unknown …)`, z3's `-st`
//! statistics) and `(error …)` responses are no core responses. Everything else that
//! looks wrong is recorded, not judged: z3 keeps going after an error and may
//! then answer for the mutilated script, so an error before the answer sets
//! [`OutputFlag::ErrorBeforeAnswer`] and the check stage decides what it is
//! worth. Garbage never panics. Names are normal forms
//! ([`crate::smtlib::symbol::normalize`]), so `|abc|` and `abc` compare equal.
//!
//! One solver quirk cannot be undone here: z3 prints nothing for a name
//! spelled `||`, so such a name is simply absent from z3's core.
//!
//! [`core_issues`] says why a core is not well formed. **Duplicates:** no
//! edition of the SMT-COMP rules mentions a name listed twice; coreval flags
//! it as [`IllFormed::DuplicateName`] so that no solver can gain by it (a
//! duplicated name would otherwise inflate the reported core size).

mod scan;
#[cfg(test)]
mod tests;

use crate::smtlib::symbol::normalize;
use scan::{Item, NotASymbol, Scanner};
use serde::{Deserialize, Serialize};
use std::collections::HashSet;

/// Why a reported core is not well formed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum IllFormed {
    /// A name that is not one of the benchmark's top-level assertion names.
    UnknownName,
    /// A name listed twice (no edition mentions it; coreval flags it and
    /// counts the core as ill-formed so that no solver gains by it).
    DuplicateName,
    /// A name of a nested (non top-level) `:named` term.
    NestedName,
    /// An empty core: the benchmark's assertions are all named, so the
    /// empty set is satisfiable.
    Empty,
    /// The core list could not be parsed at all (an archive's verdict,
    /// whose output is not at hand).
    Unparsable,
    /// The core response holds a list (`((a1 a2))`, `(a1 (a2) a3)`).
    NestedList,
    /// The core response holds a string or a keyword.
    NotASymbol,
    /// The core response's list is still open at the end of the output.
    UnclosedList,
}

impl IllFormed {
    /// Short stable name (`unknown-name`, `duplicate-name`, …).
    pub fn label(self) -> &'static str {
        match self {
            IllFormed::UnknownName => "unknown-name",
            IllFormed::DuplicateName => "duplicate-name",
            IllFormed::NestedName => "nested-name",
            IllFormed::Empty => "empty",
            IllFormed::Unparsable => "unparsable",
            IllFormed::NestedList => "nested-list",
            IllFormed::NotASymbol => "not-a-symbol",
            IllFormed::UnclosedList => "unclosed-list",
        }
    }

    /// Every reason, in declaration order.
    pub const ALL: [IllFormed; 8] = [
        IllFormed::UnknownName,
        IllFormed::DuplicateName,
        IllFormed::NestedName,
        IllFormed::Empty,
        IllFormed::Unparsable,
        IllFormed::NestedList,
        IllFormed::NotASymbol,
        IllFormed::UnclosedList,
    ];
}

/// Why the list after `unsat` is no list of symbols, and the line (from 1)
/// of the output where it shows: the inner `(`, the string or keyword, or
/// the `(` that never closes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct CoreProblem {
    /// [`IllFormed::NestedList`], [`IllFormed::NotASymbol`] or
    /// [`IllFormed::UnclosedList`].
    pub reason: IllFormed,
    pub line: u64,
}

impl std::fmt::Display for CoreProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let what = match self.reason {
            IllFormed::NestedList => "nested list",
            IllFormed::NotASymbol => "string or keyword in the list",
            IllFormed::UnclosedList => "unclosed list",
            other => other.label(),
        };
        write!(f, "{what} at line {}", self.line)
    }
}

/// The solver's answer to the (single) `check-sat`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Answer {
    Sat,
    Unsat,
    /// `unknown`, also `unknown (TIMEOUT)` from cvc5's API.
    Unknown,
    /// z3's `timeout` (printed at its own `-T` limit).
    Timeout,
    /// No answer, but at least one error (an `(error …)` or a
    /// `file:line: message` diagnostic).
    Error,
    /// Nothing recognisable.
    NoAnswer,
}

/// Something unusual in the output, recorded for the check stage to judge.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum OutputFlag {
    /// An error was printed before the answer (z3 then answers for a script
    /// it did not fully read).
    ErrorBeforeAnswer,
    /// An error was printed after the answer (e.g. instead of the core).
    ErrorAfterAnswer,
    /// A second `sat`/`unsat`/`unknown`/`timeout` line.
    TwoAnswers,
    /// A list of symbols before any answer.
    CoreBeforeAnswer,
    /// A second list of symbols after the core.
    TwoCores,
    /// A later answer line differs from the first (`unsat`, core, `sat`):
    /// the solver contradicted itself.
    AnswersDisagree,
    /// After `unsat`, the solver's own `timeout` or `unknown` line: it ran
    /// out of time or gave up while printing the core (z3 `-T` during core
    /// minimisation). Not a contradiction: nothing takes the `unsat` back.
    GaveUpAfterUnsat,
    /// A later list of symbols after `unsat` names other assertions than
    /// the core (the first list): two different cores.
    CoresDisagree,
    /// The process failed after its answer: a non-zero exit (other than the
    /// SAT-competition codes 10 for `sat`, 20 for `unsat`) or a signal, not
    /// coreval's at a limit (set by the caller: for a solver under test
    /// after `unsat`, for a checker after `sat` or `unsat`).
    FailedAfterAnswer,
    /// No answer on stdout, but an answer line on stderr, which the
    /// definition does not read (`answer_stream`; set by the caller).
    AnswerOnStderr,
    /// `unsat` on stdout without a core, and a list of symbols on stderr,
    /// which the definition does not read (`answer_stream`; set by the
    /// caller).
    CoreOnStderr,
    /// A list of symbols after a `sat`/`unknown`/`timeout` answer.
    CoreWithoutUnsat,
    /// After `unsat` and before any core, a list that is not a list of
    /// symbols (nested lists, strings, keywords inside) or that never
    /// closes: an ill-formed core ([`ParsedOutput::core_problem`]).
    MalformedCore,
    /// A list, string or quoted symbol still open at the end of the output.
    Unterminated,
    /// Lines that are neither answers, responses, warnings nor diagnostics.
    GarbageLines,
    /// The output is not valid UTF-8 (names are decoded lossily).
    InvalidUtf8,
    /// The runner dropped output beyond its cap (set by the caller).
    Truncated,
}

/// At most this many garbage lines are kept verbatim, each cut to
/// [`GARBAGE_LINE_CHARS`] characters.
pub const GARBAGE_KEPT: usize = 8;
/// See [`GARBAGE_KEPT`].
pub const GARBAGE_LINE_CHARS: usize = 200;

/// Everything coreval takes from a solver's stdout.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ParsedOutput {
    /// The first answer line, or `error` / `no-answer` when there was none.
    pub answer: Answer,
    /// The core when the answer is `unsat` and a list of symbols followed:
    /// names in normal form, in the order printed (duplicates kept).
    pub core: Option<Vec<String>>,
    /// When the answer is `unsat` and the first list after it is no list
    /// of symbols: why, and where (the core is then `None`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub core_problem: Option<CoreProblem>,
    /// Messages of every `(error "…")` and `file:line: message` diagnostic,
    /// in order, with `""` escapes undone.
    pub errors: Vec<String>,
    /// Warning lines printed on stdout (boolector's `[btorsmt2] WARNING …`).
    pub warnings: Vec<String>,
    /// The first few garbage lines, for the report (see [`GARBAGE_KEPT`]).
    pub garbage: Vec<String>,
    /// Anomalies, each at most once, in order of first occurrence.
    pub flags: Vec<OutputFlag>,
}

impl Default for ParsedOutput {
    fn default() -> Self {
        ParsedOutput {
            answer: Answer::NoAnswer,
            core: None,
            core_problem: None,
            errors: Vec::new(),
            warnings: Vec::new(),
            garbage: Vec::new(),
            flags: Vec::new(),
        }
    }
}

impl ParsedOutput {
    /// Add a flag unless it is already there.
    pub fn flag(&mut self, flag: OutputFlag) {
        if !self.flags.contains(&flag) {
            self.flags.push(flag);
        }
    }

    /// Whether `flag` was raised.
    pub fn has(&self, flag: OutputFlag) -> bool {
        self.flags.contains(&flag)
    }

    /// The output was cut at the runner's cap ([`OutputFlag::Truncated`]):
    /// a core left open by the cut is coreval's doing, not the solver's,
    /// so it is no [`IllFormed::UnclosedList`] (the core is missing).
    pub fn truncated(&mut self) {
        self.flag(OutputFlag::Truncated);
        if self
            .core_problem
            .is_some_and(|p| p.reason == IllFormed::UnclosedList)
        {
            self.core_problem = None;
        }
    }

    /// After `unsat`, the first list is no list of symbols.
    fn malformed_core(&mut self, reason: IllFormed, line: u64) {
        self.flag(OutputFlag::MalformedCore);
        self.core_problem = Some(CoreProblem { reason, line });
    }
}

/// The line (from 1) of byte `at`.
fn line_of(s: &[u8], at: usize) -> u64 {
    1 + memchr::memchr_iter(b'\n', &s[..at.min(s.len())]).count() as u64
}

/// What a bare top-level line is.
#[derive(Debug, PartialEq)]
enum Line {
    Answer(Answer),
    /// `success`, `unsupported`: acknowledgements that carry nothing.
    Ack,
    Warning,
    /// `file:line: message` or `file:line:col: message` (boolector).
    Diagnostic,
    Garbage,
}

fn classify_line(line: &[u8]) -> Line {
    match line {
        b"sat" => return Line::Answer(Answer::Sat),
        b"unsat" => return Line::Answer(Answer::Unsat),
        b"unknown" => return Line::Answer(Answer::Unknown),
        b"timeout" => return Line::Answer(Answer::Timeout),
        b"success" | b"unsupported" => return Line::Ack,
        _ => {}
    }
    if let Some(reason) = line.strip_prefix(b"unknown") {
        let reason = scan::trim(reason);
        if reason.len() >= 2 && reason[0] == b'(' && reason[reason.len() - 1] == b')' {
            return Line::Answer(Answer::Unknown);
        }
    }
    let lower = line.to_ascii_lowercase();
    let has_warning = lower.windows(7).any(|w| w == b"warning");
    if has_warning && (line.first() == Some(&b'[') || lower.starts_with(b"warning")) {
        return Line::Warning;
    }
    if is_diagnostic(line) {
        return Line::Diagnostic;
    }
    Line::Garbage
}

/// `<path>:<digits>[:<digits> | .<digits>]: <message>`.
fn is_diagnostic(line: &[u8]) -> bool {
    let Some(sep) = line.windows(2).position(|w| w == b": ") else {
        return false;
    };
    let head = &line[..sep];
    let mut parts = head.rsplitn(3, |&b| b == b':');
    let last = parts.next().unwrap_or_default();
    let is_num = |p: &[u8]| !p.is_empty() && p.iter().all(|b| b.is_ascii_digit() || *b == b'.');
    match (parts.next(), parts.next()) {
        (Some(mid), Some(path)) if is_num(mid) && is_num(last) => !path.is_empty(),
        (Some(path), _) => is_num(last) && !path.is_empty(),
        _ => false,
    }
}

fn lossy(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Parse everything a solver printed on stdout. Never panics.
pub fn parse_output(stdout: &[u8]) -> ParsedOutput {
    let mut out = ParsedOutput::default();
    if std::str::from_utf8(stdout).is_err() {
        out.flag(OutputFlag::InvalidUtf8);
    }
    let mut answer: Option<Answer> = None;
    let mut scanner = Scanner::new(stdout);
    while let Some(item) = scanner.next_item() {
        match item {
            Item::Line(line) => match classify_line(line) {
                Line::Answer(a) => match answer {
                    None => answer = Some(a),
                    Some(first) => {
                        out.flag(OutputFlag::TwoAnswers);
                        let gave_up = first == Answer::Unsat
                            && matches!(a, Answer::Timeout | Answer::Unknown);
                        if gave_up {
                            out.flag(OutputFlag::GaveUpAfterUnsat);
                        } else if first != a {
                            out.flag(OutputFlag::AnswersDisagree);
                        }
                    }
                },
                Line::Ack => {}
                Line::Warning => out.warnings.push(lossy(line)),
                Line::Diagnostic => record_error(&mut out, answer, lossy(line)),
                Line::Garbage => {
                    out.flag(OutputFlag::GarbageLines);
                    if out.garbage.len() < GARBAGE_KEPT {
                        let text = lossy(line);
                        out.garbage
                            .push(text.chars().take(GARBAGE_LINE_CHARS).collect());
                    }
                }
            },
            Item::Error { message, complete } => {
                if !complete {
                    out.flag(OutputFlag::Unterminated);
                }
                record_error(&mut out, answer, message);
            }
            Item::Symbols(raw) => match answer {
                None => out.flag(OutputFlag::CoreBeforeAnswer),
                // The core response was ill-formed: this is a second one.
                Some(Answer::Unsat) if out.core_problem.is_some() => out.flag(OutputFlag::TwoCores),
                Some(Answer::Unsat) if out.core.is_none() => {
                    let names = raw
                        .iter()
                        .map(|t| normalize(&lossy(t)).to_owned())
                        .collect();
                    out.core = Some(names);
                }
                Some(Answer::Unsat) => {
                    out.flag(OutputFlag::TwoCores);
                    let first: HashSet<&str> =
                        out.core.iter().flatten().map(String::as_str).collect();
                    let names: Vec<String> = raw
                        .iter()
                        .map(|t| normalize(&lossy(t)).to_owned())
                        .collect();
                    let again: HashSet<&str> = names.iter().map(String::as_str).collect();
                    if first != again {
                        out.flag(OutputFlag::CoresDisagree);
                    }
                }
                Some(_) => out.flag(OutputFlag::CoreWithoutUnsat),
            },
            Item::OtherList { first } => {
                if core_awaited(&out, answer) {
                    let (reason, at) = match first {
                        NotASymbol::List(at) => (IllFormed::NestedList, at),
                        NotASymbol::Literal(at) => (IllFormed::NotASymbol, at),
                    };
                    out.malformed_core(reason, line_of(stdout, at));
                }
            }
            Item::UnclosedList { at } => {
                out.flag(OutputFlag::Unterminated);
                if core_awaited(&out, answer) {
                    out.malformed_core(IllFormed::UnclosedList, line_of(stdout, at));
                }
            }
            Item::Info | Item::Echo => {}
            Item::Unterminated => out.flag(OutputFlag::Unterminated),
        }
    }
    out.answer = match answer {
        Some(a) => a,
        None if !out.errors.is_empty() => Answer::Error,
        None => Answer::NoAnswer,
    };
    out
}

/// Whether the next list is the core response: after `unsat`, before any.
fn core_awaited(out: &ParsedOutput, answer: Option<Answer>) -> bool {
    answer == Some(Answer::Unsat) && out.core.is_none() && out.core_problem.is_none()
}

fn record_error(out: &mut ParsedOutput, answer: Option<Answer>, message: String) {
    out.flag(if answer.is_none() {
        OutputFlag::ErrorBeforeAnswer
    } else {
        OutputFlag::ErrorAfterAnswer
    });
    out.errors.push(message);
}

/// Whether a process that printed `answer` then failed: `code` is its exit
/// code, `None` when a signal ended it. A non-zero exit other than the
/// SAT-competition convention (10 = sat, 20 = unsat) is a failure.
pub fn failed_after(answer: Answer, code: Option<i32>) -> bool {
    match (answer, code) {
        (Answer::Sat | Answer::Unsat, None) => true,
        (Answer::Sat, Some(c)) => !matches!(c, 0 | 10),
        (Answer::Unsat, Some(c)) => !matches!(c, 0 | 20),
        _ => false,
    }
}

/// Where a solver prints its answers (a definition's `answer_stream`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AnswerStream {
    /// Standard output only (the default, as SMT-LIB says).
    #[default]
    Stdout,
    /// Standard error only.
    Stderr,
    /// Standard output, then standard error, read as one text (the order
    /// of lines across the two is not known; BenchExec's merged log keeps
    /// it, which only matters for a solver printing on both).
    Both,
}

/// [`parse_output`] over the stream(s) a definition names. With
/// [`AnswerStream::Stdout`], no answer on stdout but one on stderr sets
/// [`OutputFlag::AnswerOnStderr`], so the report says why there is none.
pub fn parse_streams(stdout: &[u8], stderr: &[u8], stream: AnswerStream) -> ParsedOutput {
    match stream {
        AnswerStream::Stdout => {
            let mut p = parse_output(stdout);
            if matches!(p.answer, Answer::NoAnswer | Answer::Error)
                && matches!(
                    parse_output(stderr).answer,
                    Answer::Sat | Answer::Unsat | Answer::Unknown
                )
            {
                p.flag(OutputFlag::AnswerOnStderr);
            }
            if p.answer == Answer::Unsat
                && p.core.is_none()
                && p.core_problem.is_none()
                && parse_output(&[b"unsat\n", stderr].concat()).core.is_some()
            {
                p.flag(OutputFlag::CoreOnStderr);
            }
            p
        }
        AnswerStream::Stderr => parse_output(stderr),
        AnswerStream::Both => {
            let mut all = stdout.to_vec();
            if !all.is_empty() && !all.ends_with(b"\n") {
                all.push(b'\n');
            }
            all.extend_from_slice(stderr);
            parse_output(&all)
        }
    }
}

/// One problem with one name of a core.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CoreIssue {
    pub reason: IllFormed,
    /// The offending name (normal form); a duplicate is reported once.
    pub name: String,
}

/// Every problem of a core, in the order the names were printed.
///
/// `top_level` holds the names of the benchmark's top-level assertions and
/// `nested` the names of `:named` terms inside them, all in normal form. A
/// name in `nested` (and not in `top_level`) is [`IllFormed::NestedName`];
/// a name in neither is [`IllFormed::UnknownName`]; a name printed more than
/// once is [`IllFormed::DuplicateName`] (see the module doc).
pub fn core_issue_details<S: std::hash::BuildHasher>(
    core: &[String],
    top_level: &HashSet<String, S>,
    nested: &HashSet<String, S>,
) -> Vec<CoreIssue> {
    // A name seen before: looked back on a small core (no allocation, as
    // for most of a million pairs), looked up in a set on a large one.
    let mut seen: rustc_hash::FxHashSet<&str> = Default::default();
    let mut repeated = |i: usize| {
        let name = core[i].as_str();
        if core.len() <= 32 {
            core[..i].iter().any(|n| n == name)
        } else {
            !seen.insert(name)
        }
    };
    let mut duplicates: Vec<&str> = Vec::new();
    let mut issues = Vec::new();
    for (i, name) in core.iter().enumerate() {
        if repeated(i) {
            if !duplicates.contains(&name.as_str()) {
                duplicates.push(name);
                issues.push(CoreIssue {
                    reason: IllFormed::DuplicateName,
                    name: name.clone(),
                });
            }
            continue;
        }
        let reason = if top_level.contains(name) {
            continue;
        } else if nested.contains(name) {
            IllFormed::NestedName
        } else {
            IllFormed::UnknownName
        };
        issues.push(CoreIssue {
            reason,
            name: name.clone(),
        });
    }
    issues
}

/// The set of reasons why `core` is not well formed (empty when it is),
/// in the fixed order unknown, duplicate, nested. See [`core_issue_details`].
pub fn core_issues<S: std::hash::BuildHasher>(
    core: &[String],
    top_level: &HashSet<String, S>,
    nested: &HashSet<String, S>,
) -> Vec<IllFormed> {
    let found = core_issue_details(core, top_level, nested);
    [
        IllFormed::UnknownName,
        IllFormed::DuplicateName,
        IllFormed::NestedName,
    ]
    .into_iter()
    .filter(|r| found.iter().any(|i| i.reason == *r))
    .collect()
}
