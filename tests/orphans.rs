//! No orphans: coreval is killed (SIGKILL) while real solvers and checkers
//! are sure to be running — z3 on a pigeonhole instance it cannot finish,
//! and `hang.sh`, whose grandchild (`sleep 1000`) stays in its process group
//! — once in the solve stage and once in the check stage. The solvers must
//! die with coreval (PR_SET_PDEATHSIG), and the next `coreval run`
//! (respectively `coreval check`) must kill the grandchildren left in their
//! groups, from the records in `.pids/`.

mod common;

use common::procs::{alive, eventually, solver_processes, Proc, Running};
use common::{q, repo};
use coreval::campaign::setup::ConfigFile;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Ends a test's leftovers: the running coreval, then the groups it left.
struct Reaper(Vec<PathBuf>);

impl Drop for Reaper {
    fn drop(&mut self) {
        for d in &self.0 {
            coreval::runner::reap_orphans(&d.join(".pids"));
        }
    }
}

/// A campaign on the pigeonhole instance (z3 cannot finish it), with the
/// solvers `add` enters and `checkers`, long limits.
fn slow_campaign(
    dir: &Path,
    add: impl Fn(&mut ConfigFile),
    checkers: &[&str],
    checkers_dir: &Path,
) {
    let bench = dir.join("bench/QF_UF/php");
    std::fs::create_dir_all(&bench).unwrap();
    std::fs::copy(
        repo().join("tests/fixtures/solver-output/inputs/php11.smt2"),
        bench.join("php11.smt2"),
    )
    .unwrap();
    let mut config = ConfigFile::new("bench");
    config.checkers_dir = Some(checkers_dir.to_path_buf());
    config.jobs = 3;
    config.cache = Some("cache".into());
    config.naming.allow_no_status = true;
    config.naming.named_policy = coreval::benchmark::NamedPolicy::Strip;
    (
        config.limits.time,
        config.limits.checker_time,
        config.limits.grace,
    ) = (Some(60.0), 60.0, 0.2);
    config.check.checkers = checkers.iter().map(|c| c.to_string()).collect();
    add(&mut config);
    config.write_to(dir).unwrap();
}

/// Kill `r` once the processes `want` names (command-line words) all run
/// on the campaign's files; returns them with their group members.
fn kill_when_running(r: &mut Running, dir: &Path, want: &[&str]) -> Vec<Proc> {
    let mut seen = Vec::new();
    let found = eventually(30.0, || {
        seen = solver_processes(dir);
        want.iter()
            .all(|w| seen.iter().any(|p| p.cmdline.contains(w)))
            && seen.iter().any(|p| p.cmdline.starts_with("sleep"))
    });
    assert!(found, "the solvers never started: {seen:?}");
    r.kill();
    seen
}

#[test]
fn solvers_of_a_killed_run_do_not_survive_the_next() {
    let tmp = tempfile::tempdir().unwrap();
    let fixtures = repo().join("tests/fixtures/fake-solvers");
    // A checkers folder with the real z3 and a checker whose grandchild
    // (`sleep 1000`) stays behind in its group.
    let kdir = common::real_checkers(&tmp.path().join("checkers"));
    let hang = fixtures.join("hang.sh");
    std::fs::write(
        kdir.join("hang.toml"),
        format!(
            "name = \"hang\"\nteam = \"hang\"\ncommand = [{}, \"{{file}}\"]\nlogics = [\"*\"]\nproduces_cores = false\n\
             version_command = [\"/bin/echo\", \"1\"]\ninstall_hint = \"tests/fixtures\"\n",
            q(&hang)
        ),
    )
    .unwrap();

    // Solve stage: z3 (real, cannot finish) and hang.sh under test.
    let solving = tmp.path().join("solving");
    std::fs::create_dir_all(&solving).unwrap();
    let hang_cmd = hang.to_str().unwrap();
    let solvers = |c: &mut ConfigFile| {
        c.solver_definition("z3", "z3")
            .solver_command("hang", &[hang_cmd, "{file}"]);
    };
    slow_campaign(&solving, solvers, &["z3"], &kdir);
    // Check stage: a solver that prints the full core at once; z3 and hang.sh check it.
    let checking = tmp.path().join("checking");
    std::fs::create_dir_all(&checking).unwrap();
    let fast = fixtures.join("unsat-core.sh");
    let fast = |c: &mut ConfigFile| {
        c.solver_command("fast", &[fast.to_str().unwrap(), "{file}"]);
    };
    slow_campaign(&checking, fast, &["z3", "hang"], &kdir);
    let _reaper = Reaper(vec![solving.clone(), checking.clone()]);

    for (dir, rerun, files) in [(&solving, "run", "named/"), (&checking, "check", "cores/")] {
        let mut r = Running::start(&["run"], dir);
        let procs = kill_when_running(&mut r, dir, &["venv/bin/z3", "hang.sh"]);
        let _ = r.wait();
        assert!(procs.iter().any(|p| p.cmdline.contains(files)), "{procs:?}");
        // The solvers themselves die with coreval (PR_SET_PDEATHSIG)…
        let direct: Vec<&Proc> = procs
            .iter()
            .filter(|p| !p.cmdline.starts_with("sleep"))
            .collect();
        assert!(
            eventually(2.0, || direct.iter().all(|p| !alive(p))),
            "solvers outlived the killed coreval: {direct:?}"
        );
        // …their grandchildren stay in the groups until the next coreval.
        let grandchildren: Vec<&Proc> = procs
            .iter()
            .filter(|p| p.cmdline.starts_with("sleep"))
            .collect();
        assert!(grandchildren.iter().all(|p| alive(p)), "{grandchildren:?}");
        let started = Instant::now();
        let mut next = Running::start(&[rerun], dir);
        assert!(
            eventually(10.0, || grandchildren.iter().all(|p| !alive(p))),
            "`coreval {rerun}` left the killed run's processes running: {grandchildren:?}"
        );
        println!(
            "`coreval {rerun}` cleaned up {} process(es) in {:.2} s",
            grandchildren.len(),
            started.elapsed().as_secs_f64()
        );
        assert!(
            eventually(10.0, || next.saw("note: killed").is_some()),
            "no word of the clean-up"
        );
        next.kill();
        let _ = next.wait();
    }
}
