//! Reference strings and the replacement lab.
//!
//! A program's behaviour reaches pagelab as a stream of [`Run`]s: maximal sequences of
//! consecutive references of one [`AccessKind`] to one page. Pages are numbered densely
//! (0, 1, 2, ... in order of first reference) so that policies index flat arrays; the trace keeps
//! the map back to the program's page numbers.
//!
//! ```text
//!  lackey / pinatrace / text / u64 / oracleGeneral ──► read ──► densify ──► format (pagelab trace)
//!                                                                              │
//!  instrumented kernels (gen) ─────────────────────────────────────────────────┤ ReferenceSource
//!                                                                              ▼
//!                                   policy (one size)   curve (every size in one pass)
//! ```
//!
//! This crate is usable alone; the timed system model (`pagelab-sys`) drives its programs with
//! the same [`ReferenceSource`] trait.

pub mod capture;
pub mod curve;
pub mod error;
pub mod format;
pub mod gen;
pub mod grid;
pub mod linux;
pub mod policy;
pub mod read;
pub mod reference;
pub mod touch;

pub use error::TraceError;
pub use reference::{AccessKind, ReferenceSource, Run, VecSource};
