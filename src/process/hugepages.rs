//! Transparent huge pages: off for coreval, and for its children as they
//! were before.
//!
//! coreval turns them off for its own process (`PR_SET_THP_DISABLE`,
//! [`off_for_self`]): its heap is given back to the system after 10 ms and
//! taken again, and each 2 MiB page taken again is cleared whole; even a
//! short command cleared one for the runtime's first allocation (naming
//! one file peaked at 24–27 MB with them, 15 MB without). The setting
//! belongs to the memory (`mm`), which a child started with `clone(CLONE_VM)` shares until
//! `execve` and whose setting the new program inherits. So each child gets
//! back the setting coreval started with just before it executes
//! ([`restore_in_child`], from the runner's `bind_to_parent`), and the
//! parent takes its own back once the child has executed ([`Spawning`],
//! held around the `clone` by `runner::spawn::vfork_exec`; one spawn at a
//! time does so, other threads run with huge pages allowed for that
//! moment). A trampoline, which starts the solvers, learns the children's
//! setting from [`CHILDREN_VAR`] in its environment ([`take_from_env`]):
//! its own mimalloc turns huge pages off for it (`MIMALLOC_ALLOW_THP=0`,
//! so that what a solver starts from stays small). Programs started
//! otherwise (`std::process::Command`: `chmod`, `bash` for Slurm scripts)
//! keep coreval's setting.

use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::Mutex;

/// The value of `PR_SET_THP_DISABLE` children get before `execve`; −1:
/// leave what they inherit.
static CHILDREN: AtomicI32 = AtomicI32::new(-1);
/// This process's own value, taken back after each spawn when it differs
/// from [`CHILDREN`]; −1: not known (nothing to take back).
static OWN: AtomicI32 = AtomicI32::new(-1);
/// One spawn at a time sets the shared setting for its child.
static SPAWNING: Mutex<()> = Mutex::new(());

/// The variable by which a trampoline learns [`CHILDREN`] (`0` or `1`);
/// it is taken out of the environment, so no solver sees it.
pub const CHILDREN_VAR: &str = "COREVAL_CHILDREN_THP_DISABLE";

/// `PR_GET_THP_DISABLE`: 0, 1, or −1 on error.
fn get() -> i32 {
    // SAFETY: prctl with integer arguments only.
    unsafe { libc::prctl(libc::PR_GET_THP_DISABLE, 0, 0, 0, 0) }
}

/// `PR_SET_THP_DISABLE` to `v`; whether it was set.
fn set(v: i32) -> bool {
    // SAFETY: prctl with integer arguments only.
    unsafe { libc::prctl(libc::PR_SET_THP_DISABLE, v as libc::c_ulong, 0, 0, 0) == 0 }
}

/// [`off_for_self`] unless `MIMALLOC_ALLOW_THP` is set (mimalloc's own
/// variable wins), for a constructor of the `coreval` binary: it runs before
/// the Rust runtime's first allocation, whose 2 MiB page would otherwise be
/// cleared whole (about a millisecond of every command). It allocates
/// nothing and cannot panic.
pub extern "C" fn off_before_main() {
    // SAFETY: getenv with a NUL-terminated name; nothing runs alongside
    // (constructors run before any thread starts).
    if unsafe { libc::getenv(c"MIMALLOC_ALLOW_THP".as_ptr()) }.is_null() {
        off_for_self();
    }
}

/// Huge pages off for this process from now on (new faults); its children
/// get back what it had. Call it before any thread starts.
pub fn off_for_self() {
    if get() != 0 {
        // Off already (or unknown): children inherit it as it is.
        return;
    }
    if set(1) {
        CHILDREN.store(0, Ordering::SeqCst);
        OWN.store(1, Ordering::SeqCst);
    }
}

/// In a trampoline: what its children get back, from [`CHILDREN_VAR`],
/// which leaves the environment. Call it before any thread starts.
pub fn take_from_env() {
    let Some(v) = std::env::var_os(CHILDREN_VAR) else {
        return;
    };
    std::env::remove_var(CHILDREN_VAR);
    let children = match v.to_str() {
        Some("0") => 0,
        Some("1") => 1,
        _ => return,
    };
    CHILDREN.store(children, Ordering::SeqCst);
    OWN.store(get(), Ordering::SeqCst);
}

/// The value of [`CHILDREN_VAR`] for a trampoline this process starts:
/// what its own children get (the setting it has when it changed nothing).
pub fn children_value() -> &'static str {
    let v = match CHILDREN.load(Ordering::SeqCst) {
        -1 => get(),
        v => v,
    };
    if v == 1 {
        "1"
    } else {
        "0"
    }
}

/// Held around a `clone(CLONE_VM)` and the child's `execve`: on drop, this
/// process's own setting, which the child changed for the memory they
/// shared ([`restore_in_child`]), is taken back.
pub struct Spawning {
    one: Option<std::sync::MutexGuard<'static, ()>>,
}

impl Spawning {
    /// Before a spawn: one at a time, when the child's setting differs
    /// from this process's.
    pub fn begin() -> Spawning {
        let (children, own) = (CHILDREN.load(Ordering::SeqCst), OWN.load(Ordering::SeqCst));
        let differ = children >= 0 && own >= 0 && children != own;
        Spawning {
            one: differ.then(|| SPAWNING.lock().unwrap_or_else(|e| e.into_inner())),
        }
    }
}

impl Drop for Spawning {
    fn drop(&mut self) {
        if self.one.is_some() {
            set(OWN.load(Ordering::SeqCst));
        }
    }
}

/// In a child between `clone` and `execve`: the setting coreval started
/// with. Async-signal-safe (an atomic load and a system call); a failure
/// leaves the child as it is.
///
/// # Safety
/// Only in a child between fork (or clone) and exec.
pub unsafe fn restore_in_child() {
    let v = CHILDREN.load(Ordering::Relaxed);
    if v >= 0 {
        set(v);
    }
}
