//! The shape of the source tree, checked: data flows one way. Every
//! `crate::` path in `src/` is an edge between top-level modules; the test
//! fails on an import cycle between them, on a stage that imports another
//! stage (report may render `score::result`, the type score owns), on clap
//! outside `cmd/`, and on a source file over 600 lines. Inside a folder the
//! same holds one level down: the files (and sub-folders) of one folder
//! name each other (`super::x`, `crate::folder::x`) without a circle. The
//! campaign's three rooms (`verdict`, `setup`, `ledger`) import downwards
//! only, nothing from `campaign/mod.rs`, and no folder of `src/` but `cmd/`
//! (nor `src/` itself) holds more than twelve files, and every `unsafe` has
//! its SAFETY comment.

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

/// Top-level module → the top-level modules its code names.
type Edges = BTreeMap<String, BTreeSet<String>>;

fn graph() -> (Edges, Vec<(PathBuf, usize)>) {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    let mut g = Edges::new();
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

/// A file's module path below `src/`: `scramble/render/mod.rs` is
/// `[scramble, render]`, `scramble/parallel.rs` is `[scramble, parallel]`.
fn module_path(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).unwrap();
    let mut out: Vec<String> = rel
        .components()
        .map(|c| {
            c.as_os_str()
                .to_string_lossy()
                .trim_end_matches(".rs")
                .to_string()
        })
        .collect();
    if out.last().is_some_and(|l| l == "mod") {
        out.pop();
    }
    out
}

/// The paths one `use` tree or path expression names, from `text` just
/// after its first segment: `a::{b, c::D}` gives `[a, b]` and `[a, c, D]`.
fn path_tree(text: &[u8], i: &mut usize, prefix: Vec<String>, out: &mut Vec<Vec<String>>) {
    let skip = |i: &mut usize| {
        while *i < text.len() && text[*i].is_ascii_whitespace() {
            *i += 1;
        }
    };
    let mut path = prefix;
    loop {
        skip(i);
        if *i < text.len() && text[*i] == b'{' {
            *i += 1;
            loop {
                path_tree(text, i, path.clone(), out);
                skip(i);
                match text.get(*i) {
                    Some(b',') => *i += 1,
                    Some(b'}') => {
                        *i += 1;
                        return;
                    }
                    _ => return,
                }
                skip(i);
                if text.get(*i) == Some(&b'}') {
                    *i += 1;
                    return;
                }
            }
        }
        let start = *i;
        while *i < text.len() && (text[*i].is_ascii_alphanumeric() || text[*i] == b'_') {
            *i += 1;
        }
        if *i > start {
            path.push(String::from_utf8_lossy(&text[start..*i]).to_string());
        }
        if text[*i..].starts_with(b"::") {
            *i += 2;
        } else {
            out.push(path);
            return;
        }
    }
}

/// A file's code without comments and without the items under
/// `#[cfg(test)]` (a test module may name what it likes), found by braces
/// outside string and character literals.
fn without_tests(text: &str) -> String {
    let code: Vec<&str> = text
        .lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect();
    let mut out = String::new();
    let mut depth = 0usize;
    let mut skipping = false;
    for line in code {
        if !skipping && line.trim_start().starts_with("#[cfg(test)]") {
            skipping = true;
            depth = 0;
            continue;
        }
        if !skipping {
            out.push_str(line);
            out.push('\n');
            continue;
        }
        let (mut in_str, mut prev) = (false, ' ');
        let mut opened = depth > 0;
        for (k, c) in line.char_indices() {
            match c {
                '"' if prev != '\\' => in_str = !in_str,
                '{' | '}' if !(in_str || prev == '\'' && line[k + 1..].starts_with('\'')) => {
                    if c == '{' {
                        depth += 1;
                        opened = true;
                    } else {
                        depth = depth.saturating_sub(1);
                    }
                }
                _ => {}
            }
            prev = c;
        }
        // An item ends where its braces close, or at `;` for a braceless one.
        if (opened && depth == 0) || (!opened && line.trim_end().ends_with(';')) {
            skipping = false;
        }
    }
    out
}

/// The absolute module paths a file's code names through `crate::` and
/// `super::`, comments and the `#[cfg(test)]` module left out.
fn file_uses(own: &[String], text: &str) -> Vec<Vec<String>> {
    let code = without_tests(text);
    let bytes = code.as_bytes();
    let mut out = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let rest = &code[at..];
        let Some(k) = rest.find(['c', 's']) else {
            break;
        };
        let i = at + k;
        let before = if i == 0 { b' ' } else { bytes[i - 1] };
        let starts = !(before.is_ascii_alphanumeric() || before == b'_' || before == b':');
        let (root, len): (Vec<String>, usize) = if starts && code[i..].starts_with("crate::") {
            (Vec::new(), "crate::".len())
        } else if starts && code[i..].starts_with("super::") {
            // `super` of `a/b.rs` is `a`; of `a/b/mod.rs` (module `a::b`) also `a`.
            let mut base = own.to_vec();
            base.pop();
            let mut j = i + "super::".len();
            while code[j..].starts_with("super::") {
                base.pop();
                j += "super::".len();
            }
            (base, j - i)
        } else {
            at = i + 1;
            continue;
        };
        let mut j = i + len;
        let mut paths = Vec::new();
        path_tree(bytes, &mut j, root, &mut paths);
        out.extend(paths);
        at = j.max(i + 1);
    }
    out
}

/// Circles between the files and sub-folders of one folder: `a/x.rs`
/// naming `a::y` is an edge x -> y inside folder `a`.
fn circles_inside_folders() -> Vec<String> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    let mut edges: BTreeMap<Vec<String>, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for f in &files {
        let own = module_path(&src, f);
        let text = std::fs::read_to_string(f).unwrap();
        for used in file_uses(&own, &text) {
            // The deepest folder both lie strictly inside, and the child each enters.
            let common = own.iter().zip(&used).take_while(|(a, b)| a == b).count();
            if common >= own.len() || common >= used.len() {
                continue;
            }
            let folder = own[..common].to_vec();
            let (from, to) = (own[common].clone(), used[common].clone());
            edges
                .entry(folder)
                .or_default()
                .entry(from)
                .or_default()
                .insert(to);
        }
    }
    let mut circles = Vec::new();
    for (folder, g) in &edges {
        for (a, deps) in g {
            for b in deps {
                if reaches(g, b, a) {
                    circles.push(format!("{}: {a} -> {b}", folder.join("/")));
                }
            }
        }
    }
    circles
}

#[test]
fn files_of_one_folder_import_without_circles() {
    let circles = circles_inside_folders();
    assert!(
        circles.is_empty(),
        "import circles inside a folder: {circles:?}"
    );
}

/// The campaign's rooms, bottom first: each imports only rooms before it.
const ROOMS: &[&str] = &["verdict", "setup", "ledger"];

/// The module paths a file of `src/campaign/` names, with its own path.
fn campaign_uses() -> Vec<(Vec<String>, Vec<Vec<String>>)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src.join("campaign"), &mut files);
    files
        .iter()
        .map(|f| {
            let own = module_path(&src, f);
            let text = std::fs::read_to_string(f).unwrap();
            let used = file_uses(&own, &text);
            (own, used)
        })
        .collect()
}

#[test]
fn the_campaigns_rooms_import_downwards_only() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/campaign");
    let mut rooms: Vec<String> = std::fs::read_dir(&src)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .map(|p| p.file_name().unwrap().to_string_lossy().to_string())
        .collect();
    rooms.sort();
    let mut expected: Vec<String> = ROOMS.iter().map(|r| r.to_string()).collect();
    expected.sort();
    assert_eq!(rooms, expected, "src/campaign/ holds exactly its rooms");
    let mut wrong = Vec::new();
    for (own, used) in campaign_uses() {
        if own.len() < 2 {
            continue; // campaign/mod.rs declares the rooms
        }
        let from = ROOMS.iter().position(|r| *r == own[1]).unwrap();
        for u in used {
            if u.len() < 2 || u[0] != "campaign" {
                continue;
            }
            match ROOMS.iter().position(|r| *r == u[1]) {
                // A room below, or its own.
                Some(to) if to <= from => {}
                Some(_) => wrong.push(format!("{} imports {}", own.join("::"), u.join("::"))),
                // Anything else would be an item of campaign/mod.rs: back up.
                None => wrong.push(format!("{} imports up: {}", own.join("::"), u.join("::"))),
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "imports against the rooms' order: {wrong:?}"
    );
}

#[test]
fn no_folder_but_cmd_holds_more_than_twelve_files_the_root_included() {
    fn walk(dir: &Path, out: &mut Vec<(PathBuf, usize)>) {
        let mut files = 0;
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, out);
            } else {
                files += 1;
            }
        }
        out.push((dir.to_path_buf(), files));
    }
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let (mut folders, mut root) = (Vec::new(), 0);
    for e in std::fs::read_dir(&src).unwrap() {
        let p = e.unwrap().path();
        if !p.is_dir() {
            root += 1;
        } else if p.file_name().unwrap() != "cmd" {
            walk(&p, &mut folders);
        }
    }
    // The root too: its files beside the folders.
    folders.push((src, root));
    let big: Vec<String> = folders
        .iter()
        .filter(|(_, n)| *n > 12)
        .map(|(d, n)| format!("{} ({n} files)", d.display()))
        .collect();
    assert!(big.is_empty(), "folders over 12 files: {big:?}");
}

#[test]
fn every_unsafe_says_why_it_is_safe() {
    // An `unsafe` block or impl, in src/, tests/ and benches/, needs a
    // `SAFETY` comment on its line or in the eight lines above; an `unsafe
    // fn` its contract (`# Safety` in its doc, or `SAFETY`) in the twenty
    // lines above. Text in string literals is no code.
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in ["src", "tests", "benches"] {
        sources(&root.join(dir), &mut files);
    }
    let mut missing = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let code = line.split("//").next().unwrap_or_default();
            let code: String = code.split('"').step_by(2).collect();
            let is_fn = code.contains("unsafe fn");
            let opens = is_fn
                || ["unsafe {", "unsafe impl", "unsafe extern"]
                    .iter()
                    .any(|u| code.contains(u));
            let above = &lines[i.saturating_sub(if is_fn { 20 } else { 8 })..=i];
            let said = |l: &&str| l.contains("SAFETY") || (is_fn && l.contains("# Safety"));
            if opens && !above.iter().any(said) {
                missing.push(format!("{}:{}", f.display(), i + 1));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "unsafe without a SAFETY comment: {missing:?}"
    );
}
