//! The one slot-worker pool, shared by the solve and the check stage: `jobs`
//! slot threads, each running one program at a time, and one writer thread
//! that journals their records as they come ([`Journal::write_behind`]), so
//! that no worker waits for a write or an fsync. After a failed append (a
//! full disk…) the pool is stopped: no new run should start whose record
//! could not be kept either.
//!
//! Not rayon: a slot is a long-lived thread with an identity (its index
//! names its zygote and its cgroup in [`crate::runner`], and the slot of
//! each run in the reports' timelines), and it spends its time blocked in
//! `wait4` on a child for seconds at a time. rayon's work-stealing pool is
//! for short CPU-bound tasks: a blocked rayon worker is lost to every
//! other parallel iterator of the process (the stages' reading and
//! naming use them), and its tasks have no stable slot.

use crate::store::journal::Journal;
use anyhow::Result;
use indicatif::ProgressBar;
use serde::Serialize;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Sender};

/// What a slot's worker holds: its index, the channel to the writer, the
/// stage's progress bar, and the pool's stop flag.
pub struct Slot<'a, R> {
    pub index: usize,
    tx: Sender<R>,
    pub bar: &'a ProgressBar,
    stopped: &'a AtomicBool,
}

impl<R> Slot<'_, R> {
    /// Hand a record to the writer; false when the writer has stopped on
    /// an error (the record is not kept).
    pub fn send(&self, record: R) -> bool {
        self.tx.send(record).is_ok()
    }

    /// Whether the writer has stopped on an error: start nothing new.
    pub fn stopped(&self) -> bool {
        self.stopped.load(Ordering::SeqCst)
    }
}

/// The pool's settings: how many slots, and what happens around the
/// journal's writes.
pub struct Pool<'a> {
    pub slots: usize,
    pub journal: &'a Journal,
    pub bar: &'a ProgressBar,
}

impl Pool<'_> {
    /// Run `work` on every slot (it loops, taking its next job, until none
    /// is left) while the writer appends what they send. `written` sees
    /// each durable group of records (on the writer's thread); `on_stop`
    /// is called once if the writer stops on an error, so that a scheduler
    /// can stop too. Returns the writer's error, if any, after every slot
    /// has ended.
    pub fn run<R, W, S, F>(&self, written: W, on_stop: S, work: F) -> Result<()>
    where
        R: Serialize + Send,
        W: FnMut(&[R]) + Send,
        S: FnOnce() + Send,
        F: Fn(Slot<'_, R>) + Sync,
    {
        let stopped = AtomicBool::new(false);
        let (tx, rx) = mpsc::channel::<R>();
        std::thread::scope(|scope| {
            let stopped = &stopped;
            let writer = scope.spawn(move || {
                let result = self.journal.write_behind(rx, written);
                if result.is_err() {
                    stopped.store(true, Ordering::SeqCst);
                    on_stop();
                }
                result
            });
            for index in 0..self.slots.max(1) {
                let (tx, work) = (tx.clone(), &work);
                let bar = self.bar;
                scope.spawn(move || {
                    work(Slot {
                        index,
                        tx,
                        bar,
                        stopped,
                    })
                });
            }
            drop(tx);
            writer
                .join()
                .unwrap_or_else(|_| Err(anyhow::anyhow!("the journal writer panicked")))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_slot_works_and_every_record_is_journaled() {
        let dir = tempfile::tempdir().unwrap();
        let journal = Journal::open(&dir.path().join("j.jsonl")).unwrap();
        let bar = ProgressBar::hidden();
        let next = std::sync::atomic::AtomicUsize::new(0);
        let slots = std::sync::Mutex::new(std::collections::BTreeSet::new());
        let seen = std::sync::Mutex::new(0);
        let pool = Pool {
            slots: 3,
            journal: &journal,
            bar: &bar,
        };
        pool.run(
            |group: &[usize]| *seen.lock().unwrap() += group.len(),
            || panic!("the writer did not fail"),
            |slot| {
                while next.fetch_add(1, Ordering::SeqCst) < 50 {
                    slots.lock().unwrap().insert(slot.index);
                    assert!(slot.send(slot.index));
                    std::thread::sleep(std::time::Duration::from_millis(1));
                }
            },
        )
        .unwrap();
        assert_eq!(*seen.lock().unwrap(), 50);
        let text = std::fs::read_to_string(dir.path().join("j.jsonl")).unwrap();
        assert_eq!(text.lines().count(), 50);
        assert_eq!(slots.into_inner().unwrap().len(), 3, "every slot took jobs");
    }
}
