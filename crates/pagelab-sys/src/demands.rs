//! The service demands a spec sets up, read by the code that builds the machine: what an
//! analytic model of the system needs (devices, processors, think times, transaction demands,
//! supervisor costs, the load controller's admission rule), so that a queueing model of a preset
//! and its simulation share one source of truth.
//!
//! Users are dealt to classes by [`crate::system`]'s own rule, a paging device's time per page
//! comes from the catalogue's geometry ([`crate::device::Geometry::of`]), and the supervisor's
//! costs are the spec's. What the simulator decides at run time (which page faults, how long a
//! queue is) is left to the model: this module only reads what the spec fixes.

use crate::device::Geometry;
use crate::load_control::spec::LoadControlSpec;
use crate::load_control::{LoadControl, LoadController};
use crate::spec::{ProgramSpec, SystemSpec, ThinkSpec};
use serde::Serialize;

/// One paging actuator as the machine is built with it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PagingDemand {
    /// Actuator name (`name-k` where a device entry has a count).
    pub name: String,
    /// Index of its channel.
    pub channel: usize,
    /// Mean time of a one-page SIO: control-unit time, mean seek over random cylinder
    /// pairs, half a rotation, one page's transfer [s].
    pub page_s: f64,
    /// One page's transfer, the channel's share of a page [s].
    pub transfer_s: f64,
    /// One revolution [s].
    pub rotation_s: f64,
    /// A head per track (a drum, a 2305): every queued page is chained into the next SIO and
    /// served in rotational order.
    pub fixed_head: bool,
    /// A revolution's share per record position, the time per page of a long chained SIO
    /// on a fixed-head device [s].
    pub record_s: f64,
}

/// One command of a class's script.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CommandDemand {
    /// Command name.
    pub name: String,
    /// Probability a transaction is this command [1] (the weights normalised; cyclic order
    /// takes each command once a cycle).
    pub probability: f64,
    /// Mean CPU demand in problem state [s].
    pub cpu_s: f64,
    /// Exponentially distributed demand (else fixed).
    pub exponential: bool,
    /// Virtual I/Os [count].
    pub vio: u32,
    /// Terminal writes [count] and one write's duration [s].
    pub console_writes: u32,
    /// Duration of one terminal write [s].
    pub console_write_s: f64,
    /// Share of the working set referenced [fraction].
    pub set_fraction: f64,
}

/// One class of users.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ClassDemand {
    /// Class name.
    pub name: String,
    /// Users dealt to the class [count].
    pub users: u32,
    /// Mean think time [s].
    pub think_s: f64,
    /// The script.
    pub commands: Vec<CommandDemand>,
    /// The program's locality model (`None` for a trace program).
    pub locality: Option<crate::spec::LocalitySpec>,
    /// The trace file of a trace program.
    pub trace: Option<String>,
}

/// Supervisor costs [s].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SupervisorDemand {
    /// Per fault.
    pub fault_s: f64,
    /// Per paging SIO.
    pub sio_s: f64,
    /// Per paging I/O interrupt.
    pub interrupt_s: f64,
    /// Per dispatch.
    pub dispatch_s: f64,
    /// Per page moved.
    pub page_s: f64,
    /// Per virtual I/O (its SIO and interrupt).
    pub vio_s: f64,
}

/// Everything a queueing model of a VM-family spec needs from it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ServiceDemands {
    /// Processors [count].
    pub cpus: u32,
    /// Problem-state time of one reference [s].
    pub reference_s: f64,
    /// The minor time slice: a burst longer than this goes to the back of the ready list [s].
    pub dispatch_slice_s: f64,
    /// Page frames [frames].
    pub frames: u32,
    /// Shared-segment pages [pages].
    pub shared_pages: u32,
    /// Free frames kept beyond the multiprogramming level [frames].
    pub free_target_extra: u32,
    /// Paging actuators.
    pub paging: Vec<PagingDemand>,
    /// Channels [count].
    pub channels: usize,
    /// Minidisk actuators [count] and one VIO's mean service [s].
    pub vio_devices: u32,
    /// One VIO's mean service [s].
    pub vio_s: f64,
    /// Supervisor costs.
    pub supervisor: SupervisorDemand,
    /// The load controller's kind (`vm370`, `cp67`, `psi`).
    pub load_control: String,
    /// Storage-test overcommitment for interactive stays [1] (1 without one).
    pub overcommit: f64,
    /// CP-67's desirable paging rate: users are admitted while the page reads per second stay
    /// under it (`load_control.desirable_rate`) [1/s].
    pub desirable_rate: Option<f64>,
    /// CP-67's scheduler, whose storage estimate the twin applies to its stays.
    pub cp67: Option<crate::load_control::cp67_scheduler::Cp67Spec>,
    /// Projected working set of a user never dropped [pages].
    pub initial_ws_pages: f64,
    /// In-queue CPU slices of a first (Q1) and of each later (Q2) stay [s]: a transaction
    /// longer than the first is dropped and admitted again, a stay per slice.
    pub slices_s: [f64; 2],
    /// The load controller drops a user at each intra-transaction terminal write and
    /// readmits it to Q1 when the write completes (TETZ's "false" queue-drops).
    pub false_drops: bool,
    /// The classes, with users dealt as the simulator deals them.
    pub classes: Vec<ClassDemand>,
}

/// Mean seek over uniformly random start and end cylinders [ns] (the catalogue's average by
/// construction, `device/geometry.rs`): Σ over distances of P(d)·seek(d).
fn mean_seek_ns(g: &Geometry) -> f64 {
    let c = g.cylinders;
    if c < 2 {
        return 0.0;
    }
    let n = f64::from(c);
    // P(|U − V| = d) for U, V uniform on 0..c: 1/c for d = 0, 2(c − d)/c² otherwise.
    (1..c)
        .map(|d| 2.0 * (n - f64::from(d)) / (n * n) * g.seek.seek_ns(d, c) as f64)
        .sum()
}

fn think_mean(t: &ThinkSpec) -> f64 {
    match t {
        ThinkSpec::Exponential { mean_s } => *mean_s,
        ThinkSpec::Fixed { s } => *s,
        ThinkSpec::Scripted { s } => s.iter().sum::<f64>() / s.len().max(1) as f64,
    }
}

impl ServiceDemands {
    /// The demands of `spec`, its users dealt to classes by the simulator's rule.
    pub fn of(spec: &SystemSpec) -> ServiceDemands {
        let page_bytes = spec.memory.page_bytes.get();
        let overhead = spec.paging.sio_overhead_ms.ns() as f64;
        let paging = spec
            .actuators()
            .into_iter()
            .map(|(name, d)| {
                let g = Geometry::of(d.model, page_bytes);
                let ns = overhead
                    + mean_seek_ns(&g)
                    + g.rotation_ns as f64 / 2.0
                    + g.page_transfer_ns as f64;
                PagingDemand {
                    name,
                    channel: spec
                        .channels
                        .iter()
                        .position(|c| c.name == d.channel)
                        .unwrap_or(0),
                    page_s: ns * 1e-9,
                    transfer_s: g.page_transfer_ns as f64 * 1e-9,
                    rotation_s: g.rotation_ns as f64 * 1e-9,
                    fixed_head: g.cylinders == 1,
                    record_s: g.rotation_ns as f64 * 1e-9 / g.pages_per_track.max(1.0),
                }
            })
            .collect();
        let s = &spec.cpu.supervisor;
        let sec = |ns: u64| ns as f64 * 1e-9;
        let vio_io = s.vio_sio_us.unwrap_or(s.sio_us).ns()
            + s.vio_interrupt_us.unwrap_or(s.interrupt_us).ns();
        let (overcommit, initial, slices_s) = match &spec.load_control {
            LoadControlSpec::Vm370(p) => (
                p.q1_overcommit,
                p.initial_ws_pages,
                [p.q1_slice_s, p.q2_slice_s],
            ),
            LoadControlSpec::Cp67(p) => (1.0, p.initial_ws_pages, [p.q1_slice_s, p.q2_slice_s]),
            LoadControlSpec::Psi(p) => (1.0, 0.0, [p.q1_slice_s, p.q2_slice_s]),
        };
        ServiceDemands {
            cpus: spec.cpu.count,
            reference_s: spec.cpu.reference_ns * 1e-9,
            // As the dispatcher builds it (`system/dispatcher.rs`): at least a nanosecond.
            dispatch_slice_s: spec.cpu.dispatch_slice_ms.ns().max(1) as f64 * 1e-9,
            frames: spec.memory.frames.get(),
            shared_pages: spec.workload.shared_pages,
            free_target_extra: spec.memory.free_target_extra,
            paging,
            channels: spec.channels.len().max(1),
            vio_devices: spec.vio.devices,
            vio_s: spec.vio.service_ms.get() * 1e-3,
            supervisor: SupervisorDemand {
                fault_s: sec(s.fault_us.ns()),
                sio_s: sec(s.sio_us.ns()),
                interrupt_s: sec(s.interrupt_us.ns()),
                dispatch_s: sec(s.dispatch_us.ns()),
                page_s: sec(s.page_moved_us.ns()),
                vio_s: sec(vio_io),
            },
            load_control: load_control_name(&spec.load_control).into(),
            overcommit,
            desirable_rate: match &spec.load_control {
                LoadControlSpec::Cp67(p) => Some(p.desirable_rate),
                _ => None,
            },
            cp67: match &spec.load_control {
                LoadControlSpec::Cp67(p) => Some(p.clone()),
                _ => None,
            },
            initial_ws_pages: initial,
            slices_s,
            false_drops: !LoadController::build(&spec.load_control).eliminates_false_drops(),
            classes: classes(spec),
        }
    }
}

/// Users per class when `workload.users` is `users`, dealt by the simulator's rule.
pub fn users_per_class(spec: &SystemSpec, users: u32) -> Vec<u32> {
    let mut s = spec.clone();
    s.workload.users = users;
    crate::systems::vm::deal_users(&s)
}

fn load_control_name(lc: &LoadControlSpec) -> &'static str {
    match lc {
        LoadControlSpec::Vm370(_) => "vm370",
        LoadControlSpec::Cp67(_) => "cp67",
        LoadControlSpec::Psi(_) => "psi",
    }
}

fn classes(spec: &SystemSpec) -> Vec<ClassDemand> {
    let counts = crate::systems::vm::deal_users(spec);
    spec.workload
        .classes
        .iter()
        .zip(counts)
        .map(|(c, users)| {
            let total: f64 = c.commands.iter().map(|k| k.weight).sum();
            let n = c.commands.len().max(1) as f64;
            let commands = c
                .commands
                .iter()
                .map(|k| CommandDemand {
                    name: k.name.clone(),
                    probability: match c.order {
                        crate::spec::ScriptOrder::Random if total > 0.0 => k.weight / total,
                        _ => 1.0 / n,
                    },
                    cpu_s: k.cpu_ms * 1e-3,
                    exponential: k.exponential,
                    vio: k.vio,
                    console_writes: k.console_writes,
                    console_write_s: k.console_write_ms * 1e-3,
                    set_fraction: k.set_fraction,
                })
                .collect();
            let (locality, trace) = match &c.program {
                ProgramSpec::Cms(l) | ProgramSpec::Drifting(l) => (Some(l.clone()), None),
                ProgramSpec::Trace(t) => (None, Some(t.path.clone())),
            };
            ClassDemand {
                name: c.name.clone(),
                users,
                think_s: think_mean(&c.think),
                commands,
                locality,
                trace,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_drum_page_is_half_a_rotation_and_a_transfer_and_users_are_dealt_as_built() {
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../presets/cp67.toml"
        ))
        .unwrap();
        let spec = crate::load_spec(&text, "cp67.toml", &[]).unwrap();
        let d = ServiceDemands::of(&spec);
        // 2301: 17.5 ms a rotation, 4096 B at 1.2 MB/s.
        let p = &d.paging[0];
        assert!(
            (p.page_s - (8.75e-3 + 4096.0 / 1.2e6)).abs() < 1e-6,
            "{p:?}"
        );
        assert_eq!(d.paging.len(), 3);
        assert_eq!(d.classes.iter().map(|c| c.users).sum::<u32>(), 40);
        assert_eq!((d.classes[0].users, d.classes[1].users), (36, 4));
        assert!((d.classes[0].commands[1].probability - 0.3).abs() < 1e-12);
    }

    #[test]
    fn the_mean_seek_is_the_catalogue_average() {
        let g = Geometry::of(crate::device::DeviceModel::Ibm3380, 4096);
        assert!((mean_seek_ns(&g) / 16e6 - 1.0).abs() < 0.02);
    }
}
