//! The machine put together from the components a system's wiring chose
//! ([`crate::systems::vm`]): its books empty, the users' records around their programs, the
//! first events scheduled.

use super::*;

/// The components [`System::build`] chooses from the spec, which [`System::assemble`] puts
/// into the machine.
pub(crate) struct Parts {
    /// Users per class, in class order.
    pub(crate) users: Vec<u32>,
    /// Each user's report class and program: the classes' users in class order, then the
    /// guest virtual machines (class `classes + i` for guest `i`).
    pub(crate) programs: Vec<(u16, Program)>,
    pub(crate) lc: LoadController,
    pub(crate) io: PagingIo,
    pub(crate) swap: Option<PageSwap>,
    pub(crate) supply: Supply,
}

impl<'o> System<'o> {
    /// The machine of `spec` made of `parts`, its books empty and its first events scheduled.
    pub(crate) fn assemble(
        spec: &SystemSpec,
        seed: u64,
        opener: Option<&'o TraceOpener>,
        streams: &RngStreams,
        parts: Parts,
    ) -> System<'o> {
        let n_users = spec.workload.users;
        let n_all = parts.programs.len() as u32;
        let (lc, users) = (parts.lc, parts.programs.into_iter().enumerate());
        let users = users
            .map(|(u, (class, program))| {
                User::new(class, program, &lc, streams.stream("user", u as u64))
            })
            .collect();
        let mut sys = System {
            seed,
            ctx: Ctx::new(
                spec.run.duration_s.tick(),
                spec.run.warmup_s.get() <= 0.0,
                SupCost::of(&spec.cpu.supervisor),
            ),
            users,
            classes: class_books(spec, &parts.users),
            mem: Memory::new(spec.memory.frames, n_all as usize + 1),
            dispatch: Dispatcher::build(spec, &lc, n_all),
            sched: Scheduler::build(spec, lc, n_all, parts.swap.is_some()),
            reclaim: Reclaim::build(spec, parts.supply, n_all),
            faults: Faults::new(n_all, spec.workload.shared_pages),
            paging: Paging::build(spec, parts.io, parts.swap),
            spool: CpSpool::build(
                &spec.vmsp,
                n_all,
                spec.workload.shared_pages,
                streams.stream("spool", 0),
            ),
            vio: VirtualIo::build(spec, streams),
            monitor: MonitorBooks::build(spec),
            guest: GuestBooks::new(spec, n_users, n_all),
            opener,
            n_events: 0,
            check_every: DEFAULT_CHECK_EVERY,
            check_countdown: DEFAULT_CHECK_EVERY,
        };
        sys.mem.lifo_flush = spec.memory.lifo_flush;
        sys.schedule_first_events(spec);
        sys
    }

    /// The garbage collector's first pass, every user's first think (or session release),
    /// the guests' start, the first sample, the end of the warm-up and of the run.
    fn schedule_first_events(&mut self, spec: &SystemSpec) {
        let n_users = spec.workload.users;
        if let Some(first) = self.paging.gc_period {
            self.ctx.q.schedule(first, Event::Collect);
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
            self.ctx
                .q
                .schedule(Tick::from_secs_f64(t), Event::ThinkEnded(u));
        }
        self.guest
            .start(&mut self.ctx, &mut self.mem, &mut self.users);
        self.monitor.next_sample = self.monitor.interval.min(self.ctx.end);
        self.ctx.q.schedule(self.monitor.next_sample, Event::Sample);
        if !self.ctx.warm {
            let warm = spec.run.warmup_s.tick();
            self.ctx.q.schedule(warm, Event::WarmupEnded);
        }
        self.ctx.q.schedule(self.ctx.end, Event::End);
    }
}

/// Each class's report books, empty, then each guest virtual machine's (its own class).
fn class_books(spec: &SystemSpec, counts: &[u32]) -> Vec<ClassRt> {
    let classes = spec.workload.classes.iter().zip(counts);
    let classes = classes.map(|(c, &n)| ClassRt::new(c.clone(), n));
    classes
        .chain(spec.workload.guests.iter().map(ClassRt::guest))
        .collect()
}
