//! Fuzz target `step`: see `harness/trace.rs`.
#![no_main]

#[path = "../harness/trace.rs"]
#[allow(dead_code)]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::step(data));
