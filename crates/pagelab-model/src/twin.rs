//! The decomposition: a central subsystem solved at each population of the memory level, and
//! the terminals in front of its flow-equivalent server.
//!
//! **Central subsystem** (one copy of each resource the spec builds): the processors (one
//! station of `cpu.count` servers for Q1 stays, and its shadow for Q2 stays), the paging actuators (round robin: each takes an equal share
//! of the page I/O), their channels (a page's transfer), the minidisks (each user's VIOs on one
//! of them: an equal share on average) and the terminal writes (a delay: the user stays in
//! queue). A class's demands at a population depend on the frames its programs hold:
//!
//! ```text
//!   admitted a_c: the storage test Σ a_c P_c ≤ c·APAGES, E1 candidates admitted before E2,
//!         an admitted E2 stay holding its storage to its slice's end (`twin/holds.rs`)
//!   frames m_c = θ P_c, θ the largest with Σ a_c R_c(θ P_c) ≤ free frames (R: a stay's
//!         mean resident set over its references, from the lifetime pass); under CP-67 the
//!         pages of the stay's last 1.5 scan cycles, the cycle the one at which the stays and
//!         the idle users' unreached pages fill the free frames (`twin/window.rs`)
//!   faults f_c(m_c), writes w_c(m_c) from the lifetime curve (per transaction)
//!   CPU = cpu + VIO·sup_vio + f·(fault + sio + interrupt + page) + w·(sio + interrupt + page)
//!         + dispatch·(1 + VIO + writes + f)
//!   paging actuator = f·page time / actuators,  channel = f·transfer / channels  (users wait)
//!   page-outs w·page time, w·transfer: an open load on the same stations (nobody waits)
//!   CPU split: Q1 the first slice of each stay, E[min(cpu, Q1 slice)], a transaction's first
//!         stay and, where the load controller drops at terminal writes, each after one;
//!         Q2 the rest (`twin/admission.rs` `q1_share`)
//! ```
//!
//! The processors follow the dispatcher (`pagelab-sys` `system.rs`): Q1 stays are dispatched
//! first and take a processor back from a Q2 stay as they become ready, so Q2 sees processors
//! slowed by 1/(1 − U_Q1) (Sevcik's shadow server, 1977); each ready list is FIFO, a burst
//! ending at a fault, a VIO, a terminal write or the minor slice, so a class waits for the
//! bursts ahead of it rather than sharing the processor ([`crate::mva::schweitzer_visits`]).
//!
//! P_c is a stay's working set (the lifetime curve's cold misses) under VM/370, and under
//! CP-67 the scheduler's own estimate over the lifetime pass's stays at the frames they get
//! ([`crate::estimate`]; admission and split iterated to a fixed point). Users the load controller
//! holds back wait in the eligible list, inside the flow-equivalent server: their class's rate
//! is that of the admitted ones. A drum's time per page falls with its queue (chained SIOs in
//! rotational order). MVA solves the subsystem: exact with one class in it, Schweitzer's
//! approximation with several ([`crate::mva`]).
//!
//! **Terminal level.** Each class c sees its N_c terminals (think Z_c) in front of a
//! load-dependent server whose rate with k of its users inside is the subsystem's class-c
//! throughput with the other classes at their mean populations; the means are iterated to a
//! fixed point (Lazowska et al., QSP ch. 9, the approximate treatment of several classes
//! sharing a memory constraint). A class without think time (long-running) is always inside.
//! Every mean reported (utilisations, fault rate, MPL) is averaged over the distribution of the
//! most numerous class's population inside. Where a class's chain has two modes (an uncrowded
//! set and a crowded one), the means are over the run's window rather than stationary
//! ([`crate::metastable`]).
//!
//! **What it leaves out** (and the simulator has): the eligible lists' FIFO order and their
//! head-of-line blocking (a large E2 projection waits for room: docs/model.md, "E1 before
//! E2"); under VM/370 the scan's stealing from users in queue beyond the memory split; RPS
//! misses; the storage test's damped projections.

use crate::lifetime::Lifetime;
use crate::lifetime::Survival;
use crate::metastable::{self, Modes};
use crate::mva::{
    exact_one_class, schweitzer_from, terminals_and_fes, terminals_and_fes_ln, Kind, Solution,
    Station,
};
use crate::survival::DropOuts;
use pagelab_sys::demands::ServiceDemands;
use std::cell::RefCell;

/// Options of a solve.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TwinOptions {
    /// A limit on the multiprogramming level [users] in place of the storage test.
    pub mpl_limit: Option<f64>,
    /// The span of time the answer is a mean over.
    pub horizon: Horizon,
}

/// What the twin's means are taken over ([`crate::metastable`], reading `twin-run-horizon`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum Horizon {
    /// The spec's measured window, [run.warmup_s, run.duration_s], of a run started empty.
    #[default]
    Run,
    /// The window [from_s, to_s] of a run started empty [s].
    Window(f64, f64),
    /// The stationary distribution (an endless run).
    Stationary,
}

/// One class at one number of users.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct ClassRow {
    /// Class name.
    pub class: String,
    /// Users of the class [count].
    pub users: u32,
    /// Transactions per second [1/s].
    pub throughput: f64,
    /// Mean response time, think excluded [s].
    pub response: f64,
}

/// The model at one number of users.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Row {
    /// Logged-on users [count].
    pub users: u32,
    /// Transactions per second, all classes [1/s].
    pub throughput: f64,
    /// Per class.
    pub classes: Vec<ClassRow>,
    /// Processor utilisation (per processor) [1].
    pub cpu_util: f64,
    /// Utilisation of a paging actuator [1].
    pub paging_util: f64,
    /// Utilisation of a minidisk [1].
    pub vio_util: f64,
    /// Page faults per second [1/s].
    pub fault_rate: f64,
    /// Mean users in the multiprogramming set [count].
    pub mpl: f64,
    /// Mean users held in the eligible list [count].
    pub eligible: f64,
    /// Mean frames a program in the set holds [frames].
    pub frames_per_program: f64,
    /// Share of the window the most numerous class spends in its crowded mode, where its
    /// terminal level has two ([`crate::metastable`]) [1].
    pub crowded_share: f64,
    /// Mean time from the uncrowded mode to the crowded one, where there are two [s].
    pub crowding_onset_s: Option<f64>,
}

/// The subsystem's answer at one population.
#[derive(Clone, Debug, Default)]
struct Inner {
    x: Vec<f64>,
    cpu: f64,
    paging: f64,
    vio: f64,
    faults: f64,
    mpl: f64,
    eligible: f64,
    frames: f64,
}

/// Each class's distribution inside, and its modes where it has two.
type Dist<'a> = (&'a [Vec<f64>], &'a [Option<Modes>]);

/// Most passes of the central subsystem's fixed point (paging queue, open loads).
const PASSES: usize = 100;

/// Per-class demands at one population of the memory level.
#[derive(Default)]
struct Demands {
    /// What a user waits for: `closed[c][k]`, class c at one copy of station k [s].
    closed: Vec<Vec<f64>>,
    /// The page-outs a transaction leaves behind, at the same stations [s].
    writes: Vec<Vec<f64>>,
    /// Frames a program holds [frames].
    frames: Vec<f64>,
    /// Faults per transaction [pages].
    faults: Vec<f64>,
    /// Bursts per transaction at each station (the processors' only) [count].
    visits: Vec<Vec<f64>>,
}

/// A spec's demands with its classes' lifetime curves: the twin, ready to solve.
pub struct Twin {
    d: ServiceDemands,
    life: Vec<Lifetime>,
    stations: Vec<Station>,
    /// The window the means are taken over [s] (`None`: stationary).
    window: Option<(f64, f64)>,
    /// The paging queue and the open loads where the last subsystem solve ended.
    warm: RefCell<(f64, Vec<f64>)>,
    /// Each class's queues where the last solve of several classes ended.
    queues: RefCell<Vec<Vec<f64>>>,
    /// CP-67's projections where the last fixed point of [`Twin::settle`] ended.
    settled: RefCell<Vec<f64>>,
    /// The classes' drops inside their transactions (reading `twin-drop-survival`).
    drops: DropOuts,
    /// The wait to be readmitted after a drop, at each level of the memory level [s].
    wait: RefCell<Waits>,
    /// The load controller's storage test.
    admission: Admission,
    /// CP-67's scan over the stays in the set (reading `twin-global-window`).
    scan: Option<ScanWindow>,
}

const CPU: usize = 0;
const PAGING: usize = 1;
const CHANNEL: usize = 2;
const VIO: usize = 3;
const CONSOLE: usize = 4;
/// The processors as Q2 stays see them (Sevcik's shadow server, below).
const CPU_Q2: usize = 5;

impl Twin {
    /// The twin of `d` with one lifetime curve per class, in class order.
    /// The means are over `window` [s] of a run started empty, or stationary without one.
    pub fn new(
        d: ServiceDemands,
        life: Vec<Lifetime>,
        opts: TwinOptions,
        window: Option<(f64, f64)>,
    ) -> Twin {
        let q = |name: &str, servers, copies| Station {
            name: name.into(),
            kind: Kind::Queue { servers },
            copies,
        };
        let stations = vec![
            q("cpu", d.cpus.max(1), 1),
            q("paging", 1, d.paging.len().max(1) as u32),
            q("channel", 1, d.channels as u32),
            q("vio", 1, d.vio_devices.max(1)),
            Station {
                name: "console".into(),
                kind: Kind::Delay,
                copies: 1,
            },
            q("cpu-q2", d.cpus.max(1), 1),
        ];
        let ns = stations.len();
        let drops = DropOuts::new(&d, &life);
        let admission = Admission::new(&d, &life, opts.mpl_limit);
        let scan = d.desirable_rate.map(|_| {
            let idle_page_s = mean_page_time(&d, 0.0);
            let in_set_s = |c: usize, m: f64| {
                let (f, w) = life[c].at(m, Survival::uniform(0.0));
                let t = Script::of(&d.classes[c]);
                processor(&d.supervisor, t, f, w) + f * idle_page_s + t.vio * d.vio_s
            };
            ScanWindow::new(&life, in_set_s, drops.think_s())
        });
        Twin {
            d,
            life,
            stations,
            window,
            warm: RefCell::new((0.0, vec![0.0; ns])),
            queues: RefCell::new(Vec::new()),
            settled: RefCell::new(Vec::new()),
            drops,
            wait: RefCell::new(Waits::default()),
            admission,
            scan,
        }
    }

    /// Frames programs may hold: all but the shared segment and the free-list target.
    fn pageable(&self, mpl: f64) -> f64 {
        let f = f64::from(self.d.frames) - f64::from(self.d.shared_pages);
        (f - mpl - f64::from(self.d.free_target_extra)).max(1.0)
    }

    /// Per-class demands at each station, and the frames and faults behind them, with `a`
    /// users of each class admitted out of `counts`.
    fn demands(&self, (a, projected): (&[f64], &[f64]), counts: &[u32], queue: f64) -> Demands {
        let n: f64 = a.iter().sum();
        // Under VM/370 a stay asking more than an equal share of the free frames gets that
        // share (the global scan takes the rest from it): the others keep their working sets.
        // CP-67's projections already are the storage each stay is to get.
        let equal = match self.d.desirable_rate {
            None => self.pageable(n) / n.max(1.0),
            Some(_) => f64::INFINITY,
        };
        let proj: Vec<f64> = (0..a.len()).map(|c| projected[c].min(equal)).collect();
        let free = self.pageable(n);
        let (frames, survive) = self.frames_split(a, counts, &proj, free);
        let sup = &self.d.supervisor;
        let page_s = mean_page_time(&self.d, queue);
        let xfer_s = self.d.paging.iter().map(|p| p.transfer_s).sum::<f64>()
            / self.d.paging.len().max(1) as f64;
        let mut out = Demands::default();
        for (ci, (c, l)) in self.d.classes.iter().zip(&self.life).enumerate() {
            let m = frames[ci];
            let fate = self.drops.survival(ci, survive, self.wait.borrow().now());
            let (f, w) = l.at(m, fate);
            let t = Script::of(c);
            let Script {
                cpu_s,
                vio,
                writes,
                console,
            } = t;
            let cpu = processor(sup, t, f, w);
            let per_copy = |k: usize| 1.0 / f64::from(self.stations[k].copies);
            let q1 = self.admission.q1_share(ci);
            let mut row = vec![0.0; self.stations.len()];
            row[CPU] = cpu * q1;
            row[CPU_Q2] = cpu * (1.0 - q1);
            row[PAGING] = f * page_s * per_copy(PAGING);
            row[CHANNEL] = f * xfer_s * per_copy(CHANNEL);
            row[VIO] = vio * self.d.vio_s * per_copy(VIO);
            row[CONSOLE] = console;
            let mut wrow = vec![0.0; self.stations.len()];
            wrow[PAGING] = w * page_s * per_copy(PAGING);
            wrow[CHANNEL] = w * xfer_s * per_copy(CHANNEL);
            // A burst ends at a fault, a VIO, a terminal write, the transaction's end or the
            // minor slice (`system.rs` dispatch, `burst.rs`); each ready list is FIFO.
            let bursts = 1.0 + vio + writes + f + cpu_s / self.d.dispatch_slice_s;
            let mut visits = vec![0.0; self.stations.len()];
            visits[CPU] = bursts * q1;
            visits[CPU_Q2] = bursts * (1.0 - q1);
            out.visits.push(visits);
            out.closed.push(row);
            out.writes.push(wrow);
            out.frames.push(l.occupancy_at(m, fate));
            out.faults.push(f);
        }
        out
    }

    /// The frames each of the `a` admitted stays may grow to in the `free` frames, and the
    /// share of the other users' pages that survives to their next stay: under CP-67 the scan's
    /// window ([`ScanWindow::split`]), otherwise θ P_c ([`growth::theta`]) with the idle pages
    /// in what the stays leave.
    fn frames_split(&self, a: &[f64], counts: &[u32], proj: &[f64], free: f64) -> (Vec<f64>, f64) {
        // The frames the admitted sets leave hold the pages of users out of the set (thinking
        // or eligible); a share of those survives to the user's next stay.
        let idle: f64 = counts
            .iter()
            .zip(a)
            .zip(proj)
            .map(|((&nc, x), p)| (f64::from(nc) - x).max(0.0) * p)
            .sum();
        if let Some(w) = &self.scan {
            return w.split(&self.life, a, idle, free);
        }
        let want: f64 = a.iter().zip(proj).map(|(x, p)| x * p).sum();
        let theta = growth::theta(&self.life, (a, proj), free, want);
        let m: Vec<f64> = proj.iter().map(|p| theta * p).collect();
        let held: f64 = (0..a.len())
            .map(|c| a[c] * self.life[c].occupancy_at(m[c], Survival::uniform(0.0)))
            .sum();
        let survive = if idle > 0.0 {
            ((free - held) / idle).clamp(0.0, 1.0)
        } else {
            1.0
        };
        (m, survive)
    }

    /// The storage test's projections with `pop` inside, and the users it admits. Under CP-67
    /// a projection is the scheduler's estimate at the frames the stays get (reading
    /// `twin-cp67-estimate`), so the test and the split are iterated to a fixed point: bard
    /// §12's load feedback. Otherwise it is [`Admission::projection`].
    fn settle(&self, pop: &[f64], counts: &[u32]) -> (Vec<f64>, Vec<f64>) {
        let mut proj: Vec<f64> = (0..pop.len())
            .map(|c| self.admission.projection(&self.life[c], c))
            .collect();
        let mut a = self.admission.admitted(pop, &proj);
        if self
            .life
            .iter()
            .all(|l| l.points.first().and_then(|p| p.estimate).is_none())
        {
            return (a, proj);
        }
        // The storage test takes an estimate above the pageable frames as all of them.
        let cap = f64::from(self.d.frames) - f64::from(self.d.shared_pages);
        // Started where the last population's fixed point ended (a neighbour's, as a rule).
        if self.settled.borrow().len() == proj.len() {
            proj.clone_from(&self.settled.borrow());
            a = self.admission.admitted(pop, &proj);
        }
        for _ in 0..PASSES {
            let free = self.pageable(a.iter().sum());
            let (frames, survive) = self.frames_split(&a, counts, &proj, free);
            let mut moved = 0.0f64;
            for (c, p) in proj.iter_mut().enumerate() {
                let fate = self.drops.survival(c, survive, self.wait.borrow().now());
                let e = self.life[c].estimate_at(frames[c], fate).unwrap_or(*p);
                let next = 0.5 * (*p + e.min(cap));
                moved = moved.max((next - *p).abs());
                *p = next;
            }
            a = self.admission.admitted(pop, &proj);
            if moved < 1e-4 * cap {
                break;
            }
        }
        self.settled.borrow_mut().clone_from(&proj);
        (a, proj)
    }

    /// The central subsystem with `pop` users of each class inside the memory level.
    fn inner(&self, pop: &[f64], counts: &[u32]) -> Inner {
        // Readmissions wait behind the users eligible (reading `twin-drop-survival`). Each
        // level keeps its wait, moved halfway to each new answer there: the terminal level's
        // fixed point visits every level many times, and a full fixed point per visit cost
        // twice the time for 0.2 % (cp67, 20 users).
        self.wait.borrow_mut().enter(pop);
        let (a, proj) = self.settle(pop, counts);
        let mut i = self.solve_admitted((&a, &proj), counts);
        i.eligible = pop.iter().sum::<f64>() - i.mpl;
        if self.drops.any() {
            let admissions = self.drops.admissions(&i.x);
            let wait = if i.eligible > 1e-9 && admissions > 0.0 {
                i.eligible / admissions
            } else {
                0.0
            };
            self.wait.borrow_mut().update(pop, wait);
        }
        i
    }

    /// The central subsystem with `a` users of each class admitted. A fixed-head paging
    /// device's time per page depends on its queue ([`page_time`]), and the write-backs load
    /// the paging devices without holding a user: both solved to a fixed point.
    ///
    /// A page-out is SELECT's, not the faulting user's (`pagelab-sys` `system/paging.rs`,
    /// `replenish` and `page_out`): its frame goes on the device queue and the user runs on, so
    /// the writes are an open class at the paging devices and channels. The closed classes see
    /// each such station's demand stretched by 1/(1 − U_open), and the open class's queue there
    /// is U_open (1 + Q_closed) / (1 − U_open) (Lazowska et al., QSP 1984, §7.3, mixed models).
    fn solve_admitted(&self, (a, proj): (&[f64], &[f64]), counts: &[u32]) -> Inner {
        let ns = self.stations.len();
        // Started where the last population's solve ended (a neighbour's, as a rule).
        let (mut queue, mut open) = self.warm.borrow().clone();
        let mut solved = None;
        for _ in 0..PASSES {
            let dm = self.demands((a, proj), counts, queue);
            let stretched: Vec<Vec<f64>> = dm
                .closed
                .iter()
                .map(|row| row.iter().zip(&open).map(|(d, u)| d / (1.0 - u)).collect())
                .collect();
            let s = self.closed_level(a, &stretched, &dm.visits);
            let u_open = open_loads(&dm.writes, &s);
            let uw = u_open[PAGING];
            let q = s.q[PAGING] + uw * (1.0 + s.q[PAGING]) / (1.0 - uw);
            let moved = (0..ns)
                .map(|k| (u_open[k] - open[k]).abs())
                .fold(0.0, f64::max);
            let done = (q - queue).abs() < 1e-3 * (1.0 + q) && moved < 1e-3;
            if done {
                (queue, open) = (q, u_open.clone());
                solved = Some((s, dm, u_open));
                break;
            }
            solved = Some((s, dm, u_open.clone()));
            // Both damped: undamped, the processors' Q2 shadow swings between a Q1 load near
            // saturation (Q2 stays slowed fiftyfold, the subsystem nearly stalled) and the
            // light Q1 load of that stall, and the pass the loop ends on decides the answer.
            queue = 0.5 * (queue + q);
            open = open
                .iter()
                .zip(&u_open)
                .map(|(o, u)| 0.5 * (o + u))
                .collect();
        }
        *self.warm.borrow_mut() = (queue, open);
        let (s, dm, u_open) = solved.expect("at least one pass");
        let n: f64 = a.iter().sum();
        let fpp = if n > 0.0 {
            a.iter().zip(&dm.frames).map(|(x, m)| x * m).sum::<f64>() / n
        } else {
            0.0
        };
        let busy = |k: usize| {
            let closed: f64 = dm.closed.iter().zip(&s.x).map(|(d, x)| x * d[k]).sum();
            closed + u_open[k]
        };
        let servers = f64::from(self.d.cpus.max(1));
        let q2: f64 = dm.closed.iter().zip(&s.x).map(|(d, x)| x * d[CPU_Q2]).sum();
        Inner {
            cpu: s.u[CPU] + q2 / servers,
            paging: busy(PAGING),
            vio: s.u[VIO],
            faults: s.x.iter().zip(&dm.faults).map(|(x, f)| x * f).sum(),
            mpl: n,
            eligible: 0.0,
            frames: fpp,
            x: s.x,
        }
    }

    /// The closed level with `a` users admitted and the `stretched` demands: exact with one
    /// class in it, Schweitzer's approximation with several.
    fn closed_level(&self, a: &[f64], stretched: &[Vec<f64>], visits: &[Vec<f64>]) -> Solution {
        match one_class(a) {
            Some((c, n)) => {
                let one = exact_one_class(&self.stations, &stretched[c], n);
                let mut x = vec![0.0; a.len()];
                x[c] = one.x[0];
                Solution { x, ..one }
            }
            None => {
                let z = vec![0.0; a.len()];
                let mut q = self.queues.borrow_mut();
                schweitzer_from(&self.stations, stretched, Some(visits), (a, &z), &mut q)
            }
        }
    }

    /// Class `c`'s rate with k = 1..=n of its users inside, the others at `means`: exact at
    /// the first 16 populations, then every tenth in geometric steps, linear in between.
    fn rates(&self, c: usize, counts: &[u32], means: &[f64]) -> Vec<f64> {
        let n = counts[c];
        let mut knots: Vec<u32> = (1..=n.min(16)).collect();
        let mut k = 16.0f64;
        while (k as u32) < n {
            k = (k * 1.1).ceil();
            knots.push((k as u32).min(n));
        }
        knots.dedup();
        let at = |k: u32| {
            let mut pop = means.to_vec();
            pop[c] = f64::from(k);
            self.inner(&pop, counts).x[c]
        };
        let vals: Vec<f64> = knots.iter().map(|&k| at(k)).collect();
        let mut mu = Vec::with_capacity(n as usize);
        let mut j = 0;
        for k in 1..=n {
            while j + 1 < knots.len() && knots[j + 1] <= k {
                j += 1;
            }
            if knots[j] == k || j + 1 >= knots.len() {
                mu.push(vals[j]);
            } else {
                let (k0, k1) = (f64::from(knots[j]), f64::from(knots[j + 1]));
                let w = (f64::from(k) - k0) / (k1 - k0);
                mu.push(vals[j] + w * (vals[j + 1] - vals[j]));
            }
        }
        mu
    }

    /// The model with `counts[c]` users in each class.
    pub fn solve_counts(&self, counts: &[u32]) -> Row {
        self.solve_from(counts, None).0
    }

    /// As [`Twin::solve_counts`], the fixed point started from `start` (each class's mean
    /// population inside, from a neighbouring count); returns the means reached too.
    pub fn solve_from(&self, counts: &[u32], start: Option<&[f64]>) -> (Row, Vec<f64>) {
        let nc = counts.len();
        let mut means: Vec<f64> = match start {
            Some(m) if m.len() == nc => m
                .iter()
                .zip(counts)
                .map(|(&v, &n)| v.min(f64::from(n)))
                .collect(),
            _ => counts.iter().map(|&n| f64::from(n) / 2.0).collect(),
        };
        let mut dist: Vec<Vec<f64>> = vec![Vec::new(); nc];
        let mut modes: Vec<Option<Modes>> = vec![None; nc];
        let mut x = vec![0.0; nc];
        for _ in 0..60 {
            let mut change = 0.0f64;
            for c in 0..nc {
                if counts[c] == 0 {
                    means[c] = 0.0;
                    continue;
                }
                let mu = self.rates(c, counts, &means);
                let (p, m) = self.inside_over_window(counts[c], self.d.classes[c].think_s, &mu);
                modes[c] = m;
                x[c] = (1..p.len()).map(|k| p[k] * mu[k - 1]).sum();
                let mean: f64 = (0..p.len()).map(|k| k as f64 * p[k]).sum();
                change = change.max((mean - means[c]).abs());
                means[c] = 0.5 * means[c] + 0.5 * mean;
                dist[c] = p;
            }
            if change < 1e-3 {
                break;
            }
        }
        (self.row(counts, &means, (&dist, &modes), &x), means)
    }

    /// The distribution of a class's users inside over the twin's window: `n` terminals
    /// thinking `z` [s] in front of the rates `mu`, with the modes where there are two.
    fn inside_over_window(&self, n: u32, z: f64, mu: &[f64]) -> (Vec<f64>, Option<Modes>) {
        match self.window {
            Some((from, to)) if z > 0.0 => {
                let lnp = terminals_and_fes_ln(n, z, mu);
                metastable::over_window(&lnp, n, z, mu, from, to)
            }
            _ => (terminals_and_fes(n, z, mu), None),
        }
    }

    /// Means over the most numerous class's distribution, the others at their means.
    fn row(&self, counts: &[u32], means: &[f64], d: Dist<'_>, x: &[f64]) -> Row {
        let (dist, modes) = d;
        let driver = (0..counts.len()).max_by_key(|&c| counts[c]).unwrap_or(0);
        let modes = modes[driver];
        let mut acc = Inner::default();
        let mut with_one = 0.0;
        let p = &dist[driver];
        for (k, &pk) in p.iter().enumerate() {
            if pk < 1e-6 {
                continue;
            }
            let mut pop = means.to_vec();
            pop[driver] = k as f64;
            let i = self.inner(&pop, counts);
            acc.cpu += pk * i.cpu;
            acc.paging += pk * i.paging;
            acc.vio += pk * i.vio;
            acc.faults += pk * i.faults;
            acc.mpl += pk * i.mpl;
            acc.eligible += pk * i.eligible;
            if i.mpl > 0.0 {
                // Frames per program where there is one.
                acc.frames += pk * i.frames;
                with_one += pk;
            }
        }
        let norm: f64 = p.iter().filter(|&&v| v >= 1e-6).sum::<f64>().max(1e-300);
        let classes = self
            .d
            .classes
            .iter()
            .zip(counts)
            .zip(x)
            .map(|((c, &n), &xc)| ClassRow {
                class: c.name.clone(),
                users: n,
                throughput: xc,
                response: if xc > 0.0 {
                    f64::from(n) / xc - c.think_s
                } else {
                    0.0
                },
            })
            .collect();
        Row {
            users: counts.iter().sum(),
            throughput: x.iter().sum(),
            classes,
            cpu_util: acc.cpu / norm,
            paging_util: acc.paging / norm,
            vio_util: acc.vio / norm,
            fault_rate: acc.faults / norm,
            mpl: acc.mpl / norm,
            eligible: acc.eligible / norm,
            frames_per_program: acc.frames / with_one.max(1e-300),
            crowded_share: modes.map_or(0.0, |m| m.crowded_share),
            crowding_onset_s: modes.map(|m| m.onset_s),
        }
    }
}

/// The open loads at each station after a pass of the closed level `s`: the write-backs, a
/// device at most 98 % busy with them (past that the closed level stalls); and on the Q2
/// processors the Q1 load, since Q1 stays are dispatched first and take the processor back
/// when they become ready (`system.rs` dispatch: ready_q1 before ready_q2; a cut burst goes to
/// the front of its own list): Q2 sees processors slowed by Q1's load (Sevcik 1977).
fn open_loads(writes: &[Vec<f64>], s: &Solution) -> Vec<f64> {
    let ns = s.u.len();
    let mut u: Vec<f64> = (0..ns)
        .map(|k| {
            writes
                .iter()
                .zip(&s.x)
                .map(|(w, x)| x * w[k])
                .sum::<f64>()
                .min(0.98)
        })
        .collect();
    u[CPU_Q2] = s.u[CPU].min(0.98);
    u
}

/// The class and its whole number of customers when only one class has any: the subsystem
/// is then solved exactly.
fn one_class(a: &[f64]) -> Option<(usize, u32)> {
    let mut busy = a.iter().enumerate().filter(|(_, &v)| v > 0.0);
    let (c, &n) = busy.next()?;
    let whole = (n - n.round()).abs() < 1e-9;
    (busy.next().is_none() && whole).then_some((c, n.round() as u32))
}

/// A class's transaction, its commands mixed by their probabilities.
#[derive(Clone, Copy)]
struct Script {
    /// Problem-state processor time [s].
    cpu_s: f64,
    /// VIOs [count].
    vio: f64,
    /// Terminal writes [count].
    writes: f64,
    /// Time writing to the terminal [s].
    console: f64,
}

impl Script {
    fn of(c: &pagelab_sys::demands::ClassDemand) -> Script {
        let mix = |g: &dyn Fn(&pagelab_sys::demands::CommandDemand) -> f64| -> f64 {
            c.commands.iter().map(|k| k.probability * g(k)).sum()
        };
        Script {
            cpu_s: mix(&|k| k.cpu_s),
            vio: mix(&|k| f64::from(k.vio)),
            writes: mix(&|k| f64::from(k.console_writes)),
            console: mix(&|k| f64::from(k.console_writes) * k.console_write_s),
        }
    }
}

/// A transaction's processor time with `f` faults and `w` page-outs, the supervisor's paths
/// on them [s].
fn processor(sup: &pagelab_sys::demands::SupervisorDemand, t: Script, f: f64, w: f64) -> f64 {
    t.cpu_s
        + t.vio * sup.vio_s
        + f * (sup.fault_s + sup.sio_s + sup.interrupt_s + sup.page_s)
        + w * (sup.sio_s + sup.interrupt_s + sup.page_s)
        + sup.dispatch_s * (1.0 + t.vio + t.writes + f)
}

/// A page's time on the paging devices with `queue` ahead of it, over the devices [s].
fn mean_page_time(d: &ServiceDemands, queue: f64) -> f64 {
    d.paging.iter().map(|p| page_time(p, queue)).sum::<f64>() / d.paging.len().max(1) as f64
}

/// Time per page on a paging device with `queue` pages waiting or in service [s]: a
/// moving-arm disk's one-page SIO; a fixed-head device chains its whole queue into one SIO in
/// rotational order (`device.rs`, `start_sio`), so an arriving page waits on average a
/// revolution over the pages present plus one before its record passes, and no page can take
/// less than its record's share of a revolution.
fn page_time(p: &pagelab_sys::demands::PagingDemand, queue: f64) -> f64 {
    if !p.fixed_head {
        return p.page_s;
    }
    (p.rotation_s / (queue.max(0.0) + 2.0) + p.transfer_s).max(p.record_s)
}

/// Solves the twin of `spec` at each number of users; the lifetime curves are given.
pub fn solve(
    spec: &pagelab_sys::SystemSpec,
    life: Vec<Lifetime>,
    users: &[u32],
    opts: TwinOptions,
) -> Vec<Row> {
    let window = match opts.horizon {
        Horizon::Run => Some((spec.run.warmup_s.get(), spec.run.duration_s.get())),
        Horizon::Window(from, to) => Some((from, to)),
        Horizon::Stationary => None,
    };
    let twin = Twin::new(ServiceDemands::of(spec), life, opts, window);
    let mut means: Option<Vec<f64>> = None;
    users
        .iter()
        .map(|&n| {
            let counts = pagelab_sys::demands::users_per_class(spec, n);
            let (row, m) = twin.solve_from(&counts, means.as_deref());
            means = Some(m);
            row
        })
        .collect()
}

mod admission;
mod fit;
mod growth;
use admission::Admission;
mod holds;
mod waits;
use waits::Waits;
mod window;
use window::ScanWindow;
#[cfg(test)]
mod tests;
