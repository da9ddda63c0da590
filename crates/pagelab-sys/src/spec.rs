//! The system spec: TOML in, typed structs out.
//!
//! ```text
//!  preset.toml ──► toml::Value ──► dotted overrides (workload.users=200) ──► serde (deny_unknown_fields,
//!                                                                             serde_path_to_error)
//!                                                                          ──► SystemSpec::validate()
//! ```
//!
//! Strings become types here, once: device models, load controllers, think-time laws and
//! programs are serde-tagged enums (`kind = "vm370"`), so the engine dispatches by `match`.
//! Every error names the origin, the dotted key path and the expected form, in one line.
//! Times are given in the unit their key names (`_s`, `_ms`, `_us`, `_ns`) and converted to
//! integer nanoseconds when the system is built.

use crate::error::{one_line, SysError};
use pagelab_core::{Bytes, Frames, Ms, Secs, Us};
use serde::{Deserialize, Serialize};

/// A whole simulated system: hardware, policies and workload.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SystemSpec {
    /// What the preset is and where its numbers come from -- metadata.
    #[serde(default)]
    pub preset: PresetInfo,
    /// Which system: `vm` (the default) -- parameter.
    #[serde(default)]
    pub system: crate::kind::SystemSection,
    /// Length of the run -- parameter.
    pub run: RunSpec,
    /// Processors and supervisor costs -- parameter.
    pub cpu: CpuSpec,
    /// Pageable main storage -- parameter.
    pub memory: MemorySpec,
    /// Paging I/O policies -- parameter.
    #[serde(default)]
    pub paging: PagingSpec,
    /// Channels, named; devices attach to them -- parameter.
    #[serde(rename = "channel", default)]
    pub channels: Vec<ChannelSpec>,
    /// Paging devices -- parameter.
    #[serde(rename = "device", default)]
    pub devices: Vec<DeviceSpec>,
    /// Virtual I/O to users' minidisks -- parameter.
    #[serde(default)]
    pub vio: VioSpec,
    /// The load controller (scheduler) -- parameter.
    pub load_control: LoadControlSpec,
    /// The monitor -- parameter.
    #[serde(default)]
    pub monitor: MonitorSpec,
    /// Users and what they run -- parameter.
    pub workload: WorkloadSpec,
    /// Page swapping (with `memory.residency = "page-swapping"`) -- parameter.
    #[serde(default)]
    pub swapping: crate::page_swap::SwappingSpec,
    /// VM/SP dispatching, Q3 and CP spool pages -- parameter.
    #[serde(default)]
    pub vmsp: crate::vmsp_spec::VmspSpec,
}

/// Preset metadata.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PresetInfo {
    /// Name of the system modelled.
    #[serde(default)]
    pub name: String,
    /// `structural`, `calibrated` or `validated`.
    #[serde(default)]
    pub fidelity: String,
    /// Where the numbers come from.
    #[serde(default)]
    pub sources: Vec<String>,
    /// The preset this one extends (a file `NAME.toml` beside it), merged in before this
    /// file's keys; recorded after resolution for the report.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extends: Option<String>,
}

/// Length of a run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunSpec {
    /// Simulated time to run [s].
    pub duration_s: Secs,
    /// Initial period excluded from every statistic [s].
    #[serde(default)]
    pub warmup_s: Secs,
}

/// Processors.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CpuSpec {
    /// Processors sharing the dispatch list (the 3081D has two) [count].
    pub count: u32,
    /// Problem-state time per reference [ns].
    pub reference_ns: f64,
    /// Dispatch (minor) time slice [ms].
    pub dispatch_slice_ms: Ms,
    /// Order of the Q1 ready list (Q1 is always served before Q2).
    #[serde(default)]
    pub dispatch_order: DispatchOrder,
    /// Supervisor-state costs.
    #[serde(default)]
    pub supervisor: SupervisorSpec,
}

/// Order in which ready Q1 users are given a processor.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DispatchOrder {
    /// First come, first served.
    #[default]
    Fifo,
    /// Least CPU used in the current stay first (VM's dispatching priority, "infrequent CPU
    /// users first", fidelity notes §2.4).
    LeastCpu,
}

/// Supervisor-state CPU cost of each kind of work.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SupervisorSpec {
    /// Per page fault [µs].
    #[serde(default)]
    pub fault_us: Us,
    /// Per start I/O (paging, and virtual unless `vio_sio_us` is given) [µs].
    #[serde(default)]
    pub sio_us: Us,
    /// Per I/O interrupt (paging, and virtual unless `vio_interrupt_us` is given) [µs].
    #[serde(default)]
    pub interrupt_us: Us,
    /// Per start of a virtual machine's I/O, where it differs from a paging SIO [µs]: CP
    /// translates the virtual channel program before it starts the real one, work a paging
    /// SIO does not do [A: none of the papers gives its cost]. BARD §6 credits CP-67 with
    /// "extremely low CPU overhead per paging operation", which says nothing of virtual I/O.
    /// Default: `sio_us`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vio_sio_us: Option<Us>,
    /// Per interrupt ending a virtual machine's I/O or timer wait, reflected to it [µs]. Default:
    /// `interrupt_us`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vio_interrupt_us: Option<Us>,
    /// Per dispatch of a user [µs].
    #[serde(default)]
    pub dispatch_us: Us,
    /// Per page moved in or out of main storage [µs].
    #[serde(default)]
    pub page_moved_us: Us,
}

/// Main storage and frame management.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MemorySpec {
    /// Pageable frames (APAGES) [frames].
    pub frames: Frames,
    /// Page size [bytes].
    #[serde(default = "default_page_bytes")]
    pub page_bytes: Bytes,
    /// How a program's pages come to be resident.
    #[serde(default)]
    pub residency: ResidencyKind,
    /// Free-list target is MPL plus this [frames] (tetzlaff: MPL + 1).
    #[serde(default = "one")]
    pub free_target_extra: u32,
    /// Free-list target never below this [frames].
    #[serde(default = "one")]
    pub free_target_min: u32,
    /// Reset the reference bits of a user's pages at queue-drop (VM does).
    #[serde(default = "yes")]
    pub reset_reference_at_drop: bool,
    /// Put a dropped user's pages on the flush list at queue-drop.
    #[serde(default)]
    pub flush_at_drop: bool,
    /// Take frames from the flush list newest first (tetzlaff's LIFO flushing experiment).
    #[serde(default)]
    pub lifo_flush: bool,
    /// Frame supply: `clock` (VM's core-table scan, the default) or any online policy of the
    /// trace lab (`fifo`, `lru`, `arc`, `lirs`, `sieve`, `lfu`, `ar`, `ws`, ...) -- parameter.
    #[serde(default = "default_replacement")]
    pub replacement: String,
    /// Frames kept outside a policy's resident set, free for faults while changed victims are
    /// written (not used by `clock`) [frames]. Default 32 [A]: about the Table 2 base's MPL,
    /// which VM's free-list target (MPL + 1) follows.
    #[serde(default = "default_replacement_reserve")]
    pub replacement_reserve: Frames,
    /// A compressed page pool between SELECT and the paging devices (Linux's zswap; ours;
    /// absent: none) -- parameter.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zswap: Option<crate::zswap::ZswapSpec>,
}

fn default_replacement() -> String {
    "clock".into()
}
fn default_replacement_reserve() -> Frames {
    Frames(32)
}

/// Residency models: demand paging (this engine) or whole-process swapping (the UNIX V6
/// machine of [`crate::unix`], which has its own spec; [`crate::run_toml`] dispatches).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ResidencyKind {
    /// Pages brought in one at a time on reference (CP-67, VM/370).
    #[default]
    DemandPaging,
    /// A process runs only with its whole image in core (UNIX V6, Chanson 1982).
    WholeProcessSwapping,
    /// Working sets identified at queue-drop, logically and physically swapped in swap sets
    /// (VM/SP HPO prototypes, tetzlaff); parameters in `[swapping]`.
    PageSwapping,
}

fn default_page_bytes() -> Bytes {
    Bytes(4096)
}
fn one() -> u32 {
    1
}
fn one_f() -> f64 {
    1.0
}
fn yes() -> bool {
    true
}

/// Paging I/O policies.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PagingSpec {
    /// Where a page-out is written on a device.
    #[serde(default)]
    pub slot_allocation: SlotAllocationKind,
    /// Which device a page-out goes to.
    #[serde(default)]
    pub device_selection: DeviceSelectionKind,
    /// Chain requests queued for the cylinder being served into one SIO (tetzlaff).
    #[serde(default = "yes")]
    pub combine_same_cylinder: bool,
    /// Control-unit protocol time per SIO [ms] (tetzlaff Figure 3's part of overhead A).
    #[serde(default)]
    pub sio_overhead_ms: Ms,
    /// Round turkey: most page-outs in a row to one device [pages] (tetzlaff: eight).
    #[serde(default = "eight")]
    pub round_turkey_run: u32,
    /// Write unchanged user pages too at page-out, to a new slot at the cursor, so that they
    /// travel with the wave (tetzlaff "Writing unchanged pages").
    #[serde(default)]
    pub write_unchanged: bool,
    /// Swap readahead (Linux's `vm.page-cluster`; ours): a demand read also reads the
    /// neighbours of the faulting page in an aligned window of 2^k slots or virtual pages
    /// (`readahead`; `system/readahead.rs`). 0 (the default): the faulting page alone.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub page_cluster: u32,
    /// Which pages readahead reads: the slot neighbours (`slots`, the default) or the
    /// faulting program's virtual neighbours (`virtual`, Linux's VMA-based readahead).
    #[serde(default, skip_serializing_if = "ReadaheadKind::is_slots")]
    pub readahead: ReadaheadKind,
    /// How many of the window's pages a readahead reads: all 2^k each time (`fixed`, the
    /// default) or as many as Linux's rule gives, grown by the read-ahead pages faults found
    /// and shrunk by half at most per fault (`adaptive`: mm/swap_state.c `__swapin_nr_pages`;
    /// `system/readahead/window.rs`).
    #[serde(default, skip_serializing_if = "ReadaheadWindow::is_fixed")]
    pub readahead_window: ReadaheadWindow,
}

/// How many pages one swap readahead reads (`paging.readahead_window`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ReadaheadWindow {
    /// The whole aligned window of 2^page_cluster pages.
    #[default]
    Fixed,
    /// Linux's window sized by the hits since the last fault (`swapin_nr_pages` for slot
    /// neighbours, `swap_vma_readahead` for virtual ones).
    Adaptive,
}

impl ReadaheadWindow {
    fn is_fixed(&self) -> bool {
        *self == ReadaheadWindow::Fixed
    }
}

/// Which neighbours of a faulting page swap readahead reads (`paging.readahead`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ReadaheadKind {
    /// The other slots of the faulting slot's aligned cluster (mm/swap_state.c's cluster
    /// readahead, for rotating devices).
    #[default]
    Slots,
    /// The faulting program's other pages in the aligned window of virtual pages around the
    /// fault, wherever their slots are (Linux's VMA-based readahead).
    Virtual,
}

impl ReadaheadKind {
    fn is_slots(&self) -> bool {
        *self == ReadaheadKind::Slots
    }
}

fn eight() -> u32 {
    8
}
fn is_zero(k: &u32) -> bool {
    *k == 0
}

impl Default for PagingSpec {
    fn default() -> Self {
        PagingSpec {
            slot_allocation: SlotAllocationKind::Zigzag,
            device_selection: DeviceSelectionKind::RoundRobin,
            combine_same_cylinder: true,
            sio_overhead_ms: Ms(0.0),
            round_turkey_run: 8,
            write_unchanged: false,
            page_cluster: 0,
            readahead: ReadaheadKind::Slots,
            readahead_window: ReadaheadWindow::Fixed,
        }
    }
}

/// A channel.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChannelSpec {
    /// Name devices refer to.
    pub name: String,
}

/// A paging device (one actuator or drum).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeviceSpec {
    /// Name (with `count > 1`, suffixed `-0`, `-1`, ...).
    pub name: String,
    /// Device model from the catalogue (`docs/reference/devices.csv`).
    pub model: DeviceModel,
    /// Name of the channel the device is attached to.
    pub channel: String,
    /// Identical devices on this channel [count].
    #[serde(default = "one")]
    pub count: u32,
    /// First and last cylinder of the paging area (default: the whole volume).
    #[serde(default)]
    pub paging_cylinders: Option<[u32; 2]>,
    /// The area is a swap area: it takes whole swap sets only, ordinary page-outs go elsewhere
    /// (tetzlaff "Contiguous page datasets").
    #[serde(default)]
    pub swap_area: bool,
    /// Channel programs the device serves at once: a fixed-head device's exposures (the 2305
    /// has eight per module; `device/exposures.rs`); 1 (the default) is one at a time [A].
    #[serde(default = "one")]
    pub exposures: u32,
}

/// Virtual I/O to minidisks: a device service that blocks the user.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VioSpec {
    /// Minidisk devices, each a FCFS server; user `u` uses device `u mod devices` [count].
    #[serde(default = "one")]
    pub devices: u32,
    /// Mean service time of one virtual I/O [ms].
    #[serde(default = "default_vio_ms")]
    pub service_ms: Ms,
    /// Exponential (`true`) or fixed service time.
    #[serde(default = "yes")]
    pub exponential: bool,
}

fn default_vio_ms() -> Ms {
    Ms(25.0)
}

impl Default for VioSpec {
    fn default() -> Self {
        VioSpec {
            devices: 1,
            service_ms: default_vio_ms(),
            exponential: true,
        }
    }
}

/// The monitor.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MonitorSpec {
    /// Sampling interval [s].
    #[serde(default = "default_interval")]
    pub interval_s: Secs,
    /// End an interval early after this many core-table scan cycles (bard §5: "30 seconds or
    /// 10 cycles, whichever came first"); absent: by time only.
    #[serde(default)]
    pub cycles: Option<u64>,
    /// Which interruptions eq. 4's n_j counts (bard §5) -- parameter.
    #[serde(default)]
    pub essential: crate::survival::Essential,
}

fn default_interval() -> Secs {
    Secs(60.0)
}

impl Default for MonitorSpec {
    fn default() -> Self {
        MonitorSpec {
            interval_s: default_interval(),
            cycles: None,
            essential: crate::survival::Essential::default(),
        }
    }
}

/// Users and what they run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkloadSpec {
    /// Logged-on users [count].
    pub users: u32,
    /// Pages of the shared segment (CMS nucleus), owned by no user [pages].
    #[serde(default)]
    pub shared_pages: u32,
    /// User classes; users are dealt to classes by `fraction`.
    #[serde(rename = "class")]
    pub classes: Vec<ClassSpec>,
    /// Guest operating systems, each one virtual machine after the users ([`crate::guest`]).
    #[serde(rename = "guest", default, skip_serializing_if = "Vec::is_empty")]
    pub guests: Vec<crate::spec::guest::GuestSpec>,
}

/// A class of users.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClassSpec {
    /// Name in the reports.
    pub name: String,
    /// Share of the users in this class [fraction, a weight among the classes without
    /// `users`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fraction: Option<f64>,
    /// A fixed number of users in this class (its `fraction` is then not used); the classes
    /// without one share the rest of `workload.users` by their fractions. Bard §11's workloads
    /// differ in how many compute-bound programs they have, a count fitted per workload.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub users: Option<u32>,
    /// Think time between transactions.
    pub think: ThinkSpec,
    /// Order in which commands are taken from the script.
    #[serde(default)]
    pub order: ScriptOrder,
    /// The script: one command per transaction.
    pub commands: Vec<CommandSpec>,
    /// What the user's program references.
    pub program: ProgramSpec,
    /// A terminal-driver session: released in turn, the script once, then sign-off.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<crate::spec::guest::SessionSpec>,
}

/// Think-time laws.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum ThinkSpec {
    /// Exponential with mean `mean_s` [s].
    Exponential {
        /// Mean [s].
        mean_s: f64,
    },
    /// Always `s` [s] (0 for a long-running user).
    Fixed {
        /// Think time [s].
        s: f64,
    },
    /// The listed times in turn, cycled [s].
    Scripted {
        /// Think times [s].
        s: Vec<f64>,
    },
}

/// How commands are taken from the script.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ScriptOrder {
    /// Drawn at random by weight.
    #[default]
    Random,
    /// In order, cycled.
    Cycle,
}

/// A command: one transaction's demand.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CommandSpec {
    /// Name in the reports.
    pub name: String,
    /// Relative weight in random order.
    #[serde(default = "one_f")]
    pub weight: f64,
    /// Mean CPU demand (problem state) [ms].
    pub cpu_ms: f64,
    /// Exponentially distributed demand (`true`) or fixed.
    #[serde(default = "yes")]
    pub exponential: bool,
    /// Virtual I/Os, spread evenly over the CPU demand [count].
    #[serde(default)]
    pub vio: u32,
    /// Terminal writes inside the transaction (each a potential false queue-drop) [count].
    #[serde(default)]
    pub console_writes: u32,
    /// Duration of one terminal write [ms].
    #[serde(default)]
    pub console_write_ms: f64,
    /// Share of the user's working set the command references [fraction].
    #[serde(default = "one_f")]
    pub set_fraction: f64,
}

/// Reference behaviour of a user's program.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum ProgramSpec {
    /// CMS-like: a per-user page set repeated across transactions with tunable overlap.
    Cms(LocalitySpec),
    /// Long-running: a larger working set drifting phase by phase.
    Drifting(LocalitySpec),
    /// A captured reference string.
    Trace(TraceProgramSpec),
}

/// Parameters of the locality model (see [`crate::workload`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LocalitySpec {
    /// Pages of the user's working set [pages].
    pub set_pages: u32,
    /// Private address space the set is drawn from [pages].
    pub address_pages: u32,
    /// Fraction of the set kept from one transaction to the next [fraction].
    #[serde(default = "one_f")]
    pub overlap: f64,
    /// Fraction of the set replaced at each phase change [fraction].
    #[serde(default)]
    pub drift: f64,
    /// Probability that a transaction runs its phases in the previous transaction's
    /// localities (the same windows of the set, in the same order), so that consecutive
    /// queue-stays reference the same pages but for the set's replaced share; 0: each phase
    /// draws its window afresh [probability].
    #[serde(default)]
    pub repeat: f64,
    /// Pages of one locality within the set [pages].
    pub locality_pages: u32,
    /// Runs before the locality moves [runs].
    pub runs_per_phase: u32,
    /// Mean references per run [references].
    pub refs_per_run: f64,
    /// Fraction of runs that write [fraction].
    #[serde(default)]
    pub write_fraction: f64,
    /// Fraction of runs to the shared segment [fraction].
    #[serde(default)]
    pub shared_fraction: f64,
}

/// A trace-driven program.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TraceProgramSpec {
    /// The trace file.
    pub path: String,
    /// Start again at the end of the trace.
    #[serde(default = "yes")]
    pub repeat: bool,
}

impl SystemSpec {
    /// Resolved device list: one entry per actuator, with `count` expanded.
    pub fn actuators(&self) -> Vec<(String, &DeviceSpec)> {
        let mut out = Vec::new();
        for d in &self.devices {
            if d.count == 1 {
                out.push((d.name.clone(), d));
            } else {
                for k in 0..d.count {
                    out.push((format!("{}-{k}", d.name), d));
                }
            }
        }
        out
    }
}

pub mod blame;
pub mod bounds;
mod checks;
pub mod guest;
mod loading;

pub use crate::device::{DeviceModel, DeviceSelectionKind, SlotAllocationKind};
pub use crate::load_control::spec::{LoadControlSpec, ProjectionKind, StorageTestSpec};
pub use loading::{apply_override, load_spec};
pub(crate) use loading::{toml_with_overrides, typed};

#[cfg(test)]
mod extends_tests;
