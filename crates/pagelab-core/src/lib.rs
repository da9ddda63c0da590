//! Shared vocabulary of pagelab.
//!
//! Both engines, the replacement lab (`pagelab-trace`) and the timed system model (`pagelab-sys`),
//! speak in these terms: simulated time in integer nanoseconds ([`Tick`]), per-process virtual
//! time counted in references ([`VTime`]), a `(time, seq)`-ordered [`EventQueue`] and the one run
//! loop that drives it ([`kernel::run`]), named random substreams split from one seed
//! ([`RngStreams`]) and running statistics ([`Summary`]).

pub mod event;
pub mod interrupt;
pub mod kernel;
pub mod random;
pub mod stats;
pub mod time;
pub mod units;

pub use event::EventQueue;
pub use interrupt::Interrupted;
pub use kernel::{Engine, Flow};
pub use random::{Rng, RngStreams};
pub use stats::Summary;
pub use time::{Tick, VTime};
pub use units::{Bytes, Frames, Ms, Pages, Secs, Us};
