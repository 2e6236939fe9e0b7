//! A CSV file with a header line, as every table coreval reads is one
//! (StarExec job CSVs of the core and answer tracks, single-query results
//! for validators, the participants table): columns are found by name
//! (trimmed, ASCII case ignored, in any order, extra columns ignored), a
//! missing column is refused with `FILE:1`, and each row comes with the
//! line it starts on, counted from its byte offset.
//!
//! The csv crate's own line numbers are one short after a CRLF terminator
//! (the SMT-COMP archives use CRLF) and after blank lines
//! (BurntSushi/rust-csv#395, #208), and counting rows is wrong as soon as a
//! quoted cell spans lines; hence [`Lines`].

use anyhow::{bail, Context, Result};
use std::fmt::Display;

/// An open table: its header, and the rows still to read.
pub struct Table<'a> {
    label: String,
    header: csv::StringRecord,
    reader: csv::Reader<&'a [u8]>,
    lines: Lines<'a>,
}

impl<'a> Table<'a> {
    /// Read the header of `bytes`; `label` names the file in messages.
    pub fn new(bytes: &'a [u8], label: impl Display) -> Result<Self> {
        let label = label.to_string();
        let mut reader = csv::ReaderBuilder::new().flexible(true).from_reader(bytes);
        let header = reader
            .headers()
            .with_context(|| format!("{label}:1: cannot read the header line"))?
            .clone();
        Ok(Table {
            label,
            header,
            reader,
            lines: Lines {
                bytes,
                pos: 0,
                line: 1,
            },
        })
    }

    /// The header's column names, trimmed, in file order.
    pub fn names(&self) -> impl Iterator<Item = (usize, &str)> {
        self.header.iter().map(str::trim).enumerate()
    }

    /// The first column named one of `names`.
    pub fn find(&self, names: &[&str]) -> Option<usize> {
        self.names()
            .find(|(_, h)| names.iter().any(|n| h.eq_ignore_ascii_case(n)))
            .map(|(i, _)| i)
    }

    /// The column named one of `names`, or an error naming `names[0]`
    /// (`what` says what kind of table would have it).
    pub fn column(&self, names: &[&str], what: &str) -> Result<usize> {
        match self.find(names) {
            Some(i) => Ok(i),
            None => bail!(
                "{}:1: missing required column `{}` ({what})",
                self.label,
                names[0]
            ),
        }
    }

    /// Every column of `required`, in that order.
    pub fn columns<const N: usize>(&self, required: [&str; N], what: &str) -> Result<[usize; N]> {
        let mut out = [0; N];
        for (o, name) in out.iter_mut().zip(required) {
            *o = self.column(&[name], what)?;
        }
        Ok(out)
    }

    /// The rows, each with the line it starts on; an unreadable row is
    /// `Err` with its message (the caller decides whether to go on).
    pub fn rows(
        &mut self,
    ) -> impl Iterator<Item = (u64, Result<csv::StringRecord, String>)> + use<'_, 'a> {
        let Table { reader, lines, .. } = self;
        reader.records().map(move |r| match r {
            Ok(rec) => {
                let line = rec.position().map_or(0, |p| lines.line_at(p.byte()));
                (line, Ok(rec))
            }
            Err(e) => {
                let line = e.position().map_or(0, |p| lines.line_at(p.byte()));
                (line, Err(format!("unreadable row: {e}")))
            }
        })
    }

    /// The trimmed cell of `row` in column `col` (empty when absent).
    pub fn cell(row: &csv::StringRecord, col: usize) -> &str {
        row.get(col).unwrap_or("").trim()
    }
}

/// Line numbers of records, counted from their byte offsets.
struct Lines<'a> {
    bytes: &'a [u8],
    /// Offset up to which line feeds are counted, and the line there.
    pos: usize,
    line: u64,
}

impl Lines<'_> {
    /// 1-based line of the first byte at or after `byte` that is not a
    /// line terminator: where the record starts. Lines end as records do,
    /// with CRLF, LF or a lone CR. Records come in order, so the counting
    /// resumes where it stopped.
    fn line_at(&mut self, byte: u64) -> u64 {
        let b = self.bytes;
        let mut start = usize::try_from(byte).map_or(b.len(), |x| x.min(b.len()));
        while start < b.len() && matches!(b[start], b'\r' | b'\n') {
            start += 1;
        }
        if start < self.pos {
            (self.pos, self.line) = (0, 1);
        }
        let span = &b[self.pos..start];
        let lf = memchr::memchr_iter(b'\n', span).count();
        let lone_cr = memchr::memchr_iter(b'\r', span)
            .filter(|&i| span.get(i + 1) != Some(&b'\n'))
            .count();
        self.line += (lf + lone_cr) as u64;
        self.pos = start;
        self.line
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_know_their_lines_after_crlf_blank_lines_and_quoted_newlines() {
        let text = b"a, B ,c\r\n1,2,3\r\n\r\n4,\"x\ny\",6\n7,8,9\n";
        let mut t = Table::new(&text[..], "t.csv").unwrap();
        assert_eq!(t.find(&["b"]), Some(1));
        assert_eq!(t.columns(["c", "a"], "test").unwrap(), [2, 0]);
        let lines: Vec<u64> = t.rows().map(|(l, _)| l).collect();
        assert_eq!(lines, [2, 4, 6]);
    }

    #[test]
    fn a_missing_column_names_the_file_and_line_one() {
        let t = Table::new(&b"a,b\n1,2\n"[..], "dir/t.csv").unwrap();
        let e = t.column(&["cpu time"], "a job CSV has it").unwrap_err();
        assert_eq!(
            e.to_string(),
            "dir/t.csv:1: missing required column `cpu time` (a job CSV has it)"
        );
    }
}
