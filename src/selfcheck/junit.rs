//! JUnit XML for CI: one `<testsuite>` (`tests`, `failures`, `errors`,
//! `skipped`, `time`), one `<testcase>` per benchmark named by its path as
//! given, with `classname="coreval.selfcheck"` and the solver's wall time;
//! a `<failure>` (message: the first detail, type: the verdict, text: every
//! detail, the commands that repeat the run included, and the checkers'
//! answers) or a `<skipped>` (its details in `<system-out>`) as
//! [`super::outcome`] decided; a passed case carries its details and the
//! checkers' votes in `<system-out>`. Run settings go to `<properties>`.
//! The file is written atomically, readable by all (0644, as `--json`).
//!
//! Under GitHub Actions (`GITHUB_ACTIONS=true`) every FAIL is also one
//! `::error file=…,line=…::` workflow command on stdout
//! ([`github_annotations`]): at the line of the assertion its first detail
//! names (`PATH:LINE`), else at the file's first line.
//!
//! Attribute and text escaping is quick-xml's; characters XML 1.0 cannot
//! carry at all (control characters from a solver's garbage) are replaced
//! by U+FFFD first, so any output parses.

use super::outcome::{BenchResult, Outcome};
use anyhow::{Context, Result};
use quick_xml::events::{BytesDecl, BytesEnd, BytesStart, BytesText, Event};
use quick_xml::Writer;
use std::path::Path;

/// The testcase class name.
pub const CLASSNAME: &str = "coreval.selfcheck";

/// The JUnit document for `results`; `properties` are (name, value) pairs,
/// `elapsed` the whole run's seconds.
pub fn render(
    results: &[BenchResult],
    properties: &[(String, String)],
    elapsed: f64,
) -> Result<Vec<u8>> {
    let count = |o: Outcome| {
        results
            .iter()
            .filter(|r| r.outcome == o)
            .count()
            .to_string()
    };
    let (tests, failures, skipped) = (
        results.len().to_string(),
        count(Outcome::Failed),
        count(Outcome::Skipped),
    );
    let time = format!("{elapsed:.3}");
    let mut w = Writer::new_with_indent(Vec::new(), b' ', 2);
    w.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)))?;
    let counts = [
        ("tests", tests.as_str()),
        ("failures", &failures),
        ("errors", "0"),
        ("skipped", &skipped),
        ("time", &time),
    ];
    let mut suites = BytesStart::new("testsuites");
    suites.push_attribute(("name", "coreval selfcheck"));
    suites.extend_attributes(counts);
    w.write_event(Event::Start(suites))?;
    let mut suite = BytesStart::new("testsuite");
    suite.push_attribute(("name", CLASSNAME));
    suite.extend_attributes(counts);
    w.write_event(Event::Start(suite))?;
    w.write_event(Event::Start(BytesStart::new("properties")))?;
    for (k, v) in properties {
        let mut p = BytesStart::new("property");
        p.push_attribute(("name", clean(k).as_str()));
        p.push_attribute(("value", clean(v).as_str()));
        w.write_event(Event::Empty(p))?;
    }
    w.write_event(Event::End(BytesEnd::new("properties")))?;
    for r in results {
        let mut case = BytesStart::new("testcase");
        case.push_attribute(("name", clean(&r.path).as_str()));
        case.push_attribute(("classname", CLASSNAME));
        case.push_attribute(("time", format!("{:.3}", r.time.unwrap_or(0.0)).as_str()));
        let message = clean(r.details.first().map(String::as_str).unwrap_or(&r.verdict));
        match r.outcome {
            Outcome::Passed => {
                // The details and the votes, for the CI log.
                let mut lines = r.details.clone();
                lines.extend(votes(r));
                w.write_event(Event::Start(case))?;
                w.write_event(Event::Start(BytesStart::new("system-out")))?;
                w.write_event(Event::Text(BytesText::new(&clean(&lines.join("\n")))))?;
                w.write_event(Event::End(BytesEnd::new("system-out")))?;
                w.write_event(Event::End(BytesEnd::new("testcase")))?;
            }
            Outcome::Skipped => {
                w.write_event(Event::Start(case))?;
                let mut s = BytesStart::new("skipped");
                s.push_attribute(("message", format!("{}: {message}", r.verdict).as_str()));
                w.write_event(Event::Empty(s))?;
                // Every detail (the commands to repeat the run included).
                w.write_event(Event::Start(BytesStart::new("system-out")))?;
                w.write_event(Event::Text(BytesText::new(&clean(&r.details.join("\n")))))?;
                w.write_event(Event::End(BytesEnd::new("system-out")))?;
                w.write_event(Event::End(BytesEnd::new("testcase")))?;
            }
            Outcome::Failed => {
                w.write_event(Event::Start(case))?;
                let mut f = BytesStart::new("failure");
                f.push_attribute(("message", message.as_str()));
                f.push_attribute(("type", clean(&r.verdict).as_str()));
                w.write_event(Event::Start(f))?;
                w.write_event(Event::Text(BytesText::new(&clean(&failure_text(r)))))?;
                w.write_event(Event::End(BytesEnd::new("failure")))?;
                w.write_event(Event::End(BytesEnd::new("testcase")))?;
            }
        }
    }
    w.write_event(Event::End(BytesEnd::new("testsuite")))?;
    w.write_event(Event::End(BytesEnd::new("testsuites")))?;
    let mut out = w.into_inner();
    out.push(b'\n');
    Ok(out)
}

/// Write the document to `path` (atomically: a CI job never reads half).
pub fn write(
    path: &Path,
    results: &[BenchResult],
    properties: &[(String, String)],
    elapsed: f64,
) -> Result<()> {
    let bytes = render(results, properties, elapsed)?;
    crate::store::journal::write_atomic(path, &bytes)
        .with_context(|| format!("cannot write the JUnit file {}", path.display()))
}

/// Every detail, the core size and the checkers' answers, one per line.
fn failure_text(r: &BenchResult) -> String {
    let mut lines = r.details.clone();
    if let Some(k) = r.core_size {
        lines.push(format!("core size {k} of {} assertions", r.assertions));
    }
    lines.extend(votes(r));
    lines.join("\n")
}

/// `checker NAME: ANSWER`, one per checker that answered.
fn votes(r: &BenchResult) -> Vec<String> {
    r.checkers
        .iter()
        .map(|(k, a)| {
            let a = serde_json::to_value(a)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default();
            format!("checker {k}: {a}")
        })
        .collect()
}

/// Whether this runs as a GitHub Actions step.
pub fn under_github_actions() -> bool {
    std::env::var("GITHUB_ACTIONS").is_ok_and(|v| v == "true")
}

/// One `::error file=PATH,line=N,title=…::MESSAGE` per FAIL, escaped as
/// GitHub's workflow commands require.
pub fn github_annotations(results: &[BenchResult]) -> Vec<String> {
    let data = |s: &str| {
        s.replace('%', "%25")
            .replace('\r', "%0D")
            .replace('\n', "%0A")
    };
    let property = |s: &str| data(s).replace(':', "%3A").replace(',', "%2C");
    results
        .iter()
        .filter(|r| r.outcome == Outcome::Failed)
        .map(|r| {
            let first = r.details.first().map(String::as_str).unwrap_or(&r.verdict);
            format!(
                "::error file={},line={},title={}::{}",
                property(&r.path),
                line_named(&r.path, &r.details).unwrap_or(1),
                property(&format!("coreval selfcheck: {}", r.verdict)),
                data(first)
            )
        })
        .collect()
}

/// The first `PATH:LINE` in the details: where the explanation points.
fn line_named(path: &str, details: &[String]) -> Option<u64> {
    let at = format!("{path}:");
    details.iter().find_map(|d| {
        d.match_indices(&at).find_map(|(i, _)| {
            let rest = &d[i + at.len()..];
            let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
            digits.parse().ok()
        })
    })
}

/// `s` without the characters XML 1.0 forbids (C0 controls but tab, LF,
/// CR; U+FFFE, U+FFFF).
pub fn clean(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            '\t' | '\n' | '\r' => c,
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => '\u{FFFD}',
            c => c,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use quick_xml::events::Event;
    use quick_xml::Reader;
    use std::collections::BTreeMap;

    fn result(path: &str, outcome: Outcome, verdict: &str, detail: &str) -> BenchResult {
        BenchResult {
            path: path.into(),
            logic: Some("QF_UF".into()),
            declared: None,
            assertions: 3,
            outcome,
            verdict: verdict.into(),
            details: vec![detail.into()],
            core_size: Some(2),
            core: None,
            reduction: None,
            best: None,
            time: Some(0.5),
            checkers: BTreeMap::new(),
            minimality: None,
            best_known: None,
        }
    }

    #[test]
    fn escapes_and_counts() {
        let results = [
            result("a&<b>\".smt2", Outcome::Passed, "validated", "ok"),
            result(
                "c.smt2",
                Outcome::Failed,
                "refuted",
                "core refuted: z3 sat \u{1} <&>",
            ),
            result("d.smt2", Outcome::Skipped, "timeout", "timeout after 1.0 s"),
        ];
        let xml = render(&results, &[("solver".into(), "x '{file}' & y".into())], 2.0).unwrap();
        let text = String::from_utf8(xml).unwrap();
        let mut reader = Reader::from_str(&text);
        let (mut names, mut failures, mut skipped) = (Vec::new(), Vec::new(), 0);
        loop {
            match reader.read_event().unwrap() {
                Event::Eof => break,
                Event::Start(e) | Event::Empty(e) => {
                    let attr = |k: &str| {
                        e.try_get_attribute(k).unwrap().map(|a| {
                            a.normalized_value(quick_xml::XmlVersion::Implicit1_0)
                                .unwrap()
                                .into_owned()
                        })
                    };
                    match e.name().0 {
                        "testsuite" => assert_eq!(attr("failures").as_deref(), Some("1")),
                        "testcase" => names.push(attr("name").unwrap()),
                        "failure" => failures.push(attr("message").unwrap()),
                        "skipped" => skipped += 1,
                        "property" => assert_eq!(attr("value").as_deref(), Some("x '{file}' & y")),
                        _ => {}
                    }
                }
                _ => {}
            }
        }
        assert_eq!(names, ["a&<b>\".smt2", "c.smt2", "d.smt2"]);
        assert_eq!(failures, ["core refuted: z3 sat \u{FFFD} <&>"]);
        assert_eq!(skipped, 1);
    }

    #[test]
    fn passed_cases_carry_their_votes_and_fails_become_annotations() {
        let mut ok = result("a.smt2", Outcome::Passed, "validated", "core validated");
        ok.checkers.insert(
            "z3".into(),
            crate::campaign::verdict::policy::CheckAnswer::Unsat,
        );
        let bad = result(
            "dir/b,1.smt2",
            Outcome::Failed,
            "refuted",
            "z3's model falsifies cv3 (dir/b,1.smt2:17)\nmore",
        );
        let text =
            String::from_utf8(render(&[ok.clone(), bad.clone()], &[], 1.0).unwrap()).unwrap();
        assert!(
            text.contains("<system-out>core validated\nchecker z3: unsat</system-out>"),
            "{text}"
        );
        let lines = github_annotations(&[ok, bad]);
        assert_eq!(
            lines,
            ["::error file=dir/b%2C1.smt2,line=17,title=coreval selfcheck%3A refuted::z3's model falsifies cv3 (dir/b,1.smt2:17)%0Amore"]
        );
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join("j.xml");
        write(&path, &[], &[], 0.0).unwrap();
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o644);
    }
}
