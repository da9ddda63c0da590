//! UNIX Sixth Edition on a PDP-11/45 (Chanson 1982, §2) wired from a [`UnixSpec`]: the maps of
//! core and swap, the RK11 and its drives, the buffer cache, and the machine that runs the
//! swapper, `swtch` and the processes over them ([`crate::unix`]).
//!
//! ```text
//!  memory.core_clicks ─► coremap (ResourceMap, 64-byte clicks) ──────────────┐
//!  swapper.swap_base, swap_blocks ─► swapmap (ResourceMap, 512-byte blocks) ─┤
//!  disk ─► RK11: one FIFO queue, drives × RK05 (the device catalogue's) ─────┤
//!  buffers.count ─► buffer cache (BufCache, bio.c) ──────────────────────────┤
//!                                                                            ▼
//!  Machine::assemble: the shared text's swap copy, system processes, prototypes, first events
//! ```
//!
//! The swapper's thresholds, the CPU scheduler's constants, the clock and the terminals are
//! read from the same spec by the machine as it runs (`unix/machine.rs`, `cpu.rs`, `swapper.rs`).

use crate::device::Geometry;
use crate::error::SysError;
use crate::unix::bufcache::BufCache;
use crate::unix::machine::{Machine, Parts};
use crate::unix::map::ResourceMap;
use crate::unix::UnixSpec;
use pagelab_core::RngStreams;

impl Machine {
    /// Builds the machine of `spec` with random streams from `seed`: processes are created in
    /// table order and placed in core first fit while they fit; the rest start swapped out.
    pub fn build(spec: &UnixSpec, seed: u64) -> Result<Machine, SysError> {
        spec.validate("spec")?;
        let streams = RngStreams::new(seed);
        let parts = Parts {
            core: ResourceMap::new(0, spec.memory.core_clicks),
            swapmap: ResourceMap::new(spec.swapper.swap_base, spec.swapper.swap_blocks),
            disk_geom: Geometry::rk05(&spec.disk.format()),
            disk_rng: streams.stream("v6-disk", 0),
            drives: spec.disk.drives as usize,
            cache: BufCache::new(spec.buffers.count as usize),
            sys_rng: streams.stream("v6-sys", 0),
        };
        Machine::assemble(spec, seed, parts)
    }
}
