//! The two small languages of a solver definition: command templates with
//! `{placeholder}`s, and logic patterns with `*`.
//!
//! Kept apart from the definition type so that both can be tested on plain
//! strings and so that validation (at load time) and expansion (at run time)
//! share one tokenizer.

/// Placeholders a command template may use.
pub const PLACEHOLDERS: &[&str] = &[
    "file",
    "timeout",
    "timeout_ms",
    "seed",
    "memory_mb",
    "checkers",
];

/// One piece of a template argument.
#[derive(Debug, PartialEq)]
enum Piece<'a> {
    Text(&'a str),
    /// `{{` or `}}`: a literal brace.
    Brace(char),
    Hole(&'a str),
}

/// Split an argument into text and `{name}` holes; `{{`/`}}` are literal
/// braces. Errors name the offending text.
fn pieces(arg: &str) -> Result<Vec<Piece<'_>>, String> {
    let mut out = Vec::new();
    let mut rest = arg;
    while !rest.is_empty() {
        let Some(i) = rest.find(['{', '}']) else {
            out.push(Piece::Text(rest));
            break;
        };
        if i > 0 {
            out.push(Piece::Text(&rest[..i]));
        }
        let brace = rest.as_bytes()[i];
        let after = &rest[i + 1..];
        if after.as_bytes().first() == Some(&brace) {
            out.push(Piece::Brace(brace as char));
            rest = &after[1..];
        } else if brace == b'}' {
            return Err(format!(
                "unmatched `}}` in {arg:?} (write `}}}}` for a literal brace)"
            ));
        } else {
            let end = after.find('}').ok_or_else(|| {
                format!("unclosed `{{` in {arg:?} (write `{{{{` for a literal brace)")
            })?;
            out.push(Piece::Hole(&after[..end]));
            rest = &after[end + 1..];
        }
    }
    Ok(out)
}

/// Check that `arg` only uses placeholders from `allowed`.
pub fn validate(arg: &str, allowed: &[&str]) -> Result<(), String> {
    for piece in pieces(arg)? {
        if let Piece::Hole(name) = piece {
            if !allowed.contains(&name) {
                return Err(format!(
                    "unknown placeholder {{{name}}} in {arg:?}; allowed here: {}",
                    allowed
                        .iter()
                        .map(|p| format!("{{{p}}}"))
                        .collect::<Vec<_>>()
                        .join(" ")
                ));
            }
        }
    }
    Ok(())
}

/// Whether `arg` uses placeholder `name`.
pub fn uses(arg: &str, name: &str) -> bool {
    pieces(arg).is_ok_and(|ps| ps.contains(&Piece::Hole(name)))
}

/// Expand `arg`; `value(name)` gives each placeholder's text. `None` when a
/// placeholder has no value (the caller then drops the whole argument) or
/// the template is invalid (prevented by [`validate`] at load time).
pub fn expand(arg: &str, value: &dyn Fn(&str) -> Option<String>) -> Option<String> {
    let mut out = String::with_capacity(arg.len());
    for piece in pieces(arg).ok()? {
        match piece {
            Piece::Text(t) => out.push_str(t),
            Piece::Brace(c) => out.push(c),
            Piece::Hole(name) => out.push_str(&value(name)?),
        }
    }
    Some(out)
}

/// Whether `text` matches `pattern`, where `*` matches any run of
/// characters (also none) and every other character matches itself.
pub fn glob_match(pattern: &str, text: &str) -> bool {
    let (p, t) = (pattern.as_bytes(), text.as_bytes());
    let (mut pi, mut ti) = (0, 0);
    let mut backtrack: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() && p[pi] == b'*' {
            backtrack = Some((pi, ti));
            pi += 1;
        } else if pi < p.len() && p[pi] == t[ti] {
            pi += 1;
            ti += 1;
        } else if let Some((star, matched)) = backtrack {
            pi = star + 1;
            ti = matched + 1;
            backtrack = Some((star, matched + 1));
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|&c| c == b'*')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vals(name: &str) -> Option<String> {
        match name {
            "timeout" => Some("5".into()),
            "file" => Some("/b/x.smt2".into()),
            _ => None,
        }
    }

    #[test]
    fn expands_and_escapes() {
        assert_eq!(expand("-T:{timeout}", &vals).as_deref(), Some("-T:5"));
        assert_eq!(expand("{file}", &vals).as_deref(), Some("/b/x.smt2"));
        assert_eq!(expand("{{x}}={timeout}", &vals).as_deref(), Some("{x}=5"));
        assert_eq!(expand("-memory:{memory_mb}", &vals), None);
        assert!(uses("--memory={memory_mb}", "memory_mb"));
        assert!(!uses("{{memory_mb}}", "memory_mb"));
    }

    #[test]
    fn validation_names_the_problem() {
        assert!(validate("-T:{timeout}", PLACEHOLDERS).is_ok());
        let e = validate("{tiemout}", PLACEHOLDERS).unwrap_err();
        assert!(e.contains("{tiemout}") && e.contains("{timeout}"), "{e}");
        assert!(validate("{file", PLACEHOLDERS)
            .unwrap_err()
            .contains("unclosed"));
        assert!(validate("a}b", PLACEHOLDERS)
            .unwrap_err()
            .contains("unmatched"));
        assert!(validate("{file}", &["checkers"]).is_err());
    }

    #[test]
    fn globs() {
        assert!(glob_match("*", "QF_BV"));
        assert!(glob_match("*", ""));
        assert!(glob_match("QF_*", "QF_UF"));
        assert!(!glob_match("QF_*", "UFLIA"));
        assert!(glob_match("*FP*", "QF_BVFP"));
        assert!(glob_match("*FP*", "FP"));
        assert!(glob_match("*NIA", "QF_UFNIA"));
        assert!(!glob_match("*NIA", "QF_NIRA"));
        assert!(glob_match("QF_S*", "QF_SLIA"));
        assert!(glob_match("QF_BV", "QF_BV"));
        assert!(!glob_match("QF_BV", "QF_ABV"));
        assert!(glob_match("Q*_*V", "QF_ABV"));
        assert!(!glob_match("a*b*c", "abab"));
    }
}
