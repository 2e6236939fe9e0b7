//! Campaign config: any bytes as `campaign.toml` give a campaign or an
//! error that names the file (and, for syntax and type errors, the line and
//! column, which must lie inside the file), never a panic. A generated valid
//! config with one fault planted at a known place must be refused with an
//! error naming exactly that line and column.

use super::gen::Source;
use coreval::campaign::setup::{Campaign, CONFIG_FILE};

/// Load `text` as the config of a private folder (per process and thread,
/// removed afterwards); the error text on failure.
fn load(text: &[u8]) -> Result<Campaign, String> {
    let d = std::env::temp_dir().join(format!(
        "coreval-fuzz-campaign-{}-{:?}",
        std::process::id(),
        std::thread::current().id()
    ));
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(d.join(CONFIG_FILE), text).unwrap();
    let result = Campaign::load(&d).map_err(|e| format!("{e:#}"));
    std::fs::remove_dir_all(&d).unwrap();
    result
}

/// The `line L, column C` an error names, if any.
fn position(msg: &str) -> Option<(usize, usize)> {
    let at = msg.find("line ")?;
    let rest = &msg[at + 5..];
    let (l, rest) = rest.split_once(", column ")?;
    let c: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
    Some((l.parse().ok()?, c.parse().ok()?))
}

pub fn check_raw(data: &[u8]) {
    let Err(msg) = load(data) else { return };
    assert!(msg.contains(CONFIG_FILE), "error without the file: {msg}");
    if let Some((l, c)) = position(&msg) {
        let text = String::from_utf8_lossy(data);
        let lines: Vec<&str> = text.split('\n').collect();
        assert!(
            l >= 1 && l <= lines.len().max(1),
            "line {l} of {}: {msg}",
            lines.len()
        );
        let len = lines.get(l - 1).map_or(0, |s| s.chars().count());
        // toml puts the end of a file that ends with a newline one column
        // after the newline of its last line.
        let at_eof = l + 1 == lines.len() && lines[l].is_empty();
        let max = len + 1 + at_eof as usize;
        assert!(c >= 1 && c <= max, "column {c} of a {len}-char line: {msg}");
    }
}

/// A valid config, then one fault at a known line and column.
pub fn check_generated(data: &[u8]) {
    let mut src = Source::new(data);
    let mut lines: Vec<String> = vec!["benchmarks = \"b\"".into()];
    if src.chance(128) {
        lines.push(format!("jobs = {}", src.below(8)));
    }
    let sections: &[(&str, &[&str])] = &[
        (
            "[limits]",
            &[
                "time = 5.0",
                "grace = 1",
                "memory_mb = 100",
                "checker_time = 3",
            ],
        ),
        (
            "[naming]",
            &[
                "prefix = \"cv\"",
                "min_assertions = 1",
                "allow_no_status = true",
            ],
        ),
        (
            "[check]",
            &[
                "independent = false",
                "early_stop = true",
                "checkers = [\"z3\"]",
            ],
        ),
        ("[[solver]]", &["name = \"z3\"", "definition = \"z3\""]),
    ];
    let mut candidates = Vec::new();
    for (head, keys) in sections {
        if src.chance(160) || head.starts_with("[[") {
            lines.push(head.to_string());
            for k in keys.iter() {
                if head.starts_with("[[") || src.chance(128) {
                    lines.push(k.to_string());
                    candidates.push(lines.len() - 1);
                }
            }
        }
    }
    // The fault: a wrong type for an existing key, or an unknown key.
    let at = candidates[src.below(candidates.len())];
    let key = lines[at].split(" = ").next().unwrap().to_string();
    let (line, column) = if src.chance(128) {
        let bad = src.pick(&["\"x\"", "[1]", "{ a = 1 }", "true", "-3"]);
        let current = lines[at].split(" = ").nth(1).unwrap();
        let same_kind = (bad == "true") == (current == "true" || current == "false")
            && (bad.starts_with('"') == current.starts_with('"'))
            && (bad.starts_with('[') == current.starts_with('['));
        if same_kind || bad == "-3" {
            return; // not a type error for this key
        }
        lines[at] = format!("{key} = {bad}");
        (at + 1, key.len() + 4)
    } else {
        lines.insert(at + 1, "colour = \"blue\"".into());
        (at + 2, 1)
    };
    let text = lines.join("\n") + "\n";
    let msg = match load(text.as_bytes()) {
        Ok(_) => panic!("accepted:\n{text}"),
        Err(m) => m,
    };
    assert!(msg.contains(CONFIG_FILE), "{msg}");
    assert_eq!(position(&msg), Some((line, column)), "{msg}\n{text}");
}

pub fn check(data: &[u8]) {
    check_raw(data);
    check_generated(data);
}
