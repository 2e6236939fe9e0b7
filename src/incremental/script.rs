//! The judgement of an incremental script's answers, without processes:
//! the script's commands are replayed in order with their scope (`push`,
//! `pop`, `reset`, `reset-assertions`), the solver's output items are
//! matched to the commands that print something, and every `unsat`
//! followed by `get-unsat-core` or `get-unsat-assumptions` becomes a
//! [`Query`]: ill-formed at once, or a check script whose `unsat` the
//! checkers must confirm.
//!
//! - `get-unsat-core`: every name must be that of a named assertion in
//!   scope (or a symbol assumed by the `check-sat-assuming` it follows); a
//!   name from a popped scope or an unknown name is ill-formed. Checked:
//!   the script up to the query with the named assertions outside the core
//!   removed (unnamed ones stay: a core is relative to them).
//! - `get-unsat-assumptions`: every item must be one of the assumptions.
//!   Accepted besides, as z3 prints them once cores are on: the name of a
//!   named assertion in scope (ignored: the assertions in scope are part of
//!   the check anyway) and the body of a `define-fun` constant that is an
//!   assumption (read as that assumption). Checked: the script up to the
//!   query, every assertion kept, with the answered assumptions asserted.

use super::sexp::Sexp;
use std::collections::HashMap;

/// One top-level command of the script.
#[derive(Clone, Debug)]
pub struct Cmd {
    pub sexp: Sexp,
    pub line: u64,
}

impl Cmd {
    fn head(&self) -> &str {
        self.sexp
            .list()
            .and_then(|l| l.first())
            .and_then(Sexp::atom)
            .unwrap_or("")
    }
    fn arg(&self, i: usize) -> Option<&Sexp> {
        self.sexp.list().and_then(|l| l.get(i + 1))
    }
    /// The `:named` name of an `assert`'s term, when it has one.
    fn assert_name(&self) -> Option<String> {
        let t = self.arg(0)?.list()?;
        if t.first()?.atom()? != "!" {
            return None;
        }
        let at = t.iter().position(|s| s.atom() == Some(":named"))?;
        Some(t.get(at + 1)?.atom()?.to_string())
    }
}

/// Commands whose answer is one output item.
const PRINTING: &[&str] = &[
    "check-sat",
    "check-sat-assuming",
    "get-unsat-core",
    "get-unsat-assumptions",
    "get-model",
    "get-value",
    "get-info",
    "get-option",
    "get-assignment",
    "get-assertions",
    "get-proof",
    "simplify",
];

/// The SMT-LIB options a check script keeps: every other `set-option`
/// (a solver's own, e.g. cvc5's `:unsat-cores-mode`, or an output option)
/// is left out, since a checker need not accept it (z3 answers an unknown
/// one with an `(error …)` and casts no vote).
const KEPT_OPTIONS: &[&str] = &[":global-declarations", ":random-seed"];

/// Commands whose `(error …)` or `unsupported` reply comes without being
/// asked for: every command that prints nothing when it succeeds.
fn silent(head: &str) -> bool {
    !PRINTING.contains(&head) && !matches!(head, "echo" | "exit")
}

/// Whether the output item `out` is the reply of the silent command `c`
/// (before the next command at `next_line`): `unsupported` to a
/// `set-option` or `set-info`, or an `(error …)` whose message names a
/// line of `c` (z3: `line 4 column 30: …`) or, naming no line, follows a
/// `set-option`, `set-info` or `set-logic`.
fn reply_of(c: &Cmd, next_line: Option<u64>, out: &Sexp) -> bool {
    let head = c.head();
    let setting = matches!(head, "set-option" | "set-info" | "set-logic");
    if out.atom() == Some("unsupported") {
        return matches!(head, "set-option" | "set-info");
    }
    if !out.is_error() {
        return false;
    }
    let text = out.to_string();
    let named_line = text.split_once("line ").and_then(|(_, rest)| {
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        rest[digits.len()..]
            .starts_with(" column")
            .then(|| digits.parse::<u64>().ok())?
    });
    match named_line {
        Some(l) => l >= c.line && next_line.is_none_or(|n| l < n),
        None => setting,
    }
}

/// Whether the script needs the incremental check: scopes, several
/// queries or assumptions.
pub fn is_incremental(cmds: &[Cmd]) -> bool {
    incremental_heads(cmds.iter().map(Cmd::head))
}

/// [`is_incremental`] from the commands' heads alone.
pub fn incremental_heads<'a>(heads: impl Iterator<Item = &'a str>) -> bool {
    let mut check_sats = 0;
    for h in heads {
        match h {
            "push" | "pop" | "check-sat-assuming" | "get-unsat-assumptions" => return true,
            "check-sat" => check_sats += 1,
            _ => {}
        }
    }
    check_sats > 1
}

/// A command the incremental check cannot match output to, if any.
pub fn unsupported(cmds: &[Cmd]) -> Option<&Cmd> {
    cmds.iter().find(|c| c.head() == "echo")
}

/// One `unsat` answer with its core or assumptions.
#[derive(Clone, Debug)]
pub struct Query {
    /// Line of the `check-sat` / `check-sat-assuming`.
    pub line: u64,
    /// `get-unsat-core` or `get-unsat-assumptions`.
    pub asked: String,
    /// What the solver answered to it.
    pub answer: String,
    pub check: Check,
    /// Remarks (accepted z3 conventions).
    pub notes: Vec<String>,
}

#[derive(Clone, Debug)]
pub enum Check {
    /// The script to give the checkers; the answer holds when it is unsat.
    Script(String),
    /// Ill-formed: the label (`popped-scope`, `unknown-name`, …) and why.
    IllFormed(&'static str, String),
    /// `unsat`, then an `(error …)` or no list where the core should be.
    Missing(String),
}

/// What matching the output to the script found.
#[derive(Debug, Default)]
pub struct Matched {
    pub queries: Vec<Query>,
    /// Output that contradicts the script (a non-answer to `check-sat`,
    /// items left over).
    pub faults: Vec<String>,
    /// The output ended before this line's command (timeout, crash).
    pub cut_at: Option<u64>,
    /// Every `check-sat` / `check-sat-assuming` answered, in order.
    pub answers: Vec<Answered>,
    /// The `(error …)` or `unsupported` replies of commands that print
    /// nothing when they succeed (`line 4: (set-option :x 1) answered
    /// (error …)`): flagged, not contradictory.
    pub replies: Vec<String>,
}

/// One query's answer and the `:status` the script declared before it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answered {
    /// Line of the `check-sat` / `check-sat-assuming`.
    pub line: u64,
    /// `sat`, `unsat`, `unknown`, or the output item as text.
    pub answer: String,
    /// The last `(set-info :status X)` before the query.
    pub status: Option<String>,
}

/// Why a query's answer contradicts the `:status` the script declares
/// before it (`sat` after `:status unsat`, or `unsat` after `:status
/// sat`), or `None`: the script's author says otherwise, so the output
/// earns no credit (campaigns and selfcheck alike).
pub fn against_status(line: u64, answer: &str, status: Option<&str>) -> Option<String> {
    let contradicts = matches!(
        (answer, status),
        ("sat", Some("unsat")) | ("unsat", Some("sat"))
    );
    contradicts.then(|| {
        format!(
            "line {line}: {answer}, but the script declares :status {} before it",
            status.unwrap_or("")
        )
    })
}

/// Replay `cmds` against the solver's `output` items.
pub fn judge(cmds: &[Cmd], output: &[Sexp]) -> Matched {
    let output: Vec<&Sexp> = output
        .iter()
        .filter(|s| s.atom() != Some("success"))
        .collect();
    let mut m = Matched::default();
    let mut next = output.into_iter().peekable();
    let mut r = Replay::new();
    for (i, c) in cmds.iter().enumerate() {
        let head = c.head();
        r.track(c, cmds);
        if silent(head) {
            let next_line = cmds.get(i + 1).map(|n| n.line);
            if let Some(out) = next.next_if(|o| reply_of(c, next_line, o)) {
                m.replies.push(format!(
                    "line {}: {} answered {}",
                    c.line,
                    shorten(&c.sexp.to_string()),
                    shorten(&out.to_string())
                ));
                // A setting the solver refused does not reach the check
                // script either.
                if matches!(head, "set-option" | "set-info") {
                    continue;
                }
            }
        }
        if !PRINTING.contains(&head) {
            if !matches!(
                head,
                "push" | "pop" | "reset" | "reset-assertions" | "exit" | "echo"
            ) {
                r.live.last_mut().expect("a frame").push(i);
            }
            continue;
        }
        let Some(out) = next.next() else {
            m.cut_at = Some(c.line);
            return m;
        };
        match head {
            "check-sat" | "check-sat-assuming" => r.answered(c, out, &mut m),
            "get-unsat-core" | "get-unsat-assumptions" => r.asked(c, cmds, out, &mut m),
            _ => {}
        }
    }
    let left = next.count();
    if left > 0 {
        m.faults.push(format!(
            "{left} output item(s) after the last command's answer"
        ));
    }
    m
}

/// The state of a script replayed by [`judge`].
struct Replay {
    /// Scope: frames of the names, and of the commands (indices) that a
    /// check script repeats; a popped frame's commands are gone.
    frames: Vec<Vec<String>>,
    live: Vec<Vec<usize>>,
    popped: Vec<String>,
    defines: HashMap<String, String>,
    status: Option<String>,
    /// The last query: (answer, its line, its assumptions).
    last: Option<(String, u64, Vec<Sexp>)>,
}

impl Replay {
    fn new() -> Replay {
        Replay {
            frames: vec![Vec::new()],
            live: vec![Vec::new()],
            popped: Vec::new(),
            defines: HashMap::new(),
            status: None,
            last: None,
        }
    }

    /// What command `c` does to the scopes, the names, the declared status
    /// and the Boolean constants defined.
    fn track(&mut self, c: &Cmd, cmds: &[Cmd]) {
        let head = c.head();
        match head {
            "push" | "pop" => {
                let n = c
                    .arg(0)
                    .and_then(Sexp::atom)
                    .and_then(|a| a.parse().ok())
                    .unwrap_or(1usize);
                for _ in 0..n {
                    if head == "push" {
                        self.frames.push(Vec::new());
                        self.live.push(Vec::new());
                    } else if self.frames.len() > 1 {
                        self.popped.extend(self.frames.pop().unwrap_or_default());
                        self.live.pop();
                    }
                }
            }
            "reset" | "reset-assertions" => {
                self.popped.extend(self.frames.drain(..).flatten());
                self.frames.push(Vec::new());
                // reset-assertions keeps the logic and the options.
                let kept: Vec<usize> = self
                    .live
                    .drain(..)
                    .flatten()
                    .filter(|&k| {
                        head == "reset-assertions"
                            && matches!(cmds[k].head(), "set-logic" | "set-option" | "set-info")
                    })
                    .collect();
                self.live.push(kept);
            }
            "assert" => {
                if let Some(n) = c.assert_name() {
                    self.popped.retain(|p| p != &n);
                    self.frames.last_mut().expect("a frame").push(n);
                }
            }
            "set-info" if c.arg(0).and_then(Sexp::atom) == Some(":status") => {
                self.status = c.arg(1).and_then(Sexp::atom).map(str::to_string);
            }
            "define-fun" => {
                let a = |k| c.arg(k);
                if let (Some(Sexp::Atom(name)), Some(Sexp::List(p)), Some(s), Some(body)) =
                    (a(0), a(1), a(2), a(3))
                {
                    if p.is_empty() && s.atom() == Some("Bool") {
                        self.defines.insert(name.clone(), body.to_string());
                    }
                }
            }
            _ => {}
        }
    }

    /// A `check-sat` or `check-sat-assuming` answered `out`.
    fn answered(&mut self, c: &Cmd, out: &Sexp, m: &mut Matched) {
        let head = c.head();
        let assumptions = match (head, c.arg(0)) {
            ("check-sat-assuming", Some(Sexp::List(l))) => l.clone(),
            _ => Vec::new(),
        };
        m.answers.push(Answered {
            line: c.line,
            answer: out.to_string(),
            status: self.status.clone(),
        });
        match out.atom() {
            Some(a @ ("sat" | "unsat" | "unknown")) => {
                self.last = Some((a.to_string(), c.line, assumptions))
            }
            _ if out.is_error() => self.last = None,
            _ => {
                m.faults
                    .push(format!("line {}: {head} answered {out}", c.line));
                self.last = None;
            }
        }
    }

    /// A `get-unsat-core` or `get-unsat-assumptions` answered `out`: a
    /// query when the last answer was `unsat`.
    fn asked(&self, c: &Cmd, cmds: &[Cmd], out: &Sexp, m: &mut Matched) {
        let head = c.head();
        let Some((answer, line, assumptions)) = &self.last else {
            return;
        };
        if answer != "unsat" {
            return;
        }
        let scope: Vec<&Cmd> = self.live.iter().flatten().map(|&k| &cmds[k]).collect();
        let in_scope: Vec<&String> = self.frames.iter().flatten().collect();
        let mut q = Query {
            line: *line,
            asked: head.to_string(),
            answer: out.to_string(),
            check: Check::Missing(String::new()),
            notes: Vec::new(),
        };
        let popped = &self.popped;
        q.check = match out.list().filter(|_| !out.is_error()) {
            None => Check::Missing(format!("{head} answered {out} after unsat")),
            Some(items) if head == "get-unsat-core" => {
                core_check(&scope, items, &in_scope, popped, assumptions, &mut q.notes)
            }
            Some(items) => assumptions_check(
                &scope,
                items,
                &in_scope,
                popped,
                assumptions,
                &self.defines,
                &mut q.notes,
            ),
        };
        m.queries.push(q);
    }
}

/// `text` cut to 120 characters, with `…`.
fn shorten(text: &str) -> String {
    let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match one_line.char_indices().nth(120) {
        Some((at, _)) => format!("{}…", &one_line[..at]),
        None => one_line,
    }
}

/// Ill-formed unless `name` is in scope: a popped name or an unknown one.
fn out_of_scope(name: &str, popped: &[String]) -> Check {
    if popped.iter().any(|p| p == name) {
        Check::IllFormed(
            "popped-scope",
            format!("{name} names an assertion of a popped scope"),
        )
    } else {
        Check::IllFormed(
            "unknown-name",
            format!("{name} is not a named assertion in scope"),
        )
    }
}

/// How a `get-unsat-core` after `check-sat-assuming` is read, in the
/// notes and the verdict of such a query.
pub const ASSUMPTIONS_KEPT: &str =
    "core read relative to the check-sat-assuming's assumptions (SMT-LIB 2.7)";

fn core_check(
    before: &[&Cmd],
    items: &[Sexp],
    in_scope: &[&String],
    popped: &[String],
    assumptions: &[Sexp],
    notes: &mut Vec<String>,
) -> Check {
    let mut names: Vec<&str> = Vec::new();
    let mut assumed: Vec<&Sexp> = Vec::new();
    for it in items {
        // z3 lists an assumption that is not a symbol as the term itself.
        if it.atom().is_none() {
            let text = it.to_string();
            match assumptions.iter().find(|a| a.to_string() == text) {
                Some(a) if !assumed.iter().any(|x| x.to_string() == text) => {
                    assumed.push(a);
                    continue;
                }
                Some(_) => return Check::IllFormed("duplicate", format!("{it} is listed twice")),
                None => return Check::IllFormed("not-a-name", format!("{it} is not a name")),
            }
        }
        let Some(name) = it.atom() else {
            return Check::IllFormed("not-a-name", format!("{it} is not a name"));
        };
        if names.contains(&name) {
            return Check::IllFormed("duplicate", format!("{name} is listed twice"));
        }
        if in_scope.iter().any(|s| s.as_str() == name) {
            names.push(name);
        } else if let Some(a) = assumptions.iter().find(|a| a.atom() == Some(name)) {
            names.push(name);
            assumed.push(a);
        } else {
            return out_of_scope(name, popped);
        }
    }
    // The core is relative to the assumptions of the `check-sat-assuming`
    // it follows, listed or not (SMT-LIB 2.7's reading): every assumption
    // stays asserted in the check script.
    let omitted: Vec<String> = assumptions
        .iter()
        .filter(|a| {
            let text = a.to_string();
            !assumed.iter().any(|x| x.to_string() == text)
        })
        .map(Sexp::to_string)
        .collect();
    if !omitted.is_empty() {
        notes.push(format!(
            "{ASSUMPTIONS_KEPT}: {} not listed, asserted in the check",
            omitted.join(" ")
        ));
    }
    let all: Vec<&Sexp> = assumptions.iter().collect();
    Check::Script(check_script(before, Some(&names), &all))
}

fn assumptions_check(
    before: &[&Cmd],
    items: &[Sexp],
    in_scope: &[&String],
    popped: &[String],
    assumptions: &[Sexp],
    defines: &HashMap<String, String>,
    notes: &mut Vec<String>,
) -> Check {
    let mut assumed: Vec<&Sexp> = Vec::new();
    for it in items {
        let text = it.to_string();
        if let Some(a) = assumptions.iter().find(|a| a.to_string() == text) {
            assumed.push(a);
        } else if let Some(a) = assumptions.iter().find(|a| {
            a.atom()
                .and_then(|n| defines.get(n))
                .is_some_and(|body| *body == text)
        }) {
            notes.push(format!(
                "{text} read as the assumption {a} (its definition)"
            ));
            assumed.push(a);
        } else if in_scope.iter().any(|s| **s == text) {
            notes.push(format!(
                "{text} is an assertion's name, not an assumption: ignored"
            ));
        } else if it.atom().is_some() && popped.contains(&text) {
            return out_of_scope(&text, popped);
        } else {
            return Check::IllFormed(
                "not-an-assumption",
                format!("{text} is not one of the assumptions"),
            );
        }
    }
    Check::Script(check_script(before, None, &assumed))
}

/// The commands in scope at the query (a script without scopes: what a
/// popped frame held is gone), without output options and `:status`
/// (the checkers decide it) and, when `core`
/// is given, without the named assertions outside it; then the assumed
/// literals asserted, and `(check-sat)`.
fn check_script(before: &[&Cmd], core: Option<&[&str]>, assumed: &[&Sexp]) -> String {
    let mut s = String::new();
    for c in before {
        let h = c.head();
        if PRINTING.contains(&h) || h == "exit" || h == "echo" {
            continue;
        }
        let option = c.arg(0).and_then(Sexp::atom).unwrap_or("");
        if h == "set-option" && !KEPT_OPTIONS.contains(&option) {
            continue;
        }
        // The check script's status is what the checkers decide (cvc5
        // aborts on a script whose declared status it does not find).
        if h == "set-info" && option == ":status" {
            continue;
        }
        if h == "assert" {
            if let (Some(core), Some(n)) = (core, c.assert_name()) {
                if !core.contains(&n.as_str()) {
                    continue;
                }
            }
        }
        s.push_str(&c.sexp.to_string());
        s.push('\n');
    }
    for a in assumed {
        s.push_str(&format!("(assert {a})\n"));
    }
    s.push_str("(check-sat)\n(exit)\n");
    s
}

#[cfg(test)]
#[path = "script_tests.rs"]
mod tests;
