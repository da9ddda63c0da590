//! Tests of the replacement policies.
