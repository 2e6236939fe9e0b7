//! Every `src/…`, `tests/…` and `benches/…` path that the docs name exists:
//! in README.md, CONTRIBUTING.md, docs/*.md and tests/README.md, and in
//! the `//!` headers of every `.rs` file under `src/`, `tests/` and
//! `benches/`, so that a file moved or renamed without its mentions fails
//! here, each missing path listed with the file and line that names it.
//!
//! A path is a word starting with `src/`, `tests/` or `benches/` (not
//! inside another path: `fuzz/src/x` is not one); trailing punctuation is
//! not part of it, and one ending in `/` is a folder. Paths with a glob
//! (`*`), an ellipsis (`…`), a placeholder (`<hash>`, `{QF_UF,QF_LIA}`)
//! or `$` are patterns, not paths, and are skipped, and so are the lines
//! of a Markdown block marked `no-run` (a command for the reader's own
//! files, as in the first example of docs/authors.md).

use std::path::{Path, PathBuf};

const ROOTS: &[&str] = &["src/", "tests/", "benches/"];

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Whether `c` may be part of a path as the docs write them.
fn path_char(c: char) -> bool {
    c.is_alphanumeric()
        || matches!(
            c,
            '_' | '-' | '.' | '/' | '*' | '…' | '<' | '>' | '{' | '}' | ',' | '$'
        )
}

/// The paths named on one line of text.
fn paths_in(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let chars: Vec<(usize, char)> = line.char_indices().collect();
    for (k, &(at, _)) in chars.iter().enumerate() {
        let rest = &line[at..];
        if !ROOTS.iter().any(|r| rest.starts_with(r)) {
            continue;
        }
        // Not the tail of a longer path or word (`fuzz/src/`, `mysrc/`).
        if k > 0 {
            let before = chars[k - 1].1;
            if before.is_alphanumeric() || matches!(before, '_' | '-' | '.' | '/') {
                continue;
            }
        }
        let end = rest.find(|c: char| !path_char(c)).unwrap_or(rest.len());
        let mut path = &rest[..end];
        // A comma ends the path unless it is inside braces (`{a,b}`).
        if !path.contains('{') {
            path = path.split(',').next().unwrap_or(path);
        }
        let path = path.trim_end_matches(['.', ',', ':', ';', '-']);
        if path.contains(['*', '…', '<', '>', '{', '}', '$']) {
            continue;
        }
        out.push(path.to_string());
    }
    out
}

/// The lines of `file` that may name paths, with their numbers: all lines
/// of a Markdown file but those of `no-run` blocks; the `//!` lines of a
/// Rust file.
fn lines_to_check(file: &Path, text: &str) -> Vec<(usize, String)> {
    let markdown = file.extension().is_some_and(|e| e == "md");
    let mut out = Vec::new();
    let mut fence: Option<bool> = None; // Some(no_run) inside a block
    for (n, line) in text.lines().enumerate() {
        if markdown {
            if let Some(info) = line.trim_start().strip_prefix("```") {
                fence = match fence {
                    None => Some(info.contains("no-run")),
                    Some(_) => None,
                };
                continue;
            }
            if fence != Some(true) {
                out.push((n + 1, line.to_string()));
            }
        } else if line.trim_start().starts_with("//!") {
            out.push((n + 1, line.to_string()));
        }
    }
    out
}

/// Every `.rs` file under `dir`, sorted.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.map(|e| e.unwrap().path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// The files whose mentions are checked.
fn documents() -> Vec<PathBuf> {
    let root = repo();
    let mut files: Vec<PathBuf> = ["README.md", "CONTRIBUTING.md", "tests/README.md"]
        .iter()
        .map(|f| root.join(f))
        .collect();
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    files.extend(docs);
    for dir in ["src", "tests", "benches"] {
        rust_files(&root.join(dir), &mut files);
    }
    files
}

#[test]
fn every_path_the_docs_name_exists() {
    let root = repo();
    let (mut missing, mut checked) = (Vec::new(), 0);
    for file in documents() {
        let Ok(text) = std::fs::read_to_string(&file) else {
            continue;
        };
        let shown = file
            .strip_prefix(&root)
            .unwrap_or(&file)
            .display()
            .to_string();
        for (n, line) in lines_to_check(&file, &text) {
            for path in paths_in(&line) {
                checked += 1;
                let target = root.join(&path);
                let ok = if path.ends_with('/') {
                    target.is_dir()
                } else {
                    target.exists()
                };
                if !ok {
                    missing.push(format!("{shown}:{n}: {path}"));
                }
            }
        }
    }
    assert!(
        missing.is_empty(),
        "{} path(s) named in the docs do not exist:\n{}",
        missing.len(),
        missing.join("\n")
    );
    // The docs name many paths; finding none would mean a broken reader.
    assert!(checked >= 50, "only {checked} paths found");
}

#[test]
fn paths_are_read_as_the_docs_write_them() {
    assert_eq!(
        paths_in("see `src/lib.rs`, tests/common/ and (benches/scale.rs)."),
        ["src/lib.rs", "tests/common/", "benches/scale.rs"]
    );
    assert!(paths_in("fuzz/src/x.rs and mysrc/y").is_empty());
    assert!(paths_in("tests/fuzz-regressions/<target>/ and tests/data/{a,b}").is_empty());
    assert!(paths_in("src/*.rs, tests/… and benches/$X").is_empty());
    assert_eq!(paths_in("tests/check.rs: a, b"), ["tests/check.rs"]);
    let md = "a src/x.rs\n```sh no-run: yours\nrun tests/regress/\n```\n```sh\nb tests/y\n```\n";
    let lines: Vec<usize> = lines_to_check(Path::new("x.md"), md)
        .into_iter()
        .map(|(n, _)| n)
        .collect();
    assert_eq!(lines, [1, 6]);
    let rs = "//! tests/a.rs\n// tests/b.rs\n/// tests/c.rs\nfn x() {}\n";
    assert_eq!(lines_to_check(Path::new("x.rs"), rs).len(), 1);
}
