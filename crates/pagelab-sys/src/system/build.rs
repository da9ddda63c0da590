//! Building the machine from a spec: users dealt to classes, programs, paging devices,
//! residency, the frame supply and the first events.

use super::*;

/// What [`System::build`] makes before it assembles the machine.
struct Parts {
    users: Vec<User>,
    classes: Vec<ClassRt>,
    lc: LoadController,
    io: PagingIo,
    swap: Option<PageSwap>,
    supply: Supply,
}

impl<'o> System<'o> {
    /// Builds the machine of `spec` with random streams from `seed`. Trace programs are opened
    /// with `opener`; without one a trace program is an error.
    pub fn build(
        spec: &SystemSpec,
        seed: u64,
        opener: Option<&'o TraceOpener>,
    ) -> Result<System<'o>, SysError> {
        let streams = RngStreams::new(seed);
        let counts = deal_users(spec);
        let lc = LoadController::build(&spec.load_control);
        let mut classes = class_books(spec, &counts);
        let users = make_users(spec, &counts, &lc, &streams, opener, &mut classes)?;
        let n_all = users.len() as u32;
        let parts = Parts {
            users,
            classes,
            lc,
            io: paging_io(spec),
            swap: residency(spec, n_all)?,
            supply: frame_supply(spec, n_all)?,
        };
        let mut sys = System::assemble(spec, seed, opener, &streams, parts);
        sys.schedule_first_events();
        Ok(sys)
    }

    /// The machine with its books empty and nothing scheduled.
    fn assemble(
        spec: &SystemSpec,
        seed: u64,
        opener: Option<&'o TraceOpener>,
        streams: &RngStreams,
        parts: Parts,
    ) -> System<'o> {
        let n_users = spec.workload.users;
        let n_all = parts.users.len() as u32;
        System {
            spec: spec.clone(),
            seed,
            now: Tick::ZERO,
            end: spec.run.duration_s.tick(),
            warm: spec.run.warmup_s.get() <= 0.0,
            q: EventQueue::new(),
            users: parts.users,
            classes: parts.classes,
            shared_owner: n_all,
            shared_pages: spec.workload.shared_pages,
            mem: Memory::new(spec.memory.frames, n_all as usize + 1),
            dispatch: Dispatcher::build(spec, &parts.lc, n_all, streams),
            sched: Scheduler::build(spec, parts.lc, n_all),
            reclaim: Reclaim::build(spec, parts.supply, n_all),
            paging: Paging::build(spec, parts.io, parts.swap),
            vio: VirtualIo::build(spec, streams),
            monitor: MonitorBooks::build(spec),
            guest: GuestBooks::new(n_users, n_all),
            opener,
            n_events: 0,
            check_every: DEFAULT_CHECK_EVERY,
            check_countdown: DEFAULT_CHECK_EVERY,
        }
    }

    /// The garbage collector's first pass, every user's first think (or session release),
    /// the guests' start, the first sample, the end of the warm-up and of the run.
    fn schedule_first_events(&mut self) {
        let n_users = self.spec.workload.users;
        self.mem.lifo_flush = self.spec.memory.lifo_flush;
        if self.paging.swap.is_some() && self.spec.swapping.garbage_collector {
            let first = Tick::from_secs_f64(self.spec.swapping.gc_period_s);
            self.q.schedule(first, Event::Collect);
        }
        // Every user starts with a think period (staggered by the think law itself), or, in a
        // terminal-driver session, waits for its release (one every `every_s`, young ch. I §4).
        let mut in_class = vec![0u32; self.classes.len()];
        for u in 0..n_users {
            let ci = self.users[u as usize].class as usize;
            let t = if let Some(ss) = self.classes[ci].spec.session.clone() {
                let t = ss.first_s + ss.every_s * f64::from(in_class[ci]);
                in_class[ci] += 1;
                let b = self
                    .guest
                    .bench
                    .get_or_insert_with(BenchmarkReport::default);
                self.guest.sessions.insert(u, b.sessions.len());
                b.sessions.push(SessionRow {
                    user: u,
                    class: self.classes[ci].spec.name.clone(),
                    released_s: t,
                    signed_off_s: None,
                    response_index_s: None,
                });
                t
            } else {
                let cl = &self.classes[ci].spec.think;
                think_time(cl, &mut self.users[u as usize].rng, 0)
            };
            self.q
                .schedule(Tick::from_secs_f64(t), Event::ThinkEnded(u));
        }
        self.start_guests();
        self.monitor.next_sample = self.monitor.interval.min(self.end);
        self.q.schedule(self.monitor.next_sample, Event::Sample);
        if !self.warm {
            let warm = self.spec.run.warmup_s.tick();
            self.q.schedule(warm, Event::WarmupEnded);
        }
        self.q.schedule(self.end, Event::End);
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

/// Each class's report books, empty.
fn class_books(spec: &SystemSpec, counts: &[u32]) -> Vec<ClassRt> {
    spec.workload
        .classes
        .iter()
        .zip(counts)
        .map(|(c, &n)| ClassRt::new(c.clone(), n))
        .collect()
}

/// The users of each class with their programs, then the guest virtual machines (each its own
/// report class, appended to `classes`).
fn make_users(
    spec: &SystemSpec,
    counts: &[u32],
    lc: &LoadController,
    streams: &RngStreams,
    opener: Option<&TraceOpener>,
    classes: &mut Vec<ClassRt>,
) -> Result<Vec<User>, SysError> {
    let shared = spec.workload.shared_pages;
    let n_all = spec.workload.users + spec.workload.guests.len() as u32;
    let mut users = Vec::with_capacity(n_all as usize);
    for (ci, (c, &n)) in spec.workload.classes.iter().zip(counts).enumerate() {
        for _ in 0..n {
            let u = users.len() as u64;
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
            users.push(User::new(ci as u16, program, lc, streams.stream("user", u)));
        }
    }
    // Guest virtual machines follow the users, each its own report class.
    for (gi, g) in spec.workload.guests.iter().enumerate() {
        let os = GuestOs::new(g, shared, streams, gi as u64);
        classes.push(ClassRt::guest(g));
        let u = users.len() as u64;
        users.push(User::new(
            (classes.len() - 1) as u16,
            Program::Guest(Box::new(os)),
            lc,
            streams.stream("user", u),
        ));
    }
    Ok(users)
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
        crate::spec::ResidencyKind::DemandPaging => None,
        crate::spec::ResidencyKind::PageSwapping => Some(PageSwap::new(
            spec.swapping.clone(),
            n_all as usize,
            spec.memory.frames.get() as usize,
        )),
        crate::spec::ResidencyKind::WholeProcessSwapping => {
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
    use crate::spec::load_spec;

    /// Three classes of 40 users: the third either shares by fraction or fixes its count.
    fn spec(third: &str) -> Result<crate::spec::SystemSpec, String> {
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
