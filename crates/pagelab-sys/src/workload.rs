//! Workload: what users think and what their programs reference.
//!
//! A user's program is the locality model ([`crate::locality`]), a captured trace or a guest
//! operating system.
//!
//! **A captured trace** plugs in through [`pagelab_trace::ReferenceSource`]: the system asks a
//! [`TraceOpener`] to open the file, and the trace's dense page numbers become the user's
//! private pages (after the shared segment).
//!
//! Page numbering seen by the system: `0..shared_pages` are shared; private page `q` is
//! `shared_pages + q`.

pub use crate::locality::LocalityModel;
use crate::spec::ThinkSpec;
use pagelab_core::random::exponential;
use pagelab_core::Rng;
use pagelab_trace::{ReferenceSource, Run, TraceError};
use std::path::Path;

/// Opens a trace file as a reference source (supplied by the caller, so that any trace reader
/// plugs in).
pub type TraceOpener = dyn Fn(&Path) -> Result<Box<dyn ReferenceSource>, TraceError>;

/// A user's program.
pub enum Program {
    /// The locality model.
    Locality(Box<LocalityModel>),
    /// A reference string from elsewhere; its pages are shifted past the shared segment.
    Source {
        /// The source.
        source: Box<dyn ReferenceSource>,
        /// Shared-segment size to add to its page numbers [pages].
        shift: u32,
        /// The file to reopen when `repeat` is set.
        path: Option<std::path::PathBuf>,
    },
    /// A guest operating system: its current task's runs ([`crate::guest`]).
    Guest(Box<crate::guest::GuestOs>),
}

impl Program {
    /// Appends runs to `out`; `Ok(false)` when the string is exhausted.
    pub fn next_batch(
        &mut self,
        out: &mut Vec<Run>,
        opener: Option<&TraceOpener>,
    ) -> Result<bool, TraceError> {
        match self {
            Program::Locality(m) => m.next_batch(out),
            Program::Guest(g) => g.next_batch(out),
            Program::Source {
                source,
                shift,
                path,
            } => {
                let start = out.len();
                let mut more = source.next_batch(out)?;
                if !more {
                    if let (Some(p), Some(open)) = (path.as_ref(), opener) {
                        *source = open(p)?;
                        more = source.next_batch(out)?;
                    }
                }
                for r in &mut out[start..] {
                    r.page += *shift;
                }
                Ok(more)
            }
        }
    }

    /// A transaction begins; `fraction` of the working set is in play (locality models).
    /// True when runs drawn ahead belong to the previous transaction's localities and must be
    /// dropped (a locality model); a trace or a guest continues where it was.
    pub fn on_transaction_start(&mut self, fraction: f64) -> bool {
        if let Program::Locality(m) = self {
            m.on_transaction_start(fraction);
            return true;
        }
        false
    }
}

/// Draws think times.
pub fn think_time(spec: &ThinkSpec, rng: &mut Rng, k: u64) -> f64 {
    match spec {
        ThinkSpec::Exponential { mean_s } => exponential(rng, *mean_s),
        ThinkSpec::Fixed { s } => *s,
        ThinkSpec::Scripted { s } => s[(k % s.len() as u64) as usize],
    }
}
