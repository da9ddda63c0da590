//! An online policy driven by a system that owns the frames (the system simulator's frame
//! supply, `pagelab-sys`'s `supply` module).
//!
//! The system tells the policy each reference run of a resident page and each page it loads
//! (both through [`Driven::reference`]); the policy ranks as it does in the trace lab, and the
//! pages it reclaims when its resident set is full come back through [`Driven::take_reclaimed`]
//! for the system to carry out (write back if changed, free the frame). Change bits and pushes
//! are the system's business, so this driver never sets them.

use super::{Memory, Online, PolicySpec};
use crate::TraceError;

/// An online policy with the victim list the system drains.
#[derive(Clone, Debug)]
pub struct Driven {
    policy: Online,
    mem: Memory,
    bound: u32,
}

impl Driven {
    /// The policy of `spec` keeping at most `frames` pages [frames], for pages `0..page_bound`
    /// (tables grow as higher pages appear). An offline policy (MIN) is an error: a running
    /// system has no future to annotate.
    pub fn new(spec: &PolicySpec, frames: u32, page_bound: u32) -> Result<Driven, TraceError> {
        let policy = Online::build(spec, frames, page_bound)?.ok_or_else(|| {
            TraceError::invalid(format!(
                "policy `{}`: needs the future of the reference string, which a running system does not have",
                spec.name()
            ))
        })?;
        let mut mem = Memory::new(page_bound);
        mem.set_recording(true);
        Ok(Driven {
            policy,
            mem,
            bound: page_bound,
        })
    }

    /// `count` references to `page`, the first at `now` [references]. Returns `true` on a hit
    /// (the policy held the page); on a miss the policy loads it and may reclaim others.
    #[inline]
    pub fn reference(&mut self, page: u32, count: u32, now: u64) -> bool {
        if page >= self.bound {
            self.bound = (page + 1).max(self.bound.saturating_mul(2));
            self.policy.reserve_pages(self.bound);
            self.mem.reserve_pages(self.bound);
        }
        self.policy.reference(page, count, now, &mut self.mem)
    }

    /// True if the policy holds `page`.
    pub fn is_resident(&self, page: u32) -> bool {
        page < self.bound && self.policy.is_resident(page)
    }

    /// `page` left memory without the policy's choice; `false` if the policy cannot forget it
    /// (see [`Replacement::forget`](super::Replacement::forget)).
    pub fn forget(&mut self, page: u32) -> bool {
        page < self.bound && self.policy.forget(page)
    }

    /// Appends the pages reclaimed since the last call to `out`, oldest first.
    pub fn take_reclaimed(&mut self, out: &mut Vec<u32>) {
        out.extend(self.mem.take_reclaimed().into_iter().map(|v| v.page));
    }
}
