//! The shape of the source tree, checked: data flows one way. Every
//! `crate::` path in `src/` is an edge between top-level modules; the test
//! fails on an import cycle between them, on a stage that imports another
//! stage (report may render `score::result`, the type score owns), on clap
//! outside `cmd/`, and on a source file over 600 lines.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const STAGES: &[&str] = &["name", "solve", "check", "judge", "score", "report"];

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// Top-level module of a file below `src/`.
fn module(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).unwrap();
    let first = rel
        .components()
        .next()
        .unwrap()
        .as_os_str()
        .to_string_lossy();
    first.trim_end_matches(".rs").to_string()
}

/// The top-level modules a file's code names (`crate::x…`, `use crate::{x, …}`),
/// ignoring comments.
fn uses(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for line in text.lines() {
        let code = line.split("//").next().unwrap_or("");
        let mut rest = code;
        while let Some(i) = rest.find("crate::") {
            rest = &rest[i + "crate::".len()..];
            if let Some(list) = rest.strip_prefix('{') {
                for item in list.split(['}', ',']) {
                    let name: String = item
                        .trim()
                        .chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect();
                    if !name.is_empty() {
                        out.insert(name);
                    }
                }
            } else {
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                out.insert(name);
            }
        }
    }
    out
}

fn graph() -> (BTreeMap<String, BTreeSet<String>>, Vec<(PathBuf, usize)>) {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut sizes = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        sizes.push((f.clone(), text.lines().count()));
        let m = module(&src, &f);
        let deps = g.entry(m.clone()).or_default();
        deps.extend(uses(&text).into_iter().filter(|d| *d != m));
    }
    (g, sizes)
}

fn reaches(g: &BTreeMap<String, BTreeSet<String>>, from: &str, to: &str) -> bool {
    let mut seen = BTreeSet::new();
    let mut todo = vec![from.to_string()];
    while let Some(m) = todo.pop() {
        if m == to {
            return true;
        }
        if seen.insert(m.clone()) {
            todo.extend(g.get(&m).into_iter().flatten().cloned());
        }
    }
    false
}

#[test]
fn modules_import_in_one_direction() {
    let (g, _) = graph();
    let mut cycles = Vec::new();
    for (a, deps) in &g {
        for b in deps {
            if reaches(&g, b, a) {
                cycles.push(format!("{a} -> {b}"));
            }
        }
    }
    assert!(cycles.is_empty(), "import cycles: {cycles:?}");
    let mut across = Vec::new();
    for (a, deps) in &g {
        for b in deps {
            let allowed = a == "report" && b == "score";
            if STAGES.contains(&a.as_str()) && STAGES.contains(&b.as_str()) && !allowed {
                across.push(format!("{a} -> {b}"));
            }
        }
    }
    assert!(
        across.is_empty(),
        "a stage imports another stage: {across:?}"
    );
    assert!(g["campaign"].iter().all(|d| !STAGES.contains(&d.as_str())));
}

#[test]
fn clap_stays_in_the_command_line_and_files_stay_small() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let (_, sizes) = graph();
    let mut clap = Vec::new();
    for (f, _) in &sizes {
        let m = module(&src, f);
        let text = std::fs::read_to_string(f).unwrap();
        if m != "cmd" && m != "main" && text.contains("clap::") {
            clap.push(f.display().to_string());
        }
    }
    assert!(clap.is_empty(), "clap outside cmd/: {clap:?}");
    let big: Vec<String> = sizes
        .iter()
        .filter(|(_, n)| *n > 600)
        .map(|(f, n)| format!("{} ({n} lines)", f.display()))
        .collect();
    assert!(big.is_empty(), "files over 600 lines: {big:?}");
}
