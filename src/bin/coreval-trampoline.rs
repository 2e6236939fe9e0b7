//! `coreval-trampoline`: the process between coreval and each solver run
//! (`runner/trampoline.rs` says what it does and why). It is started once
//! per run, so it is its own small executable: no `main` of the Rust
//! runtime (which would set up a stack guard, reading `/proc/self/maps`),
//! the system allocator, none of coreval's code but the trampoline's.
//! `coreval` finds it in its own directory; without it, coreval starts
//! itself as the trampoline.

#![no_main]

/// The C entry point: the trampoline's work, its exit code.
#[no_mangle]
pub extern "C" fn main(_argc: libc::c_int, _argv: *const *const libc::c_char) -> libc::c_int {
    coreval::runner::trampoline_binary_main()
}
