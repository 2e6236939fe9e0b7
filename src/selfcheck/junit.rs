//! JUnit XML for CI: one `<testsuite>` (`tests`, `failures`, `errors`,
//! `skipped`, `time`), one `<testcase>` per benchmark named by its path as
//! given, with `classname="coreval.selfcheck"` and the solver's wall time;
//! a `<failure>` (message: the first detail, type: the verdict, text: every
//! detail, the commands that repeat the run included, and the checkers'
//! answers) or a `<skipped>` (its details in `<system-out>`) as
//! [`super::outcome`] decided; a passed case with a minimality outcome or a
//! best-known reference carries them in `<system-out>`. Run settings go to
//! `<properties>`.
//!
//! Attribute and text escaping is quick-xml's; characters XML 1.0 cannot
//! carry at all (control characters from a solver's garbage) are replaced
//! by U+FFFD first, so any output parses.

use super::outcome::{BenchResult, Outcome};
use anyhow::{Context, Result};
use quick_xml::events::{BytesDecl, BytesEnd, BytesStart, BytesText, Event};
use quick_xml::Writer;
use std::io::Write;
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
            Outcome::Passed if r.minimality.is_none() && r.best_known.is_none() => {
                w.write_event(Event::Empty(case))?
            }
            Outcome::Passed => {
                // Minimality and the best-known reference, for the CI log.
                w.write_event(Event::Start(case))?;
                w.write_event(Event::Start(BytesStart::new("system-out")))?;
                w.write_event(Event::Text(BytesText::new(&clean(&r.details.join("\n")))))?;
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
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let mut tmp = tempfile::Builder::new()
        .prefix(".coreval-junit-")
        .tempfile_in(dir)
        .with_context(|| format!("cannot write the JUnit file {}", path.display()))?;
    tmp.write_all(&bytes)?;
    tmp.persist(path)
        .map_err(|e| e.error)
        .with_context(|| format!("cannot write the JUnit file {}", path.display()))?;
    Ok(())
}

/// Every detail, the core size and the checkers' answers, one per line.
fn failure_text(r: &BenchResult) -> String {
    let mut lines = r.details.clone();
    if let Some(k) = r.core_size {
        lines.push(format!("core size {k} of {} assertions", r.assertions));
    }
    for (k, a) in &r.checkers {
        lines.push(format!(
            "checker {k}: {}",
            serde_json::to_value(a)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default()
        ));
    }
    lines.join("\n")
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
}
