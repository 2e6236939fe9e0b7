//! `coreval --help` says everything whole: every subcommand's line is a
//! sentence (none cut off), every subcommand's own `--help` names what it
//! reads and what it writes, and `docs/reference.md` holds the help of
//! every subcommand as this build prints it (`COREVAL_BLESS_DOCS=1 cargo
//! test --test cli_help` rewrites that block after a change to the options).

mod common;

use std::process::Command;

fn help(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_coreval"))
        .args(args)
        .arg("--help")
        .output()
        .unwrap();
    assert!(out.status.success(), "coreval {args:?} --help failed");
    String::from_utf8(out.stdout).unwrap()
}

/// The subcommands and their one-line descriptions in `help`'s
/// `Commands:` list, but clap's own `help`.
fn commands(help: &str) -> Vec<(String, String)> {
    help.lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| {
            let (name, about) = l.trim().split_once(' ')?;
            Some((name.to_string(), about.trim().to_string()))
        })
        .filter(|(name, _)| name != "help")
        .collect()
}

/// Every subcommand path: `["run"]`, `["slurm", "submit"]`, …
fn every_subcommand() -> Vec<Vec<String>> {
    let mut all = Vec::new();
    for (name, _) in commands(&help(&[])) {
        let nested = commands(&help(&[&name]));
        all.push(vec![name.clone()]);
        for (sub, _) in nested {
            all.push(vec![name.clone(), sub]);
        }
    }
    all
}

/// The first paragraph of a `--help` text: the subcommand's summary.
fn summary(help: &str) -> String {
    let lines: Vec<&str> = help.lines().take_while(|l| !l.trim().is_empty()).collect();
    lines.join(" ")
}

#[test]
fn every_subcommand_line_is_a_whole_sentence() {
    // clap lists a subcommand with its summary, the trailing period left
    // off: the line must be the whole summary, and the summary a sentence.
    let top = help(&[]);
    let mut lists = vec![(Vec::new(), top.clone())];
    for (name, _) in commands(&top) {
        lists.push((vec![name.clone()], help(&[&name])));
    }
    let mut seen = 0;
    for (parent, text) in &lists {
        for (name, line) in commands(text) {
            seen += 1;
            let mut path: Vec<&str> = parent.iter().map(String::as_str).collect();
            path.push(&name);
            let sentence = summary(&help(&path));
            let first = sentence.chars().next().unwrap_or(' ');
            assert!(
                first.is_uppercase() && sentence.ends_with('.'),
                "`coreval {} --help` does not open with a sentence: {sentence:?}",
                path.join(" ")
            );
            assert_eq!(
                format!("{line}."),
                sentence,
                "`coreval {} --help` lists {name} with a line cut short",
                parent.join(" ")
            );
            assert_eq!(
                sentence.matches('(').count(),
                sentence.matches(')').count(),
                "{sentence:?}"
            );
        }
    }
    assert!(seen >= 15, "only {seen} subcommands listed:\n{top}");
}

#[test]
fn every_subcommand_help_names_its_inputs_and_outputs() {
    for path in every_subcommand() {
        let args: Vec<&str> = path.iter().map(String::as_str).collect();
        let text = help(&args);
        if !commands(&text).is_empty() {
            continue; // `slurm`: its subcommands say it
        }
        assert!(
            text.contains("Reads ") && (text.contains("Writes ") || text.contains("writes ")),
            "`coreval {} --help` does not say what it reads and writes:\n{text}",
            path.join(" ")
        );
    }
}

#[test]
fn the_reference_holds_every_subcommands_help() {
    let mut block = String::from("```text\n$ coreval --help\n");
    block.push_str(&help(&[]));
    for path in every_subcommand() {
        let args: Vec<&str> = path.iter().map(String::as_str).collect();
        block.push_str(&format!("$ coreval {} --help\n", path.join(" ")));
        block.push_str(&help(&args));
    }
    block.push_str("```\n");
    let file = common::repo().join("docs/reference.md");
    let text = std::fs::read_to_string(&file).unwrap();
    let (begin, end) = ("<!-- cli-help:begin -->\n", "<!-- cli-help:end -->");
    let start = text
        .find(begin)
        .expect("docs/reference.md has no cli-help block")
        + begin.len();
    let stop = start + text[start..].find(end).unwrap();
    if text[start..stop] == block {
        return;
    }
    if std::env::var_os("COREVAL_BLESS_DOCS").is_some() {
        let new = format!("{}{block}{}", &text[..start], &text[stop..]);
        std::fs::write(&file, new).unwrap();
        return;
    }
    panic!(
        "docs/reference.md's help differs from this build's; rewrite it with \
         COREVAL_BLESS_DOCS=1 cargo test --test cli_help. This build's:\n{block}"
    );
}
