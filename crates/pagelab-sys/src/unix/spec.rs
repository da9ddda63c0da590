//! The UNIX V6 machine spec: TOML in, typed structs out, through the same override and error
//! machinery as [`crate::spec`] (`origin: key.path: what was expected`, one line).
//!
//! The sections follow the component tree: `[machine]` (core, clock, costs), `[memory]`
//! (residency, the swappable core MM), `[swapper]`, `[scheduler]`, `[disk]` (the RK11 and its
//! RK05 drives), `[terminal]`, `[workload]` (Chanson's prototype process: PN, PS, PC) and
//! `[monitor]`. Numbers and their sources are in `presets/unix-v6.toml` and
//! `docs/presets/unix-v6.md`.

use crate::error::SysError;
use crate::spec::{PresetInfo, ResidencyKind, RunSpec};
use pagelab_core::{Ms, Secs, Us};
use serde::{Deserialize, Serialize};

/// A UNIX V6 machine and its workload.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UnixSpec {
    /// What the preset is and where its numbers come from -- metadata.
    #[serde(default)]
    pub preset: PresetInfo,
    /// Which system: must be `unix` -- parameter.
    #[serde(default = "crate::kind::SystemSection::unix")]
    pub system: crate::kind::SystemSection,
    /// Length of the run -- parameter.
    pub run: RunSpec,
    /// The processor and clock -- parameter.
    pub machine: MachineSpec,
    /// Main storage -- parameter.
    pub memory: UnixMemorySpec,
    /// The swapper's thresholds and swap area -- parameter.
    #[serde(default)]
    pub swapper: SwapperSpec,
    /// CPU scheduling constants -- parameter.
    #[serde(default)]
    pub scheduler: SchedulerSpec,
    /// The disk controller and drives -- parameter.
    pub disk: DiskSpec,
    /// Terminals -- parameter.
    #[serde(default)]
    pub terminal: TerminalSpec,
    /// The synthetic prototype processes -- parameter.
    pub workload: PrototypeSpec,
    /// The block buffer cache (bio.c) -- parameter.
    #[serde(default)]
    pub buffers: BuffersSpec,
    /// The system's own processes: init, update, getty, the console shell -- parameter.
    #[serde(default)]
    pub system_processes: SystemProcessesSpec,
    /// Login load control (an `/etc/init` that refuses logins while the system is slow;
    /// Chanson §4.3); absent: no logins after the start -- parameter.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub login: Option<LoginSpec>,
    /// Monitor interval -- parameter.
    #[serde(default)]
    pub monitor: crate::spec::MonitorSpec,
}

/// Login load control: a new prototype process tries to log in every `arrival_s`; it is
/// admitted while the mean reaction time measured over the last `window_s` is at most
/// `threshold_ms` and fewer than `max_processes` exist.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LoginSpec {
    /// Time between login attempts [s].
    pub arrival_s: Secs,
    /// Reaction-time threshold above which logins are refused [ms].
    pub threshold_ms: Ms,
    /// Window over which reaction time is measured [s].
    pub window_s: Secs,
    /// Process-table limit for logins (NPROC 50 less the swapper) [processes].
    #[serde(default = "max_procs")]
    pub max_processes: u32,
    /// A fitted reaction-time model consulted before admitting (Chanson §4, applications 2
    /// and 3 together); absent: the measured reaction time alone decides, as §4.3 states.
    #[serde(default)]
    pub model: Option<LoginModel>,
}

/// A per-PC regression line RT = intercept + slope × PCTRMM (Chanson §4, eq. 1 is 588 and
/// −16.9). A login is refused when the line predicts more than the threshold with the new
/// process counted, so that one admission cannot lift the system over it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LoginModel {
    /// Reaction time at PCTRMM = 0 [ms].
    pub intercept_ms: f64,
    /// Change of reaction time per point of PCTRMM [ms/%].
    pub slope_ms: f64,
}

fn max_procs() -> u32 {
    49
}

/// The processor and clock.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MachineSpec {
    /// Clock interrupts per second (V6 `HZ`) [1/s].
    pub clock_hz: u32,
    /// CPU time of one context switch (`swtch`) [µs].
    #[serde(default)]
    pub switch_us: Us,
    /// CPU time of one system call or interrupt handled for a process [µs].
    #[serde(default)]
    pub syscall_us: Us,
    /// CPU time of one clock interrupt (`clock`, every tick) [µs].
    #[serde(default)]
    pub clock_intr_us: Us,
    /// CPU time of one disk interrupt (`rkintr`, `iodone`, `rkstart`) [µs].
    #[serde(default)]
    pub disk_intr_us: Us,
    /// CPU time of one terminal character interrupt (`klxint`/`klrint`, `ttstart`) [µs].
    #[serde(default)]
    pub tty_intr_us: Us,
    /// CPU time of one buffer-cache access in a `read`/`write`: `getblk`, `iomove` of 512 bytes [µs].
    #[serde(default)]
    pub bio_us: Us,
}

/// Main storage of a swapping machine.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UnixMemorySpec {
    /// Must be `whole-process-swapping`.
    pub residency: ResidencyKind,
    /// Swappable main storage, Chanson's MM (the `coremap`) [clicks of 64 bytes].
    pub core_clicks: u32,
    /// Bytes per click [bytes].
    #[serde(default = "click_bytes")]
    pub click_bytes: u32,
}

fn click_bytes() -> u32 {
    64
}

/// The swapper's rules and swap area.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SwapperSpec {
    /// A deserving swap-out needs the candidate out at least this (`n >= 3`) [s].
    #[serde(default = "three")]
    pub out_min_s: u8,
    /// A deserving victim must have been in core at least this (`p_time >= 2`) [s].
    #[serde(default = "two")]
    pub in_min_s: u8,
    /// First block of the swap area on its drive (`swplo`) [512-B blocks].
    #[serde(default = "swplo")]
    pub swap_base: u32,
    /// Size of the swap area (`nswap`) [512-B blocks].
    #[serde(default = "nswap")]
    pub swap_blocks: u32,
    /// Drive holding the swap area [index].
    #[serde(default)]
    pub swap_drive: u32,
    /// `sched`'s easy core also takes a process asleep in a block access of its own. V6's
    /// `slp.c` takes only low-priority sleepers (`SWAIT`) and stopped processes (false, the
    /// default); CHANSON §3.1 describes his system's swapper as one that "initially looks for
    /// blocked processes to swap out" so that a process doing I/O is "quite likely" swapped
    /// out "before the I/O is completed" (true) [A].
    #[serde(default)]
    pub easy_includes_io: bool,
}

fn three() -> u8 {
    3
}
fn two() -> u8 {
    2
}
fn swplo() -> u32 {
    4000
}
fn nswap() -> u32 {
    872
}

impl Default for SwapperSpec {
    /// V6 `sched` thresholds and the V6 default swap area (fidelity-notes §1.1-1.2).
    fn default() -> Self {
        SwapperSpec {
            out_min_s: 3,
            in_min_s: 2,
            swap_base: 4000,
            swap_blocks: 872,
            swap_drive: 0,
            easy_includes_io: false,
        }
    }
}

/// V6 CPU scheduling constants (fidelity-notes §1.1, §1.5).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SchedulerSpec {
    /// Base user priority (`PUSER`).
    #[serde(default = "puser")]
    pub puser: i32,
    /// Per-second decay of `p_cpu` (`SCHMAG`) [ticks].
    #[serde(default = "schmag")]
    pub schmag: u32,
    /// A forced reschedule every this many seconds (`runrun++` every 4th second) [s].
    #[serde(default = "four")]
    pub forced_switch_s: u32,
    /// Reaction time is measured for wake-ups from sleeps at this priority or above
    /// (numerically; `TTIPRI` = 10: terminal input or lower, Chanson §2.B).
    #[serde(default = "ttipri")]
    pub reaction_min_pri: i32,
    /// Whether a process made runnable (woken, or swapped in ready) with a better priority than
    /// the running one preempts it at the next return to user mode: `setrun` sets `runrun` in
    /// the V6 code (true). CHANSON §3.1 describes his system otherwise: "for all CPU requests
    /// under one second, the CPU will not do a context switch", so a waking process waits for
    /// the running request to block or for the per-second priority recomputation (false).
    #[serde(default = "yes")]
    pub wakeup_preempts: bool,
}

fn yes() -> bool {
    true
}

fn puser() -> i32 {
    100
}
fn schmag() -> u32 {
    10
}
fn four() -> u32 {
    4
}
fn ttipri() -> i32 {
    10
}

impl Default for SchedulerSpec {
    /// The V6 constants.
    fn default() -> Self {
        SchedulerSpec {
            puser: 100,
            schmag: 10,
            forced_switch_s: 4,
            reaction_min_pri: 10,
            wakeup_preempts: true,
        }
    }
}

/// The RK11 controller with its RK05 drives: one FIFO queue, no overlapped seeks.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DiskSpec {
    /// Drives on the controller [count].
    pub drives: u32,
    /// Blocks per drive (`NRKBLK`) [512-B blocks].
    pub blocks_per_drive: u32,
    /// Blocks per cylinder (sectors per track × surfaces) [blocks].
    pub blocks_per_cylinder: u32,
    /// Sectors per track [sectors].
    pub sectors_per_track: u32,
    /// One revolution [ms].
    pub rotation_ms: Ms,
    /// Track-to-track seek [ms].
    pub seek_min_ms: Ms,
    /// Full-stroke seek [ms].
    pub seek_max_ms: Ms,
}

impl DiskSpec {
    /// The drives' format and timing, for the device catalogue's RK05 law.
    pub fn format(&self) -> crate::device::Rk05 {
        crate::device::Rk05 {
            blocks_per_drive: self.blocks_per_drive,
            blocks_per_cylinder: self.blocks_per_cylinder,
            sectors_per_track: self.sectors_per_track,
            rotation_ms: self.rotation_ms.get(),
            seek_min_ms: self.seek_min_ms.get(),
            seek_max_ms: self.seek_max_ms.get(),
        }
    }
}

/// Terminal output (V6 `tty.h`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TerminalSpec {
    /// Line speed [characters/s].
    #[serde(default = "cps")]
    pub chars_per_s: f64,
    /// A writer sleeps when its output queue exceeds this (`TTHIWAT`) [characters].
    #[serde(default = "hiwat")]
    pub high_water: u32,
    /// ... and is woken when it drains to this (`TTLOWAT`) [characters].
    #[serde(default = "lowat")]
    pub low_water: u32,
}

fn cps() -> f64 {
    30.0
}
fn hiwat() -> u32 {
    50
}
fn lowat() -> u32 {
    30
}

impl Default for TerminalSpec {
    /// 30 characters/s (fidelity-notes §1.7, [I]); V6 water marks.
    fn default() -> Self {
        TerminalSpec {
            chars_per_s: 30.0,
            high_water: 50,
            low_water: 30,
        }
    }
}

/// Chanson's synthetic prototype process (§2.D): an endless loop of a compute stretch, a disk
/// I/O, a `sleep(n)` call and terminal output, each from its own distribution.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PrototypeSpec {
    /// Processes, Chanson's PN [count].
    pub processes: u32,
    /// Mean process size including the 1 KB u-area, Chanson's PS [clicks of 64 bytes].
    pub size_clicks: u32,
    /// Sizes are uniform on `size_clicks × [1 − spread, 1 + spread]` [fraction].
    #[serde(default)]
    pub size_spread: f64,
    /// Mean CPU time between successive disk I/Os, Chanson's PC; exponential [ms].
    pub cpu_ms: Ms,
    /// Probability that a loop makes a `sleep` call [fraction].
    pub sleep_probability: f64,
    /// `sleep(n)` seconds, uniform on `[sleep_min_s, sleep_max_s]` [s].
    pub sleep_min_s: u32,
    /// Upper end of the sleep argument [s].
    pub sleep_max_s: u32,
    /// Probability that a loop writes to the terminal [fraction].
    pub tty_probability: f64,
    /// Mean gap between a process's `sleep` calls on a clock of their own, apart from the
    /// loop (§2.D: "each parameter is driven by a different distribution"; docs/readings.md
    /// `unix-sleeps-apart`): at its first pass after the clock fires, the loop sleeps, and the
    /// next gap is exponential from then. 0: once per loop with `sleep_probability` [s].
    #[serde(default)]
    pub sleep_every_s: Secs,
    /// As `sleep_every_s`, for terminal writes; 0: once per loop with `tty_probability` [s].
    #[serde(default)]
    pub tty_every_s: Secs,
    /// Characters per terminal write; geometric with this mean [characters].
    pub tty_chars_mean: f64,
    /// Blocks written rather than read [fraction].
    #[serde(default)]
    pub write_fraction: f64,
    /// Shared text segment of every process (0: none, as Chanson's workload, §5) [clicks].
    #[serde(default)]
    pub text_clicks: u32,
    /// Each process reads and writes its own file of this many blocks [512-B blocks].
    #[serde(default = "file_blocks")]
    pub file_blocks: u32,
    /// Which block of its file an I/O takes: a uniformly random one, or the next (from the
    /// start again after the last), a read that follows a read of the block before it also
    /// starting a read of the block after it (rdwri.c `readi`, bio.c `breada`).
    #[serde(default)]
    pub file_access: FileAccess,
}

/// How a prototype walks its file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FileAccess {
    /// A uniformly random block per I/O [A].
    #[default]
    Random,
    /// Block after block, with V6's read-ahead.
    Sequential,
}

fn file_blocks() -> u32 {
    1000
}

/// The block buffer cache.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BuffersSpec {
    /// Buffers of 512 bytes (`NBUF`, param.h: 15) [buffers].
    #[serde(default = "nbuf")]
    pub count: u32,
}

fn nbuf() -> u32 {
    15
}

impl Default for BuffersSpec {
    /// V6 `NBUF` 15.
    fn default() -> Self {
        BuffersSpec { count: 15 }
    }
}

/// The system's own processes, created before the prototypes (table order: init, update,
/// the gettys, the console shell). Their images are swappable but not in Chanson's PN × PS.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct SystemProcessesSpec {
    /// `/etc/init`'s image (0: no init); it waits for its children at `PWAIT` [clicks].
    #[serde(default)]
    pub init_clicks: u32,
    /// `/etc/update`'s image (0: no update) [clicks].
    #[serde(default)]
    pub update_clicks: u32,
    /// update's `sleep` between `sync` calls [s].
    #[serde(default = "thirty")]
    pub update_s: u32,
    /// Blocks each `sync` writes synchronously besides the delayed writes: the super-block
    /// and the i-node blocks of written files (`update`, `iupdat`) [blocks].
    #[serde(default)]
    pub sync_blocks: u32,
    /// Idle terminals, each with a getty waiting for input at `TTIPRI` [count].
    #[serde(default)]
    pub gettys: u32,
    /// A getty's image [clicks].
    #[serde(default)]
    pub getty_clicks: u32,
    /// The console shell's image (0: no console shell) [clicks].
    #[serde(default)]
    pub shell_clicks: u32,
    /// Mean time between command lines typed at the console; exponential [s].
    #[serde(default = "thirty_f")]
    pub console_line_s: Secs,
    /// Characters per command line, each a receive and an echo interrupt [characters].
    #[serde(default = "ten")]
    pub console_line_chars: u32,
    /// CPU of one console command [ms].
    #[serde(default)]
    pub console_cpu_ms: Ms,
    /// Blocks one console command reads through the buffer cache [blocks].
    #[serde(default)]
    pub console_blocks: u32,
    /// Characters one console command writes to the terminal [characters].
    #[serde(default)]
    pub console_output_chars: u32,
}

fn thirty() -> u32 {
    30
}
fn thirty_f() -> Secs {
    Secs(30.0)
}
fn ten() -> u32 {
    10
}

/// Parses `toml_text` (with dotted `key.path=value` overrides) into a validated [`UnixSpec`].
pub fn load_spec(
    toml_text: &str,
    origin: &str,
    overrides: &[(String, String)],
) -> Result<UnixSpec, SysError> {
    from_value(
        crate::spec::toml_with_overrides(toml_text, origin, overrides)?,
        origin,
    )
}

/// A validated [`UnixSpec`] from an already merged TOML value.
pub fn from_value(value: toml::Value, origin: &str) -> Result<UnixSpec, SysError> {
    let spec: UnixSpec = crate::spec::typed(value, origin)?;
    crate::kind::SystemKind::Unix.expect(&spec.system, origin)?;
    spec.validate(origin)?;
    Ok(spec)
}

impl UnixSpec {
    /// Cross-field checks serde cannot make. `origin` names the spec in errors.
    pub fn validate(&self, origin: &str) -> Result<(), SysError> {
        let bad = |path: &str, what: String| Self::bad(origin, path, what);
        self.validate_machine(origin)?;
        self.validate_disk(origin)?;
        self.validate_workload(origin)?;
        self.validate_login(origin)?;
        self.validate_kernel(origin)?;
        if !self.monitor.interval_s.is_positive() {
            return bad(
                "monitor.interval_s",
                "expected a positive interval [s]".into(),
            );
        }
        Ok(())
    }

    /// Chanson's PCTRMM = 100 × (MM − PN × PS) / MM [%].
    pub fn pctrmm(&self) -> f64 {
        let mm = f64::from(self.memory.core_clicks);
        100.0 * (mm - f64::from(self.workload.processes) * f64::from(self.workload.size_clicks))
            / mm
    }
}
