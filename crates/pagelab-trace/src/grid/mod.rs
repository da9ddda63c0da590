//! Decode once for many: every (policy, size) cell of a sweep over a trace file is fed from one
//! decode of the file.
//!
//! ```text
//!   trace file ──► PrefetchReader (other threads: read, check, decompress, decode chunks)
//!                     │  one chunk of runs, the block every cell reads
//!                     ▼
//!   cells (policy x size) ──► each drives its own policy over the block; rayon spreads the
//!                             cells over the cores, one block at a time
//! ```
//!
//! Memory is bounded by the file's chunk size, not its length: the blocks in flight
//! ([`PrefetchReader::DEPTH`] decoded chunks ahead per decoder thread, plus the ones being read
//! and recycled buffers), each cell's per-page tables, and for MIN the next-use annotation (4 bytes a run,
//! from one backward pass over the chunks before the forward one: the future is the one thing
//! a single forward decode cannot give). [`GridMemory`] reports these figures.
//!
//! Results do not depend on the number of threads: each cell sees the blocks in file order.
//!
//! LRU at several sizes (without a warm-up) is one cell: the one-pass stack of
//! [`crate::curve::lru`] gives faults, pushes and changed resident pages at every size, exactly
//! what one simulation per size gives (LRU is a stack algorithm, Mattson et al. 1970). FIFO and
//! CLOCK at several sizes are one walk each ([`fifo`], [`clock`]).

use crate::curve::LruStack;
use crate::format::{PrefetchReader, TraceReader};
use crate::policy::drive::{check_frames, Driver};
use crate::policy::{min, Counts, Online, Outcome, PolicySpec};
use crate::{ReferenceSource, Run, TraceError};
use clock::ClockSizes;
use fifo::FifoSizes;
use rayon::prelude::*;

mod clock;
mod fifo;
use std::path::Path;

/// What a grid held in memory, by part [bytes].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct GridMemory {
    /// Decoded blocks in flight at most: buffers x the largest block decoded [bytes].
    pub blocks: u64,
    /// MIN's next-use annotation, about 2 bytes a run; 0 without MIN [bytes].
    pub next_use: u64,
    /// Cells fed from each block: one per (policy, size), one per LRU stack or FIFO/CLOCK walk.
    pub cells: u64,
    /// Chunks decoded, once each (twice with MIN: once backwards for next-use).
    pub chunks_decoded: u64,
}

/// Outcomes of every (policy, size), policy-major, and what the decode held.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Grid {
    /// One outcome per (policy, size): all sizes of the first policy, then the next policy.
    pub outcomes: Vec<Outcome>,
    /// Memory held for the shared decode.
    pub memory: GridMemory,
}

#[allow(clippy::large_enum_variant)] // one per cell, built once
enum Cell<'a> {
    Online(Online, Driver),
    Min(min::Min, Driver, min::NextUseCursor<'a>),
    /// LRU at all the sizes of a policy at once: the one-pass stack (exact at every size).
    Lru(Box<LruStack>),
    /// FIFO at up to 64 sizes in one walk.
    Fifo(Box<FifoSizes>),
    /// CLOCK at up to 64 sizes in one walk.
    Clock(Box<ClockSizes>),
}

/// How many sizes one cell of `spec` carries: all of them in an LRU stack, 64 in a FIFO or
/// CLOCK walk, else one (a warm-up needs the per-size driver).
fn sizes_per_cell(spec: &PolicySpec, sizes: &[u32], warmup: u64) -> usize {
    match spec {
        _ if warmup > 0 || sizes.len() < 2 => 1,
        PolicySpec::Lru(_) => sizes.len(),
        PolicySpec::Fifo(_) => FifoSizes::MAX_SIZES,
        PolicySpec::Clock(_) => ClockSizes::MAX_SIZES,
        _ => 1,
    }
}

impl Cell<'_> {
    /// Feeds the next block of runs (`refs` references, if known).
    fn feed(&mut self, block: &[Run], refs: Option<u64>) {
        match self {
            Cell::Online(p, d) => p.drive(block, d, refs),
            Cell::Min(m, d, next) => d.drive_min(m, block, next, refs),
            Cell::Lru(st) => st.push_runs(block),
            Cell::Fifo(f) => f.feed(block),
            Cell::Clock(c) => c.feed(block),
        }
    }

    /// The outcomes at `sizes` (one size, or every size of an LRU stack).
    fn outcomes(self, spec: &PolicySpec, sizes: &[u32], out: &mut Vec<Outcome>) {
        match self {
            Cell::Online(p, d) => out.push(d.outcome(spec, sizes[0], |pg| p.is_resident(pg))),
            Cell::Min(m, d, _) => out.push(d.outcome(spec, sizes[0], |pg| m.is_resident(pg))),
            Cell::Fifo(f) => f.outcomes(spec, out),
            Cell::Clock(c) => c.outcomes(spec, out),
            Cell::Lru(st) => {
                let dirty = st.dirty_resident();
                let curve = st.into_curve();
                for &f in sizes {
                    // More frames than pages change nothing for a stack algorithm.
                    let p = curve.points[(f as usize).min(curve.points.len()) - 1];
                    let dirty = dirty[(f as usize).min(dirty.len() - 1)];
                    let pushes = p.pushes.unwrap_or(0);
                    out.push(outcome(spec, f, p.references, p.faults, pushes, dirty));
                }
            }
        }
    }
}

/// The outcome of one size of a many-size walk: no warm-up, no mean resident set.
fn outcome(
    spec: &PolicySpec,
    frames: u32,
    references: u64,
    faults: u64,
    pushes: u64,
    dirty: u64,
) -> Outcome {
    let measured = Counts {
        references,
        faults,
        pushes,
        resident_sum: 0,
    };
    Outcome {
        policy: spec.clone(),
        frames,
        measured,
        warmup: Counts::default(),
        dirty_resident: dirty,
        fault_rate: measured.fault_rate(),
        mean_resident: None,
    }
}

/// The outcomes of a walk that keeps one bit per size in each page's `resident` and `dirty`
/// masks (FIFO and CLOCK at up to 64 sizes).
fn mask_outcomes(
    spec: &PolicySpec,
    frames: &[u32],
    (references, faults, pushes): (u64, &[u64], &[u64]),
    (resident, dirty): (&[u64], &[u64]),
    out: &mut Vec<Outcome>,
) {
    for (j, &f) in frames.iter().enumerate() {
        let bit = 1u64 << j;
        let dirty_resident = resident
            .iter()
            .zip(dirty)
            .filter(|(r, d)| *r & *d & bit != 0)
            .count();
        out.push(outcome(
            spec,
            f,
            references,
            faults[j],
            pushes[j],
            dirty_resident as u64,
        ));
    }
}

/// Runs every policy of `specs` at every size of `sizes` [frames] over the trace file at
/// `path`, decoding it once; the first `warmup` references are counted apart.
///
/// ```
/// # fn main() -> Result<(), pagelab_trace::TraceError> {
/// use pagelab_trace::format::TraceWriter;
/// use pagelab_trace::grid::simulate_trace_grid;
/// use pagelab_trace::policy::PolicySpec;
/// use pagelab_trace::AccessKind;
/// let dir = tempfile::tempdir().unwrap();
/// let path = dir.path().join("t.pltrace");
/// let pages = [1u64, 2, 3, 4, 1, 2, 5, 1, 2, 3, 4, 5];
/// let mut w = TraceWriter::create(&path, 4096, serde_json::json!({}))?;
/// for &p in &pages {
///     w.push(p, AccessKind::Load)?;
/// }
/// w.finish()?;
/// let specs = [PolicySpec::by_name("fifo")?, PolicySpec::by_name("min")?];
/// let g = simulate_trace_grid(&specs, &path, &[3, 4], 0)?;
/// let faults: Vec<u64> = g.outcomes.iter().map(|o| o.measured.faults).collect();
/// assert_eq!(faults, [9, 10, 7, 6]);
/// # Ok(()) }
/// ```
pub fn simulate_trace_grid(
    specs: &[PolicySpec],
    path: &Path,
    sizes: &[u32],
    warmup: u64,
) -> Result<Grid, TraceError> {
    crate::policy::drive::check_sizes(sizes)?;
    if specs.is_empty() {
        return Err(TraceError::invalid(
            "policies: none given; expected at least one policy",
        ));
    }
    let reader = TraceReader::open(path)?;
    let bound = u32::try_from(reader.distinct_pages()).unwrap_or(u32::MAX);
    let mut memory = GridMemory::default();
    let mut nu = None;
    if specs.iter().any(|s| matches!(s, PolicySpec::Min(_))) {
        let n = min::TraceNextUse::compute_prefetched(path)?;
        memory.next_use = n.bytes();
        memory.chunks_decoded += reader.chunk_count() as u64;
        nu = Some(n);
    }
    for f in sizes {
        check_frames(*f)?;
    }
    let mut cells = build_cells(specs, sizes, warmup, bound, nu.as_ref())?;
    memory.cells = cells.len() as u64;
    let chunks = reader.chunk_count() as u64;
    let mut source = PrefetchReader::new(reader);
    let mut block = Vec::new();
    let mut largest = 0usize;
    loop {
        block.clear();
        if !source.next_batch(&mut block)? {
            break;
        }
        largest = largest.max(block.capacity());
        let refs = source.last_references();
        if let [one] = cells.as_mut_slice() {
            one.feed(&block, refs);
        } else {
            cells.par_iter_mut().for_each(|c| c.feed(&block, refs));
        }
    }
    memory.chunks_decoded += chunks;
    memory.blocks = (source.buffers() * largest * std::mem::size_of::<Run>()) as u64;
    let mut it = cells.into_iter();
    let mut outcomes = Vec::with_capacity(specs.len() * sizes.len());
    for spec in specs {
        for group in sizes.chunks(sizes_per_cell(spec, sizes, warmup)) {
            let cell = it
                .next()
                .expect("one cell per (policy, size), one per LRU stack");
            cell.outcomes(spec, group, &mut outcomes);
        }
    }
    Ok(Grid { outcomes, memory })
}

/// The cells of `specs` at `sizes` over pages `0..bound`; MIN's read `nu`, the trace's
/// next-use (computed when a MIN is among `specs`).
fn build_cells<'a>(
    specs: &[PolicySpec],
    sizes: &[u32],
    warmup: u64,
    bound: u32,
    nu: Option<&'a min::TraceNextUse>,
) -> Result<Vec<Cell<'a>>, TraceError> {
    let mut cells = Vec::with_capacity(specs.len() * sizes.len());
    for spec in specs {
        for group in sizes.chunks(sizes_per_cell(spec, sizes, warmup)) {
            let f = group[0];
            let d = Driver::new(bound, warmup);
            cells.push(match spec {
                PolicySpec::Lru(_) if group.len() > 1 => {
                    Cell::Lru(Box::new(LruStack::new(bound, 0)))
                }
                PolicySpec::Fifo(_) if group.len() > 1 => {
                    Cell::Fifo(Box::new(FifoSizes::new(group, bound)))
                }
                PolicySpec::Clock(c) if group.len() > 1 => {
                    Cell::Clock(Box::new(ClockSizes::new(group, bound, c.bit_on_load)))
                }
                _ => match Online::build(spec, f, bound)? {
                    Some(p) => Cell::Online(p, d),
                    None => {
                        let n = nu.expect("computed for MIN");
                        Cell::Min(min::Min::for_trace(f, n), d, n.cursor())
                    }
                },
            });
        }
    }
    Ok(cells)
}

/// MIN at every size of `sizes` [frames] over the trace file at `path`: one backward pass for
/// next-use, then one forward decode shared by every size, the sizes spread over the cores
/// (see [`simulate_trace_grid`]).
pub fn simulate_min_trace_sizes(
    spec: &PolicySpec,
    path: &std::path::Path,
    sizes: &[u32],
    warmup: u64,
) -> Result<Vec<Outcome>, TraceError> {
    Ok(simulate_trace_grid(std::slice::from_ref(spec), path, sizes, warmup)?.outcomes)
}
