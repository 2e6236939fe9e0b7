//! Recursion over terms that nest as deep as their input says: a
//! benchmark's let chain, a checker's model of nested `ite`s, a solver's
//! transcript. Each level of such a recursion goes through [`deep`], which
//! continues on a new stack segment on the heap (the `stacker` crate)
//! when the thread's stack runs low, so that no input overflows a 2 MiB
//! worker thread's stack; a tree of lists is dropped by [`drop_flat`],
//! without recursion.

/// Stack left below which [`deep`] continues on a new segment, and the
/// size of a segment.
const RED_ZONE: usize = 128 << 10;
const SEGMENT: usize = 2 << 20;

/// `f()`, on a new stack segment when the current one has less than
/// [`RED_ZONE`] left.
pub fn deep<R>(f: impl FnOnce() -> R) -> R {
    stacker::maybe_grow(RED_ZONE, SEGMENT, f)
}

/// Empties `items` without recursion: every list below is taken apart
/// onto a heap stack (`children`: a node's own list, if it is one), so
/// that each node dropped holds no list. For a tree's `Drop`.
pub fn drop_flat<T>(items: &mut Vec<T>, children: impl Fn(&mut T) -> Option<&mut Vec<T>>) {
    if items
        .iter_mut()
        .all(|x| children(x).is_none_or(|c| c.is_empty()))
    {
        return;
    }
    let mut pending = std::mem::take(items);
    while let Some(mut x) = pending.pop() {
        if let Some(c) = children(&mut x) {
            pending.append(c);
        }
    }
}

/// `f` on a thread with a 256 KiB stack, for the tests of what walks
/// deep input: it must not overflow it.
#[cfg(test)]
pub fn on_small_stack<R: Send + 'static>(f: impl FnOnce() -> R + Send + 'static) -> R {
    std::thread::Builder::new()
        .stack_size(256 << 10)
        .spawn(f)
        .expect("a thread")
        .join()
        .expect("no stack overflow, no panic")
}

/// `(not ` `n` times around `p`.
#[cfg(test)]
pub fn nested_not(n: usize) -> String {
    format!("{}p{}", "(not ".repeat(n), ")".repeat(n))
}
