//! The coreval process itself, apart from any stage: its allocator's
//! settings, transparent huge pages, stack growth for deep recursion, how
//! many jobs it runs in parallel and the slot-worker pool that runs them,
//! and phase tracing for measuring it.

pub mod allocator;
pub mod deep;
pub mod hugepages;
pub mod jobs;
pub mod pool;
pub mod trace;
