//! The facts block every campaign report opens with (see
//! [`crate::campaign::ledger::facts`]), in Markdown and in HTML, after the
//! warnings: the HTML lists the ineligible and malformed benchmarks in a
//! collapsible section (the JSON report carries them in full in `facts`).

use super::svg::esc;
use super::ScoreReport;
use crate::campaign::ledger::facts::Facts;
use crate::campaign::ledger::provenance::Program;
use std::fmt::Write;

/// What a program is, in a few words: version, executable and script hashes.
fn identity(p: &Program) -> String {
    let short = |h: &str| h.chars().take(12).collect::<String>();
    let mut parts = vec![format!(
        "version {}",
        p.version.as_deref().unwrap_or("unknown")
    )];
    match &p.executable {
        Some(f) => parts.push(format!("{} (blake3 {})", f.path, short(&f.blake3))),
        None => parts.push("program not found here".into()),
    }
    if let Some(s) = &p.script {
        parts.push(format!("script {} (blake3 {})", s.path, short(&s.blake3)));
    }
    parts.join(", ")
}

fn limits(f: &Facts) -> String {
    let l = &f.limits;
    let measured: Vec<String> = (f.measured.iter())
        .map(|(by, n)| format!("{by} ({n} run{})", if *n == 1 { "" } else { "s" }))
        .collect();
    let measured = match measured.len() {
        0 => String::new(),
        1 => format!("; measured by {}", measured[0]),
        _ => format!(
            "; measured by {} (a mix: figures of one method and another do not compare)",
            measured.join(", ")
        ),
    };
    format!(
        "solver time {} s, checker time {} s, memory {}, grace {} s, output cap {} MiB{measured}",
        l.time.unwrap_or(0.0),
        l.checker_time.unwrap_or(0.0),
        l.memory_mb
            .map_or("unlimited".to_string(), |m| format!("{m} MiB")),
        l.grace,
        l.output_cap / (1024 * 1024)
    )
}

fn list_or_none(v: &[String]) -> String {
    if v.is_empty() {
        "none".into()
    } else {
        v.join(", ")
    }
}

/// The warnings and the facts block in Markdown (`cell` escapes text).
pub fn markdown(out: &mut String, r: &ScoreReport, cell: &dyn Fn(&str) -> String) {
    if !r.warnings.is_empty() {
        out.push_str("## Warnings\n\n");
        for w in &r.warnings {
            let _ = writeln!(out, "- {}", cell(w));
        }
        out.push('\n');
    }
    let Some(f) = &r.facts else { return };
    out.push_str("## Campaign facts\n\n");
    let _ = writeln!(
        out,
        "- {}; rules {}; decision policy {}; checkers of a solver's own team {}",
        cell(&f.coreval),
        cell(&f.rules),
        cell(&f.policy),
        if f.independent { "left out" } else { "counted" }
    );
    let _ = writeln!(out, "- limits: {}", limits(f));
    if let Some(p) = &r.provenance {
        let _ = writeln!(
            out,
            "- campaign.toml blake3 {}; named index blake3 {}",
            p.config.as_deref().unwrap_or("-"),
            p.named_index.as_deref().unwrap_or("-")
        );
    }
    out.push_str("\n| solver | command | identity | judged by | left out (own team) |\n|---|---|---|---|---|\n");
    for s in &f.solvers {
        let _ = writeln!(
            out,
            "| {} | `{}` | {} | {} | {} |",
            cell(&s.name),
            cell(&s.command.join(" ")),
            cell(&identity(&s.program)),
            cell(&list_or_none(&s.judged_by)),
            cell(&list_or_none(&s.left_out))
        );
    }
    out.push_str("\n| checker | team | identity |\n|---|---|---|\n");
    for k in &f.checkers {
        let _ = writeln!(
            out,
            "| {} | {} | {} |",
            cell(&k.name),
            cell(&k.team),
            cell(&identity(&k.program))
        );
    }
    let b = &f.benchmarks;
    let _ = writeln!(out, "\nBenchmarks: {}.\n", counts(b));
    for (reason, ids) in &b.ineligible {
        let _ = writeln!(
            out,
            "- ineligible, {} ({}): {}",
            cell(reason),
            ids.len(),
            cell(&ids.join(", "))
        );
    }
    for (label, lines) in listed(b) {
        for m in lines {
            let _ = writeln!(out, "- {label}: {}", cell(m));
        }
    }
    out.push('\n');
}

/// `N files found (M names), a named, b ineligible, c malformed, d failed,
/// e skipped`: files, each counted once.
fn counts(b: &crate::campaign::ledger::facts::BenchmarkFacts) -> String {
    let names = if b.names > b.found {
        format!(" ({} names)", b.names)
    } else {
        String::new()
    };
    format!(
        "{} files found{names}, {} named, {} ineligible, {} malformed, {} failed, {} skipped",
        b.found,
        b.named,
        b.ineligible_files,
        b.malformed_files,
        b.failed_files,
        b.skipped.len()
    )
}

/// The listed problems after the ineligible ones, each under its label.
fn listed(b: &crate::campaign::ledger::facts::BenchmarkFacts) -> [(&'static str, &Vec<String>); 3] {
    [
        ("malformed", &b.malformed),
        ("failed", &b.failed),
        ("skipped", &b.skipped),
    ]
}

/// The warnings and the facts block in HTML.
pub fn html(out: &mut String, r: &ScoreReport) {
    if !r.warnings.is_empty() {
        out.push_str("<section id=\"warnings\"><h2>Warnings</h2><ul class=\"warn\">");
        for w in &r.warnings {
            let _ = write!(out, "<li>{}</li>", esc(w));
        }
        out.push_str("</ul></section>");
    }
    let Some(f) = &r.facts else { return };
    let _ = write!(
        out,
        "<section id=\"facts\"><h2>Campaign facts</h2><p class=\"meta\">{} · rules <b>{}</b> · decision policy <b>{}</b> · checkers of a solver's own team {} · limits: {}</p>",
        esc(&f.coreval),
        esc(&f.rules),
        esc(&f.policy),
        if f.independent { "left out" } else { "counted" },
        esc(&limits(f))
    );
    if let Some(p) = &r.provenance {
        let _ = write!(
            out,
            "<p class=\"meta\">campaign.toml blake3 <code>{}</code> · named index blake3 <code>{}</code></p>",
            esc(p.config.as_deref().unwrap_or("-")),
            esc(p.named_index.as_deref().unwrap_or("-"))
        );
    }
    out.push_str("<table><thead><tr><th>solver</th><th>command</th><th>identity</th><th>judged by</th><th>left out (own team)</th></tr></thead><tbody>");
    for s in &f.solvers {
        let _ = write!(
            out,
            "<tr><td>{}</td><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td></tr>",
            esc(&s.name),
            esc(&s.command.join(" ")),
            esc(&identity(&s.program)),
            esc(&list_or_none(&s.judged_by)),
            esc(&list_or_none(&s.left_out))
        );
    }
    out.push_str("</tbody></table><table><thead><tr><th>checker</th><th>team</th><th>identity</th></tr></thead><tbody>");
    for k in &f.checkers {
        let _ = write!(
            out,
            "<tr><td>{}</td><td>{}</td><td>{}</td></tr>",
            esc(&k.name),
            esc(&k.team),
            esc(&identity(&k.program))
        );
    }
    out.push_str("</tbody></table>");
    let b = &f.benchmarks;
    let _ = write!(
        out,
        "<details id=\"benchmarks\"><summary>Benchmarks: {}</summary><ul>",
        esc(&counts(b))
    );
    for (reason, ids) in &b.ineligible {
        let _ = write!(
            out,
            "<li>ineligible, <b>{}</b> ({}):<ul>",
            esc(reason),
            ids.len()
        );
        for id in ids {
            let _ = write!(out, "<li><code>{}</code></li>", esc(id));
        }
        out.push_str("</ul></li>");
    }
    for (label, lines) in listed(b) {
        for m in lines {
            let _ = write!(out, "<li>{label}: <code>{}</code></li>", esc(m));
        }
    }
    out.push_str("</ul></details></section>");
}
