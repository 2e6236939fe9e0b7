//! The HTML report is one self-contained page that a browser renders: its
//! tables and SVG plots are there, nothing is fetched, and headless
//! Chromium's screenshot of it is far richer than one of an empty page.
//! Also: the other report formats and the CLI's error paths.

use assert_cmd::Command;
use std::path::{Path, PathBuf};

mod common;

use common::browser::{png_size, screenshot, CHROMIUM};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/results")
        .join(name)
}

fn score_2019(dir: &Path, extra: &[&str]) -> assert_cmd::assert::Assert {
    Command::cargo_bin("coreval")
        .unwrap()
        .current_dir(dir)
        .arg("score")
        .arg("--starexec")
        .arg(data("smtcomp2019-unsat-core-QF_LIA.csv"))
        .args(["--rules", "smtcomp-2019", "--participants"])
        .arg(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/data/participants-2019-unsat-core.csv"),
        )
        .args(extra)
        .assert()
}

#[test]
fn html_is_self_contained_and_renders() {
    let dir = tempfile::tempdir().unwrap();
    let html = dir.path().join("report.html");
    score_2019(dir.path(), &["--html", "report.html"]).success();
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.starts_with("<!DOCTYPE html>"));
    assert_eq!(
        page.matches("<table class=\"sortable\"").count(),
        4,
        "2 division tables + 2 recognitions"
    );
    assert_eq!(page.matches("<svg").count(), 3, "three plots");
    assert!(page.contains("<script>") && page.contains("<style>"));
    assert!(page.contains("Yices 2.6.2") && page.contains("62767.807"));
    for external in ["<link", " src=", "href=\"http", "url(", "@import"] {
        assert!(
            !page.contains(external),
            "page refers to something outside: {external}"
        );
    }

    if !Path::new(CHROMIUM).exists() {
        common::missing::skip(&format!("the screenshot: {CHROMIUM} is not installed"));
        return;
    }
    let blank = dir.path().join("blank.html");
    std::fs::write(&blank, "<!DOCTYPE html><html><body></body></html>").unwrap();
    let (shot, blank_shot) = (dir.path().join("report.png"), dir.path().join("blank.png"));
    let profile = dir.path().join("profile");
    assert!(
        screenshot(&common::browser::file_url(&html, ""), &shot, &profile),
        "chromium did not finish within 120 s"
    );
    assert!(
        screenshot(
            &common::browser::file_url(&blank, ""),
            &blank_shot,
            &profile
        ),
        "chromium did not finish within 120 s"
    );
    let png = std::fs::read(&shot).expect("screenshot written");
    let blank_png = std::fs::read(&blank_shot).expect("blank screenshot written");
    assert_eq!(png_size(&png), (1280, 2000));
    assert!(
        png.len() > 10 * blank_png.len().max(1000),
        "the report's screenshot ({} bytes) is not much richer than a blank page's ({} bytes)",
        png.len(),
        blank_png.len()
    );
}

#[test]
fn every_format_is_written() {
    let dir = tempfile::tempdir().unwrap();
    score_2019(
        dir.path(),
        &[
            "--json",
            "o/r.json",
            "--csv",
            "o/r.csv",
            "--markdown",
            "o/r.md",
        ],
    )
    .success();
    let csv = std::fs::read_to_string(dir.path().join("o/r.csv")).unwrap();
    assert_eq!(csv.lines().count(), 1 + 1355, "header + one row per pair");
    assert!(csv
        .lines()
        .next()
        .unwrap()
        .starts_with("division,solver,benchmark,family,weight"));
    let md = std::fs::read_to_string(dir.path().join("o/r.md")).unwrap();
    assert!(
        md.contains("| 1 | Yices 2.6.2 | yes | 0 | 945236 | 62767.807 | 62780.029 | 23 | 0 |"),
        "{md}"
    );
    assert!(md.contains("## Biggest lead") && md.contains("## Largest contribution"));
}

#[test]
fn missing_column_is_a_tool_error_naming_file_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("job.csv");
    std::fs::write(
        &csv,
        "benchmark,solver,status,cpu time,wallclock time,result\n",
    )
    .unwrap();
    Command::cargo_bin("coreval")
        .unwrap()
        .args(["score", "--rules", "smtcomp-2019", "--starexec"])
        .arg(&csv)
        .assert()
        .code(2)
        .stderr(predicates::str::contains(format!(
            "{}:1: missing required column `number-of-assert-commands`",
            csv.display()
        )));
}

#[test]
fn bad_rows_are_reported_and_scoring_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("job.csv");
    std::fs::write(
        &csv,
        "benchmark,solver,status,cpu time,wallclock time,result,number-of-assert-commands,\
parsable-unsat-core,size-unsat-core,unsat-core-validated,result-is-erroneous\n\
S/QF_UF/f/a.smt2,s,complete,1,1,unsat,9,true,4,true,0\n\
S/QF_UF/f/b.smt2,s,complete,1,1,maybe,9,true,4,true,0\n",
    )
    .unwrap();
    Command::cargo_bin("coreval")
        .unwrap()
        .args(["score", "--rules", "smtcomp-2019", "--starexec"])
        .arg(&csv)
        .assert()
        .success()
        .stderr(predicates::str::contains(format!(
            "warning: {}:3: result `maybe`",
            csv.display()
        )))
        .stdout(predicates::str::contains("| 1 | s | yes | 0 | 5 |"));
}
