//! Integration tests of pagelab-trace: one binary, one module per area.

mod capture;
mod curves;
mod format;
mod fuzz_regressions;
mod gen;
mod policies;
mod psi;
mod read;
mod strict;
