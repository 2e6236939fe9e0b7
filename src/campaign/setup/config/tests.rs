//! Tests of the campaign config: defaults, line numbers of errors, refused values.

use super::*;

fn load(text: &str) -> Result<Campaign> {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(CONFIG_FILE), text).unwrap();
    Campaign::load(dir.path())
}

#[test]
fn minimal_config_gets_defaults() {
    let c = load("benchmarks = \"b\"\n[[solver]]\nname = \"z3\"\ndefinition = \"z3\"\n").unwrap();
    // The default edition's (smtcomp-2025) limit.
    assert_eq!(c.time, Duration::from_secs(1200));
    assert_eq!(c.config.check.policy, Policy::Smtcomp2025);
    assert!(c.benchmarks.ends_with("b"));
    assert!(c.jobs >= 1);
}

#[test]
fn time_limit_defaults_to_the_editions() {
    let base = "benchmarks = \"b\"\n[score]\nrules = \"smtcomp-2019\"\n";
    assert_eq!(load(base).unwrap().time, Duration::from_secs(2400));
    let own = format!("{base}[limits]\ntime = 30.0\n");
    assert_eq!(load(&own).unwrap().time, Duration::from_secs(30));
    let later = base.replace("2019", "2020");
    assert_eq!(load(&later).unwrap().time, Duration::from_secs(1200));
    // The checker limit is no edition's: it keeps its own default.
    assert_eq!(load(base).unwrap().checker_time, Duration::from_secs(60));
}

#[test]
fn unknown_keys_and_wrong_types_name_the_line() {
    let e = load("benchmarks = \"b\"\n[limits]\ntime = \"long\"\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("campaign.toml") && e.contains("line 3"), "{e}");
    let e = load("benchmarks = \"b\"\nbogus = 1\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("line 2") && e.contains("bogus"), "{e}");
    let e = load("benchmarks = \"b\"\n[check]\npolicy = \"smtcomp-1999\"\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("expected one of"), "{e}");
}

#[test]
fn invalid_values_are_refused() {
    let e = load("benchmarks = \"b\"\n[limits]\ntime = -1\n").unwrap_err();
    assert!(format!("{e:#}").contains("limits.time"));
    let e = load("benchmarks = \"b\"\n[check]\nminimality_budget = -1\n").unwrap_err();
    assert!(
        format!("{e:#}").contains("check.minimality_budget"),
        "{e:#}"
    );
    let e = load("benchmarks = \"b\"\n[[solver]]\nname = \"a\"\n").unwrap_err();
    assert!(format!("{e:#}").contains("needs a `definition`"));
    let e =
        load("benchmarks = \"b\"\n[[solver]]\nname = \"../x\"\ncommand = [\"x\"]\n").unwrap_err();
    assert!(format!("{e:#}").contains("without '/'"));
}

#[test]
fn incremental_is_off_by_default_and_refused_with_scrambling() {
    assert!(
        !load("benchmarks = \"b\"\n")
            .unwrap()
            .config
            .naming
            .incremental
    );
    let on = load("benchmarks = \"b\"\n[naming]\nincremental = true\n").unwrap();
    assert!(on.config.naming.incremental);
    let e =
        load("benchmarks = \"b\"\n[naming]\nscramble_seed = 3\nincremental = true\n").unwrap_err();
    let e = format!("{e:#}");
    assert!(e.contains("campaign.toml:4: naming.incremental"), "{e}");
    let e = load("benchmarks = \"b\"\n[naming]\nincremental = \"yes\"\n").unwrap_err();
    assert!(e.to_string().contains("line 3"), "{e}");
}

#[test]
fn every_bad_value_is_reported_at_once_in_line_order() {
    let e = load(
        "benchmarks = \"b\"\n[limits]\ntime = -1\noutput_cap_mb = 0\n[score]\nrules = \"smtcomp-1999\"\n",
    )
    .unwrap_err();
    let text = format!("{e:#}");
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("3 problems in "), "{text}");
    let at: Vec<&str> = lines[1..]
        .iter()
        .map(|l| l.split(": ").next().unwrap())
        .collect();
    assert!(
        at[0].ends_with("campaign.toml:3")
            && at[1].ends_with("campaign.toml:4")
            && at[2].ends_with("campaign.toml:6"),
        "{text}"
    );
    assert!(lines[1].contains("limits.time") && lines[3].contains("score.rules"));
}
