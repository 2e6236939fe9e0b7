//! Incremental and assumption scripts, shared by `coreval selfcheck` and
//! campaigns (`[naming] incremental`): the script model ([`script::Cmd`]),
//! the S-expression reader ([`sexp`]) and the matching of a solver's output
//! to the script's commands in order ([`script::judge`]), which says for
//! every `unsat` answer followed by a core or an unsat-assumption set
//! whether it is ill-formed or which check script the checkers must find
//! unsat. The decisions (docs/authors.md, "Incremental and assumption cores") live
//! here once: a name from a popped scope is ill-formed; z3's names of
//! named assertions inside a `get-unsat-assumptions` answer are ignored;
//! a `define-fun` assumption answered as its body counts as the assumption.

pub mod record;
pub mod script;
pub mod sexp;
pub mod verdict;

use script::Cmd;
use std::path::Path;

/// A script's commands, when it is incremental (`None`: a single-query
/// script, or unreadable: the caller reports it). Whether it is comes
/// from the commands' heads: a single-query script (what `selfcheck` is
/// given most) is not read into trees.
pub fn commands(path: &Path) -> Option<Vec<Cmd>> {
    let bytes = std::fs::read(path).ok()?;
    let cmds = crate::smtlib::scanner::commands(&bytes).ok()?;
    if !script::incremental_heads(cmds.iter().map(|c| c.head())) {
        return None;
    }
    Some(parsed(&cmds)).filter(|cmds| script::is_incremental(cmds))
}

/// Every command of the script at `path` (`None`: unreadable or not
/// SMT-LIB).
pub fn read_commands(path: &Path) -> Option<Vec<Cmd>> {
    let bytes = std::fs::read(path).ok()?;
    let cmds = crate::smtlib::scanner::commands(&bytes).ok()?;
    Some(parsed(&cmds))
}

/// The S-expressions of the scanned commands (those that read as one).
fn parsed(cmds: &[crate::smtlib::scanner::Command]) -> Vec<Cmd> {
    cmds.iter()
        .filter_map(|c| {
            let text = std::str::from_utf8(&c.text).ok()?;
            let sexp = sexp::parse_all(text).ok()?.pop()?;
            Some(Cmd { sexp, line: c.line })
        })
        .collect()
}

/// For the S-expression of a command in tests.
#[cfg(test)]
pub fn parse_cmd(text: &str, line: u64) -> Cmd {
    Cmd {
        sexp: sexp::parse_all(text).unwrap().pop().unwrap(),
        line,
    }
}
