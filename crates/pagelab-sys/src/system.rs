//! The assembled machine and its event loop.
//!
//! ```text
//!  ThinkEnded ─► eligible ─admit─► ready (Q1 FIFO before Q2 FIFO) ─dispatch─► burst on a CPU
//!  burst: the user's reference runs, in a tight loop, until a fault, the end of a CPU segment
//!         (then a VIO, a terminal write or the transaction's end), the in-queue slice, the
//!         dispatch slice, or the next queued event ─► burst end
//!  fault ─► free frame? page-in SIO : wait for a frame;  free list < MPL + 1 ─► SELECT
//!  SELECT ─► flush list, else core-table scan; changed victim ─► page-out to a new slot
//!  Device: Reconnect (channel free? transfer : RPS miss) ─► Complete ─► wake users, free frames
//! ```
//!
//! Time is integer nanoseconds; problem-state time per reference is kept in picoseconds so
//! that a run of references costs `count × reference_ps` exactly (a remainder below one
//! reference carries to the user's next burst). A burst's references are applied when it is
//! dispatched and it never extends past the next queued event; bursts themselves are not queued
//! events (each processor holds the end of its own), so two processors never cut each other's
//! bursts to nothing. The skew between a reference bit being set and the simulated instant of
//! the reference is therefore at most one burst, during which no queued event is due; only a
//! fault ending another processor's shorter burst can fall inside it (see docs/system.md). At
//! equal times a burst end is handled before queued events, lower processor first.
//!
//! With `memory.residency = "page-swapping"` (the VM/SP HPO prototypes, [`crate::page_swap`])
//! queue-drop identifies the working set and trims the rest, queue-add logically swaps in and
//! prepages, a fault on a page of a swap set reads the whole set, and SELECT's order becomes
//! flush list, physical swap-out, core-table scan.
//!
//! Supervisor time (per fault, SIO, interrupt, dispatch, page moved) accumulates as a debt that
//! the next dispatch on any processor pays before running the user; an idle processor pays it
//! at once.

use crate::device::{
    DeviceSelection, DeviceStep, Geometry, IoOp, PageIo, PagingIo, SlotAddr, SlotAllocator,
};
use crate::error::SysError;
use crate::guest::pagemon::Pagemon;
use crate::guest::{BenchmarkReport, GuestOs, ScheduleRow, SessionRow};
use crate::load_control::{
    Candidate, LoadAction, LoadControl, LoadController, LoadView, Projection, Queue, StayStats,
};
use crate::memory::{FrameState, Memory, NONE};
use crate::monitor::{self, ClassRow, Counters, Percentiles, Report, UserRow};
use crate::page_swap::PageSwap;
use crate::psi_scheduler::Evict;
use crate::spec::{ClassSpec, ProgramSpec, ScriptOrder, SystemSpec};
use crate::steal::StealBooks;
use crate::supply::{FrameSupply, Supply};
use crate::survival::SurvivalBooks;
use crate::workload::{think_time, LocalityModel, Program, TraceOpener};
use pagelab_core::random::exponential;
use pagelab_core::{EventQueue, Rng, RngStreams, Tick};
use pagelab_trace::Run;
use rand::Rng as _;
use std::collections::{BTreeMap, VecDeque};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Event {
    ThinkEnded(u32),
    CpuFreed(u32),
    Reconnect(u16),
    IoComplete(u16),
    VioDone(u32),
    ConsoleDone(u32),
    Sample,
    Collect,
    /// A guest task's I/O or timer is over (guest user, task).
    GuestWake(u32, u16),
    /// A guest job stream delivers (guest user, stream).
    GuestArrive(u32, u16),
    /// PAGEMON samples (index into the guests).
    Pagemon(u32),
    WarmupEnded,
    End,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum UState {
    Thinking,
    Eligible,
    Ready,
    Running,
    PageWait,
    FrameWait,
    VioWait,
    ConsoleWait,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Outcome {
    /// The budget was spent.
    Spent,
    /// A reference to a page not valid in storage (system page number).
    Fault(u32),
}

#[derive(Clone, Copy, Debug)]
struct Cpu {
    user: u32,
    busy: bool,
    outcome: Outcome,
    elapsed_ns: u64,
    /// When the burst in progress ends (bursts are kept out of the event queue so that one
    /// processor's burst never cuts another's short).
    burst_end: Tick,
}

/// Interruption at the end of a CPU segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Boundary {
    Vio,
    Console,
}

struct User {
    class: u16,
    state: UState,
    queue: Option<Queue>,
    wants: Queue,
    program: Program,
    runs: Vec<Run>,
    pos: usize,
    left: u32,
    carry_ps: u64,
    cont: bool,
    fault_page: u32,
    // Transaction in progress.
    txn_start: Tick,
    seg_ns: u64,
    seg_left_ns: u64,
    boundaries: Vec<Boundary>,
    next_boundary: usize,
    console_ms: f64,
    went_q2: bool,
    n_txn: u64,
    // In-queue stay.
    stay_cpu_ns: u64,
    minor_left_ns: u64,
    proj: Projection,
    admitted_p: f64,
    stay: StayStats,
    rng: Rng,
    // Totals after warm-up.
    t_txn: u64,
    t_resp: f64,
    t_cpu_ns: u64,
    t_faults: u64,
    t_reads: u64,
    t_vios: u64,
    t_drops: u64,
}

impl User {
    /// The program's next batch of reference runs; an ended program idles at its last page for
    /// the rest of the demand (an exhausted trace without `repeat`).
    fn refill_runs(&mut self, opener: Option<&TraceOpener>) -> Result<(), SysError> {
        self.runs.clear();
        self.pos = 0;
        let more = self.program.next_batch(&mut self.runs, opener)?;
        if !more || self.runs.is_empty() {
            let last = self.runs.last().map(|r| r.page).unwrap_or(0);
            self.runs.push(Run {
                page: last,
                count: u32::MAX,
                kind: pagelab_trace::AccessKind::Load,
            });
        }
        self.left = self.runs[0].count;
        Ok(())
    }

    fn new(class: u16, program: Program, lc: &LoadController, rng: Rng) -> User {
        User {
            class,
            state: UState::Thinking,
            queue: None,
            wants: Queue::Q1,
            program,
            runs: Vec::with_capacity(512),
            pos: 0,
            left: 0,
            carry_ps: 0,
            cont: false,
            fault_page: NONE,
            txn_start: Tick::ZERO,
            seg_ns: 0,
            seg_left_ns: 0,
            boundaries: Vec::new(),
            next_boundary: 0,
            console_ms: 0.0,
            went_q2: false,
            n_txn: 0,
            stay_cpu_ns: 0,
            minor_left_ns: 0,
            proj: lc.initial_projection(),
            admitted_p: 0.0,
            stay: StayStats::default(),
            rng,
            t_txn: 0,
            t_resp: 0.0,
            t_cpu_ns: 0,
            t_faults: 0,
            t_reads: 0,
            t_vios: 0,
            t_drops: 0,
        }
    }
}

struct ClassRt {
    spec: ClassSpec,
    users: u32,
    cum_weight: Vec<f64>,
    resp: Vec<f64>,
    resp_trivial: Vec<f64>,
    resp_nontrivial: Vec<f64>,
    think_sum: f64,
    thinks: u64,
    trivial: u64,
}

impl ClassRt {
    /// A guest virtual machine's report class: one user, no script.
    fn guest(g: &crate::guest::spec::GuestSpec) -> ClassRt {
        ClassRt {
            spec: ClassSpec {
                name: g.name.clone(),
                fraction: 0.0,
                think: crate::spec::ThinkSpec::Fixed { s: 0.0 },
                order: ScriptOrder::Cycle,
                commands: Vec::new(),
                program: ProgramSpec::Cms(crate::spec::LocalitySpec {
                    set_pages: g.nucleus.pages,
                    address_pages: g.nucleus.pages,
                    overlap: 1.0,
                    drift: 0.0,
                    locality_pages: g.nucleus.pages,
                    runs_per_phase: 1,
                    refs_per_run: g.nucleus.refs_per_run,
                    write_fraction: g.nucleus.write_fraction,
                    shared_fraction: 0.0,
                }),
                session: None,
            },
            users: 1,
            cum_weight: Vec::new(),
            resp: Vec::new(),
            resp_trivial: Vec::new(),
            resp_nontrivial: Vec::new(),
            think_sum: 0.0,
            thinks: 0,
            trivial: 0,
        }
    }
}

/// The machine built from a spec, ready to run.
pub struct System<'o> {
    spec: SystemSpec,
    seed: u64,
    now: Tick,
    end: Tick,
    warm: bool,
    q: EventQueue<Event>,
    cpus: Vec<Cpu>,
    users: Vec<User>,
    classes: Vec<ClassRt>,
    shared_owner: u32,
    shared_pages: u32,
    mem: Memory,
    /// Frame supply: which resident frame SELECT frees next.
    supply: Supply,
    /// References reported to the supply [references].
    supply_refs: u64,
    io: PagingIo,
    lc: LoadController,
    e1: VecDeque<u32>,
    e2: VecDeque<u32>,
    ready_q1: VecDeque<u32>,
    ready_q2: VecDeque<u32>,
    /// Users waiting for a frame, with the page (a guest's may be tagged [`PSEUDO`]).
    frame_waiters: VecDeque<(u32, u32)>,
    page_waiters: Vec<(u32, u32)>,
    sumwss: f64,
    n_q1: u32,
    n_q2: u32,
    n_page_wait: u32,
    n_idle_cpus: u32,
    pending_outs: u32,
    sup_debt_ns: u64,
    reference_ps: u64,
    dispatch_ns: u64,
    /// Q1 ready list ordered by CPU used in the stay (`cpu.dispatch_order = "least-cpu"`).
    least_cpu_first: bool,
    cost: SupCost,
    free_extra: u32,
    free_min: u32,
    reset_at_drop: bool,
    flush_at_drop: bool,
    write_unchanged: bool,
    /// Page swapping books (residency `page-swapping`).
    swap: Option<PageSwap>,
    /// VM/SP dispatcher books and the spool writer ([`vmsp_dispatch`], [`cp_spool`]).
    vmsp: vmsp_dispatch::VmspBooks,
    vio_busy: Vec<Tick>,
    vio_ns: f64,
    vio_exp: bool,
    vio_rng: Rng,
    c: Counters,
    last_t: Tick,
    samples: Vec<Counters>,
    warm_sample: Counters,
    interval: Tick,
    opener: Option<&'o TraceOpener>,
    candidates: Vec<Candidate>,
    actions: Vec<LoadAction>,
    done_io: Vec<PageIo>,
    n_events: u64,
    n_runs: u64,
    check_every: u64,
    check_countdown: u64,
    /// Guest virtual machines (user indices), their PAGEMON, the benchmark's report sections.
    guests: Vec<u32>,
    pagemons: Vec<Option<Pagemon>>,
    bench: Option<BenchmarkReport>,
    sessions: BTreeMap<u32, usize>,
    done_at: Option<Tick>,
    /// Bard's eq. 4 books: essential interruptions per user, last-reference marks per frame.
    survival: SurvivalBooks,
    steal: StealBooks,
    /// Admission order per user (the latest admitted has the lowest priority in queue).
    admit_seq: Vec<u64>,
    n_admitted: u64,
    /// When the pending `Sample` is due (an earlier one ended by scan cycles makes it stale).
    next_sample: Tick,
    cycles_at_sample: u64,
}

/// Marks a fault waiter as a guest task's pseudo page fault (the Accelerator): its wait does
/// not block the virtual machine and its completion is the second external interrupt.
const PSEUDO: u32 = 1 << 31;

/// Events between invariant passes by default: 4096 in debug builds, none in release builds.
const DEFAULT_CHECK_EVERY: u64 = if cfg!(debug_assertions) { 4096 } else { 0 };

#[derive(Clone, Copy, Debug)]
struct SupCost {
    fault: u64,
    sio: u64,
    interrupt: u64,
    dispatch: u64,
    page: u64,
}

fn ns_of_us(us: f64) -> u64 {
    (us * 1e3).round() as u64
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
        let n_users = spec.workload.users;
        // Deal users to classes by largest remainder, in class order.
        let total_frac: f64 = spec.workload.classes.iter().map(|c| c.fraction).sum();
        let mut counts: Vec<u32> = spec
            .workload
            .classes
            .iter()
            .map(|c| (c.fraction / total_frac * f64::from(n_users)).floor() as u32)
            .collect();
        let mut rem: Vec<(f64, usize)> = spec
            .workload
            .classes
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let x = c.fraction / total_frac * f64::from(n_users);
                (x - x.floor(), i)
            })
            .collect();
        rem.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        let mut k = 0;
        while counts.iter().sum::<u32>() < n_users {
            counts[rem[k % rem.len()].1] += 1;
            k += 1;
        }
        let classes: Vec<ClassRt> = spec
            .workload
            .classes
            .iter()
            .zip(&counts)
            .map(|(c, &n)| {
                let mut acc = 0.0;
                let cum_weight = c
                    .commands
                    .iter()
                    .map(|cmd| {
                        acc += cmd.weight;
                        acc
                    })
                    .collect();
                ClassRt {
                    spec: c.clone(),
                    users: n,
                    cum_weight,
                    resp: Vec::new(),
                    resp_trivial: Vec::new(),
                    resp_nontrivial: Vec::new(),
                    think_sum: 0.0,
                    thinks: 0,
                    trivial: 0,
                }
            })
            .collect();
        let lc = LoadController::build(&spec.load_control);
        let shared = spec.workload.shared_pages;
        let n_guests = spec.workload.guests.len() as u32;
        let n_all = n_users + n_guests;
        let mut classes = classes;
        let mut users = Vec::with_capacity(n_all as usize);
        for (ci, (c, &n)) in spec.workload.classes.iter().zip(&counts).enumerate() {
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
                users.push(User::new(
                    ci as u16,
                    program,
                    &lc,
                    streams.stream("user", u),
                ));
            }
        }
        // Guest virtual machines follow the users, each its own report class.
        for (gi, g) in spec.workload.guests.iter().enumerate() {
            let os = GuestOs::new(g, shared, &streams, gi as u64);
            classes.push(ClassRt::guest(g));
            let u = users.len() as u64;
            users.push(User::new(
                (classes.len() - 1) as u16,
                Program::Guest(Box::new(os)),
                &lc,
                streams.stream("user", u),
            ));
        }
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
                (Geometry::of(d.model, page_bytes), ch, d.paging_cylinders)
            })
            .collect();
        let io = PagingIo::new(
            &devs,
            spec.channels.len().max(1),
            spec.paging.combine_same_cylinder,
            (spec.paging.sio_overhead_ms * 1e6).round() as u64,
        )
        .with_policies(
            DeviceSelection::build(spec.paging.device_selection, spec.paging.round_turkey_run),
            SlotAllocator::build(spec.paging.slot_allocation),
        )
        .with_swap_areas(spec.actuators().iter().map(|(_, d)| d.swap_area).collect());
        // The residency seam: demand paging, or HPO page swapping; whole-process swapping is
        // the other engine (unix::run).
        let swap = match spec.memory.residency {
            crate::spec::ResidencyKind::DemandPaging => None,
            crate::spec::ResidencyKind::PageSwapping => Some(PageSwap::new(
                spec.swapping.clone(),
                n_all as usize,
                spec.memory.frames as usize,
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
        };
        let s = &spec.cpu.supervisor;
        let n_cpus = spec.cpu.count;
        let mut sys = System {
            spec: spec.clone(),
            seed,
            now: Tick::ZERO,
            end: Tick::from_secs_f64(spec.run.duration_s),
            warm: spec.run.warmup_s <= 0.0,
            q: EventQueue::new(),
            cpus: vec![
                Cpu {
                    user: NONE,
                    busy: false,
                    outcome: Outcome::Spent,
                    elapsed_ns: 0,
                    burst_end: Tick::NEVER
                };
                n_cpus as usize
            ],
            shared_owner: n_all,
            shared_pages: shared,
            mem: Memory::new(spec.memory.frames, n_all as usize + 1),
            supply: Supply::build(
                &spec.memory.replacement,
                spec.memory.frames,
                spec.memory.replacement_reserve,
                n_all as usize + 1,
            )
            .map_err(|e| SysError::Invalid {
                origin: "spec".into(),
                path: "memory.replacement".into(),
                what: e.to_string(),
            })?,
            supply_refs: 0,
            users,
            classes,
            io,
            lc,
            e1: VecDeque::new(),
            e2: VecDeque::new(),
            ready_q1: VecDeque::new(),
            ready_q2: VecDeque::new(),
            frame_waiters: VecDeque::new(),
            page_waiters: Vec::new(),
            sumwss: 0.0,
            n_q1: 0,
            n_q2: 0,
            n_page_wait: 0,
            n_idle_cpus: n_cpus,
            pending_outs: 0,
            sup_debt_ns: 0,
            reference_ps: (spec.cpu.reference_ns * 1e3).round().max(1.0) as u64,
            dispatch_ns: (spec.cpu.dispatch_slice_ms * 1e6).round().max(1.0) as u64,
            least_cpu_first: spec.cpu.dispatch_order == crate::spec::DispatchOrder::LeastCpu,
            cost: SupCost {
                fault: ns_of_us(s.fault_us),
                sio: ns_of_us(s.sio_us),
                interrupt: ns_of_us(s.interrupt_us),
                dispatch: ns_of_us(s.dispatch_us),
                page: ns_of_us(s.page_moved_us),
            },
            free_extra: spec.memory.free_target_extra,
            free_min: spec.memory.free_target_min,
            reset_at_drop: spec.memory.reset_reference_at_drop,
            flush_at_drop: spec.memory.flush_at_drop,
            write_unchanged: spec.paging.write_unchanged,
            swap,
            vmsp: vmsp_dispatch::VmspBooks::new(n_all as usize, streams.stream("spool", 0)),
            vio_busy: vec![Tick::ZERO; spec.vio.devices as usize],
            vio_ns: spec.vio.service_ms * 1e6,
            vio_exp: spec.vio.exponential,
            vio_rng: streams.stream("vio", 0),
            c: Counters::default(),
            last_t: Tick::ZERO,
            samples: Vec::new(),
            warm_sample: Counters::default(),
            interval: Tick::from_secs_f64(spec.monitor.interval_s).max(Tick(1)),
            opener,
            candidates: Vec::new(),
            actions: Vec::new(),
            done_io: Vec::new(),
            n_events: 0,
            n_runs: 0,
            check_every: DEFAULT_CHECK_EVERY,
            check_countdown: DEFAULT_CHECK_EVERY,
            guests: (n_users..n_all).collect(),
            pagemons: Vec::new(),
            bench: None,
            sessions: BTreeMap::new(),
            done_at: None,
            survival: SurvivalBooks::of_kind(n_all, spec.memory.frames, spec.monitor.essential),
            steal: StealBooks::new(spec.memory.frames as usize),
            admit_seq: vec![0; n_all as usize],
            n_admitted: 0,
            next_sample: Tick::ZERO,
            cycles_at_sample: 0,
        };
        sys.mem.lifo_flush = spec.memory.lifo_flush;
        if sys.swap.is_some() && spec.swapping.garbage_collector {
            sys.q.schedule(
                Tick::from_secs_f64(spec.swapping.gc_period_s),
                Event::Collect,
            );
        }
        // Every user starts with a think period (staggered by the think law itself), or, in a
        // terminal-driver session, waits for its release (one every `every_s`, young ch. I §4).
        let mut in_class = vec![0u32; sys.classes.len()];
        for u in 0..n_users {
            let ci = sys.users[u as usize].class as usize;
            let t = if let Some(ss) = sys.classes[ci].spec.session.clone() {
                let t = ss.first_s + ss.every_s * f64::from(in_class[ci]);
                in_class[ci] += 1;
                let b = sys.bench.get_or_insert_with(BenchmarkReport::default);
                sys.sessions.insert(u, b.sessions.len());
                b.sessions.push(SessionRow {
                    user: u,
                    class: sys.classes[ci].spec.name.clone(),
                    released_s: t,
                    signed_off_s: None,
                    response_index_s: None,
                });
                t
            } else {
                let cl = &sys.classes[ci].spec.think;
                think_time(cl, &mut sys.users[u as usize].rng, 0)
            };
            sys.q.schedule(Tick::from_secs_f64(t), Event::ThinkEnded(u));
        }
        sys.start_guests();
        sys.next_sample = sys.interval.min(sys.end);
        sys.q.schedule(sys.next_sample, Event::Sample);
        if !sys.warm {
            sys.q
                .schedule(Tick::from_secs_f64(spec.run.warmup_s), Event::WarmupEnded);
        }
        sys.q.schedule(sys.end, Event::End);
        Ok(sys)
    }

    /// Runs the invariant pass ([`System::check_invariants`]) every `n` events, in any build
    /// (1: after every event; 0: never). Default: every 4096 events in debug builds, never in
    /// release builds.
    pub fn set_check_every(&mut self, n: u64) {
        self.check_every = n;
        self.check_countdown = n;
    }

    /// Runs to the end and returns the report; `progress` gets the fraction done.
    pub fn run(self, progress: &mut dyn FnMut(f64)) -> Result<Report, SysError> {
        pagelab_core::kernel::run(kernel_impl::VmRun::new(self), progress)
    }

    /// Ends a monitor interval: records the counters and gives load control its feedback.
    fn take_sample(&mut self) {
        let snap = self.snapshot();
        let prev = self.samples.last().copied().unwrap_or_default();
        self.samples.push(snap);
        self.cycles_at_sample = self.mem.n_cycles;
        self.next_sample = self.now + self.interval;
        if self.next_sample < self.end {
            self.q.schedule(self.next_sample, Event::Sample);
        }
        let d = snap.since(&prev);
        let mpl = self.n_q1 + self.n_q2;
        let evict = self
            .lc
            .on_interval(&d, mpl, self.sumwss, self.spec.memory.frames);
        self.deactivate(evict);
        self.admit();
    }

    /// bard §5: an interval also ends after `monitor.cycles` core-table scan cycles.
    fn sample_on_cycles(&mut self) {
        if let Some(k) = self.spec.monitor.cycles {
            if self.mem.n_cycles >= self.cycles_at_sample + k && self.now < self.end {
                self.take_sample();
            }
        }
    }

    /// Takes in-queue users out at once, lowest priority first (Q2 before Q1, the latest
    /// admitted first), until `e` is met. Only users waiting for a processor are taken; one
    /// waiting for a page or an I/O leaves at its own queue-drop (bard §10 is silent [A]).
    fn deactivate(&mut self, e: Evict) {
        if e.at_least == 0 && self.sumwss <= e.until_sumwss {
            return;
        }
        let mut ready: Vec<u32> = self
            .ready_q1
            .iter()
            .chain(self.ready_q2.iter())
            .copied()
            .collect();
        ready.sort_by_key(|&u| {
            (
                self.users[u as usize].queue == Some(Queue::Q1),
                std::cmp::Reverse(self.admit_seq[u as usize]),
            )
        });
        let mut n = 0;
        for u in ready {
            if (n >= e.at_least && self.sumwss <= e.until_sumwss) || self.n_q1 + self.n_q2 <= 1 {
                break;
            }
            let Some(q) = self.users[u as usize].queue else {
                continue;
            };
            self.ready_q1.retain(|&x| x != u);
            self.ready_q2.retain(|&x| x != u);
            self.users[u as usize].cont = false;
            self.queue_drop(u, false);
            self.c.deactivations += 1.0;
            self.users[u as usize].wants = q;
            self.set_state(u, UState::Eligible);
            match q {
                Queue::Q1 => self.e1.push_back(u),
                Queue::Q2 => self.e2.push_back(u),
            }
            n += 1;
        }
    }

    fn next_burst_end(&self) -> (u32, Tick) {
        let mut best = (0, Tick::NEVER);
        for (i, c) in self.cpus.iter().enumerate() {
            if c.user != NONE && c.burst_end < best.1 {
                best = (i as u32, c.burst_end);
            }
        }
        best
    }

    fn next_time(&self) -> Tick {
        self.next_burst_end()
            .1
            .min(self.q.peek_time().unwrap_or(Tick::NEVER))
    }

    fn advance(&mut self, t: Tick) {
        if t <= self.last_t {
            self.now = self.now.max(t);
            return;
        }
        let dt = (t - self.last_t).as_secs_f64();
        let c = &mut self.c;
        c.time_s += dt;
        let mpl = f64::from(self.n_q1 + self.n_q2);
        c.mpl_user_s += mpl * dt;
        c.q1_user_s += f64::from(self.n_q1) * dt;
        c.q2_user_s += f64::from(self.n_q2) * dt;
        c.eligible_user_s += (self.e1.len() + self.e2.len()) as f64 * dt;
        c.page_wait_user_s += f64::from(self.n_page_wait) * dt;
        if self.n_page_wait > 0 {
            c.page_wait_cpu_s += f64::from(self.n_idle_cpus) * dt;
        }
        for &g in &self.guests {
            let usr = &mut self.users[g as usize];
            let blocked = matches!(usr.state, UState::PageWait | UState::FrameWait);
            let waiting = usr.state == UState::VioWait;
            if let Program::Guest(os) = &mut usr.program {
                os.accumulate(dt, t, blocked, waiting);
            }
        }
        self.last_t = t;
        self.now = t;
    }

    fn snapshot(&self) -> Counters {
        let mut c = self.c;
        c.scan_cycles = self.mem.n_cycles as f64;
        c.frames_scanned = self.mem.n_scanned as f64;
        let mut sios = 0;
        let mut miss = 0;
        let mut resp = 0;
        for d in &self.io.counters {
            sios += d.n_sios;
            miss += d.n_rps_misses;
            resp += d.page_response_ns;
        }
        c.paging_sios = sios as f64;
        c.rps_misses = miss as f64;
        c.page_io_sum_s = resp as f64 / 1e9;
        c
    }

    fn set_state(&mut self, u: u32, s: UState) {
        let old = self.users[u as usize].state;
        let waits = |s: UState| matches!(s, UState::PageWait | UState::FrameWait);
        let essential = waits(s)
            || s == UState::VioWait
            || (self.survival.kind == crate::survival::Essential::Unrunnable
                && matches!(s, UState::ConsoleWait | UState::Thinking));
        if old == UState::Running && essential {
            self.survival.interrupted(u);
        }
        if waits(old) && !waits(s) {
            self.n_page_wait -= 1;
        } else if !waits(old) && waits(s) {
            self.n_page_wait += 1;
        }
        self.users[u as usize].state = s;
        if s == UState::Eligible && old != UState::Eligible {
            self.vmsp_eligible(u);
        }
    }

    fn make_ready(&mut self, u: u32, front: bool) {
        self.set_state(u, UState::Ready);
        let q1 = self.users[u as usize].queue == Some(Queue::Q1);
        if q1 && self.least_cpu_first {
            // FN §2.4 (VM/370 Logic p.143): infrequent CPU users first; read as least CPU
            // used in the current stay first, ties in arrival order.
            let key = self.users[u as usize].stay_cpu_ns;
            let users = &self.users;
            let at = self
                .ready_q1
                .iter()
                .position(|&v| users[v as usize].stay_cpu_ns > key)
                .unwrap_or(self.ready_q1.len());
            self.ready_q1.insert(at, u);
            return;
        }
        let q = if q1 {
            &mut self.ready_q1
        } else {
            &mut self.ready_q2
        };
        if front {
            q.push_front(u);
        } else {
            q.push_back(u);
        }
    }

    fn handle_think_ended(&mut self, u: u32) {
        let now = self.now;
        let usr = &mut self.users[u as usize];
        let cl = &mut self.classes[usr.class as usize];
        let cmd_i = match cl.spec.order {
            ScriptOrder::Cycle => (usr.n_txn % cl.spec.commands.len() as u64) as usize,
            ScriptOrder::Random => {
                let total = *cl.cum_weight.last().unwrap_or(&1.0);
                let x = usr.rng.gen::<f64>() * total;
                cl.cum_weight
                    .iter()
                    .position(|&w| x < w)
                    .unwrap_or(cl.cum_weight.len() - 1)
            }
        };
        let cmd = &cl.spec.commands[cmd_i];
        let demand_ms = if cmd.exponential {
            exponential(&mut usr.rng, cmd.cpu_ms)
        } else {
            cmd.cpu_ms
        };
        let demand_ns = ((demand_ms * 1e6).round() as u64).max(1);
        let (v, w) = (cmd.vio as usize, cmd.console_writes as usize);
        usr.boundaries.clear();
        // Spread terminal writes evenly among the VIOs (Bresenham).
        for k in 0..(v + w) {
            let console = (k + 1) * w / (v + w) > k * w / (v + w);
            usr.boundaries.push(if console {
                Boundary::Console
            } else {
                Boundary::Vio
            });
        }
        usr.next_boundary = 0;
        usr.seg_ns = (demand_ns / (v + w + 1) as u64).max(1);
        usr.seg_left_ns = usr.seg_ns;
        usr.console_ms = cmd.console_write_ms;
        usr.went_q2 = false;
        usr.txn_start = now;
        usr.program.on_transaction_start(cmd.set_fraction);
        usr.wants = Queue::Q1;
        self.set_state(u, UState::Eligible);
        self.vmsp_transaction_started(u);
        self.write_spool_pages();
        self.e1.push_back(u);
        self.admit();
    }

    fn admit(&mut self) {
        self.candidates.clear();
        let lc = &self.lc;
        let proj =
            |u: &u32| lc.projected(&self.users[*u as usize].proj, self.users[*u as usize].wants);
        // The prototype's fixed Q2 limit: Q2 candidates beyond it are not offered.
        let mut q2_room = match (&self.swap, self.spec.swapping.q2_mpl_limit) {
            (Some(_), Some(lim)) => lim.saturating_sub(self.n_q2),
            _ => u32::MAX,
        };
        for u in self.eligible_order() {
            let queue = self.users[u as usize].wants;
            if queue == Queue::Q2 {
                if q2_room == 0 {
                    continue;
                }
                q2_room -= 1;
            }
            self.candidates.push(Candidate {
                user: u,
                queue,
                projected: proj(&u),
            });
            // The controller stops at the first misfit; a bounded look-ahead is enough.
            if self.candidates.len() >= 64 {
                break;
            }
        }
        if self.candidates.is_empty() {
            return;
        }
        self.actions.clear();
        let view = LoadView {
            apages: self.spec.memory.frames,
            sumwss: self.sumwss,
            in_queue: self.n_q1 + self.n_q2,
            eligible: &self.candidates,
        };
        self.lc.admit(&view, &mut self.actions);
        let actions = std::mem::take(&mut self.actions);
        for a in &actions {
            let LoadAction::Admit { user, queue } = *a;
            let projected = self
                .candidates
                .iter()
                .find(|c| c.user == user)
                .map_or(self.users[user as usize].proj.p, |c| c.projected);
            self.n_admitted += 1;
            self.admit_seq[user as usize] = self.n_admitted;
            if let Some(i) = self.e1.iter().position(|&x| x == user) {
                self.e1.remove(i);
            } else if let Some(i) = self.e2.iter().position(|&x| x == user) {
                self.e2.remove(i);
            }
            let usr = &mut self.users[user as usize];
            usr.queue = Some(queue);
            usr.admitted_p = projected;
            usr.stay = StayStats {
                queue: Some(queue),
                ..StayStats::default()
            };
            usr.stay_cpu_ns = 0;
            usr.minor_left_ns = self.dispatch_ns;
            self.sumwss += usr.admitted_p;
            match queue {
                Queue::Q1 => self.n_q1 += 1,
                Queue::Q2 => self.n_q2 += 1,
            }
            self.vmsp_admitted(user, queue);
            self.make_ready(user, false);
            if self.swap.is_some() {
                self.swap_queue_add(user, queue);
            }
        }
        self.actions = actions;
    }

    /// Takes `u` out of the multiprogramming set. `false_drop` marks a terminal write.
    fn queue_drop(&mut self, u: u32, false_drop: bool) {
        let usr = &mut self.users[u as usize];
        let Some(q) = usr.queue.take() else { return };
        usr.stay.resident_now = self.mem.resident[u as usize];
        usr.stay.cpu_ns = usr.stay_cpu_ns;
        let stay = usr.stay;
        self.lc.on_queue_drop(&mut usr.proj, &stay);
        if let Some(b) = self.bench.as_mut() {
            b.schedule.push(ScheduleRow {
                t_s: self.now.as_secs_f64(),
                user: u,
                queue: q,
                cpu_s: usr.stay_cpu_ns as f64 / 1e9,
                resident: stay.resident_now,
                page_reads: stay.page_reads,
                projected_ws: usr.proj.p,
            });
        }
        self.sumwss -= usr.admitted_p;
        if self.n_q1 + self.n_q2 == 1 {
            self.sumwss = 0.0; // no drift from float sums
        }
        if self.warm {
            usr.t_drops += 1;
        }
        match q {
            Queue::Q1 => {
                self.n_q1 -= 1;
                self.c.q1_drops += 1.0;
                self.c.q1_stay_page_reads += stay.page_reads as f64;
            }
            Queue::Q2 => {
                self.n_q2 -= 1;
                self.c.q2_drops += 1.0;
            }
        }
        if false_drop {
            self.c.false_drops += 1.0;
        }
        if self.swap.is_some() {
            self.swap_queue_drop(u, q);
        } else if self.flush_at_drop || self.reset_at_drop {
            let len = self.mem.tables[u as usize].len();
            for i in 0..len {
                let f = self.mem.tables[u as usize][i].frame;
                if f == NONE || self.mem.frames[f as usize].state != FrameState::Resident {
                    continue;
                }
                if self.flush_at_drop {
                    self.mem.push_flush(f);
                } else {
                    self.mem.frames[f as usize].referenced = false;
                }
            }
        }
    }

    fn dispatch(&mut self) -> Result<(), SysError> {
        for ci in 0..self.cpus.len() {
            if self.cpus[ci].busy {
                continue;
            }
            loop {
                let Some(u) = self
                    .ready_q1
                    .pop_front()
                    .or_else(|| self.ready_q2.pop_front())
                else {
                    if self.sup_debt_ns > 0 {
                        let d = std::mem::take(&mut self.sup_debt_ns);
                        self.c.cpu_supervisor_s += d as f64 / 1e9;
                        self.cpus[ci].busy = true;
                        self.n_idle_cpus -= 1;
                        self.q
                            .schedule(self.now + Tick(d), Event::CpuFreed(ci as u32));
                    }
                    break;
                };
                // In-queue slice already spent (a fault landed on its last nanosecond).
                let slice = self.stay_slice_ns(u);
                if self.users[u as usize].stay_cpu_ns >= slice {
                    self.slice_expired(u);
                    continue;
                }
                if !self.guest_dispatch(u) {
                    continue;
                }
                self.run_burst(ci, u, slice)?;
                break;
            }
        }
        Ok(())
    }

    fn run_burst(&mut self, ci: usize, u: u32, slice: u64) -> Result<(), SysError> {
        // A burst cut short by an event continues without a new dispatch.
        let dispatch_cost = if std::mem::take(&mut self.users[u as usize].cont) {
            0
        } else {
            self.c.dispatches += 1.0;
            self.cost.dispatch
        };
        let sup = dispatch_cost + std::mem::take(&mut self.sup_debt_ns);
        self.c.cpu_supervisor_s += sup as f64 / 1e9;
        let start = self.now.as_ns() + sup;
        let next_ev = self.q.peek_time().unwrap_or(self.end).as_ns();
        let usr = &mut self.users[u as usize];
        if usr.minor_left_ns == 0 {
            usr.minor_left_ns = self.dispatch_ns;
        }
        let budget_ns = usr
            .seg_left_ns
            .min(usr.minor_left_ns)
            .min(slice - usr.stay_cpu_ns)
            .min(next_ev.saturating_sub(start));
        let avail_ps = budget_ns * 1000 + usr.carry_ps;
        let rps = self.reference_ps;
        let shared = self.shared_pages;
        let so = self.shared_owner;
        let ess = self.survival.essential[u as usize];
        let mut used_ps = 0u64;
        let mut outcome = Outcome::Spent;
        let mut runs_done = 0u64;
        let supply = &mut self.supply;
        let tell_supply = supply.wants_references();
        'burst: loop {
            if usr.pos >= usr.runs.len() {
                usr.refill_runs(self.opener)?;
            }
            let r = usr.runs[usr.pos];
            let (owner, page) = if r.page < shared {
                (so, r.page)
            } else {
                (u, r.page)
            };
            let f = match self.mem.tables[owner as usize].get(page as usize) {
                Some(p) => p.frame,
                None => NONE,
            };
            if f == NONE || self.mem.frames[f as usize].state != FrameState::Resident {
                outcome = Outcome::Fault(r.page);
                break 'burst;
            }
            if tell_supply && usr.left == r.count {
                supply.on_reference(owner, page, r.count, self.supply_refs);
                self.supply_refs += u64::from(r.count);
            }
            let fr = &mut self.mem.frames[f as usize];
            fr.referenced = true;
            self.survival.marks[f as usize] = crate::survival::Mark { user: u, at: ess };
            if r.kind.is_write() {
                fr.changed = true;
            }
            let cost = u64::from(usr.left) * rps;
            if used_ps + cost <= avail_ps {
                used_ps += cost;
                usr.pos += 1;
                runs_done += 1;
                if usr.pos < usr.runs.len() {
                    usr.left = usr.runs[usr.pos].count;
                }
            } else {
                let n = (avail_ps - used_ps) / rps;
                usr.left -= n as u32;
                used_ps += n * rps;
                break 'burst;
            }
        }
        let elapsed = match outcome {
            Outcome::Spent => {
                usr.carry_ps = avail_ps - used_ps;
                budget_ns
            }
            Outcome::Fault(_) => {
                usr.carry_ps = 0;
                used_ps.div_ceil(1000).min(budget_ns)
            }
        };
        self.n_runs += runs_done;
        self.c.cpu_problem_s += elapsed as f64 / 1e9;
        usr.state = UState::Running;
        self.cpus[ci] = Cpu {
            user: u,
            busy: true,
            outcome,
            elapsed_ns: elapsed,
            burst_end: Tick(start + elapsed),
        };
        self.n_idle_cpus -= 1;
        Ok(())
    }

    fn handle_burst_ended(&mut self, ci: u32) -> Result<(), SysError> {
        let cpu = self.cpus[ci as usize];
        self.cpus[ci as usize].busy = false;
        self.cpus[ci as usize].user = NONE;
        self.cpus[ci as usize].burst_end = Tick::NEVER;
        self.n_idle_cpus += 1;
        let u = cpu.user;
        let e = cpu.elapsed_ns;
        let warm = self.warm;
        let usr = &mut self.users[u as usize];
        usr.seg_left_ns -= e.min(usr.seg_left_ns);
        usr.minor_left_ns -= e.min(usr.minor_left_ns);
        usr.stay_cpu_ns += e;
        if warm {
            usr.t_cpu_ns += e;
        }
        if let Program::Guest(os) = &mut usr.program {
            os.ran(e, usr.seg_left_ns);
        }
        if let Outcome::Fault(page) = cpu.outcome {
            return self.handle_fault(u, page);
        }
        let slice = self.stay_slice_ns(u);
        let usr = &mut self.users[u as usize];
        if usr.seg_left_ns == 0 {
            self.segment_ended(u);
        } else if usr.stay_cpu_ns >= slice {
            self.slice_expired(u);
        } else if usr.minor_left_ns == 0 {
            usr.minor_left_ns = self.dispatch_ns;
            self.make_ready(u, false);
        } else {
            usr.cont = true;
            self.make_ready(u, true);
        }
        Ok(())
    }

    fn slice_expired(&mut self, u: u32) {
        self.queue_drop(u, false);
        let usr = &mut self.users[u as usize];
        usr.went_q2 = true;
        usr.wants = Queue::Q2;
        self.set_state(u, UState::Eligible);
        self.e2.push_back(u);
        self.admit();
    }

    fn segment_ended(&mut self, u: u32) {
        if matches!(self.users[u as usize].program, Program::Guest(_)) {
            return self.guest_segment_ended(u);
        }
        let usr = &mut self.users[u as usize];
        if usr.next_boundary < usr.boundaries.len() {
            let b = usr.boundaries[usr.next_boundary];
            usr.next_boundary += 1;
            usr.seg_left_ns = usr.seg_ns;
            match b {
                Boundary::Vio => {
                    let d = u as usize % self.vio_busy.len();
                    let svc = if self.vio_exp {
                        exponential(&mut self.vio_rng, self.vio_ns)
                    } else {
                        self.vio_ns
                    };
                    let start = self.vio_busy[d].max(self.now);
                    let done = start + Tick(svc.round() as u64);
                    self.vio_busy[d] = done;
                    self.c.vios += 1.0;
                    if self.warm {
                        usr.t_vios += 1;
                    }
                    self.sup_debt_ns += self.cost.sio;
                    self.set_state(u, UState::VioWait);
                    self.q.schedule(done, Event::VioDone(u));
                }
                Boundary::Console => {
                    let done = self.now + Tick::from_secs_f64(usr.console_ms / 1e3);
                    if !self.lc.eliminates_false_drops() {
                        self.queue_drop(u, true);
                        self.admit();
                    }
                    self.set_state(u, UState::ConsoleWait);
                    self.q.schedule(done, Event::ConsoleDone(u));
                }
            }
            return;
        }
        // The transaction is complete: terminal read, queue-drop, think.
        let resp = (self.now - usr.txn_start).as_secs_f64();
        let trivial = !usr.went_q2;
        usr.n_txn += 1;
        let ci = usr.class as usize;
        if self.warm {
            usr.t_txn += 1;
            usr.t_resp += resp;
            self.c.transactions += 1.0;
            self.c.response_sum_s += resp;
            let cl = &mut self.classes[ci];
            cl.resp.push(resp);
            if trivial {
                cl.resp_trivial.push(resp);
                cl.trivial += 1;
                self.c.trivial_transactions += 1.0;
                self.c.trivial_response_sum_s += resp;
            } else {
                cl.resp_nontrivial.push(resp);
            }
        }
        self.queue_drop(u, false);
        let k = self.users[u as usize].n_txn;
        if self.session_signs_off(u, ci, k) {
            self.admit();
            return;
        }
        let z = think_time(
            &self.classes[ci].spec.think,
            &mut self.users[u as usize].rng,
            k,
        );
        if self.warm {
            let cl = &mut self.classes[ci];
            cl.think_sum += z;
            cl.thinks += 1;
            self.c.think_sum_s += z;
            self.c.thinks += 1.0;
        }
        self.set_state(u, UState::Thinking);
        self.q
            .schedule(self.now + Tick::from_secs_f64(z), Event::ThinkEnded(u));
        self.admit();
    }

    fn handle_vio_done(&mut self, u: u32) {
        self.sup_debt_ns += self.cost.interrupt;
        self.c.io_interrupts += 1.0;
        self.make_ready(u, false);
    }

    fn handle_console_done(&mut self, u: u32) {
        if self.users[u as usize].queue.is_some() {
            self.make_ready(u, false);
        } else {
            self.users[u as usize].wants = Queue::Q1;
            self.set_state(u, UState::Eligible);
            self.e1.push_back(u);
            self.admit();
        }
    }

    fn handle_fault(&mut self, u: u32, page: u32) -> Result<(), SysError> {
        // A guest task's fault taken enabled, with the Accelerator on: a pseudo fault.
        let w = if self.pseudo_fault_applies(u, page) {
            u | PSEUDO
        } else {
            u
        };
        let (owner, idx) = self.owner_of(u, page);
        self.c.faults += 1.0;
        if self.warm {
            self.users[u as usize].t_faults += 1;
        }
        self.sup_debt_ns += self.cost.fault;
        let f = self.mem.pte_mut(owner, idx).frame;
        if f != NONE {
            match self.mem.frames[f as usize].state {
                FrameState::Resident => {
                    // Made valid meanwhile (a shared page another user brought in).
                    self.fault_done(w, true);
                }
                FrameState::PageOut => {
                    let fr = &mut self.mem.frames[f as usize];
                    fr.state = FrameState::Resident;
                    fr.referenced = true;
                    self.c.reclaims += 1.0;
                    self.fault_done(w, true);
                }
                FrameState::PageIn => {
                    self.page_waiters.push((f, w));
                    self.fault_wait(w, UState::PageWait);
                }
                FrameState::Free => unreachable!("a mapped frame is never free"),
            }
            return Ok(());
        }
        self.frame_waiters.push_back((w, page));
        self.fault_wait(w, UState::FrameWait);
        self.pump_memory()
    }

    fn owner_of(&self, u: u32, page: u32) -> (u32, u32) {
        if page < self.shared_pages {
            (self.shared_owner, page)
        } else {
            (u, page)
        }
    }

    /// Serves users waiting for a frame and keeps the free list at its target.
    fn pump_memory(&mut self) -> Result<(), SysError> {
        loop {
            while !self.frame_waiters.is_empty() {
                let Some(f) = self.mem.take_free() else { break };
                let (w, page) = self.frame_waiters.pop_front().expect("checked non-empty");
                self.users[(w & !PSEUDO) as usize].fault_page = page;
                self.start_page_in(w, f);
            }
            self.replenish()?;
            if self.frame_waiters.is_empty() || self.mem.free_len() == 0 {
                return Ok(());
            }
        }
    }

    fn start_page_in(&mut self, w: u32, f: u32) {
        let u = w & !PSEUDO;
        let page = self.users[u as usize].fault_page;
        let (owner, idx) = self.owner_of(u, page);
        // Another waiter may have brought the same shared page in meanwhile.
        let cur = self.mem.pte_mut(owner, idx).frame;
        if cur != NONE {
            self.mem.put_free(f);
            let st = self.mem.frames[cur as usize].state;
            if st == FrameState::PageIn {
                self.page_waiters.push((cur, w));
                self.fault_still_waits(w);
            } else {
                if st == FrameState::PageOut {
                    self.mem.frames[cur as usize].state = FrameState::Resident;
                    self.c.reclaims += 1.0;
                }
                self.fault_done(w, true);
            }
            return;
        }
        self.mem.map(owner, idx, f, FrameState::PageIn);
        self.supply.on_load(owner, idx, f, self.supply_refs);
        self.survival.referenced(f, u);
        let pte = *self.mem.pte_mut(owner, idx);
        if pte.slot == NONE {
            // First reference: a cleared frame, no I/O; it has no slot copy, so it is changed.
            let fr = &mut self.mem.frames[f as usize];
            fr.state = FrameState::Resident;
            fr.changed = true;
            self.c.zero_fills += 1.0;
            self.steal.reused(f);
            self.fault_done(w, true);
            return;
        }
        if owner == u {
            if let Some(id) = self.swap.as_ref().and_then(|ps| ps.set_of(u, idx)) {
                self.c.swap_faults += 1.0;
                self.steal.reused(f);
                self.page_waiters.push((f, w));
                self.fault_still_waits(w);
                self.swap_in(u, id, Some((idx, f)));
                return;
            }
        }
        self.c.page_reads += 1.0;
        if self.steal.read_into(f) {
            self.c.stolen_reads += 1.0;
        }
        let resident = self.mem.resident[u as usize];
        let usr = &mut self.users[u as usize];
        usr.stay.page_reads += 1;
        usr.stay.resident_at_reads += u64::from(resident);
        if self.warm {
            usr.t_reads += 1;
        }
        self.sup_debt_ns += self.cost.sio + self.cost.page;
        self.page_waiters.push((f, w));
        self.fault_still_waits(w);
        let io = PageIo {
            op: IoOp::Read,
            slot: pte.slot,
            frame: f,
            queued: self.now,
        };
        let step = self.io.submit(pte.dev as usize, io, self.now);
        if let Some(s) = step {
            self.schedule_device(pte.dev as usize, s);
        }
    }

    /// SELECT until the free list plus pending page-outs reach MPL + extra. Page-outs given to
    /// one device in a row (a round-turkey group) are written together as one batch when the
    /// group closes; while a group is open SELECT goes on, a bounded number of frames past the
    /// target, to fill it.
    fn replenish(&mut self) -> Result<(), SysError> {
        let target = (self.n_q1 + self.n_q2 + self.free_extra).max(self.free_min) as usize;
        let mut group: Vec<PageIo> = Vec::new();
        let mut group_dev = 0usize;
        let mut overshoot = 0u32;
        loop {
            let short = self.mem.free_len() + (self.pending_outs as usize) < target;
            if !short {
                if group.is_empty() || overshoot >= 2 * self.spec.paging.round_turkey_run {
                    break;
                }
                overshoot += 1;
            }
            // Frame supply order: flush list, then physical swap-out, then the scan.
            let f = match self.mem.pop_flush() {
                Some(f) => f,
                None => {
                    if self.swap.is_some() && self.swap_out()? {
                        continue;
                    }
                    match self.supply.select_victim(&mut self.mem) {
                        Some(f) => f,
                        None => break,
                    }
                }
            };
            self.count_victim(f);
            let fr = self.mem.frames[f as usize];
            let pte = *self.mem.pte_mut(fr.owner, fr.page);
            let rewrite = self.write_unchanged && fr.owner != self.shared_owner;
            if fr.changed || pte.slot == NONE || rewrite {
                if pte.slot != NONE {
                    self.io.release_slot(SlotAddr {
                        dev: pte.dev,
                        slot: pte.slot,
                    });
                    if fr.owner != self.shared_owner {
                        if let Some(ps) = self.swap.as_mut() {
                            ps.detach(fr.owner, fr.page);
                        }
                    }
                }
                let (addr, closed) = self.page_out_slot()?;
                let p = self.mem.pte_mut(fr.owner, fr.page);
                p.slot = addr.slot;
                p.dev = addr.dev;
                let frm = &mut self.mem.frames[f as usize];
                frm.state = FrameState::PageOut;
                frm.changed = false;
                frm.referenced = false;
                self.pending_outs += 1;
                self.c.page_writes += 1.0;
                self.sup_debt_ns += self.cost.page;
                if !group.is_empty() && group_dev != addr.dev as usize {
                    self.submit_group(group_dev, &mut group);
                }
                group_dev = addr.dev as usize;
                group.push(PageIo {
                    op: IoOp::Write,
                    slot: addr.slot,
                    frame: f,
                    queued: self.now,
                });
                if closed {
                    self.submit_group(group_dev, &mut group);
                }
            } else {
                self.mem.unmap(f);
                self.mem.put_free(f);
            }
        }
        if !group.is_empty() {
            self.submit_group(group_dev, &mut group);
        }
        Ok(())
    }

    /// Counts frame `f` taken by SELECT: a steal if its owner is in queue, and its page's
    /// survival in interruptions (bard eq. 4).
    fn count_victim(&mut self, f: u32) {
        self.c.victims += 1.0;
        let fr = self.mem.frames[f as usize];
        let stolen = fr.owner != self.shared_owner && self.users[fr.owner as usize].queue.is_some();
        if stolen {
            self.c.steals += 1.0;
        }
        self.steal.replaced(f, stolen);
        if let Some(n) = self.survival.replaced(f) {
            if self.warm {
                self.survival.tally(f, n);
            }
            self.c.psi_interruptions += n as f64;
            self.c.psi_replaced += 1.0;
            if stolen {
                self.c.psi_stolen_interruptions += n as f64;
            }
        }
    }

    /// Queues a group of page-outs on `dev` at once (one SIO when they share a cylinder).
    fn submit_group(&mut self, dev: usize, group: &mut Vec<PageIo>) {
        self.sup_debt_ns += self.cost.sio;
        self.c.page_out_groups += 1.0;
        if let Some(s) = self.io.submit_batch(dev, group, self.now) {
            self.schedule_device(dev, s);
        }
        group.clear();
    }

    fn schedule_device(&mut self, d: usize, step: DeviceStep) {
        match step {
            DeviceStep::Reconnect(t) => self.q.schedule(t, Event::Reconnect(d as u16)),
            DeviceStep::Complete(t) => self.q.schedule(t, Event::IoComplete(d as u16)),
        };
    }

    fn handle_io_complete(&mut self, d: usize) -> Result<(), SysError> {
        let mut done = std::mem::take(&mut self.done_io);
        done.clear();
        if let Some(s) = self.io.complete(d, self.now, &mut done) {
            self.schedule_device(d, s);
        }
        self.sup_debt_ns += self.cost.interrupt;
        self.c.io_interrupts += 1.0;
        for io in &done {
            let f = io.frame;
            match io.op {
                IoOp::Read => {
                    let fr = &mut self.mem.frames[f as usize];
                    debug_assert_eq!(fr.state, FrameState::PageIn);
                    fr.state = FrameState::Resident;
                    fr.referenced = true;
                    fr.changed = false;
                    let waited = (self.now - io.queued).as_secs_f64();
                    let mut swapped = false;
                    if let Some(ps) = self.swap.as_mut() {
                        if std::mem::take(&mut ps.in_swap_io[f as usize]) {
                            swapped = true;
                            self.c.swap_io_sum_s += waited;
                            self.c.swap_read_sum_s += waited;
                            // Reset after a swap-in so that prepage errors show (tetzlaff).
                            if ps.prepaged[f as usize] {
                                fr.referenced = false;
                            }
                        }
                    }
                    if !swapped {
                        self.c.page_read_sum_s += waited;
                    }
                    let mut i = 0;
                    while i < self.page_waiters.len() {
                        if self.page_waiters[i].0 == f {
                            let (_, w) = self.page_waiters.swap_remove(i);
                            self.fault_done(w, false);
                        } else {
                            i += 1;
                        }
                    }
                }
                IoOp::Write => {
                    self.pending_outs -= 1;
                    if let Some(ps) = self.swap.as_mut() {
                        if std::mem::take(&mut ps.in_swap_io[f as usize]) {
                            self.c.swap_io_sum_s += (self.now - io.queued).as_secs_f64();
                        }
                    }
                    if self.mem.frames[f as usize].state == FrameState::PageOut {
                        self.mem.unmap(f);
                        self.mem.put_free(f);
                    }
                }
            }
        }
        self.done_io = done;
        self.pump_memory()
    }

    fn report(&mut self, last: Counters) -> Report {
        let d = last.since(&self.warm_sample);
        let cpus = self.spec.cpu.count;
        let metrics = monitor::summary_metrics(&d, cpus, self.spec.workload.users);
        let intervals = monitor::interval_table(&self.samples, cpus, self.spec.memory.frames);
        let users = self
            .users
            .iter()
            .enumerate()
            .map(|(i, u)| UserRow {
                user: i as u32,
                class: self.classes[u.class as usize].spec.name.clone(),
                transactions: u.t_txn,
                response_mean_s: if u.t_txn > 0 {
                    u.t_resp / u.t_txn as f64
                } else {
                    0.0
                },
                cpu_s: u.t_cpu_ns as f64 / 1e9,
                faults: u.t_faults,
                page_reads: u.t_reads,
                vios: u.t_vios,
                drops: u.t_drops,
                projected_ws: u.proj.p,
                psi_s: self.survival.owner_psi(i as u32),
            })
            .collect();
        let mut all = Vec::new();
        let mut trivial = Vec::new();
        let mut nontrivial = Vec::new();
        let t = d.time_s.max(f64::MIN_POSITIVE);
        let classes = self
            .classes
            .iter_mut()
            .map(|c| {
                all.extend_from_slice(&c.resp);
                trivial.extend_from_slice(&c.resp_trivial);
                nontrivial.extend_from_slice(&c.resp_nontrivial);
                let n = c.resp.len() as u64;
                let mean = if n > 0 {
                    c.resp.iter().sum::<f64>() / n as f64
                } else {
                    0.0
                };
                ClassRow {
                    class: c.spec.name.clone(),
                    users: c.users,
                    transactions: n,
                    trivial: c.trivial,
                    throughput: n as f64 / t,
                    response_mean_s: mean,
                    think_mean_s: if c.thinks > 0 {
                        c.think_sum / c.thinks as f64
                    } else {
                        0.0
                    },
                    response: Percentiles::of(&mut c.resp),
                }
            })
            .collect();
        let mut response = BTreeMap::new();
        response.insert("all".to_string(), Percentiles::of(&mut all));
        response.insert("trivial".to_string(), Percentiles::of(&mut trivial));
        response.insert("nontrivial".to_string(), Percentiles::of(&mut nontrivial));
        let devices = self
            .spec
            .actuators()
            .iter()
            .enumerate()
            .map(|(d, (name, ds))| {
                let map = self.io.slots(d);
                let c = self.io.counters[d];
                monitor::DeviceRow {
                    name: name.clone(),
                    swap_area: ds.swap_area,
                    first_cylinder: map.first_cylinder(),
                    slots_per_cylinder: map.slots_per_cyl(),
                    used_by_cylinder: map.used_by_cylinder(),
                    sios: c.n_sios,
                    reads: c.n_reads,
                    writes: c.n_writes,
                    busy_s: c.busy_ns as f64 * 1e-9,
                    read_ms: c.read_response_ns as f64 * 1e-6 / c.n_reads.max(1) as f64,
                    write_ms: (c.page_response_ns - c.read_response_ns) as f64 * 1e-6
                        / c.n_writes.max(1) as f64,
                    rps_misses: c.n_rps_misses,
                }
            })
            .collect();
        let mut engine = BTreeMap::new();
        engine.insert("events".to_string(), self.n_events);
        engine.insert("reference_runs".to_string(), self.n_runs);
        for (k, v) in self.supply.figures() {
            engine.insert(k.to_string(), v);
        }
        Report {
            version: env!("CARGO_PKG_VERSION").to_string(),
            seed: self.seed,
            spec: serde_json::to_value(&self.spec).unwrap_or(serde_json::Value::Null),
            metrics,
            intervals,
            users,
            classes,
            response,
            engine,
            devices,
            benchmark: self.benchmark_report(),
        }
    }
}

mod cp_spool;
mod guest_hooks;
mod invariants;
mod kernel_impl;
mod page_swapping;
mod paging_full;
mod vmsp_dispatch;

#[cfg(test)]
mod guest_tests;
#[cfg(test)]
mod swap_tests;

#[cfg(test)]
mod dispatch_tests;
