//! Every time a spec gives, of every system, held against the clock it will run on, at load.
//!
//! The clock is integer nanoseconds in a `u64` ([`pagelab_core::Tick`], about 584 years). A
//! key names its unit by its suffix (`_s`, `_ms`, `_us`, `_ns`), so one walk over the resolved
//! tree checks every span before the typed spec is read: a span longer than
//! [`MAX_SPAN_NS`] would saturate the clock when added to a time (a cost of 1e17 µs acted as
//! no cost at all), and a span above zero that rounds to no time at all (a time slice of
//! 1e-12 s) would let a run take events without the clock moving. `reference_ns` is kept to
//! the picosecond (`system::build`, `reference_ps`), so its floor is one picosecond.

use crate::error::SysError;

/// Longest span a spec may give [ns]: a quarter of the clock's range (about 146 years), so
/// that a time plus a span, or a few spans added, never reach the end of the clock.
pub const MAX_SPAN_NS: f64 = (1u64 << 62) as f64;

/// A key's unit by its suffix: nanoseconds per unit and the shortest span above zero the
/// engine can hold [ns].
fn unit_of(key: &str) -> Option<(f64, f64, &'static str)> {
    if key.ends_with("_ns") {
        Some((1.0, 1e-3, "ns"))
    } else if key.ends_with("_us") {
        Some((1e3, 1.0, "µs"))
    } else if key.ends_with("_ms") {
        Some((1e6, 1.0, "ms"))
    } else if key.ends_with("_s") {
        Some((1e9, 1.0, "s"))
    } else {
        None
    }
}

/// The first span of `value` outside the clock's range: (key path, what was expected).
pub(crate) fn first_bad_span(value: &toml::Value) -> Option<(String, String)> {
    walk(value, "", None)
}

fn walk(
    value: &toml::Value,
    path: &str,
    unit: Option<(f64, f64, &str)>,
) -> Option<(String, String)> {
    match value {
        toml::Value::Table(t) => t.iter().find_map(|(k, v)| {
            let p = if path.is_empty() {
                k.clone()
            } else {
                format!("{path}.{k}")
            };
            walk(v, &p, unit_of(k))
        }),
        toml::Value::Array(a) => a
            .iter()
            .enumerate()
            .find_map(|(i, v)| walk(v, &format!("{path}.{i}"), unit)),
        toml::Value::Float(x) => unit
            .and_then(|u| check_span(*x, u))
            .map(|w| (path.into(), w)),
        toml::Value::Integer(n) => unit
            .and_then(|u| check_span(*n as f64, u))
            .map(|w| (path.into(), w)),
        _ => None,
    }
}

/// What is wrong with a span of `x` in the unit `(ns per unit, floor in ns, name)`, if anything.
/// A negative or non-finite value is left to the typed checks, which know whether 0 is allowed.
fn check_span(x: f64, (per, floor, name): (f64, f64, &str)) -> Option<String> {
    if !x.is_finite() || x <= 0.0 {
        return None;
    }
    let ns = x * per;
    if ns > MAX_SPAN_NS {
        return Some(format!(
            "{x:e} {name} is beyond the simulated clock (u64 nanoseconds): expected at most {:e} {name} (about 146 years)",
            MAX_SPAN_NS / per
        ));
    }
    if ns < floor {
        return Some(format!(
            "{x:e} {name} rounds to no time on the simulated clock: expected 0, or at least {:e} {name}",
            floor / per
        ));
    }
    None
}

/// The error for a bad span at `path`: blamed on the `--set` that gave it, if one did.
pub(crate) fn check(
    value: &toml::Value,
    origin: &str,
    overrides: &[(String, String)],
) -> Result<(), SysError> {
    let Some((path, what)) = first_bad_span(value) else {
        return Ok(());
    };
    match overrides
        .iter()
        .rev()
        .find(|(k, _)| path == *k || path.starts_with(&format!("{k}.")))
    {
        Some((k, v)) => Err(SysError::Override {
            arg: format!("{k}={v}"),
            what: if path == *k {
                what
            } else {
                format!("{path}: {what}")
            },
        }),
        None => Err(SysError::Invalid {
            origin: origin.into(),
            path,
            what,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bad(text: &str) -> Option<String> {
        first_bad_span(&toml::from_str(text).unwrap()).map(|(p, _)| p)
    }

    #[test]
    fn spans_beyond_the_clock_or_below_its_tick_are_named() {
        assert_eq!(
            bad("[cpu.supervisor]\nfault_us = 1e17"),
            Some("cpu.supervisor.fault_us".into())
        );
        assert_eq!(
            bad("[paging]\nsio_overhead_ms = 1e14"),
            Some("paging.sio_overhead_ms".into())
        );
        assert_eq!(
            bad("[machine]\ntime_slice_s = 1e-12"),
            Some("machine.time_slice_s".into())
        );
        assert_eq!(
            bad("[cpu]\nreference_ns = 1e-300"),
            Some("cpu.reference_ns".into())
        );
        assert_eq!(
            bad("[w]\nthink_s = [1.0, 1e300]"),
            Some("w.think_s.1".into())
        );
        assert_eq!(bad("[[c]]\ncpu_ms = 1e300"), Some("c.0.cpu_ms".into()));
    }

    #[test]
    fn ordinary_spans_and_other_keys_pass() {
        assert_eq!(bad("[cpu]\nreference_ns = 0.5\ncount = 100000"), None);
        assert_eq!(
            bad("[run]\nduration_s = 4.6e9\nwarmup_s = 0\n[x]\nusers = 1e300"),
            None
        );
        assert_eq!(bad("[m]\ntime_slice_s = 1e-9\nnegative_s = -1e300"), None);
    }

    #[test]
    fn the_error_names_the_set_that_gave_the_span() {
        let v: toml::Value = toml::from_str("[disk]\npull_s = 1e300").unwrap();
        let o = [("disk.pull_s".to_string(), "1e300".to_string())];
        let e = check(&v, "m44.toml", &o).unwrap_err().to_string();
        assert!(
            e.starts_with("--set disk.pull_s=1e300: 1e300 s is beyond"),
            "{e}"
        );
        let e = check(&v, "m44.toml", &[]).unwrap_err().to_string();
        assert!(e.starts_with("m44.toml: disk.pull_s: "), "{e}");
    }
}
