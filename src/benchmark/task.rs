//! The BenchExec task files of the competition's scrambled benchmarks: the
//! `smtcomp` tool writes `LOGIC/scrambledN.smt2` with a task file
//! `LOGIC/scrambledN.yml` beside it (format 2.0, `input_files:
//! 'scrambledN.smt2'`), whose comment `# original_files: 'PATH'` names the
//! benchmark of the library it was scrambled from (`non-incremental/LOGIC/
//! FAMILY/NAME`). BenchExec names its runs after the task file; coreval
//! checks the `.smt2` the solver was given and reports by the original.

use std::path::Path;

/// The benchmark file a BenchExec task path stands for: `x.yml` → `x.smt2`
/// (the competition's task files lie beside their inputs), anything else
/// as it is.
pub fn input_of(task: &str) -> String {
    match task.strip_suffix(".yml") {
        Some(stem) => format!("{stem}.smt2"),
        None => task.to_string(),
    }
}

/// The original benchmark of a scrambled file `smt2`, from the task file
/// beside it: the library path (`LOGIC/FAMILY/NAME`, the tool's
/// `non-incremental/` folder left out); `None` without such a file or
/// line.
pub fn original_of(smt2: &Path) -> Option<String> {
    let yml = smt2.with_extension("yml");
    let meta = std::fs::metadata(&yml).ok()?;
    if !meta.is_file() || meta.len() > 1 << 16 {
        return None;
    }
    let text = std::fs::read_to_string(&yml).ok()?;
    text.lines().find_map(|l| {
        let rest = l.trim().strip_prefix('#')?.trim();
        let value = rest.strip_prefix("original_files:")?.trim();
        let value = value.trim_matches(|c| c == '\'' || c == '"').trim();
        let value = value.strip_prefix("non-incremental/").unwrap_or(value);
        (!value.is_empty()).then(|| value.to_string())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn task_files_name_input_and_original() {
        assert_eq!(input_of("QF_LIA/scrambled7.yml"), "QF_LIA/scrambled7.smt2");
        assert_eq!(input_of("a.smt2"), "a.smt2");
        let dir = tempfile::tempdir().unwrap();
        let smt2 = dir.path().join("scrambled7.smt2");
        assert_eq!(original_of(&smt2), None);
        std::fs::write(
            dir.path().join("scrambled7.yml"),
            "format_version: '2.0'\n\ninput_files: 'scrambled7.smt2'\n\n\
             # original_files: 'non-incremental/QF_LIA/fam/x.smt2'\n\nproperties:\n",
        )
        .unwrap();
        assert_eq!(original_of(&smt2).as_deref(), Some("QF_LIA/fam/x.smt2"));
    }
}
