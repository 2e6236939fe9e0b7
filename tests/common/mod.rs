//! Helpers shared by the campaign-level integration tests (fault matrix,
//! kill/resume, safe paths, full disks): paths, small real benchmarks,
//! running the `coreval` binary and reading its JSON Lines.

#![allow(dead_code)] // each test file uses a part

pub mod browser;
pub mod missing;
pub mod procs;
pub mod ran;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The repository (crate) root.
pub fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A path as a TOML (and Rust debug) string literal.
pub fn q(p: &Path) -> String {
    format!("{:?}", p.to_str().expect("UTF-8 path"))
}

/// Outputs a run leaves in a campaign folder (docs/reference.md, "The campaign folder").
const CAMPAIGN_OUTPUTS: &[&str] = &[
    "named",
    "cores",
    "reports",
    ".pids",
    ".lock",
    ".cache",
    "shards",
    "slurm",
    "slurm.json",
];

/// Copies the bundled example campaign to `to`: only its inputs, never the
/// outputs of a run made in the checkout (`coreval run examples/campaign`).
pub fn copy_example_campaign(to: &Path) {
    copy_inputs(&repo().join("examples/campaign"), to);
}

fn copy_inputs(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let name = e.file_name();
        let name = name.to_string_lossy();
        if CAMPAIGN_OUTPUTS.contains(&name.as_ref()) || name.ends_with(".jsonl") {
            continue;
        }
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_inputs(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).unwrap();
        }
    }
}

/// The entries of a naming output's `index.jsonl`.
pub fn read_index(out: &Path) -> Vec<coreval::campaign::ledger::index::IndexEntry> {
    std::fs::read_to_string(out.join("index.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// A script with only its assertions at `keep` (0-based positions among
/// its assertions), every other command kept, one per line.
pub fn restrict(script: &[u8], keep: &std::collections::HashSet<usize>) -> Vec<u8> {
    let mut out = Vec::new();
    let mut pos = 0;
    for c in coreval::smtlib::scanner::commands(script).unwrap() {
        if c.head() == "assert" {
            pos += 1;
            if !keep.contains(&(pos - 1)) {
                continue;
            }
        }
        out.extend_from_slice(&c.text);
        out.push(b'\n');
    }
    out
}

/// Copies benchmarks of the bundled example campaign (ids below its
/// `benchmarks/`) to the same ids below `root`.
pub fn copy_examples(root: &Path, ids: &[&str]) {
    for id in ids {
        let to = root.join(id);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(repo().join("examples/campaign/benchmarks").join(id), to).unwrap();
    }
}

/// A folder of definitions: z3, yices and cvc5 from the repository (with
/// the solvers' venv linked in), for tests that add definitions of their own.
pub fn real_checkers(dir: &Path) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    std::os::unix::fs::symlink(repo().join("checkers/venv"), dir.join("venv")).unwrap();
    for real in ["z3", "yices", "cvc5"] {
        std::fs::copy(
            repo().join(format!("checkers/{real}.toml")),
            dir.join(format!("{real}.toml")),
        )
        .unwrap();
    }
    dir.to_path_buf()
}

/// The `coreval` binary as every test runs it: no progress bar, and the
/// definitions folder not redirected by the caller's environment.
pub fn command() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_coreval"));
    c.env("COREVAL_NO_PROGRESS", "1")
        .env_remove("COREVAL_CHECKERS");
    c
}

/// [`command`] with `assert_cmd`'s assertions.
pub fn cmd() -> assert_cmd::Command {
    assert_cmd::Command::from_std(command())
}

/// `coreval ARGS DIR`, run in `cwd`.
pub fn coreval(args: &[&str], dir: &Path, cwd: &Path) -> Output {
    command()
        .args(args)
        .arg(dir)
        .current_dir(cwd)
        .output()
        .unwrap()
}

/// `coreval run [ARGS] DIR`, run beside DIR: exit code and stderr.
pub fn coreval_run(dir: &Path, args: &[&str]) -> (Option<i32>, String) {
    let mut all = vec!["run"];
    all.extend_from_slice(args);
    let out = coreval(&all, dir, dir.parent().unwrap());
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The path of a fake solver in `tests/fixtures/fake-solvers/`.
pub fn fake_solver(script: &str) -> String {
    repo()
        .join("tests/fixtures/fake-solvers")
        .join(script)
        .to_string_lossy()
        .into_owned()
}

/// The records of a JSON Lines file; panics on a line that does not parse.
pub fn jsonl(path: &Path) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{}: {e}: {l}", path.display())))
        .collect()
}

/// A pair's verdict as `kind` or `kind:reason`.
pub fn verdict(p: &serde_json::Value) -> String {
    let v = &p["verdict"];
    match v.get("reason").and_then(|r| r.as_str()) {
        Some(r) => format!("{}:{r}", v["kind"].as_str().unwrap()),
        None => v["kind"].as_str().unwrap().to_string(),
    }
}

/// `sh -c LINE` in the repository root: a printed command run as printed.
pub fn shell(line: &str) -> Output {
    Command::new("sh")
        .arg("-c")
        .arg(line)
        .current_dir(repo())
        .env("COREVAL_NO_PROGRESS", "1")
        .env_remove("COREVAL_CHECKERS")
        .output()
        .unwrap()
}

/// `coreval selfcheck ARGS` run in `dir` with the check cache `cache`,
/// stdout and stderr as one text (no panic in it).
pub fn selfcheck_in(dir: &Path, cache: &Path, args: &[&str]) -> (Output, String) {
    let out = command()
        .current_dir(dir)
        .env("COREVAL_CACHE", cache)
        .arg("selfcheck")
        .args(args)
        .output()
        .unwrap();
    let text = format!(
        "{}\n--- stderr\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!text.contains("panicked"), "{text}");
    (out, text)
}

/// A record's provenance in the inline form: a compact one (`of`, the id
/// of its configuration's line in provenance.jsonl, and its input) is
/// resolved through that table, whose line must hash to its id.
pub fn provenance_of(camp: &Path, r: &serde_json::Value) -> serde_json::Value {
    let p = r["provenance"].clone();
    let Some(id) = p["of"].as_str() else {
        return p;
    };
    let table = jsonl(&camp.join("provenance.jsonl"));
    let k = table
        .iter()
        .find(|k| k["of"] == id)
        .unwrap_or_else(|| panic!("{id} is not in provenance.jsonl"));
    let file = p["file"]
        .as_str()
        .map(str::to_string)
        .unwrap_or_else(|| format!("named/{}", r["benchmark"].as_str().unwrap()));
    let command: Vec<serde_json::Value> = k["command"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap().replace("{file}", &file).into())
        .collect();
    serde_json::json!({
        "command": command,
        "file": file,
        "limits": k["limits"],
        "program": k["program"],
        "benchmark": p["benchmark"],
    })
}

/// `coreval ARGS` run in the repository on `script`'s pseudo-terminal
/// (stdout and stderr as one stream, read line by line as they come),
/// with a cache folder of its own, the installed checkers and `env` set:
/// each line with when it came (seconds since the epoch; a progress bar
/// erased on the line of a `decided:` line is left out), and the exit code.
pub fn on_terminal(args: &[&str], env: &[(&str, &Path)]) -> (Vec<(f64, String)>, Option<i32>) {
    use std::io::{BufRead, BufReader};
    let cache = tempfile::tempdir().unwrap();
    let quote = |w: &str| format!("'{}'", w.replace('\'', r"'\''"));
    let line = std::iter::once(env!("CARGO_BIN_EXE_coreval"))
        .chain(args.iter().copied())
        .map(quote)
        .collect::<Vec<_>>()
        .join(" ");
    let mut child = Command::new("script")
        .args(["-qfec", &line, "/dev/null"])
        .current_dir(repo())
        .env("COREVAL_CACHE", cache.path())
        .envs(env.iter().copied())
        .env_remove("COREVAL_NO_PROGRESS")
        .env_remove("COREVAL_CHECKERS")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("`script` (util-linux) runs the command on a pseudo-terminal");
    let now = || {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs_f64()
    };
    let mut timed = Vec::new();
    for l in BufReader::new(child.stdout.take().unwrap()).lines() {
        let l = l.unwrap().trim_end_matches('\r').to_string();
        // A progress bar erased (`\r`, ESC [2K) shares the line it leaves.
        let l = match l.find("decided: ") {
            Some(i) => l[i..].to_string(),
            None => l,
        };
        timed.push((now(), l));
    }
    (timed, child.wait().unwrap().code())
}

/// A campaign in `camp` of the example benchmarks `ids`, judged by yices
/// and cvc5 under the 2018 policy and scored by the 2024 rules, with z3
/// and the fault-injecting solvers `fakes` (name, script in
/// `tests/fixtures/fake-solvers/`) under `limits` (lines of `[limits]`),
/// run once.
pub fn faulty_campaign(camp: &Path, ids: &[&str], limits: &str, fakes: &[(&str, &str)]) {
    copy_examples(&camp.join("benchmarks"), ids);
    real_checkers(&camp.join("defs"));
    let mut config = format!(
        "benchmarks = \"benchmarks\"\ncheckers_dir = \"defs\"\ncache = \".cache\"\njobs = 2\n\
         [naming]\nallow_no_status = true\n[limits]\n{limits}\nchecker_time = 20.0\n\
         [check]\npolicy = \"smtcomp-2018\"\ncheckers = [\"yices\", \"cvc5\"]\n[score]\nrules = \"smtcomp-2024\"\n\
         [[solver]]\nname = \"z3\"\ndefinition = \"z3\"\n"
    );
    for (name, script) in fakes {
        config.push_str(&format!(
            "[[solver]]\nname = {name:?}\ncommand = [{:?}, \"{{file}}\"]\n",
            fake_solver(script)
        ));
    }
    std::fs::write(camp.join("campaign.toml"), config).unwrap();
    let (code, err) = coreval_run(camp, &[]);
    assert!(code.is_some(), "coreval run: {err}");
}
