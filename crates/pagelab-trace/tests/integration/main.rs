//! Integration tests of pagelab-trace.
//!
//! Modules here: `format`, `read`, `capture` (trace files, foreign readers, valgrind capture).

mod capture;
mod format;
mod read;
