//! Scheduling checker jobs with early stop.
//!
//! Jobs are (core, checker) pairs. Workers take jobs breadth first — a core's
//! second checker starts only when every core with work left has one running
//! or done — so that the answers that can settle a core arrive before more
//! jobs are spent on it, while all workers stay busy. Among cores that
//! started as many jobs, one with none running (its answers are in and did
//! not settle it) goes before one still waiting for an answer, where a new
//! job is a speculation that the running one may make useless. After each
//! answer the caller-supplied `settled` test decides whether the core still
//! needs its other checkers; if not, pending jobs are dropped and running
//! ones are cancelled (the runner kills their process groups).

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};

/// One unit of work handed to a worker.
pub struct Job {
    pub core: usize,
    pub checker: usize,
    pub cancel: Arc<AtomicBool>,
}

struct CoreState {
    pending: VecDeque<usize>,
    running: Vec<(usize, Arc<AtomicBool>)>,
    started: usize,
    settled: bool,
}

struct State {
    cores: Vec<CoreState>,
    /// `idle[k]` / `buckets[k]`: cores with pending work that have started
    /// k jobs and have none running / may have some running. Entries go
    /// stale (the core started another job, or got settled) and are
    /// dropped when met.
    idle: Vec<VecDeque<usize>>,
    buckets: Vec<VecDeque<usize>>,
    running: usize,
    stopped: bool,
    skipped: usize,
    killed: usize,
}

impl State {
    /// The first core with pending work in the `idle` (else `buckets`)
    /// queues, fewest started jobs first; stale entries are dropped.
    fn pick(&mut self, idle: bool) -> Option<usize> {
        let State {
            cores,
            idle: iq,
            buckets,
            ..
        } = self;
        let queues = if idle { iq } else { buckets };
        for (k, q) in queues.iter_mut().enumerate() {
            while let Some(core) = q.pop_front() {
                let c = &cores[core];
                if !c.settled
                    && !c.pending.is_empty()
                    && c.started == k
                    && (!idle || c.running.is_empty())
                {
                    return Some(core);
                }
            }
        }
        None
    }
}

/// The shared job queue.
pub struct Scheduler {
    state: Mutex<State>,
    wake: Condvar,
}

impl Scheduler {
    /// `jobs[i]` lists the checkers (indices) core `i` needs, in order.
    pub fn new(jobs: Vec<Vec<usize>>) -> Scheduler {
        let max = jobs.iter().map(Vec::len).max().unwrap_or(0);
        let buckets = vec![VecDeque::new(); max + 1];
        let mut idle = vec![VecDeque::new(); max + 1];
        let cores = jobs
            .into_iter()
            .enumerate()
            .map(|(i, j)| {
                if !j.is_empty() {
                    idle[0].push_back(i);
                }
                CoreState {
                    pending: j.into(),
                    running: Vec::new(),
                    started: 0,
                    settled: false,
                }
            })
            .collect();
        Scheduler {
            state: Mutex::new(State {
                cores,
                idle,
                buckets,
                running: 0,
                stopped: false,
                skipped: 0,
                killed: 0,
            }),
            wake: Condvar::new(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The next job, blocking while jobs are running that may still add
    /// none; `None` when all work is done or the scheduler was stopped.
    pub fn next(&self) -> Option<Job> {
        let mut st = self.lock();
        loop {
            if st.stopped {
                return None;
            }
            let picked = st.pick(true).or_else(|| st.pick(false));
            if let Some(core) = picked {
                let c = &mut st.cores[core];
                let checker = c
                    .pending
                    .pop_front()
                    .expect("picked cores have pending jobs");
                let cancel = Arc::new(AtomicBool::new(false));
                c.running.push((checker, cancel.clone()));
                c.started += 1;
                let (started, more) = (c.started, !c.pending.is_empty());
                if more {
                    let last = st.buckets.len() - 1;
                    st.buckets[started.min(last)].push_back(core);
                }
                st.running += 1;
                return Some(Job {
                    core,
                    checker,
                    cancel,
                });
            }
            if st.running == 0 {
                return None;
            }
            st = self.wake.wait(st).unwrap_or_else(|p| p.into_inner());
        }
    }

    /// Report a finished (or cancelled) job. `settled` is asked, under the
    /// lock, whether its core needs no more answers.
    pub fn finish(&self, job: &Job, settled: &dyn Fn(usize) -> bool) {
        let mut st = self.lock();
        st.running -= 1;
        let now_settled = settled(job.core);
        let c = &mut st.cores[job.core];
        c.running.retain(|(k, _)| *k != job.checker);
        let now_idle = c.running.is_empty() && !c.pending.is_empty() && !now_settled;
        let started = c.started;
        let mut killed = 0;
        let mut skipped = 0;
        if now_settled && !c.settled {
            c.settled = true;
            skipped = c.pending.len();
            c.pending.clear();
            for (_, flag) in &c.running {
                flag.store(true, Ordering::SeqCst);
                killed += 1;
            }
        }
        if now_idle {
            let last = st.idle.len() - 1;
            st.idle[started.min(last)].push_back(job.core);
        }
        st.skipped += skipped;
        st.killed += killed;
        self.wake.notify_all();
    }

    /// Stop handing out jobs and cancel the running ones (Ctrl-C).
    pub fn stop(&self) {
        let mut st = self.lock();
        st.stopped = true;
        for c in &st.cores {
            for (_, flag) in &c.running {
                flag.store(true, Ordering::SeqCst);
            }
        }
        self.wake.notify_all();
    }

    /// True once no job is running and none can start (or after [`stop`](Self::stop)).
    pub fn is_finished(&self) -> bool {
        let st = self.lock();
        st.stopped
            || (st.running == 0 && st.cores.iter().all(|c| c.settled || c.pending.is_empty()))
    }

    /// (jobs skipped before they started, running jobs cancelled) by early stop.
    pub fn early_stop_counts(&self) -> (usize, usize) {
        let st = self.lock();
        (st.skipped, st.killed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn breadth_first_order() {
        let s = Scheduler::new(vec![vec![0, 1, 2], vec![0, 1], vec![2]]);
        let a = s.next().unwrap();
        let b = s.next().unwrap();
        let c = s.next().unwrap();
        assert_eq!(
            [
                (a.core, a.checker),
                (b.core, b.checker),
                (c.core, c.checker)
            ],
            [(0, 0), (1, 0), (2, 2)]
        );
        let d = s.next().unwrap();
        assert_eq!(
            (d.core, d.checker),
            (0, 1),
            "second round starts with the first core"
        );
    }

    #[test]
    fn a_core_whose_answers_are_in_goes_before_speculation() {
        let s = Scheduler::new(vec![vec![0, 1], vec![0, 1]]);
        let a = s.next().unwrap();
        let b = s.next().unwrap();
        assert_eq!([(a.core, a.checker), (b.core, b.checker)], [(0, 0), (1, 0)]);
        s.finish(&b, &|_| false);
        let c = s.next().unwrap();
        assert_eq!(
            (c.core, c.checker),
            (1, 1),
            "core 1 answered and is undecided; core 0 still waits"
        );
        let d = s.next().unwrap();
        assert_eq!(
            (d.core, d.checker),
            (0, 1),
            "then speculation keeps the worker busy"
        );
        s.finish(&a, &|_| false);
        s.finish(&c, &|_| false);
        s.finish(&d, &|_| false);
        assert!(s.next().is_none() && s.is_finished());
    }

    #[test]
    fn settling_skips_pending_and_cancels_running() {
        let s = Scheduler::new(vec![vec![0, 1, 2]]);
        let a = s.next().unwrap();
        let b = s.next().unwrap();
        s.finish(&a, &|_| true);
        assert!(b.cancel.load(Ordering::SeqCst));
        s.finish(&b, &|_| true);
        assert!(s.next().is_none());
        assert_eq!(s.early_stop_counts(), (1, 1));
    }

    #[test]
    fn waits_for_running_jobs_then_ends() {
        let s = Arc::new(Scheduler::new(vec![vec![0]]));
        let a = s.next().unwrap();
        let s2 = s.clone();
        let t = std::thread::spawn(move || s2.next().is_none());
        std::thread::sleep(std::time::Duration::from_millis(50));
        s.finish(&a, &|_| false);
        assert!(t.join().unwrap());
    }

    #[test]
    fn stop_cancels_everything() {
        let s = Scheduler::new(vec![vec![0, 1], vec![0]]);
        let a = s.next().unwrap();
        s.stop();
        assert!(a.cancel.load(Ordering::SeqCst));
        assert!(s.next().is_none());
    }
}
