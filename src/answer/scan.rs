//! Byte-level scanner for solver stdout: splits the output into top-level
//! items (bare lines, `(error …)` responses, lists, strings) without ever
//! looking inside a string or quoted symbol for structure.
//!
//! Solvers print two kinds of text: bare words on their own line (`sat`,
//! `success`, `[btorsmt2] WARNING …`, `file:3: unsupported command`) and
//! S-expressions that may span lines (cvc5 prints a core one name per line,
//! yices wraps long cores, `|multi<NL>line|` names keep their newline). A
//! bare line is therefore taken whole and never tokenized, so a stray `"` or
//! `|` in a warning cannot swallow the rest of the output. S-expressions are
//! tokenized by SMT-LIB rules: strings with `""` escapes, `|quoted|` symbols,
//! `;` comments.
//!
//! `(error "…")` is the exception: solvers do not escape its message (z3
//! writes `\"`, yices and cvc5 a raw `"`, and cvc5's parse errors span
//! several lines). Its string ends at the first `"` that is followed by `)`
//! and then the end of the line; `""` still counts as an escaped quote.
//!
//! A list still open at the end of the output is reported as
//! [`Item::UnclosedList`], a string as [`Item::Unterminated`]; scanning
//! then resumes on the line after the one where it started (at most [`MAX_RECOVERIES`] times, which bounds the work
//! on pathological output to a small multiple of its length), so a garbage
//! line with an unbalanced `(` cannot hide an answer printed after it.

/// How often an unterminated list may be skipped before the rest of the
/// output is given up.
pub(crate) const MAX_RECOVERIES: usize = 16;

/// One top-level item of solver output.
#[derive(Debug, PartialEq)]
pub(crate) enum Item<'a> {
    /// A bare line (not starting with `(`, `"` or `;`), trimmed.
    Line(&'a [u8]),
    /// `(error "…")` with its message; `complete` is false when the string
    /// never ended and the message runs to the end of the output.
    Error { message: String, complete: bool },
    /// A list whose elements are all atoms other than keywords: raw tokens
    /// as printed (`a1`, `|a b|`, `123`). A core looks like this.
    Symbols(Vec<&'a [u8]>),
    /// A list starting with a keyword: an info response such as
    /// `(:reason-unknown "timeout")`.
    Info,
    /// Any other complete list (nested lists, strings, inner keywords):
    /// models, values, or a malformed core. `first` is the first element
    /// that keeps it from being a list of symbols.
    OtherList { first: NotASymbol },
    /// A string at top level (cvc5's `(echo "x")` output).
    Echo,
    /// A list that was still open at the end of the output; `at` is the
    /// offset of its `(`.
    UnclosedList { at: usize },
    /// A string that was still open at the end of the output.
    Unterminated,
}

/// The first element of a list that is not a symbol, and its offset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NotASymbol {
    /// A list inside the list (its `(`).
    List(usize),
    /// A string or a keyword.
    Literal(usize),
}

pub(crate) struct Scanner<'a> {
    s: &'a [u8],
    pos: usize,
    recoveries: usize,
    /// Where strict `(error "…")` strings may end, found once (see
    /// [`Scanner::strict_ends`]).
    strict_ends: std::cell::OnceCell<Vec<usize>>,
}

fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n' | 0x0b | 0x0c)
}

fn is_delim(b: u8) -> bool {
    is_ws(b) || matches!(b, b'(' | b')' | b'"' | b'|' | b';')
}

/// Trim ASCII whitespace from both ends.
pub(crate) fn trim(mut b: &[u8]) -> &[u8] {
    while let [first, rest @ ..] = b {
        if !is_ws(*first) {
            break;
        }
        b = rest;
    }
    while let [rest @ .., last] = b {
        if !is_ws(*last) {
            break;
        }
        b = rest;
    }
    b
}

impl<'a> Scanner<'a> {
    pub(crate) fn new(s: &'a [u8]) -> Self {
        Scanner {
            s,
            pos: 0,
            recoveries: 0,
            strict_ends: std::cell::OnceCell::new(),
        }
    }

    fn end_of_line(&self, from: usize) -> usize {
        self.s[from..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(self.s.len(), |i| from + i)
    }

    /// Resume after an unterminated item that started at `start`.
    fn recover(&mut self, start: usize) {
        if self.recoveries < MAX_RECOVERIES {
            self.recoveries += 1;
            self.pos = self.end_of_line(start);
        } else {
            self.pos = self.s.len();
        }
    }

    pub(crate) fn next_item(&mut self) -> Option<Item<'a>> {
        loop {
            while self.pos < self.s.len() && is_ws(self.s[self.pos]) {
                self.pos += 1;
            }
            let start = self.pos;
            match *self.s.get(start)? {
                b';' => self.pos = self.end_of_line(start),
                b'(' => {
                    if let Some(item) = self.error_response(start) {
                        return Some(item);
                    }
                    return Some(match self.list(start) {
                        Some(item) => item,
                        None => {
                            self.recover(start);
                            Item::UnclosedList { at: start }
                        }
                    });
                }
                b'"' => {
                    return Some(match self.string_end(start) {
                        Some(end) => {
                            self.pos = end;
                            Item::Echo
                        }
                        None => {
                            self.recover(start);
                            Item::Unterminated
                        }
                    })
                }
                _ => {
                    let end = self.end_of_line(start);
                    self.pos = end;
                    return Some(Item::Line(trim(&self.s[start..end])));
                }
            }
        }
    }

    /// End (exclusive) of the SMT-LIB string opening at `at`, `""` escaped.
    fn string_end(&self, at: usize) -> Option<usize> {
        let mut i = at + 1;
        loop {
            let q = i + self.s[i..].iter().position(|&b| b == b'"')?;
            if self.s.get(q + 1) == Some(&b'"') {
                i = q + 2;
            } else {
                return Some(q + 1);
            }
        }
    }

    /// End (exclusive) of the quoted symbol opening at `at`.
    fn quoted_end(&self, at: usize) -> Option<usize> {
        let rel = self.s[at + 1..].iter().position(|&b| b == b'|')?;
        Some(at + 1 + rel + 1)
    }

    /// Parse the list opening at `start`; `None` when it never closes.
    fn list(&mut self, start: usize) -> Option<Item<'a>> {
        let s = self.s;
        let mut i = start + 1;
        let mut depth = 1usize;
        let mut atoms: Vec<&'a [u8]> = Vec::new();
        let mut not_symbol: Option<NotASymbol> = None;
        let mut first_is_keyword = false;
        let mut first = true;
        while depth > 0 {
            let b = *s.get(i)?;
            let at_top = depth == 1;
            match b {
                _ if is_ws(b) => {
                    i += 1;
                    continue;
                }
                b';' => {
                    i = self.end_of_line(i);
                    continue;
                }
                b'(' => {
                    if at_top {
                        not_symbol.get_or_insert(NotASymbol::List(i));
                    }
                    depth += 1;
                    i += 1;
                }
                b')' => {
                    depth -= 1;
                    i += 1;
                    continue;
                }
                b'"' => {
                    if at_top {
                        not_symbol.get_or_insert(NotASymbol::Literal(i));
                    }
                    i = self.string_end(i)?;
                }
                b'|' => {
                    let end = self.quoted_end(i)?;
                    if at_top {
                        atoms.push(&s[i..end]);
                    }
                    i = end;
                }
                _ => {
                    let end = i + s[i..]
                        .iter()
                        .position(|&c| is_delim(c))
                        .unwrap_or(s.len() - i);
                    if at_top {
                        if b == b':' {
                            not_symbol.get_or_insert(NotASymbol::Literal(i));
                            first_is_keyword |= first;
                        }
                        atoms.push(&s[i..end]);
                    }
                    i = end;
                }
            }
            if at_top {
                first = false;
            }
        }
        self.pos = i;
        Some(match not_symbol {
            _ if first_is_keyword => Item::Info,
            None => Item::Symbols(atoms),
            Some(first) => Item::OtherList { first },
        })
    }

    /// `(error "…")` opening at `start`, if that is what follows.
    fn error_response(&mut self, start: usize) -> Option<Item<'a>> {
        let s = self.s;
        let mut i = start + 1;
        while i < s.len() && is_ws(s[i]) {
            i += 1;
        }
        if !s[i..].starts_with(b"error") {
            return None;
        }
        i += b"error".len();
        while i < s.len() && is_ws(s[i]) {
            i += 1;
        }
        if s.get(i) != Some(&b'"') {
            return None;
        }
        let open = i + 1;
        let (message, end, complete) = match self.strict_error_end(open) {
            Some((msg, end)) => (msg, end, true),
            None => match self.loose_error_end(open) {
                Some((msg, end)) => (msg, end, true),
                None => (
                    String::from_utf8_lossy(&s[open..]).into_owned(),
                    s.len(),
                    false,
                ),
            },
        };
        self.pos = end;
        Some(Item::Error { message, complete })
    }

    /// If `q + 1..` is whitespace, `)` and then the end of a line (or of the
    /// output), the position after the `)`.
    fn closes_line(&self, from: usize, need_eol: bool) -> Option<usize> {
        let s = self.s;
        let mut i = from;
        while i < s.len() && matches!(s[i], b' ' | b'\t' | b'\r') {
            i += 1;
        }
        if s.get(i) != Some(&b')') {
            return None;
        }
        let close = i + 1;
        let mut j = close;
        while j < s.len() && matches!(s[j], b' ' | b'\t' | b'\r') {
            j += 1;
        }
        (!need_eol || j == s.len() || s[j] == b'\n').then_some(close)
    }

    /// The error string ends at a `"` followed by `)` and the end of the
    /// line; `""` is an escaped quote, any other `"` is kept as printed.
    ///
    /// Read left to right from `open`, a run of quotes pairs up from its
    /// first quote, so the run's last quote is an end when the run has odd
    /// length and `)` and the end of the line follow. Those ends are found
    /// once for the whole output ([`Scanner::strict_ends`]); only the run
    /// that starts at `open` (it continues the opening quote, but pairs from
    /// `open`) is looked at here. Searching afresh from every `(error "`
    /// cost O(n²) on output made of many errors that end loosely.
    fn strict_error_end(&self, open: usize) -> Option<(String, usize)> {
        let s = self.s;
        let mut run_end = open;
        while run_end < s.len() && s[run_end] == b'"' {
            run_end += 1;
        }
        let quote = if (run_end - open) % 2 == 1 && self.closes_line(run_end, true).is_some() {
            run_end - 1
        } else {
            let ends = self.strict_ends();
            *ends.get(ends.partition_point(|&q| q < run_end))?
        };
        let mut msg = Vec::with_capacity(quote - open);
        let mut i = open;
        while i < quote {
            msg.push(s[i]);
            i += if s[i] == b'"' && s[i + 1] == b'"' {
                2
            } else {
                1
            };
        }
        let end = self.closes_line(quote + 1, true)?;
        Some((String::from_utf8_lossy(&msg).into_owned(), end))
    }

    /// Last quotes of odd-length runs of quotes followed by `)` and the end
    /// of the line, in order.
    fn strict_ends(&self) -> &[usize] {
        self.strict_ends.get_or_init(|| {
            let s = self.s;
            let mut ends = Vec::new();
            let mut i = 0;
            while let Some(k) = memchr::memchr(b'"', &s[i..]) {
                let start = i + k;
                let mut end = start;
                while end < s.len() && s[end] == b'"' {
                    end += 1;
                }
                if (end - start) % 2 == 1 && self.closes_line(end, true).is_some() {
                    ends.push(end - 1);
                }
                i = end;
            }
            ends
        })
    }

    /// Fallback: the first `"` followed by `)`, whatever comes after it.
    fn loose_error_end(&self, open: usize) -> Option<(String, usize)> {
        let s = self.s;
        let mut i = open;
        loop {
            let q = i + s[i..].iter().position(|&b| b == b'"')?;
            if let Some(end) = self.closes_line(q + 1, false) {
                return Some((String::from_utf8_lossy(&s[open..q]).into_owned(), end));
            }
            i = q + 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn items(s: &str) -> Vec<Item<'_>> {
        let mut sc = Scanner::new(s.as_bytes());
        std::iter::from_fn(|| sc.next_item()).collect()
    }

    #[test]
    fn lines_lists_and_errors() {
        let got = items("sat\n(a |b c| 12)\n(:reason-unknown \"x\")\n((x 1))\n\"echo\"\n; c\n");
        assert_eq!(
            got,
            vec![
                Item::Line(b"sat"),
                Item::Symbols(vec![b"a", b"|b c|", b"12"]),
                Item::Info,
                Item::OtherList {
                    first: NotASymbol::List(40)
                },
                Item::Echo,
            ]
        );
    }

    #[test]
    fn error_with_raw_quote_and_backslash() {
        let got = items("(error \"a\\\"b\")\n(error \"term: |a\"b|\")\nunsat\n");
        assert_eq!(got.len(), 3);
        assert_eq!(
            got[0],
            Item::Error {
                message: "a\\\"b".into(),
                complete: true
            }
        );
        assert_eq!(
            got[1],
            Item::Error {
                message: "term: |a\"b|".into(),
                complete: true
            }
        );
        assert_eq!(got[2], Item::Line(b"unsat"));
    }

    #[test]
    fn unterminated_list_recovers_on_next_line() {
        let got = items("(garbage \"x\nunsat\n(a1)\n");
        assert_eq!(got[0], Item::UnclosedList { at: 0 });
        assert_eq!(got[1], Item::Line(b"unsat"));
        assert_eq!(got[2], Item::Symbols(vec![b"a1"]));
    }

    #[test]
    fn error_without_end_runs_to_eof() {
        let got = items("(error \"half a message\nunsat\n");
        assert_eq!(
            got,
            vec![Item::Error {
                message: "half a message\nunsat\n".into(),
                complete: false
            }]
        );
    }

    #[test]
    fn deep_nesting_needs_no_recursion() {
        let deep = "(".repeat(200_000) + &")".repeat(200_000);
        assert_eq!(
            items(&deep),
            vec![Item::OtherList {
                first: NotASymbol::List(1)
            }]
        );
    }

    /// The strict rule as first written: a fresh left-to-right search.
    fn strict_reference(s: &[u8], open: usize) -> Option<(String, usize)> {
        let sc = Scanner::new(s);
        let mut msg = Vec::new();
        let mut i = open;
        loop {
            let q = i + s[i..].iter().position(|&b| b == b'"')?;
            msg.extend_from_slice(&s[i..q]);
            if s.get(q + 1) == Some(&b'"') {
                msg.push(b'"');
                i = q + 2;
            } else if let Some(end) = sc.closes_line(q + 1, true) {
                return Some((String::from_utf8_lossy(&msg).into_owned(), end));
            } else {
                msg.push(b'"');
                i = q + 1;
            }
        }
    }

    #[test]
    fn strict_error_end_matches_the_fresh_search() {
        // Every string of up to 7 bytes over the bytes that matter, after
        // an opening quote (itself after some quotes and text).
        let alphabet = b"\")\n a";
        for prefix in [&b"(error \""[..], b"x\"\" (error \"", b"\"\"(error \""] {
            for len in 0..=7u32 {
                for mut code in 0..alphabet.len().pow(len) {
                    let mut s = prefix.to_vec();
                    for _ in 0..len {
                        s.push(alphabet[code % alphabet.len()]);
                        code /= alphabet.len();
                    }
                    let open = prefix.len();
                    let got = Scanner::new(&s).strict_error_end(open);
                    assert_eq!(
                        got,
                        strict_reference(&s, open),
                        "{:?}",
                        String::from_utf8_lossy(&s)
                    );
                }
            }
        }
    }

    #[test]
    fn many_loosely_ended_errors_take_linear_time() {
        // Each `(error "x") y` ends loosely; a fresh strict search from each
        // one read to the end of the output (20 000 errors: minutes).
        let text = "(error \"x\") y\n".repeat(20_000);
        let got = items(&text);
        assert_eq!(got.len(), 40_000);
        assert_eq!(
            got[0],
            Item::Error {
                message: "x".into(),
                complete: true
            }
        );
        assert_eq!(got[1], Item::Line(b"y"));
    }

    #[test]
    fn recovery_is_bounded() {
        let text = "(\n".repeat(10_000) + "unsat\n";
        let got = items(&text);
        assert_eq!(got.len(), MAX_RECOVERIES + 1);
        assert!(got.iter().all(|i| matches!(i, Item::UnclosedList { .. })));
    }
}
