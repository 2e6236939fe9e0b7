//! Tests of [`super`]: appends and reads, groups and the write-behind
//! thread, torn and damaged lines, a full disk, atomic writes.

use super::*;
use serde::Deserialize;

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct R {
    k: u32,
}

#[test]
fn append_and_read_back() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("j.jsonl");
    let j = Journal::open(&p).unwrap();
    j.append(&R { k: 1 }).unwrap();
    j.append(&R { k: 2 }).unwrap();
    let (v, rep) = read_all::<R>(&p).unwrap();
    assert_eq!(v, vec![R { k: 1 }, R { k: 2 }]);
    assert!(!rep.torn_tail && rep.bad_lines.is_empty());
}

#[test]
fn mapped_records_come_in_order_with_a_size_hint() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("j.jsonl");
    let j = Journal::open(&p).unwrap();
    let all: Vec<R> = (0..300_000).map(|k| R { k }).collect();
    j.append_all(&all).unwrap();
    let (mut hinted, mut got) = (None, Vec::new());
    for_each_mapped(&p, |n| hinted = Some(n), &|r: R| r.k * 2, |k| got.push(k)).unwrap();
    assert_eq!(got, (0..300_000).map(|k| k * 2).collect::<Vec<_>>());
    // Told once, after the first 4 MiB block: about the whole file.
    let n = hinted.expect("hinted");
    assert!((300_000..=340_000).contains(&n), "{n}");
}

#[test]
fn append_all_is_one_group_of_lines() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("j.jsonl");
    let j = Journal::open(&p).unwrap();
    j.append(&R { k: 1 }).unwrap();
    j.append_all::<R>(&[]).unwrap();
    j.append_all(&[R { k: 2 }, R { k: 3 }]).unwrap();
    let (v, _) = read_all::<R>(&p).unwrap();
    assert_eq!(v, vec![R { k: 1 }, R { k: 2 }, R { k: 3 }]);
}

#[test]
fn write_behind_keeps_every_record_of_many_senders() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("j.jsonl");
    let j = Journal::open(&p).unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let mut groups = 0;
    std::thread::scope(|s| {
        for t in 0..4 {
            let tx = tx.clone();
            s.spawn(move || (0..50).for_each(|i| tx.send(R { k: t * 50 + i }).unwrap()));
        }
        drop(tx);
        j.write_behind(rx, |g| groups += usize::from(!g.is_empty()))
            .unwrap();
    });
    let (mut v, _) = read_all::<R>(&p).unwrap();
    v.sort_by_key(|r| r.k);
    assert_eq!(v, (0..200).map(|k| R { k }).collect::<Vec<_>>());
    assert!((1..=200).contains(&groups));
}

/// Records that come faster than [`SYNC_EVERY`] share fsyncs, and each is
/// in the file as soon as it is sent, before its fsync.
#[test]
fn write_behind_writes_at_once_and_syncs_at_most_every_window() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("j.jsonl");
    let j = Journal::open(&p).unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let mut groups = Vec::new();
    std::thread::scope(|s| {
        let p = &p;
        s.spawn(move || {
            for k in 0..40 {
                tx.send(R { k }).unwrap();
                // In the file long before the window ends.
                let written = |p: &Path| read_all::<R>(p).unwrap().0.len();
                let t = Instant::now();
                while written(p) <= k as usize {
                    assert!(t.elapsed() < SYNC_EVERY * 50, "record {k} not written");
                    std::thread::sleep(Duration::from_micros(200));
                }
            }
        });
        j.write_behind(rx, |g| groups.push(g.len())).unwrap();
    });
    let (v, _) = read_all::<R>(&p).unwrap();
    assert_eq!(v, (0..40).map(|k| R { k }).collect::<Vec<_>>());
    assert_eq!(groups.iter().sum::<usize>(), 40);
    assert!(groups.len() < 40, "one fsync per record: {groups:?}");
}

#[test]
fn torn_tail_is_reported_and_cut_on_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("j.jsonl");
    std::fs::write(&p, "{\"k\":1}\n{\"k\":2}\n{\"k\":").unwrap();
    let (v, rep) = read_all::<R>(&p).unwrap();
    assert_eq!(v.len(), 2);
    assert!(rep.torn_tail);
    assert!(rep.warnings(&p)[0].contains("cut off"));
    let j = Journal::open(&p).unwrap();
    j.append(&R { k: 3 }).unwrap();
    let (v, rep) = read_all::<R>(&p).unwrap();
    assert_eq!(v, vec![R { k: 1 }, R { k: 2 }, R { k: 3 }]);
    assert!(!rep.torn_tail);
}

#[test]
fn torn_single_line_is_cut_to_empty() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("j.jsonl");
    std::fs::write(&p, "{\"k\"").unwrap();
    Journal::open(&p).unwrap();
    assert_eq!(std::fs::read(&p).unwrap(), b"");
}

#[test]
fn bad_middle_line_is_skipped_with_its_number() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("j.jsonl");
    std::fs::write(&p, "{\"k\":1}\ngarbage\n{\"k\":3}\n").unwrap();
    let (v, rep) = read_all::<R>(&p).unwrap();
    assert_eq!(v.len(), 2);
    assert_eq!(rep.bad_lines[0].0, 2);
}

#[test]
fn full_disk_is_named_in_the_error() {
    if !Path::new("/dev/full").exists() {
        return;
    }
    // Every write to /dev/full fails with ENOSPC.
    let mut full = OpenOptions::new().append(true).open("/dev/full").unwrap();
    let e = append_line(&mut full, b"{}\n").unwrap_err();
    assert_eq!(io_cause(&e), " (disk full)");
    // A journal is a regular file, never a device.
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("j.jsonl");
    std::os::unix::fs::symlink("/dev/full", &p).unwrap();
    let e = Journal::open(&p).err().unwrap().to_string();
    assert!(e.contains("not a regular file"), "{e}");
    assert!(read_all::<R>(&p).is_err());
}

#[test]
fn atomic_write_replaces() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("sub/out.txt");
    write_atomic(&p, b"one").unwrap();
    write_atomic(&p, b"two").unwrap();
    let left = p.with_file_name(format!(
        ".{}.x1{TEMP_SUFFIX}",
        p.file_name().unwrap().to_string_lossy()
    ));
    std::fs::write(&left, b"torn").unwrap();
    remove_stale_temps_of(&p);
    assert!(!left.exists(), "a killed writer's temp file is removed");
    std::fs::write(&left, b"torn").unwrap();
    remove_stale_temps(p.parent().unwrap());
    assert!(!left.exists());
    assert_eq!(std::fs::read(&p).unwrap(), b"two");
    let mode =
        std::os::unix::fs::PermissionsExt::mode(&std::fs::metadata(&p).unwrap().permissions());
    assert_eq!(mode & 0o777, 0o644, "readable like any other output");
}
