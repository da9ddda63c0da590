//! Integration tests of pagelab-trace (one binary).

mod curves;
mod policies;
