//! Trace format tests.
