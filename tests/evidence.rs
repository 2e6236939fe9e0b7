//! Evidence for every failed core (issue 17, item 3): a campaign in which a
//! solver under test drops an essential name from z3's minimal cores. The
//! HTML report opens with the overview (pairs per solver and verdict, every
//! pair to look at), every pair (validated ones too) links to a detail view with the core,
//! the checkers' votes, versions, exits, first lines of output, the
//! core-only file (relative) and the command that repeats each checker run —
//! and that command, run from the campaign folder, gives the answer shown.
//! Headless Chromium renders the overview and one detail view.

mod common;

use coreval::campaign::setup::ConfigFile;
use std::path::Path;

/// HTML entities the report writes, decoded.
fn unescape(s: &str) -> String {
    s.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

/// Every `(checker, answer, command)` row of the detail view `#pair-{i}`.
fn detail_rows(page: &str, i: usize) -> Vec<(String, String, String)> {
    let start = page
        .find(&format!("id=\"pair-{i}\""))
        .unwrap_or_else(|| panic!("no detail view pair-{i}"));
    let end = page[start..].find("</section>").unwrap() + start;
    let view = &page[start..end];
    // A run that failed or answered `sat` has no checker table.
    let Some(table) = view.find("<tbody>") else {
        return Vec::new();
    };
    let body = &view[table + 7..];
    body.split("<tr>")
        .skip(1)
        .map(|row| {
            let cells: Vec<&str> = row
                .split("<td")
                .skip(1)
                .map(|c| {
                    let c = &c[c.find('>').unwrap() + 1..];
                    &c[..c.find("</td>").unwrap()]
                })
                .collect();
            // The answer, without the certification note below it.
            let answer = cells[2].split([' ', '<']).next().unwrap_or("").to_string();
            let cmd = cells[7]
                .trim_start_matches("<code class=\"cmd\">")
                .trim_end_matches("</code>");
            (unescape(cells[0]), unescape(&answer), unescape(cmd))
        })
        .collect()
}

#[test]
fn refuted_cores_have_evidence_that_reproduces_and_renders() {
    let dir = tempfile::tempdir().unwrap();
    let camp = dir.path().join("campaign");
    common::copy_example_campaign(&camp);
    let text = std::fs::read_to_string(camp.join("campaign.toml")).unwrap();
    let mut config: ConfigFile = toml::from_str(&text).unwrap();
    config.solvers.retain(|s| s.name == "z3");
    let liar = common::repo().join("tests/fixtures/fake-solvers/z3-drop-first.sh");
    config.solver_command("liar", &[liar.to_str().unwrap(), "{file}"]);
    config.write_to(&camp).unwrap();

    let out = common::command().arg("run").arg(&camp).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.code().is_some(), "{stderr}");

    let pairs = common::jsonl(&camp.join("reports/pairs.jsonl"));
    let refuted: Vec<&serde_json::Value> = pairs
        .iter()
        .filter(|p| p["solver"] == "liar" && common::verdict(p) == "refuted")
        .collect();
    assert!(refuted.len() >= 3, "few refuted cores: {stderr}");

    let html = camp.join("reports/report.html");
    let page = std::fs::read_to_string(&html).unwrap();
    let overview = page.find("id=\"overview\"").expect("overview section");
    let first_division = page.find("id=\"div-").expect("division section");
    assert!(overview < first_division, "the overview opens the report");
    assert!(page.contains("Pairs to look at"));
    // Every refuted pair is listed; no validated z3 pair is.
    for p in &refuted {
        assert!(
            page.contains(p["benchmark"].as_str().unwrap()),
            "{p} not listed"
        );
    }
    let failing = pairs
        .iter()
        .filter(|p| {
            let v = common::verdict(p);
            ["refuted", "not-validated", "sat"].contains(&v.as_str())
                || v.starts_with("ill-formed")
                || p["disputed"] == true
                || p["pending"] == true
        })
        .count();
    assert!(
        page.contains(&format!("Pairs to look at ({failing})")),
        "every pair that did not pass is listed to look at"
    );
    // Every pair has a detail view (validated ones too), those to look at first.
    let listed = failing;
    for i in 0..pairs.len() {
        assert!(
            page.contains(&format!("id=\"pair-{i}\"")),
            "no detail view pair-{i}"
        );
        assert!(page.contains(&format!("<a href=\"#pair-{i}\">")));
    }

    // A detail view with a decided checker run (a refuted core): its core
    // file is relative and exists, and every decided command reproduces
    // the checker's answer from the campaign folder.
    let i = (0..listed)
        .find(|&i| {
            detail_rows(&page, i)
                .iter()
                .any(|(_, a, _)| a == "sat" || a == "unsat")
        })
        .expect("a detail view with a decided checker run");
    let start = page.find(&format!("id=\"pair-{i}\"")).unwrap();
    let view = &page[start..start + page[start..].find("</section>").unwrap()];
    let core_href = view
        .split("href=\"../")
        .nth(1)
        .and_then(|s| s.split('"').next())
        .expect("a link to the core-only file");
    assert!(core_href.starts_with("cores/") && core_href.ends_with(".smt2"));
    assert!(
        camp.join(core_href).is_file(),
        "{core_href} is not in the campaign"
    );
    let rows = detail_rows(&page, i);
    let mut reproduced = 0;
    for (checker, answer, command) in &rows {
        assert!(
            !command.contains(camp.to_str().unwrap()),
            "absolute path: {command}"
        );
        if answer != "sat" && answer != "unsat" {
            continue;
        }
        let run = std::process::Command::new("sh")
            .arg("-c")
            .arg(command)
            .current_dir(&camp)
            .output()
            .unwrap();
        let printed = String::from_utf8_lossy(&run.stdout);
        assert_eq!(
            printed.lines().find(|l| *l == "sat" || *l == "unsat"),
            Some(answer.as_str()),
            "{checker}: `{command}` printed {printed}"
        );
        reproduced += 1;
    }
    assert!(
        reproduced >= 1,
        "no command repeated a decided run: {rows:?}"
    );

    browser_renders(&html, dir.path(), i);
    explained_shrunk_and_compared(&camp, &page, &refuted);
}

/// Issue 30 on the same campaign: a certified refutation's detail view
/// names an original assertion the model falsifies; `coreval shrink`
/// reduces a refuted pair; `coreval diff` of the campaign with itself
/// finds nothing new.
fn explained_shrunk_and_compared(camp: &Path, page: &str, refuted: &[&serde_json::Value]) {
    assert!(
        page.contains("<dt>explanation</dt>") && page.contains("satisfies the core but falsifies"),
        "no explanation in the detail views"
    );
    // A linear-arithmetic pair: its checkers answer in a blink.
    let bench = refuted
        .iter()
        .filter_map(|p| p["benchmark"].as_str())
        .find(|b| b.starts_with("QF_LIA/"))
        .expect("a refuted QF_LIA pair");
    // `coreval show` prints the same explanation in a terminal.
    let explained = refuted
        .iter()
        .filter_map(|p| Some((p["solver"].as_str()?, p["benchmark"].as_str()?)))
        .any(|(solver, b)| {
            let shown = common::command()
                .args(["show", camp.to_str().unwrap(), solver, b])
                .output()
                .unwrap();
            String::from_utf8_lossy(&shown.stdout).contains("satisfies the core but falsifies")
        });
    assert!(explained, "no explanation in coreval show");
    let out = common::command()
        .args([
            "shrink",
            camp.to_str().unwrap(),
            "liar",
            bench,
            "--shrink-time",
            "20",
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let line = stdout
        .lines()
        .find(|l| l.starts_with("reproducer: "))
        .expect("a reproducer");
    let path = line["reproducer: ".len()..].rsplit_once(" (").unwrap().0;
    assert!(Path::new(path).is_file(), "{line}");
    let same = common::command()
        .args(["diff", camp.to_str().unwrap(), camp.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(same.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&same.stdout).contains("new failures: 0"));
}

/// Screenshots of the overview and of detail view `detail`; kept under
/// `target/evidence-shots/` so they can be looked at.
fn browser_renders(html: &Path, tmp: &Path, detail: usize) {
    use common::browser::{file_url, png_size, screenshot, CHROMIUM};
    if !Path::new(CHROMIUM).exists() {
        common::missing::skip(&format!("the screenshots: {CHROMIUM} is not installed"));
        return;
    }
    let shots = common::repo().join("target/evidence-shots");
    std::fs::create_dir_all(&shots).unwrap();
    let blank = tmp.join("blank.html");
    std::fs::write(&blank, "<!DOCTYPE html><html><body></body></html>").unwrap();
    let profile = tmp.join("profile");
    let mut sizes = Vec::new();
    for (name, url) in [
        ("blank", file_url(&blank, "")),
        ("overview", file_url(html, "")),
        ("detail", file_url(html, &format!("#pair-{detail}"))),
    ] {
        let png = shots.join(format!("{name}.png"));
        assert!(
            screenshot(&url, &png, &profile),
            "chromium timed out on {url}"
        );
        let bytes = std::fs::read(&png).unwrap();
        assert_eq!(png_size(&bytes), (1280, 2000));
        sizes.push(bytes.len());
    }
    assert!(
        sizes[1] > 5 * sizes[0].max(1000),
        "overview is nearly blank"
    );
    assert!(
        sizes[2] > 5 * sizes[0].max(1000),
        "detail view is nearly blank"
    );
}
