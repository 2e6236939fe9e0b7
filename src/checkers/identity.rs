//! Which checker definitions a solver command *runs*: the basis of the
//! team rule for solvers under test given as a command (`coreval selfcheck
//! --solver`, an inline `[[solver]] command`), whose declared team is only a
//! word. A solver that runs cvc5 belongs to cvc5's team whatever it is
//! called, so cvc5 (and cvc4, cvc5-py: team `cvc`) must not judge its cores.
//!
//! A checker is *run* by a solver command when
//! - one of the command's files (the program, resolved through `PATH`, or an
//!   argument naming an existing file), after following symlinks, is the
//!   checker's own file: its program, or for a checker started through an
//!   interpreter (`python wrappers/cvc5py.py`) its wrapper script; or
//! - one of those files has the checker's name or its own file's name
//!   (`cvc5`, `yices-smt2`, `cvc5py.py`): another build of the same solver;
//! - or the program is a small script (`#!`) whose text, or an argument
//!   (`sh -c 'exec cvc5 "$1"'`), mentions one of those files or names as a
//!   word (`exec cvc5 "$1"`, a path ending in `/bin/z3`): a wrapper. A mention in a comment counts too; erring
//!   that way only keeps a checker off, and the team is printed.

use super::SolverDef;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Scripts larger than this are not read for mentions.
const SCRIPT_MAX: u64 = 64 * 1024;

/// What identifies a checker definition: its files and names.
struct Identity {
    files: Vec<PathBuf>,
    names: BTreeSet<String>,
}

fn canonical(p: &Path) -> Option<PathBuf> {
    p.canonicalize().ok()
}

fn file_name(p: &Path) -> Option<String> {
    p.file_name().map(|n| n.to_string_lossy().into_owned())
}

fn identity(k: &SolverDef) -> Identity {
    let wrappers = k.wrapper_scripts();
    // Through an interpreter, the wrapper is the solver; otherwise the program.
    let own: Vec<PathBuf> = if wrappers.is_empty() {
        k.program().into_iter().collect()
    } else {
        wrappers
    };
    let mut names: BTreeSet<String> = own.iter().filter_map(|p| file_name(p)).collect();
    names.insert(k.name.clone());
    Identity {
        files: own.iter().filter_map(|p| canonical(p)).collect(),
        names,
    }
}

/// The files and words a solver command runs or mentions.
struct Footprint {
    files: Vec<PathBuf>,
    names: BTreeSet<String>,
    /// Words of a wrapper script's text.
    words: BTreeSet<String>,
}

/// `program`: the command's program resolved; `args`: its other words
/// with placeholders expanded (those with `{file}` left out).
fn footprint(program: Option<PathBuf>, args: &[String]) -> Footprint {
    let mut f = Footprint {
        files: Vec::new(),
        names: BTreeSet::new(),
        words: BTreeSet::new(),
    };
    let mut paths: Vec<PathBuf> = program.clone().into_iter().collect();
    paths.extend(args.iter().map(PathBuf::from).filter(|p| p.is_file()));
    for p in &paths {
        f.names.extend(file_name(p));
        if let Some(c) = canonical(p) {
            f.names.extend(file_name(&c));
            f.files.push(c);
        }
    }
    // Words of the program's script, and of the arguments (`sh -c 'cvc5 "$1"'`).
    let arg_words: Vec<String> = args.iter().flat_map(|a| words(a)).collect();
    let script = program.map(|p| script_words(&p)).unwrap_or_default();
    for w in script.into_iter().chain(arg_words) {
        if w.contains('/') {
            if let Some(c) = canonical(Path::new(&w)) {
                f.files.push(c);
            }
        }
        if let Some(n) = file_name(Path::new(&w)) {
            f.words.insert(n);
        }
        f.words.insert(w);
    }
    f
}

/// The words of a small `#!` script (split at blanks, quotes and shell
/// punctuation); nothing for binaries and large files.
fn script_words(path: &Path) -> Vec<String> {
    let small = path.metadata().is_ok_and(|m| m.len() <= SCRIPT_MAX);
    let Some(text) = small.then(|| std::fs::read(path).ok()).flatten() else {
        return Vec::new();
    };
    if !text.starts_with(b"#!") {
        return Vec::new();
    }
    words(&String::from_utf8_lossy(&text))
}

/// Words of shell text: split at blanks, quotes and shell punctuation.
fn words(text: &str) -> Vec<String> {
    text.split(|c: char| c.is_whitespace() || "\"'`;|&()<>=${}".contains(c))
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// For each checker in `checkers` that the definition `solver` runs, its
/// name and why.
pub fn runs(solver: &SolverDef, checkers: &[SolverDef]) -> Vec<(String, String)> {
    let args: Vec<String> = solver.command[1..]
        .iter()
        .filter(|a| !super::template::uses(a, "file"))
        .filter_map(|a| solver.expand_fixed(a))
        .collect();
    matches(&footprint(solver.program(), &args), checkers)
}

/// [`runs`] for a command given as words (`coreval selfcheck --solver`).
pub fn runs_words(words: &[String], checkers: &[SolverDef]) -> Vec<(String, String)> {
    let Some((program, args)) = words.split_first() else {
        return Vec::new();
    };
    let args: Vec<String> = args
        .iter()
        .filter(|a| !a.contains("{file}"))
        .cloned()
        .collect();
    matches(&footprint(super::resolve_program(program), &args), checkers)
}

/// For each checker in `checkers` whose own file is one of `programs`
/// (seen running in a solver's process tree, links resolved), its name
/// and why.
pub fn runs_seen(programs: &[PathBuf], checkers: &[SolverDef]) -> Vec<(String, String)> {
    let seen: Vec<PathBuf> = programs
        .iter()
        .map(|p| canonical(p).unwrap_or_else(|| p.clone()))
        .collect();
    let mut out = Vec::new();
    for k in checkers {
        if let Some(p) = identity(k).files.iter().find(|p| seen.contains(p)) {
            out.push((k.name.clone(), format!("was seen running {}", p.display())));
        }
    }
    out
}

/// For each checker in `checkers` whose own file has the same content as
/// the program of the definition `solver` (a copy of its binary under
/// another name is the same program), its name and why. Files of another
/// size are not read; a file that cannot be read is no match.
pub fn same_content(solver: &SolverDef, checkers: &[SolverDef]) -> Vec<(String, String)> {
    let Some(mine) = solver.program().and_then(|p| canonical(&p)) else {
        return Vec::new();
    };
    let Ok(size) = mine.metadata().map(|m| m.len()) else {
        return Vec::new();
    };
    let mut bytes: Option<Option<Vec<u8>>> = None;
    let mut out = Vec::new();
    for k in checkers {
        let same = identity(k).files.into_iter().find(|p| {
            *p == mine
                || p.metadata().is_ok_and(|m| m.len() == size)
                    && bytes
                        .get_or_insert_with(|| std::fs::read(&mine).ok())
                        .as_ref()
                        .is_some_and(|b| std::fs::read(p).is_ok_and(|o| o == *b))
        });
        if let Some(p) = same {
            out.push((
                k.name.clone(),
                format!("its program has the content of {}", p.display()),
            ));
        }
    }
    out
}

fn matches(f: &Footprint, checkers: &[SolverDef]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for k in checkers {
        let id = identity(k);
        let why = if let Some(p) = id.files.iter().find(|p| f.files.contains(p)) {
            Some(format!("runs {}", p.display()))
        } else if let Some(n) = id.names.iter().find(|n| f.names.contains(*n)) {
            Some(format!("runs a program named {n}"))
        } else {
            id.names
                .iter()
                .find(|n| f.words.contains(*n))
                .map(|n| format!("its script mentions {n}"))
        };
        if let Some(why) = why {
            out.push((k.name.clone(), why));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn defs() -> Vec<SolverDef> {
        super::super::load_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("checkers")).unwrap()
    }

    fn run(words: &[&str]) -> Vec<String> {
        let w: Vec<String> = words.iter().map(|s| s.to_string()).collect();
        runs_words(&w, &defs())
            .into_iter()
            .map(|(k, _)| k)
            .collect()
    }

    #[test]
    fn programs_names_links_and_wrappers() {
        assert_eq!(
            run(&["/usr/bin/cvc5", "--produce-unsat-cores", "{file}"]),
            ["cvc5"]
        );
        // Another build of cvc5, by its file name.
        let dir = tempfile::tempdir().unwrap();
        let other = dir.path().join("cvc5");
        std::fs::copy("/bin/true", &other).unwrap();
        assert_eq!(run(&[other.to_str().unwrap(), "{file}"]), ["cvc5"]);
        // A link under another name, to the venv's yices-smt2.
        let link = dir.path().join("my-solver");
        let yices = Path::new(env!("CARGO_MANIFEST_DIR")).join("checkers/venv/bin/yices-smt2");
        std::os::unix::fs::symlink(&yices, &link).unwrap();
        assert_eq!(run(&[link.to_str().unwrap(), "{file}"]), ["yices"]);
        // A wrapper script, and a shell command line.
        let script = dir.path().join("wrap.sh");
        std::fs::write(&script, "#!/bin/sh\nexec z3 -smt2 \"$1\"\n").unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        assert_eq!(run(&[script.to_str().unwrap(), "{file}"]), ["z3"]);
        assert_eq!(
            run(&["sh", "-c", "exec yices-smt2 \"$1\"", "sh", "{file}"]),
            ["yices"]
        );
        // The Python wrappers: the wrapper is the solver, not the interpreter.
        let py = Path::new(env!("CARGO_MANIFEST_DIR")).join("checkers/venv/bin/python");
        let w = Path::new(env!("CARGO_MANIFEST_DIR")).join("checkers/wrappers/cvc5py.py");
        assert_eq!(
            run(&[py.to_str().unwrap(), w.to_str().unwrap(), "{file}"]),
            ["cvc5-py"]
        );
        assert!(run(&[py.to_str().unwrap(), "mine.py", "{file}"]).is_empty());
        assert!(run(&["/bin/cat", "{file}"]).is_empty());
    }
}
