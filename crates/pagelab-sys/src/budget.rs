//! The memory a spec will need, estimated before anything is built.
//!
//! ```text
//!  resolved spec (toml::Value) ─► terms: users, frames, shared pages, monitor samples ─► sum
//!                                                                   │
//!            limit: PAGELAB_MAX_MEMORY, else the machine's MemAvailable ─► refuse above it
//! ```
//!
//! A spec that asks for a billion users would otherwise get as far as `Vec::with_capacity` and
//! abort the process ("memory allocation of 656000000000 bytes failed"). The estimate is read
//! from the spec's values, not from its typed form, so that it runs before the spec is parsed
//! into any engine's types and before any table is allocated. It counts the structures that
//! grow with a value of the spec; the per-item sizes below were measured on x86-64 (peak
//! resident memory of `pagelab run vm370` at several `workload.users` and short durations, see
//! `docs/reliability.md`) and are rounded up, so the estimate errs high, not low. The refusal
//! names the term that dominates, so the user knows which key to change.

use crate::SysError;

/// Resident bytes per simulated user, beyond its pages [bytes] -- measured 5.5 KiB (vm370,
/// 20 000 to 80 000 users), rounded up.
pub const USER_BYTES: u64 = 8192;
/// Bytes per page of a user's address space (page table entry, reference history) [bytes] --
/// measured 10 (vm370, a class's `address_pages` from 400 to 4000), rounded up.
pub const PAGE_BYTES: u64 = 16;
/// Bytes per page frame (frame table, free and flush lists) [bytes] -- measured 31 (vm370,
/// `memory.frames` from 4096 to 10^6), rounded up.
pub const FRAME_BYTES: u64 = 64;
/// Bytes per monitor sample kept for the report (one row of the interval table) [bytes].
pub const SAMPLE_BYTES: u64 = 512;
/// Memory the engine needs whatever the spec (tables, buffers, the report) [bytes].
pub const BASE_BYTES: u64 = 64 << 20;
/// Environment variable overriding the limit, in bytes or with a K, M, G or T suffix.
pub const ENV_MAX_MEMORY: &str = "PAGELAB_MAX_MEMORY";

/// One contribution to the estimate: the key whose value drives it.
#[derive(Clone, Debug, PartialEq)]
pub struct Term {
    /// Dotted key path (`workload.users`).
    pub key: String,
    /// The key's value as written.
    pub value: String,
    /// Bytes this term needs [bytes].
    pub bytes: u64,
}

/// The memory a spec needs, by term.
#[derive(Clone, Debug, PartialEq)]
pub struct Estimate {
    /// Every term that grows with the spec.
    pub terms: Vec<Term>,
    /// The sum, with [`BASE_BYTES`] [bytes].
    pub bytes: u64,
}

fn get<'a>(v: &'a toml::Value, path: &str) -> Option<&'a toml::Value> {
    path.split('.').try_fold(v, |v, k| v.get(k))
}

fn num(v: &toml::Value, path: &str) -> Option<f64> {
    match get(v, path)? {
        toml::Value::Integer(i) => Some(*i as f64),
        toml::Value::Float(f) => Some(*f),
        _ => None,
    }
}

/// Mean `program.address_pages` of a user, the classes weighted by their `fraction` [pages].
fn address_pages(v: &toml::Value) -> f64 {
    let classes = get(v, "workload.class").and_then(|c| c.as_array());
    let (mut pages, mut weight) = (0.0, 0.0);
    for c in classes.into_iter().flatten() {
        let a = num(c, "program.address_pages").unwrap_or(0.0).max(0.0);
        let f = num(c, "fraction").unwrap_or(1.0).max(0.0);
        pages += a * f;
        weight += f;
    }
    if weight > 0.0 {
        pages / weight
    } else {
        0.0
    }
}

fn term(key: &str, value: f64, bytes: f64) -> Term {
    Term {
        key: key.into(),
        value: if value.fract() == 0.0 && value.abs() < 1e15 {
            format!("{}", value as i64)
        } else {
            format!("{value:e}")
        },
        // Saturating: f64 -> u64 casts clamp, and a non-finite product means "too much".
        bytes: if bytes.is_finite() {
            bytes as u64
        } else {
            u64::MAX
        },
    }
}

/// Estimates the memory of the resolved spec `v` (after `extends` and overrides).
pub fn estimate(v: &toml::Value) -> Estimate {
    let mut terms = Vec::new();
    let per_user = USER_BYTES as f64 + address_pages(v) * PAGE_BYTES as f64;
    for key in ["workload.users", "workload.processes"] {
        if let Some(n) = num(v, key).filter(|n| *n > 0.0) {
            terms.push(term(key, n, n * per_user));
        }
    }
    for key in [
        "memory.frames",
        "memory.core_clicks",
        "workload.shared_pages",
    ] {
        if let Some(n) = num(v, key).filter(|n| *n > 0.0) {
            terms.push(term(key, n, n * FRAME_BYTES as f64));
        }
    }
    if let (Some(d), Some(i)) = (num(v, "run.duration_s"), num(v, "monitor.interval_s")) {
        if d > 0.0 && i > 0.0 {
            terms.push(term("run.duration_s", d, d / i * SAMPLE_BYTES as f64));
        }
    }
    let bytes = terms
        .iter()
        .fold(BASE_BYTES, |s, t| s.saturating_add(t.bytes));
    Estimate { terms, bytes }
}

/// Bytes the system says a new process can use without swapping (`MemAvailable`), if known.
pub fn available_bytes() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib.saturating_mul(1024))
}

/// Parses `123`, `64M`, `8G`, `1.5T` (powers of 1024) into bytes.
pub fn parse_bytes(text: &str) -> Option<u64> {
    let t = text.trim();
    let (digits, scale) = match t.char_indices().last()? {
        (i, 'k' | 'K') => (&t[..i], 1u64 << 10),
        (i, 'm' | 'M') => (&t[..i], 1 << 20),
        (i, 'g' | 'G') => (&t[..i], 1 << 30),
        (i, 't' | 'T') => (&t[..i], 1 << 40),
        _ => (t, 1),
    };
    let v: f64 = digits.trim().parse().ok()?;
    (v.is_finite() && v >= 0.0 && v * scale as f64 <= u64::MAX as f64)
        .then_some((v * scale as f64) as u64)
}

/// Human-readable bytes (`656 GB`).
pub fn show_bytes(b: u64) -> String {
    const UNITS: [&str; 6] = ["bytes", "KB", "MB", "GB", "TB", "PB"];
    let mut v = b as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{b} bytes")
    } else {
        format!("{v:.3} {}", UNITS[u]).replace(".000 ", " ")
    }
}

/// The most memory a run may need [bytes], and where that figure came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limit {
    /// The limit [bytes].
    pub bytes: u64,
    /// True if set by the user (`--max-memory`, `PAGELAB_MAX_MEMORY`), false if the memory
    /// available.
    pub by_user: bool,
}

/// The limit: `PAGELAB_MAX_MEMORY` if set, else the memory available; `None` if unknown.
pub fn limit() -> Result<Option<Limit>, SysError> {
    match std::env::var(ENV_MAX_MEMORY) {
        Ok(text) => parse_bytes(&text)
            .map(|bytes| {
                Some(Limit {
                    bytes,
                    by_user: true,
                })
            })
            .ok_or_else(|| {
                SysError::OverBudget(format!(
                    "{ENV_MAX_MEMORY}={text}: expected bytes, or a number with K, M, G or T"
                ))
            }),
        Err(_) => Ok(available_bytes().map(|bytes| Limit {
            bytes,
            by_user: false,
        })),
    }
}

/// Longest run the clock can count [s]: 2^64 ns of simulated time, about 584 years.
pub const MAX_DURATION_S: f64 = u64::MAX as f64 / 1e9;

/// Refuses the resolved spec `v` from `origin` if its estimate is above `limit`, or if its run
/// is longer than the clock can count.
pub fn check(v: &toml::Value, origin: &str, limit: Option<Limit>) -> Result<(), SysError> {
    if let Some(d) = num(v, "run.duration_s").filter(|d| *d > MAX_DURATION_S) {
        return Err(SysError::OverBudget(format!(
            "{origin}: run.duration_s = {d:e}: longer than the simulated clock can count \
             ({MAX_DURATION_S:.3e} s, 2^64 ns); expected a shorter run"
        )));
    }
    let Some(limit) = limit else { return Ok(()) };
    let e = estimate(v);
    if e.bytes <= limit.bytes {
        return Ok(());
    }
    let top = e.terms.iter().max_by_key(|t| t.bytes);
    let (key, value) = top.map_or(("spec", "?"), |t| (t.key.as_str(), t.value.as_str()));
    let whose = if limit.by_user {
        "set by --max-memory"
    } else {
        "the memory available"
    };
    // A suggestion a little above the estimate, in whole GiB.
    let suggest = e.bytes.saturating_add(e.bytes / 8).div_ceil(1 << 30);
    Err(SysError::OverBudget(format!(
        "{origin}: {key} = {value}: the run would need about {} of memory, above the limit of {} \
         ({whose}); --max-memory {suggest}G (or {ENV_MAX_MEMORY}) raises the limit",
        show_bytes(e.bytes),
        show_bytes(limit.bytes),
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(text: &str) -> toml::Value {
        toml::from_str(text).unwrap()
    }

    fn lim(bytes: u64) -> Limit {
        Limit {
            bytes,
            by_user: false,
        }
    }

    #[test]
    fn a_billion_users_are_refused_naming_the_key() {
        let v = spec("[workload]\nusers = 1000000000\n[memory]\nframes = 4096\n");
        let e = check(&v, "vm370", Some(lim(16 << 30)))
            .unwrap_err()
            .to_string();
        assert!(e.contains("workload.users = 1000000000"), "{e}");
        assert!(e.contains("above the limit of 16 GB"), "{e}");
        assert!(e.contains("--max-memory"), "{e}");
        assert!(check(&v, "vm370", Some(lim(u64::MAX))).is_ok());
    }

    #[test]
    fn a_preset_sized_spec_fits_in_a_small_machine() {
        let v = spec(
            "[run]\nduration_s = 3600.0\n[monitor]\ninterval_s = 60.0\n[workload]\nusers = 310\n\
             [[workload.class]]\nprogram = { address_pages = 400 }\n[memory]\nframes = 4096\n",
        );
        let e = estimate(&v);
        assert!(e.bytes < 256 << 20, "{e:?}");
        assert!(check(&v, "vm370", Some(lim(1 << 30))).is_ok());
    }

    #[test]
    fn an_endless_run_is_refused_for_its_clock_or_its_samples() {
        let v = spec("[run]\nduration_s = 1e30\n[monitor]\ninterval_s = 60.0\n");
        let e = check(&v, "vm370", Some(lim(1 << 40)))
            .unwrap_err()
            .to_string();
        assert!(e.contains("run.duration_s = 1e30: longer than"), "{e}");
        let v = spec("[run]\nduration_s = 1e10\n[monitor]\ninterval_s = 0.001\n");
        let e = check(&v, "vm370", Some(lim(1 << 40)))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("run.duration_s = 10000000000: the run would need"),
            "{e}"
        );
    }

    #[test]
    fn byte_sizes_parse_with_suffixes() {
        assert_eq!(parse_bytes("4096"), Some(4096));
        assert_eq!(parse_bytes("64M"), Some(64 << 20));
        assert_eq!(parse_bytes("1.5g"), Some(3 << 29));
        assert_eq!(parse_bytes("-1G"), None);
        assert_eq!(parse_bytes("lots"), None);
        assert_eq!(show_bytes(16 << 30), "16 GB");
    }
}
