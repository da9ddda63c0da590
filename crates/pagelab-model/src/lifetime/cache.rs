//! Locality programs' lifetime curves kept across solves ([`super`]).
//!
//! A curve costs a trace-lab pass over hundreds of thousands of references, and a
//! calibration's search solves the twin at thousands of points that mostly differ in timings
//! the curve never reads (supervisor costs, device times). So [`CURVES`] keeps the last few
//! curves, keyed by everything [`of_locality`] reads:
//!
//! ```text
//!   the class     its program, commands and name; not its users, think time or the length
//!                 of a terminal write, which the pass does not read
//!   the machine   shared pages, stay rules (reference time, slices, drops at writes, CP-67's
//!                 estimate rule but its smoothing and initial estimate), the seed
//! ```
//!
//! The curve is computed from the key itself, so nothing outside it can reach the curve: a
//! field cleared here that the pass did read would change the answer, which the tests compare
//! bit for bit with [`of_locality`] on the presets. Trace programs are not kept (their file
//! may change under the same path). Entries are least recently used first out; the lock is
//! not held while a curve is measured, so parallel solves do not wait on each other.

use super::{of_locality, Lifetime, StayRules};
use pagelab_sys::demands::{ClassDemand, CommandDemand};
use pagelab_sys::load_control::cp67_scheduler::Cp67Spec;
use pagelab_trace::TraceError;
use std::sync::{Mutex, MutexGuard};

/// Curves kept across the process's solves [curves]: a few classes of a few workloads.
const CAPACITY: usize = 16;

/// The process's curves.
pub(super) static CURVES: CurveCache = CurveCache::new(CAPACITY);

/// What a locality program's curve is measured from, and nothing else.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct CurveKey {
    class: ClassDemand,
    shared: u32,
    rules: StayRules,
    seed: u64,
}

impl CurveKey {
    /// The key of `of_locality(class, shared, rules, seed)`: its arguments with the fields
    /// the pass does not read cleared.
    pub(super) fn new(class: &ClassDemand, shared: u32, rules: &StayRules, seed: u64) -> Self {
        let commands = class
            .commands
            .iter()
            .map(|c| CommandDemand {
                console_write_s: 0.0,
                ..c.clone()
            })
            .collect();
        let estimate = rules.estimate.as_ref().map(|e| Cp67Spec {
            smoothing: 0.0,
            initial_ws_pages: 0.0,
            ..e.clone()
        });
        CurveKey {
            class: ClassDemand {
                users: 0,
                think_s: 0.0,
                commands,
                ..class.clone()
            },
            shared,
            rules: StayRules {
                estimate,
                ..rules.clone()
            },
            seed,
        }
    }

    fn measure(&self) -> Result<Lifetime, TraceError> {
        of_locality(&self.class, self.shared, &self.rules, self.seed)
    }
}

/// At most `capacity` curves, the most recently used last.
pub(super) struct CurveCache {
    capacity: usize,
    entries: Mutex<Vec<(CurveKey, Lifetime)>>,
}

impl CurveCache {
    pub(super) const fn new(capacity: usize) -> CurveCache {
        CurveCache {
            capacity,
            entries: Mutex::new(Vec::new()),
        }
    }

    /// `of_locality(class, shared, rules, seed)`, measured once per key while it is kept.
    pub(super) fn of_locality(
        &self,
        class: &ClassDemand,
        shared: u32,
        rules: &StayRules,
        seed: u64,
    ) -> Result<Lifetime, TraceError> {
        let key = CurveKey::new(class, shared, rules, seed);
        if let Some(hit) = self.get(&key) {
            return Ok(hit);
        }
        let curve = key.measure()?;
        self.put(key, curve.clone());
        Ok(curve)
    }

    fn lock(&self) -> MutexGuard<'_, Vec<(CurveKey, Lifetime)>> {
        // The entries stay whole if a holder panicked: each change is one push or remove.
        self.entries.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn get(&self, key: &CurveKey) -> Option<Lifetime> {
        let mut entries = self.lock();
        let i = entries.iter().position(|(k, _)| k == key)?;
        let hit = entries.remove(i);
        let curve = hit.1.clone();
        entries.push(hit);
        Some(curve)
    }

    fn put(&self, key: CurveKey, curve: Lifetime) {
        let mut entries = self.lock();
        // Another solve may have measured the same key meanwhile.
        entries.retain(|(k, _)| *k != key);
        entries.push((key, curve));
        if entries.len() > self.capacity {
            entries.remove(0);
        }
    }

    /// Curves kept [curves].
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.lock().len()
    }
}

#[cfg(test)]
mod tests;
