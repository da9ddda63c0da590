//! UNIX V6's twin: Chanson's prototype processes under whole-process swapping, the core as a
//! memory-constrained server in front of one processor and the RK11's one queue.
//!
//! ```text
//!  N processes ──asleep Z──► memory level: at most K images in core ──► CPU ─► RK11 (FIFO) ─┐
//!       ▲                     (the rest wait out on the swap area)       ▲                  │
//!       └──────────── a low-priority sleep ends the stay ◄──────────────┴── next loop ◄────┘
//!  per loop: CPU c, file requests r (buffer misses + delayed writes), and, when the woken
//!  process's image was swapped out, one swap-in and the swap-out that makes room for it
//! ```
//!
//! A prototype loops (Chanson 1982 §2.D): a compute stretch, one block access, sometimes a
//! `sleep(n)` call or terminal output. A loop's sleep ends its stay in the memory level: the
//! sleep (`sslep`, at PSLEP) and a terminal write that fills the output queue (`ttwrite`, at
//! TTOPRI) are low-priority sleeps, the swapper's easy core (`sched`, `unix/swapper.rs`), so
//! a sleeper's image is what a ready process out of core takes the room of. With `n` processes
//! awake and `K` images fitting in core:
//! - `n ≤ K`: every awake process is in core, and `K − n` sleepers with it; of the `N − n`
//!   sleepers `N − K` are out, so a process waking finds its image out with probability
//!   `(N − K) / (N − n)`, and pays a swap-in and a sleeper's swap-out;
//! - `n > K`: no sleeper is left in core; each process going to sleep is swapped out at once
//!   for one of the `n − K` waiting, so every sleep costs a pair. (The deserving rule's
//!   rotation after 3 s out is not counted: a process sleeps every few loops, well within 3 s.)
//!
//! The central subsystem (the processor and the controller, one queue for both drives: no
//! overlapped seeks, Chanson §2.A) is solved by exact MVA at `min(n, K)` with the swap pairs'
//! time on the controller, and the memory level becomes a load-dependent flow-equivalent
//! server in front of which the processes sleep (Courtois 1977, as [`crate::twin`]).
//!
//! `K` counts the prototype images that fit in the core left after the system's own processes
//! that wake by themselves and must then be in core (`/etc/update` every `update_s`, the console
//! shell at each command line) and a shared text: docs/readings.md `unix-twin-core`. The other
//! reading, every click of core for the prototypes, is the twin with `--mpl-limit` set to
//! [`SwapDemands::images_all_core`]. Disk times come from the device catalogue's RK05 with the
//! spec's format ([`pagelab_sys::device::Geometry::rk05`]), as the simulator's disk takes them.

use pagelab_sys::device::Geometry;
use pagelab_sys::unix::spec::FileAccess;
use pagelab_sys::unix::UnixSpec;
use pagelab_sys::SysError;

use crate::mva::{exact_one_class, terminals_and_fes, Station};
use crate::twin::{ClassRow, Row};

/// What a UNIX V6 spec sets up, as the twin reads it (per loop of a prototype).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct SwapDemands {
    /// Processor time per loop: the compute stretch, the system calls, the buffer copy, the
    /// context switches and the interrupts a loop causes [s].
    pub cpu_s: f64,
    /// The processor's share left by the clock interrupt [1].
    pub cpu_share: f64,
    /// File-system requests per loop at one process (buffer misses + delayed writes) [requests].
    pub file_requests: f64,
    /// Controller time of a file request when the arm comes from the same file [s].
    pub file_near_s: f64,
    /// Controller time of a file request when the arm comes from another file [s].
    pub file_far_s: f64,
    /// Controller time to swap one image in or out (seek to the swap area, half a turn, the
    /// image's sectors) [s].
    pub swap_s: f64,
    /// Sleeps at low priority per loop (`sleep` calls and terminal writes that block) [1].
    pub sleeps_per_loop: f64,
    /// `sleep` calls per loop [1].
    pub sleep_calls: f64,
    /// The mean argument of a `sleep(n)` call [s].
    pub sleep_arg_s: f64,
    /// Time a loop waits for its terminal output to drain [s].
    pub drain_s: f64,
    /// Prototype images that fit in core beside the waking system processes [images].
    pub images: u32,
    /// Prototype images that fit in all of core [images].
    pub images_all_core: u32,
    /// A prototype's image [clicks].
    pub size_clicks: u32,
}

/// Mean seek [s] between two cylinders drawn independently and uniformly from `[a, a + len)`
/// and `[b, b + len_b)`.
fn mean_seek(g: &Geometry, (a, len): (u32, u32), (b, len_b): (u32, u32)) -> f64 {
    let (len, len_b) = (len.max(1), len_b.max(1));
    let mut sum = 0.0;
    for x in a..a + len {
        for y in b..b + len_b {
            sum += g.seek_ns(x, y) as f64;
        }
    }
    sum / (f64::from(len) * f64::from(len_b)) * 1e-9
}

impl SwapDemands {
    /// The demands of `spec`'s prototype (Chanson §2.D, `unix/prototype.rs`).
    pub fn of(spec: &UnixSpec, origin: &str) -> Result<SwapDemands, SysError> {
        let w = &spec.workload;
        let unsupported = |path: &str, what: &str| SysError::Invalid {
            origin: origin.into(),
            path: path.into(),
            what: what.into(),
        };
        if w.sleep_every_s.get() > 0.0 || w.tty_every_s.get() > 0.0 {
            let key = if w.sleep_every_s.get() > 0.0 {
                "workload.sleep_every_s"
            } else {
                "workload.tty_every_s"
            };
            return Err(unsupported(key, "the twin reads sleeps and terminal writes per loop: expected 0 (the probabilities per loop)"));
        }
        if w.file_access != FileAccess::Random {
            return Err(unsupported(
                "workload.file_access",
                "the twin models random file access: expected \"random\"",
            ));
        }
        let (m, d, t) = (&spec.machine, &spec.disk, &spec.terminal);
        let g = Geometry::rk05(&d.format());
        let half_turn = g.rotation_ns as f64 * 0.5e-9;
        let sector = g.page_transfer_ns as f64 * 1e-9;
        let per_cyl = d.blocks_per_cylinder.max(1);
        // A terminal write blocks when the queue passes the high-water mark and sleeps until
        // it drains to the low (tty.c `ttwrite`); characters geometric, read as exponential.
        let mean = w.tty_chars_mean.max(1e-9);
        let blocks = (-f64::from(t.high_water) / mean).exp();
        let drain = blocks * (mean + f64::from(t.high_water - t.low_water.min(t.high_water)))
            / t.chars_per_s.max(1e-9);
        let sleeps_per_loop = w.sleep_probability + w.tty_probability * blocks;
        let hit = |n: u32| {
            f64::from(spec.buffers.count) / (f64::from(n.max(1)) * f64::from(w.file_blocks.max(1)))
        };
        let file_requests = (1.0 - hit(1).min(1.0)) + w.write_fraction;
        let us = |x: pagelab_core::Us| x.get() * 1e-6;
        let cpu_s = w.cpu_ms.get() * 1e-3
            + us(m.syscall_us) * (1.0 + w.sleep_probability + w.tty_probability)
            + us(m.bio_us)
            + us(m.switch_us) * (1.0 + sleeps_per_loop)
            + us(m.disk_intr_us) * file_requests
            + us(m.tty_intr_us) * w.tty_probability * w.tty_chars_mean;
        // Files lie anywhere in a drive's file system; the swap area at the end of its drive.
        let s = &spec.swapper;
        let fs_cyl = (d.blocks_per_drive - s.swap_blocks) / per_cyl;
        let file_cyl = w.file_blocks.div_ceil(per_cyl);
        let swap = (s.swap_base / per_cyl, s.swap_blocks.div_ceil(per_cyl));
        let image = u64::from(w.size_clicks) * u64::from(spec.memory.click_bytes);
        let sectors = image.div_ceil(512).max(1) as f64;
        let transfer = half_turn + sector;
        let sys = &spec.system_processes;
        let waking = sys.update_clicks
            + if sys.console_line_s.get() > 0.0 {
                sys.shell_clicks
            } else {
                0
            };
        let core = spec.memory.core_clicks.saturating_sub(w.text_clicks);
        let fit = |c: u32| (c / w.size_clicks.max(1)).max(1);
        Ok(SwapDemands {
            cpu_s,
            cpu_share: 1.0 - f64::from(m.clock_hz) * us(m.clock_intr_us),
            file_requests,
            file_near_s: mean_seek(&g, (0, file_cyl), (0, file_cyl)) + transfer,
            file_far_s: mean_seek(&g, (0, fs_cyl), (0, fs_cyl)) + transfer,
            swap_s: mean_seek(&g, (0, fs_cyl), swap) + half_turn + sectors * sector,
            sleeps_per_loop,
            sleep_calls: w.sleep_probability,
            sleep_arg_s: 0.5 * f64::from(w.sleep_min_s + w.sleep_max_s),
            drain_s: w.tty_probability * drain,
            images: fit(core.saturating_sub(waking)),
            images_all_core: fit(core),
            size_clicks: w.size_clicks,
        })
    }

    /// Time asleep per loop when a loop's stay awake is `stay` [s]. `sleep(n)` waits for the
    /// n-th whole second after the call (sys2.c `sslep`: `while d > time`; clock.c wakes `tout`
    /// on the second), so it lasts n less the fraction of a second gone at the call; and the
    /// last sleep ended on a whole second, so that fraction is the time awake since then,
    /// modulo 1 s. Awake for an exponential time of mean τ: E[T mod 1] = τ − 1 / (e^{1/τ} − 1),
    /// half a second when τ is long, nothing when the process sleeps again at once.
    pub fn asleep_s(&self, stay: f64) -> f64 {
        let mut phase = 0.5;
        if self.sleep_calls > 0.0 {
            let tau = (stay + self.drain_s) / self.sleep_calls;
            if tau > 0.0 {
                phase = (tau - 1.0 / (1.0 / tau).exp_m1()).clamp(0.0, 0.5);
            }
        }
        self.sleep_calls * (self.sleep_arg_s - phase) + self.drain_s
    }

    /// Controller time of a file request with `n` processes whose files share `drives` arms:
    /// the arm comes from the same file when the last request on its drive was this
    /// process's (one in `n / drives`) [s].
    fn file_s(&self, n: u32, drives: u32) -> f64 {
        let same = (f64::from(drives.max(1)) / f64::from(n.max(1))).min(1.0);
        same * self.file_near_s + (1.0 - same) * self.file_far_s
    }
}

/// The twin of `spec` at each number of prototype processes; `images` replaces the spec's
/// reading of how many images fit in core (the `--mpl-limit` of the VM twin).
pub fn solve(
    spec: &UnixSpec,
    origin: &str,
    counts: &[u32],
    images: Option<f64>,
) -> Result<(SwapDemands, Vec<Row>), SysError> {
    let d = SwapDemands::of(spec, origin)?;
    let k = images.map_or(d.images, |m| m.max(1.0).floor() as u32);
    let hit_n = |n: u32| {
        (f64::from(spec.buffers.count)
            / (f64::from(n.max(1)) * f64::from(spec.workload.file_blocks.max(1))))
        .min(1.0)
    };
    let rows = counts
        .iter()
        .map(|&n| {
            let file =
                ((1.0 - hit_n(n)) + spec.workload.write_fraction) * d.file_s(n, spec.disk.drives);
            row(&d, n, k, file)
        })
        .collect();
    Ok((d, rows))
}

/// The closed network of `big_n` processes, `k` images in core, `file` controller seconds of
/// file requests per loop.
fn row(d: &SwapDemands, big_n: u32, k: u32, file: f64) -> Row {
    // A waking process's image is out with this probability at `n` awake (module essay).
    let out = |n: u32| -> f64 {
        if big_n <= k {
            0.0
        } else if n >= k {
            1.0
        } else {
            f64::from(big_n - k) / f64::from(big_n - n)
        }
    };
    let stations = [Station::queue("cpu", 1), Station::queue("rk11", 1)];
    let cpu = d.cpu_s / d.cpu_share.max(1e-9);
    let pairs = |n: u32| d.sleeps_per_loop * out(n);
    let disk = |n: u32| file + pairs(n) * 2.0 * d.swap_s;
    let mu: Vec<f64> = (1..=big_n)
        .map(|n| exact_one_class(&stations, &[cpu, disk(n)], n.min(k)).x[0])
        .collect();
    // The time asleep depends on the stay awake (phase of the second): a fixed point, damped.
    let stay_of = |z: f64| {
        let p = terminals_and_fes(big_n, z, &mu);
        let x: f64 = p.iter().skip(1).zip(&mu).map(|(pn, xn)| pn * xn).sum();
        (p, x)
    };
    let mut z = d.asleep_s(cpu + disk(1));
    for _ in 0..200 {
        let (_, x) = stay_of(z);
        let stay = if x > 0.0 {
            f64::from(big_n) / x - z
        } else {
            0.0
        };
        let next = 0.5 * (z + d.asleep_s(stay.max(0.0)));
        let done = (next - z).abs() < 1e-12 * z.max(1e-9);
        z = next;
        if done {
            break;
        }
    }
    let (p, _) = stay_of(z);
    let (mut x, mut swaps, mut in_core, mut waiting) = (0.0, 0.0, 0.0, 0.0);
    for (n, &pn) in p.iter().enumerate().skip(1) {
        let (n, xn) = (n as u32, mu[n - 1]);
        x += pn * xn;
        swaps += pn * xn * pairs(n);
        in_core += pn * f64::from(n.min(k));
        waiting += pn * f64::from(n.saturating_sub(k));
    }
    let n = f64::from(big_n);
    Row {
        users: big_n,
        throughput: x,
        classes: vec![ClassRow {
            class: "prototype".into(),
            users: big_n,
            throughput: x,
            // A loop's stay in the memory level: its wait for core, processor and disk.
            response: if x > 0.0 { n / x - z } else { f64::NAN },
        }],
        // The processor with the clock's share; the controller's time on swaps and on files.
        cpu_util: x * d.cpu_s + (1.0 - d.cpu_share),
        paging_util: swaps * 2.0 * d.swap_s,
        vio_util: x * file,
        fault_rate: swaps,
        mpl: in_core,
        eligible: waiting,
        frames_per_program: f64::from(d.size_clicks),
        crowded_share: 0.0,
        crowding_onset_s: None,
    }
}

#[cfg(test)]
#[path = "swapping/tests.rs"]
mod tests;
