//! PAGEMON: the host bounds a guest's active tasks from its paging load.
//!
//! The thesis's design (young ch. III, its Table 4 "SET parameters" and appendices D and E) is
//! lost; this is our reconstruction after fidelity notes §5.3: every `period_s` CP measures the
//! load (page reads per second, steals per page read, storage commitment, or Bard's system
//! Ψs*, for which low values are the overload), lowers the
//! allowed task count by one above `high`, raises it by one below `low` (hysteresis between),
//! within `min_tasks ..= the guest's job partitions`, and tells the guest, which deactivates
//! its lowest-priority busy partitions above the count (Figure 4's task deactivation, in the
//! thesis's words "a mechanism ... to allow control of the multiprogramming level").

use crate::monitor::{psi_s_star, Counters};
use crate::spec::guest::{PagemonMeasure, PagemonSpec};

/// Counters PAGEMON reads at each sample (cumulative).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Sample {
    /// Time [s].
    pub time_s: f64,
    /// Page reads [pages].
    pub page_reads: f64,
    /// Steals [frames].
    pub steals: f64,
    /// SUMWSS plus eligible projections [pages].
    pub demand_pages: f64,
    /// APAGES [frames].
    pub apages: f64,
    /// The system's counters (for Ψs*: P, V, W, M and time).
    pub counters: Counters,
}

/// The host side of PAGEMON.
#[derive(Clone, Debug)]
pub struct Pagemon {
    spec: PagemonSpec,
    max: u32,
    allowed: u32,
    last: Sample,
}

impl Pagemon {
    /// A controller for a guest with `max` job partitions, all allowed at first.
    pub fn new(spec: &PagemonSpec, max: u32) -> Pagemon {
        Pagemon {
            spec: spec.clone(),
            max,
            allowed: max,
            last: Sample::default(),
        }
    }

    /// The load measured between the last sample and `s`.
    pub fn measure(&self, s: &Sample) -> f64 {
        let dt = (s.time_s - self.last.time_s).max(f64::MIN_POSITIVE);
        let reads = s.page_reads - self.last.page_reads;
        match self.spec.measure {
            PagemonMeasure::PagingRate => reads / dt,
            PagemonMeasure::StealRatio => {
                if reads > 0.0 {
                    (s.steals - self.last.steals) / reads
                } else {
                    0.0
                }
            }
            PagemonMeasure::Storage => s.demand_pages / s.apages.max(1.0),
            // NaN when no scan cycle ended in the period: no page was pressed for.
            PagemonMeasure::SystemPsi => {
                psi_s_star(&s.counters.since(&self.last.counters)).unwrap_or(f64::NAN)
            }
        }
    }

    /// One period: measure, step the allowed count, remember the sample. Returns
    /// (measure, allowed tasks).
    pub fn step(&mut self, s: Sample) -> (f64, u32) {
        let m = self.measure(&s);
        let floor = self.spec.min_tasks.min(self.max);
        let (over, room) = match self.spec.measure {
            PagemonMeasure::SystemPsi => (m < self.spec.low, m.is_nan() || m > self.spec.high),
            _ => (m > self.spec.high, m < self.spec.low),
        };
        if self.spec.enabled {
            if over {
                self.allowed = self.allowed.saturating_sub(1).max(floor);
            } else if room {
                self.allowed = (self.allowed + 1).min(self.max);
            }
        }
        self.last = s;
        (m, self.allowed)
    }

    /// The allowed count now [tasks].
    pub fn allowed(&self) -> u32 {
        self.allowed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> PagemonSpec {
        PagemonSpec {
            enabled: true,
            measure: PagemonMeasure::PagingRate,
            period_s: 1.0,
            high: 30.0,
            low: 10.0,
            min_tasks: 1,
        }
    }

    fn at(t: f64, reads: f64) -> Sample {
        Sample {
            time_s: t,
            page_reads: reads,
            ..Sample::default()
        }
    }

    #[test]
    fn steps_down_above_high_up_below_low_and_holds_between() {
        let mut p = Pagemon::new(&spec(), 3);
        assert_eq!(p.step(at(1.0, 50.0)), (50.0, 2));
        assert_eq!(p.step(at(2.0, 100.0)), (50.0, 1));
        // Never below min_tasks.
        assert_eq!(p.step(at(3.0, 150.0)), (50.0, 1));
        // Between the thresholds: hold.
        assert_eq!(p.step(at(4.0, 170.0)), (20.0, 1));
        assert_eq!(p.step(at(5.0, 175.0)), (5.0, 2));
        assert_eq!(p.step(at(6.0, 175.0)), (0.0, 3));
        // Never above the partitions.
        assert_eq!(p.step(at(7.0, 175.0)), (0.0, 3));
    }

    #[test]
    fn system_psi_steps_down_when_pages_survive_few_interruptions() {
        // Eq. 5: Ψs* = 1.5 (ΔP + ΔV) ΔT / (ΔM ΔW). Over 10 s with 2 users in queue
        // (M = 20 user-s) and one scan cycle: 40 interruptions give 30, 4 give 3.
        let mut s = spec();
        s.measure = PagemonMeasure::SystemPsi;
        s.high = 15.0;
        s.low = 8.0;
        let mut p = Pagemon::new(&s, 3);
        let mut c = Counters::default();
        let sample = |c: &Counters| Sample {
            time_s: c.time_s,
            counters: *c,
            ..Sample::default()
        };
        let period = |c: &mut Counters, interruptions: f64, cycles: f64| {
            c.time_s += 10.0;
            c.mpl_user_s += 20.0;
            c.faults += interruptions;
            c.scan_cycles += cycles;
        };
        period(&mut c, 4.0, 1.0);
        assert_eq!(p.step(sample(&c)), (3.0, 2));
        period(&mut c, 12.0, 1.0);
        assert_eq!(p.step(sample(&c)), (9.0, 2)); // between: hold
        period(&mut c, 40.0, 1.0);
        assert_eq!(p.step(sample(&c)), (30.0, 3));
        period(&mut c, 4.0, 1.0);
        assert_eq!(p.step(sample(&c)), (3.0, 2));
        // No scan cycle in the period: nothing was pressed for, room.
        period(&mut c, 4.0, 0.0);
        let (m, allowed) = p.step(sample(&c));
        assert!(m.is_nan());
        assert_eq!(allowed, 3);
    }

    #[test]
    fn disabled_measures_but_never_moves() {
        let mut s = spec();
        s.enabled = false;
        let mut p = Pagemon::new(&s, 3);
        assert_eq!(p.step(at(1.0, 500.0)), (500.0, 3));
    }
}
