//! libFuzzer entry for the `starexec_csv` body in tests/fuzz_bodies/ (see there).
#![no_main]

#[allow(dead_code)]
#[path = "../../tests/fuzz_bodies/mod.rs"]
mod fuzz_bodies;

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_bodies::starexec_csv::check(data));
