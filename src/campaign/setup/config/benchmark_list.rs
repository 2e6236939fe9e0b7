//! The campaign key `benchmark_list`: a text file of benchmark ids, each
//! relative to the campaign's `benchmarks` folder, one a line (what
//! `coreval select` writes). Blank lines and lines whose first non-blank
//! character is `#` are ignored; the rest of a line, trimmed, is the id.
//! Only the listed benchmarks are named, and so solved and checked; an id
//! with no file below `benchmarks` is refused by the preflight, with the
//! list's line ([`crate::campaign::setup::context::Context::load`]).

use anyhow::{Context, Result};
use std::collections::HashSet;
use std::path::Path;

/// One id of the list, with its 1-based line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Listed {
    pub id: String,
    pub line: usize,
}

/// The ids of the list text `text`, in the order written (a repeated id
/// is kept once, at its first line).
pub fn parse(text: &str) -> Vec<Listed> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let id = raw.trim();
        if id.is_empty() || id.starts_with('#') {
            continue;
        }
        if seen.insert(id) {
            out.push(Listed {
                id: id.to_string(),
                line: i + 1,
            });
        }
    }
    out
}

/// The list file `path`, read and parsed; an error names the file.
pub fn read(path: &Path) -> Result<Vec<Listed>> {
    let bytes = crate::store::regular::read(path)
        .with_context(|| format!("cannot read the benchmark list {}", path.display()))?;
    let text = String::from_utf8(bytes)
        .map_err(|e| anyhow::anyhow!("{}: not UTF-8 text ({e})", path.display()))?;
    Ok(parse(&text))
}

/// The set of ids of the list file `path`, as the naming stage takes them.
pub fn ids(path: &Path) -> Result<HashSet<String>> {
    Ok(read(path)?.into_iter().map(|l| l.id).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_blank_lines_and_repeats_are_left_out() {
        let text = "# selected by coreval select\n\nQF_LIA/a/x.smt2\n  QF_LIA/b/y.smt2  \r\n\
                    # QF_LIA/c/z.smt2\nQF_LIA/a/x.smt2\n";
        let got = parse(text);
        assert_eq!(
            got,
            vec![
                Listed {
                    id: "QF_LIA/a/x.smt2".into(),
                    line: 3
                },
                Listed {
                    id: "QF_LIA/b/y.smt2".into(),
                    line: 4
                },
            ]
        );
    }

    #[test]
    fn a_missing_file_is_named() {
        let err = read(Path::new("/nonexistent/list.txt")).unwrap_err();
        assert!(
            format!("{err:#}").contains("/nonexistent/list.txt"),
            "{err:#}"
        );
    }
}
