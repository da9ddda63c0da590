//! The machine's users and processors: a user's state, program and reference runs, its
//! transaction and in-queue stay; a processor's burst; the report classes.

use super::*;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum UState {
    Thinking,
    Eligible,
    Ready,
    Running,
    PageWait,
    FrameWait,
    VioWait,
    ConsoleWait,
}

/// How many states a user can be in ([`UState`] as an index).
pub(super) const N_USTATES: usize = UState::ConsoleWait as usize + 1;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Outcome {
    /// The budget was spent.
    Spent,
    /// A reference to a page not valid in storage (system page number).
    Fault(u32),
}

#[derive(Clone, Copy, Debug)]
pub(super) struct Cpu {
    pub(super) user: u32,
    pub(super) busy: bool,
    pub(super) outcome: Outcome,
    pub(super) elapsed_ns: u64,
    /// When the burst in progress ends (bursts are kept out of the event queue so that one
    /// processor's burst never cuts another's short).
    pub(super) burst_end: Tick,
}

impl Cpu {
    /// A processor with nothing to run.
    pub(super) fn idle() -> Cpu {
        Cpu {
            user: NONE,
            busy: false,
            outcome: Outcome::Spent,
            elapsed_ns: 0,
            burst_end: Tick::NEVER,
        }
    }
}

/// Interruption at the end of a CPU segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Boundary {
    Vio,
    Console,
}

pub(super) struct User {
    pub(super) class: u16,
    pub(super) state: UState,
    pub(super) queue: Option<Queue>,
    pub(super) wants: Queue,
    pub(super) program: Program,
    pub(super) runs: Vec<Run>,
    pub(super) pos: usize,
    pub(super) left: u32,
    pub(super) carry_ps: u64,
    pub(super) cont: bool,
    pub(super) fault_page: u32,
    // Transaction in progress.
    pub(super) txn_start: Tick,
    pub(super) seg_ns: u64,
    pub(super) seg_left_ns: u64,
    pub(super) boundaries: Vec<Boundary>,
    pub(super) next_boundary: usize,
    pub(super) console_ms: f64,
    pub(super) went_q2: bool,
    pub(super) n_txn: u64,
    /// The transaction's time so far by the state it was spent in [ns], and when the present
    /// state began: where a response time goes (the `q1_*_s` metrics).
    pub(super) split_ns: [u64; N_USTATES],
    pub(super) since: Tick,
    // In-queue stay.
    pub(super) stay_cpu_ns: u64,
    pub(super) minor_left_ns: u64,
    pub(super) proj: Projection,
    pub(super) admitted_p: f64,
    pub(super) stay: StayStats,
    pub(super) rng: Rng,
    // Totals after warm-up.
    pub(super) t_txn: u64,
    pub(super) t_resp: f64,
    pub(super) t_cpu_ns: u64,
    pub(super) t_faults: u64,
    pub(super) t_reads: u64,
    pub(super) t_vios: u64,
    pub(super) t_drops: u64,
}

impl User {
    /// The program's next batch of reference runs; an ended program idles at its last page for
    /// the rest of the demand (an exhausted trace without `repeat`).
    pub(super) fn refill_runs(&mut self, opener: Option<&TraceOpener>) -> Result<(), SysError> {
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

    /// Enters state `s` at `now`, charging the time since the last change to the state left.
    pub(super) fn enter(&mut self, s: UState, now: Tick) {
        self.charge(now);
        self.state = s;
    }

    /// Charges the time since the last change to the present state.
    pub(super) fn charge(&mut self, now: Tick) {
        self.split_ns[self.state as usize] += now.saturating_sub(self.since).0;
        self.since = self.since.max(now);
    }

    /// A think has ended at `now`: the next command of class `cl`'s script (in turn, or drawn
    /// by its weights), its CPU demand, its VIOs and terminal writes spread evenly over it, and
    /// the transaction's books started; the user wants Q1.
    pub(super) fn begin_transaction(&mut self, cl: &ClassRt, now: Tick) {
        let cmd_i = match cl.spec.order {
            ScriptOrder::Cycle => (self.n_txn % cl.spec.commands.len() as u64) as usize,
            ScriptOrder::Random => {
                let total = *cl.cum_weight.last().unwrap_or(&1.0);
                let x = self.rng.gen::<f64>() * total;
                cl.cum_weight
                    .iter()
                    .position(|&w| x < w)
                    .unwrap_or(cl.cum_weight.len() - 1)
            }
        };
        let cmd = &cl.spec.commands[cmd_i];
        let demand_ms = if cmd.exponential {
            exponential(&mut self.rng, cmd.cpu_ms)
        } else {
            cmd.cpu_ms
        };
        let demand_ns = ((demand_ms * 1e6).round() as u64).max(1);
        let (v, w) = (cmd.vio as usize, cmd.console_writes as usize);
        self.boundaries.clear();
        // Spread terminal writes evenly among the VIOs (Bresenham).
        for k in 0..(v + w) {
            let console = (k + 1) * w / (v + w) > k * w / (v + w);
            self.boundaries.push(if console {
                Boundary::Console
            } else {
                Boundary::Vio
            });
        }
        self.next_boundary = 0;
        self.seg_ns = (demand_ns / (v + w + 1) as u64).max(1);
        self.seg_left_ns = self.seg_ns;
        self.console_ms = cmd.console_write_ms;
        self.went_q2 = false;
        self.txn_start = now;
        self.split_ns = [0; N_USTATES];
        self.since = now;
        self.start_transaction(cmd.set_fraction);
        self.wants = Queue::Q1;
    }

    /// A transaction begins with `fraction` of the working set in play. Runs a locality model
    /// drew ahead belong to the last transaction's localities and are dropped, so this one
    /// starts in its own (TETZ "Working set considerations": the set spans transactions, the
    /// localities within one are the transaction's); a trace or a guest continues.
    pub(super) fn start_transaction(&mut self, fraction: f64) {
        if self.program.on_transaction_start(fraction) {
            self.runs.clear();
            self.pos = 0;
        }
    }

    pub(super) fn new(class: u16, program: Program, lc: &LoadController, rng: Rng) -> User {
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
            split_ns: [0; N_USTATES],
            since: Tick::ZERO,
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

pub(super) struct ClassRt {
    pub(super) spec: ClassSpec,
    pub(super) users: u32,
    pub(super) cum_weight: Vec<f64>,
    pub(super) resp: Vec<f64>,
    pub(super) resp_trivial: Vec<f64>,
    pub(super) resp_nontrivial: Vec<f64>,
    pub(super) think_sum: f64,
    pub(super) thinks: u64,
    pub(super) trivial: u64,
}

impl ClassRt {
    /// Class `spec` with `users` users, its books empty; commands are drawn by their weights.
    pub(super) fn new(spec: ClassSpec, users: u32) -> ClassRt {
        let mut acc = 0.0;
        let cum_weight = spec
            .commands
            .iter()
            .map(|cmd| {
                acc += cmd.weight;
                acc
            })
            .collect();
        ClassRt {
            spec,
            users,
            cum_weight,
            resp: Vec::new(),
            resp_trivial: Vec::new(),
            resp_nontrivial: Vec::new(),
            think_sum: 0.0,
            thinks: 0,
            trivial: 0,
        }
    }

    /// A guest virtual machine's report class: one user, no script.
    pub(super) fn guest(g: &crate::spec::guest::GuestSpec) -> ClassRt {
        let spec = ClassSpec {
            name: g.name.clone(),
            fraction: Some(0.0),
            users: None,
            think: crate::spec::ThinkSpec::Fixed { s: 0.0 },
            order: ScriptOrder::Cycle,
            commands: Vec::new(),
            program: ProgramSpec::Cms(crate::spec::LocalitySpec {
                set_pages: g.nucleus.pages,
                address_pages: g.nucleus.pages,
                overlap: 1.0,
                drift: 0.0,
                repeat: 0.0,
                locality_pages: g.nucleus.pages,
                runs_per_phase: 1,
                refs_per_run: g.nucleus.refs_per_run,
                write_fraction: g.nucleus.write_fraction,
                shared_fraction: 0.0,
            }),
            session: None,
        };
        ClassRt::new(spec, 1)
    }
}

/// Adds a trivial transaction's time by state to the monitor's counters [s].
pub(super) fn add_trivial_split(c: &mut Counters, split: &[u64; N_USTATES]) {
    let s = |st: UState| split[st as usize] as f64 / 1e9;
    c.trivial_eligible_s += s(UState::Eligible);
    c.trivial_ready_s += s(UState::Ready);
    c.trivial_running_s += s(UState::Running);
    c.trivial_page_wait_s += s(UState::PageWait);
    c.trivial_frame_wait_s += s(UState::FrameWait);
    c.trivial_vio_wait_s += s(UState::VioWait);
    c.trivial_console_s += s(UState::ConsoleWait);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::locality::LocalityModel;
    use crate::spec::LocalitySpec;
    use pagelab_core::RngStreams;
    use std::collections::BTreeSet;

    #[test]
    fn a_transaction_starts_in_its_own_localities() {
        let p = LocalitySpec {
            set_pages: 40,
            address_pages: 200,
            overlap: 1.0,
            drift: 0.0,
            repeat: 0.0,
            locality_pages: 10,
            runs_per_phase: 50,
            refs_per_run: 100.0,
            write_fraction: 0.0,
            shared_fraction: 0.0,
        };
        let streams = RngStreams::new(9);
        let model = LocalityModel::new(&p, 0, streams.stream("p", 0));
        let lc = crate::load_control::tests::vm();
        let mut u = User::new(
            0,
            Program::Locality(Box::new(model)),
            &lc,
            streams.stream("u", 0),
        );
        // A whole-set transaction draws a batch ahead and consumes a few runs of it.
        u.start_transaction(1.0);
        u.refill_runs(None).unwrap();
        u.pos = 3;
        let share: BTreeSet<u32> = match &u.program {
            Program::Locality(m) => m.set()[..10].iter().copied().collect(),
            _ => unreachable!(),
        };
        // The next transaction uses a quarter of the set: every run it is given lies there.
        u.start_transaction(0.25);
        let mut seen = BTreeSet::new();
        for _ in 0..1000 {
            if u.pos >= u.runs.len() {
                u.refill_runs(None).unwrap();
            }
            seen.insert(u.runs[u.pos].page);
            u.pos += 1;
        }
        assert!(seen.is_subset(&share), "{seen:?} outside {share:?}");
    }
}
