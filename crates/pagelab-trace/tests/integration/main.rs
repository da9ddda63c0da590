//! The integration-test binary of pagelab-trace: one module per area.

mod gen;
