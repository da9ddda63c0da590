//! The VM/370 family (CP-67, VM/370, VM/SP, VM/SP HPO) wired from a [`SystemSpec`]: which
//! load controller, frame supply, residency, paging devices and programs [`System`] is made of.
//!
//! ```text
//!  workload.class ─ deal_users ─► terminals, each with a program (locality model, trace) ──┐
//!  workload.guest ─► guest virtual machines (GuestOs: tasks, PAGEMON) ─────────────────────┤
//!  load_control ─► LoadController (CP-67, VM/370 storage test, Ψ-scheduler) ───────────────┤
//!  memory.residency ─► demand paging, or PageSwap (HPO page swapping) ─────────────────────┤
//!  memory.replacement ─► Supply (core-table scan or a trace-lab policy; room for zswap) ───┤
//!  device, channel, paging ─► PagingIo (geometries, channels, DeviceSelection, ────────────┤
//!                             SlotAllocator, swap areas, exposures)                        ▼
//!                               System::assemble ─► the machine's books, first events ─► run
//! ```
//!
//! The dispatcher, the scheduler's lists, reclaim's targets and the monitor's books are read
//! from the same spec by the machine itself, once, at assembly ([`crate::system`]).

use crate::device::{DeviceSelection, Geometry, PagingIo, SlotAllocator};
use crate::error::SysError;
use crate::guest::GuestOs;
use crate::load_control::LoadController;
use crate::page_swap::PageSwap;
use crate::spec::{ProgramSpec, ResidencyKind, SystemSpec};
use crate::supply::Supply;
use crate::system::{Parts, System};
use crate::workload::{LocalityModel, Program, TraceOpener};
use pagelab_core::RngStreams;

impl<'o> System<'o> {
    /// Builds the machine of `spec` with random streams from `seed`. Trace programs are opened
    /// with `opener`; without one a trace program is an error.
    pub fn build(
        spec: &SystemSpec,
        seed: u64,
        opener: Option<&'o TraceOpener>,
    ) -> Result<System<'o>, SysError> {
        let streams = RngStreams::new(seed);
        let users = deal_users(spec);
        let lc = LoadController::build(&spec.load_control);
        let programs = programs(spec, &users, &streams, opener)?;
        let n_all = programs.len() as u32;
        let parts = Parts {
            users,
            programs,
            lc,
            io: paging_io(spec),
            swap: residency(spec, n_all)?,
            supply: frame_supply(spec, n_all)?,
        };
        Ok(System::assemble(spec, seed, opener, &streams, parts))
    }
}

/// Users per class, in class order: a class with `users` has that many; the rest of the
/// users go to the others by their fractions, by largest remainder (the checks make sure they
/// can: fixed counts within `workload.users`, shared fractions summing above 0).
pub(crate) fn deal_users(spec: &SystemSpec) -> Vec<u32> {
    let classes = &spec.workload.classes;
    let fixed: u32 = classes.iter().filter_map(|c| c.users).sum();
    let n_users = spec.workload.users.saturating_sub(fixed);
    let share = |c: &crate::spec::ClassSpec| match c.users {
        Some(_) => 0.0,
        None => c.fraction.unwrap_or(0.0),
    };
    let total_frac: f64 = classes.iter().map(share).sum();
    let exact = |c| {
        if total_frac > 0.0 {
            share(c) / total_frac * f64::from(n_users)
        } else {
            0.0
        }
    };
    let mut counts: Vec<u32> = classes
        .iter()
        .map(|c| c.users.unwrap_or(exact(c).floor() as u32))
        .collect();
    let mut rem: Vec<(f64, usize)> = classes
        .iter()
        .enumerate()
        .filter(|(_, c)| c.users.is_none())
        .map(|(i, c)| (exact(c) - exact(c).floor(), i))
        .collect();
    rem.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut k = 0;
    while !rem.is_empty() && counts.iter().sum::<u32>() < spec.workload.users {
        counts[rem[k % rem.len()].1] += 1;
        k += 1;
    }
    counts
}

/// Each user's report class and program: the users of each class in class order, then the
/// guest virtual machines, each its own report class after the classes.
fn programs(
    spec: &SystemSpec,
    counts: &[u32],
    streams: &RngStreams,
    opener: Option<&TraceOpener>,
) -> Result<Vec<(u16, Program)>, SysError> {
    let shared = spec.workload.shared_pages;
    let n_all = spec.workload.users + spec.workload.guests.len() as u32;
    let mut programs = Vec::with_capacity(n_all as usize);
    for (ci, (c, &n)) in spec.workload.classes.iter().zip(counts).enumerate() {
        for _ in 0..n {
            let u = programs.len() as u64;
            let program = match &c.program {
                ProgramSpec::Cms(l) | ProgramSpec::Drifting(l) => Program::Locality(Box::new(
                    LocalityModel::new(l, shared, streams.stream("program", u)),
                )),
                ProgramSpec::Trace(t) => {
                    let path = std::path::PathBuf::from(&t.path);
                    let open = opener.ok_or_else(|| SysError::Invalid {
                        origin: "spec".into(),
                        path: format!("workload.class.{ci}.program"),
                        what: "a trace program needs a trace reader: expected run_with_sources"
                            .into(),
                    })?;
                    Program::Source {
                        source: open(&path)?,
                        shift: shared,
                        path: t.repeat.then_some(path),
                    }
                }
            };
            programs.push((ci as u16, program));
        }
    }
    let n_classes = spec.workload.classes.len();
    for (gi, g) in spec.workload.guests.iter().enumerate() {
        let os = GuestOs::new(g, shared, streams, gi as u64);
        programs.push(((n_classes + gi) as u16, Program::Guest(Box::new(os))));
    }
    Ok(programs)
}

/// The paging devices with their channels, selection and slot allocation policies.
fn paging_io(spec: &SystemSpec) -> PagingIo {
    let page_bytes = spec.memory.page_bytes;
    let devs: Vec<(Geometry, usize, Option<[u32; 2]>)> = spec
        .actuators()
        .iter()
        .map(|(_, d)| {
            let ch = spec
                .channels
                .iter()
                .position(|c| c.name == d.channel)
                .unwrap_or(0);
            (
                Geometry::of(d.model, page_bytes.get()),
                ch,
                d.paging_cylinders,
            )
        })
        .collect();
    PagingIo::new(
        &devs,
        spec.channels.len().max(1),
        spec.paging.combine_same_cylinder,
        spec.paging.sio_overhead_ms.ns(),
    )
    .with_policies(
        DeviceSelection::build(spec.paging.device_selection, spec.paging.round_turkey_run),
        SlotAllocator::build(spec.paging.slot_allocation),
    )
    .with_swap_areas(spec.actuators().iter().map(|(_, d)| d.swap_area).collect())
    .with_exposures(
        &spec
            .actuators()
            .iter()
            .map(|(_, d)| d.exposures)
            .collect::<Vec<_>>(),
    )
}

/// The residency seam: demand paging, or HPO page swapping; whole-process swapping is the
/// other engine (unix::run).
fn residency(spec: &SystemSpec, n_all: u32) -> Result<Option<PageSwap>, SysError> {
    Ok(match spec.memory.residency {
        ResidencyKind::DemandPaging => None,
        ResidencyKind::PageSwapping => Some(PageSwap::new(
            spec.swapping.clone(),
            n_all as usize,
            spec.memory.frames.get() as usize,
        )),
        ResidencyKind::WholeProcessSwapping => {
            return Err(SysError::Invalid {
                origin: "spec".into(),
                path: "memory.residency".into(),
                what: "this engine pages: expected a whole-process-swapping spec run by \
                       unix::run"
                    .into(),
            });
        }
    })
}

/// The frame supply named by `memory.replacement`.
fn frame_supply(spec: &SystemSpec, n_all: u32) -> Result<Supply, SysError> {
    // A policy's pages leave room for the compressed pool at its cap (zswap.rs).
    let frames = spec.memory.frames;
    let pool = spec
        .memory
        .zswap
        .as_ref()
        .map_or(0, |z| z.cap_frames(frames.get()));
    Supply::build(
        &spec.memory.replacement,
        frames,
        pagelab_core::Frames(spec.memory.replacement_reserve.get() + pool),
        n_all as usize + 1,
    )
    .map_err(|e| SysError::Invalid {
        origin: "spec".into(),
        path: "memory.replacement".into(),
        what: e.to_string(),
    })
}

#[cfg(test)]
mod deal_tests {
    use super::deal_users;
    use crate::spec::{load_spec, SystemSpec};

    /// Three classes of 40 users: the third either shares by fraction or fixes its count.
    fn spec(third: &str) -> Result<SystemSpec, String> {
        let class = |name: &str, share: &str| {
            format!(
                "[[workload.class]]\nname = \"{name}\"\n{share}\n\
                 think = {{ kind = \"exponential\", mean_s = 5.0 }}\n\
                 commands = [{{ name = \"t\", cpu_ms = 30.0, vio = 2 }}]\n\
                 program = {{ kind = \"cms\", set_pages = 10, address_pages = 14, overlap = 0.85, \
                 locality_pages = 6, runs_per_phase = 20, refs_per_run = 500.0 }}\n"
            )
        };
        let text = format!(
            "[run]\nduration_s = 60.0\nwarmup_s = 10.0\n[cpu]\ncount = 1\nreference_ns = 200.0\n\
             dispatch_slice_ms = 50.0\n[memory]\nframes = 150\npage_bytes = 4096\n\
             [[channel]]\nname = \"c\"\n[[device]]\nname = \"d\"\nmodel = \"2305-2\"\n\
             channel = \"c\"\n[load_control]\nkind = \"vm370\"\nprojection = \"damped\"\n\
             initial_ws_pages = 10.0\nq1_slice_s = 0.25\nq2_slice_s = 2.0\n[workload]\nusers = 40\n{}{}{}",
            class("edit", "fraction = 0.35"),
            class("apl", "fraction = 0.2"),
            class("compute", third),
        );
        load_spec(&text, "t.toml", &[]).map_err(|e| e.to_string())
    }

    #[test]
    fn a_fixed_count_is_kept_and_the_rest_shared_by_fraction() {
        // 0.35 : 0.2 : 0.1 of 40 by largest remainder; then 13 compute users fixed, 27 shared.
        assert_eq!(
            deal_users(&spec("fraction = 0.1").unwrap()),
            vec![22, 12, 6]
        );
        assert_eq!(deal_users(&spec("users = 13").unwrap()), vec![17, 10, 13]);
        // Both given: the count wins; none: the shared classes take every user.
        assert_eq!(
            deal_users(&spec("fraction = 0.5\nusers = 0").unwrap()),
            vec![25, 15, 0]
        );
    }

    #[test]
    fn a_class_without_a_share_or_more_fixed_users_than_users_is_refused() {
        let none = spec("").unwrap_err();
        assert!(
            none.contains("workload.class.2.fraction") && none.contains("users = N"),
            "{none}"
        );
        let over = spec("users = 41").unwrap_err();
        assert!(
            over.contains("fixed users (41) within workload.users (40)"),
            "{over}"
        );
    }
}
