//! Linux's memory manager for one process in a memory cgroup: the replay of a trace and the
//! counters the kernel would report.

use std::path::Path;

use pagelab_trace::format::PrefetchReader;
use pagelab_trace::format::TraceReader;
use pagelab_trace::linux::{self, GuestClock, Kernel, LinuxParams, TlbParams, ZswapParams};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::{err, to_py};

pyo3::create_exception!(
    _core,
    OomKilled,
    pyo3::exceptions::PyValueError,
    "A Linux replay whose cgroup the kernel would OOM-kill: reclaim freed nothing on every try."
);

/// A replay's error as Python's: [`OomKilled`] for the OOM, else as [`err`] makes it.
fn replay_err(e: pagelab_trace::TraceError) -> PyErr {
    match e {
        pagelab_trace::TraceError::OomKilled { .. } => OomKilled::new_err(e.to_string()),
        e => err(e),
    }
}

/// Replays a trace file (a path) or a page list (page numbers, every reference a write unless
/// `writes` gives a flag per page, `(page, write)` pairs, or `bytes` of touch-list words: each
/// a little-endian u32, the page in its low 31 bits and bit 31 set for a write) in a cgroup
/// whose limit leaves `frames` pages, with the kernel set up as the keywords say; returns the
/// kernel's counters as a dict. `zswap` is a dict of [`ZswapParams`] (`total_ram_pages`,
/// `compressed_bytes`, optional `max_pool_percent`, `accept_threshold_percent`, `zpool`) or
/// None; `clock` a dict of [`GuestClock`]
/// (`per_touch_s`, `per_major_fault_s`, `per_swapout_s`, `phase_s`) or None. With
/// `reclaim_events` or `fault_touches` (`(page, write)` pairs), returns
/// `(counters, events, faults)`: with `reclaim_events` each reclaim step as the kernel's vmscan
/// tracepoints report it, with `fault_touches` each major fault as `(reference index, page)`
/// (empty lists where not asked for). `tlb` is a dict of [`TlbParams`]
/// (`entries`, `victims`, `touches_per_list_page`) or None (every reference sets the accessed
/// bit). `kernel_charges`: before each of these references (indices, ascending) the loop
/// charges one page-table page to the cgroup. `exec_active_pages`: how many of the first new
/// pages the two lists put on the active list (exec's argument page). `stat_read_at`: before
/// this reference the counters' copies are flushed (the replayer's memory.stat read).
/// `report_page_at`: before this reference the replayer's report writes its unmapped shmem
/// page (`linux::report`). `start_kernel_pages`: kernel pages held from the loop's start to
/// the end of reclaim `start_back_at` (`LinuxParams::start_kernel_pages`, `start_back_at`).
/// `rseq`: a dict of [`linux::RseqWrites`] (`page`, `switches_per_s`, `clock`) or None (no
/// kernel writes to the replayer's rseq area). `full_walk_retry`: 6.12's second pass of a reclaim that freed
/// nothing (`LinuxParams::full_walk_retry`). `lookaround_batch`: MGLRU's look-around queues its
/// promotions on the CPU's activate batch (`LinuxParams::lookaround_batch`). `anon_exclusive`:
/// a write-protect fault does not move the `lru_add` batch (`LinuxParams::anon_exclusive`).
/// `fault_stat_updates`: 6.1's count of counter updates takes the faults that charge nothing
/// and the touch list's mapping (`LinuxParams::fault_stat_updates`).
/// An optional dict keyword as a `T`: None when it is missing or None.
fn optional<T: serde::de::DeserializeOwned>(
    value: Option<&Bound<'_, PyAny>>,
    what: &str,
) -> PyResult<Option<T>> {
    match value {
        Some(v) if !v.is_none() => pythonize::depythonize(v)
            .map(Some)
            .map_err(|e| err(format!("{what}: {e}"))),
        _ => Ok(None),
    }
}

#[pyfunction]
#[pyo3(signature = (trace, frames, kernel="6.1", lru_gen=false, page_cluster=0, swappiness=60,
                    zswap=None, writes=None, clock=None, reclaim_events=false, tlb=None,
                    kernel_charges=Vec::new(), exec_active_pages=0,
                    stat_read_at=None, report_page_at=None, start_kernel_pages=0, rseq=None,
                    fault_touches=false, full_walk_retry=false, lookaround_batch=false,
                    anon_exclusive=false, start_back_at=1, fault_stat_updates=false))]
#[allow(clippy::too_many_arguments)]
fn linux_replay(
    py: Python<'_>,
    trace: &Bound<'_, PyAny>,
    frames: u32,
    kernel: &str,
    lru_gen: bool,
    page_cluster: u8,
    swappiness: u32,
    zswap: Option<&Bound<'_, PyAny>>,
    writes: Option<Vec<bool>>,
    clock: Option<&Bound<'_, PyAny>>,
    reclaim_events: bool,
    tlb: Option<&Bound<'_, PyAny>>,
    kernel_charges: Vec<u64>,
    exec_active_pages: u32,
    stat_read_at: Option<u64>,
    report_page_at: Option<u64>,
    start_kernel_pages: u32,
    rseq: Option<&Bound<'_, PyAny>>,
    fault_touches: bool,
    full_walk_retry: bool,
    lookaround_batch: bool,
    anon_exclusive: bool,
    start_back_at: u32,
    fault_stat_updates: bool,
) -> PyResult<PyObject> {
    let zswap: Option<ZswapParams> = optional(zswap, "zswap")?;
    let clock: Option<GuestClock> = optional(clock, "clock")?;
    let tlb: Option<TlbParams> = optional(tlb, "tlb")?;
    let params = LinuxParams {
        kernel: Kernel::parse(kernel).map_err(err)?,
        lru_gen,
        page_cluster,
        swappiness,
        zswap,
        clock,
        tlb,
        kernel_charges,
        exec_active_pages,
        stat_read_at,
        report_page_at,
        start_kernel_pages,
        start_back_at,
        full_walk_retry,
        lookaround_batch,
        anon_exclusive,
        fault_stat_updates,
        rseq: optional(rseq, "rseq")?,
    };
    if reclaim_events || fault_touches {
        let refs: Vec<(u32, bool)> = match trace.downcast::<PyBytes>() {
            Ok(words) => touch_words(words.as_bytes()).map_err(err)?,
            Err(_) => trace.extract().map_err(|_| {
                err("reclaim_events, fault_touches: expected (page, write) pairs or touch words")
            })?,
        };
        let what = linux::Record {
            events: reclaim_events,
            faults: fault_touches,
        };
        let got = py
            .allow_threads(|| linux::replay_recorded(&refs, frames, &params, what))
            .map_err(replay_err)?;
        return to_py(py, &(got.counters, got.events, got.faults));
    }
    let counters = replay_counters(py, trace, writes, frames, &params)?;
    to_py(py, &counters)
}

/// The replay of `trace` (a trace file's path, page numbers with `writes`, or pairs).
fn replay_counters(
    py: Python<'_>,
    trace: &Bound<'_, PyAny>,
    writes: Option<Vec<bool>>,
    frames: u32,
    params: &LinuxParams,
) -> PyResult<linux::LinuxCounters> {
    if let Ok(bytes) = trace.downcast::<PyBytes>() {
        let words = bytes.as_bytes();
        py.allow_threads(|| linux::replay(&touch_words(words)?, frames, params))
    } else if let Ok(path) = trace.extract::<String>() {
        let reader = TraceReader::open(Path::new(&path)).map_err(err)?;
        let mut source = PrefetchReader::new(reader);
        py.allow_threads(|| linux::replay_source(&mut source, frames, params))
    } else if let Ok(pages) = trace.extract::<Vec<u32>>() {
        if writes.as_ref().is_some_and(|w| w.len() != pages.len()) {
            return Err(err(format!(
                "writes: {} flags for {} pages; expected one flag per page",
                writes.as_ref().map_or(0, Vec::len),
                pages.len()
            )));
        }
        let refs: Vec<(u32, bool)> = match &writes {
            Some(w) => pages.into_iter().zip(w.iter().copied()).collect(),
            None => pages.into_iter().map(|p| (p, true)).collect(),
        };
        py.allow_threads(|| linux::replay(&refs, frames, params))
    } else {
        let refs: Vec<(u32, bool)> = trace.extract().map_err(|_| {
            err("trace: expected a trace file's path, a list of page numbers, or (page, write) pairs")
        })?;
        py.allow_threads(|| linux::replay(&refs, frames, params))
    }
    .map_err(replay_err)
}

/// Touch-list words (little-endian u32: the page in the low 31 bits, bit 31 a write) as
/// `(page, write)` pairs.
fn touch_words(bytes: &[u8]) -> Result<Vec<(u32, bool)>, pagelab_trace::TraceError> {
    if !bytes.len().is_multiple_of(4) {
        return Err(pagelab_trace::TraceError::invalid(format!(
            "trace: {} bytes of touch words; expected a multiple of 4",
            bytes.len()
        )));
    }
    Ok(bytes
        .chunks_exact(4)
        .map(|c| {
            let w = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
            (w & 0x7FFF_FFFF, w >> 31 == 1)
        })
        .collect())
}

/// The accessed bit each test of a recorded kernel run reads under a TLB (`tlb`, a dict of
/// [`TlbParams`]): `steps` in the kernel's order, each `(kind, page, faulted, write)` with kind 0
/// a touch of the loop (`faulted`: a not-present fault; `write`: it writes), 1 a test of the
/// bit, 2 an eviction.
#[pyfunction]
fn linux_tlb_bits(
    steps: Vec<(u8, u32, bool, bool)>,
    tlb: &Bound<'_, PyAny>,
) -> PyResult<Vec<bool>> {
    use linux::tlb::Recorded;
    let params: TlbParams = optional(Some(tlb), "tlb")?.unwrap_or(TlbParams::QEMU_TCG);
    let steps = steps
        .into_iter()
        .map(|(kind, page, faulted, write)| match kind {
            0 => Ok(Recorded::Touch {
                page,
                faulted,
                write,
            }),
            1 => Ok(Recorded::Test { page }),
            2 => Ok(Recorded::Evict { page }),
            k => Err(err(format!(
                "steps: kind {k}: expected 0 (touch), 1 (test) or 2 (evict)"
            ))),
        })
        .collect::<PyResult<Vec<_>>>()?;
    linux::tlb::recorded_bits(params, &steps).map_err(err)
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(linux_replay, m)?)?;
    m.add("OomKilled", m.py().get_type::<OomKilled>())?;
    m.add_function(wrap_pyfunction!(linux_tlb_bits, m)?)?;
    Ok(())
}
