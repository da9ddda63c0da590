//! The M44/44X load leveler (B&G 1968, "The effects of load leveling"): "the system
//! periodically samples paging rate and CPU utilization, compares them with pre-set criteria to
//! determine if a condition of overload or underload exists, and then takes action ... by
//! either setting aside a user ... or restoring to the queue a user who was previously set
//! aside". The paper gives neither period nor criteria; the defaults are fidelity-notes §6.3.

use super::spec::LevelerSpec;
use pagelab_core::Secs;

/// What the leveler saw over one sampling period.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample {
    /// CPU busy time over the period divided by its length [fraction].
    pub cpu: f64,
    /// Page pulls started over the period per second [1/s].
    pub pulls_per_s: f64,
    /// Jobs neither finished nor set aside [jobs].
    pub active: u32,
    /// Jobs set aside [jobs].
    pub set_aside: u32,
}

/// The leveler's decision.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Overload: set one active job aside.
    SetAside,
    /// Underload: restore one job set aside.
    Restore,
    /// Neither.
    Hold,
}

/// The leveler's criteria, with the disks' paging capacity they are scaled by.
#[derive(Clone, Debug)]
pub struct Leveler {
    spec: LevelerSpec,
    /// Pulls per second at which the overload test trips (`overload_paging × disks / pull_s`).
    overload_rate: f64,
}

impl Leveler {
    /// The leveler of `spec` for `disks` disks each pulling a page in `pull_s` seconds.
    pub fn new(spec: &LevelerSpec, disks: u32, pull_s: Secs) -> Self {
        Leveler {
            spec: spec.clone(),
            overload_rate: spec.overload_paging * f64::from(disks) / pull_s.get(),
        }
    }

    /// Pulls per second at which overload is declared (with low CPU) [1/s].
    pub fn overload_rate(&self) -> f64 {
        self.overload_rate
    }

    /// Overload is "excessive paging coupled with low CPU utilization" (B&G): pulls at least
    /// the overload rate and CPU below `overload_cpu`; then one job is set aside unless only
    /// `min_active` remain. Otherwise, underload (CPU above `underload_cpu`, or pulls below
    /// `underload_paging` of the overload rate) restores one job set aside, if any.
    pub fn decide(&self, s: &Sample) -> Action {
        let l = &self.spec;
        let overloaded = s.pulls_per_s >= self.overload_rate && s.cpu < l.overload_cpu;
        if overloaded {
            return if s.active > l.min_active {
                Action::SetAside
            } else {
                Action::Hold
            };
        }
        let underloaded =
            s.cpu > l.underload_cpu || s.pulls_per_s < l.underload_paging * self.overload_rate;
        if underloaded && s.set_aside > 0 {
            Action::Restore
        } else {
            Action::Hold
        }
    }
}

/// The job to set aside among the active ones, given as (job, activation stamp): the most
/// recently started or restored (fidelity-notes §6.3); jobs set aside are restored first in,
/// first out, so the one that waited longest comes back first.
pub fn set_aside_choice(active: impl IntoIterator<Item = (usize, u64)>) -> Option<usize> {
    active
        .into_iter()
        .max_by_key(|&(_, stamp)| stamp)
        .map(|(j, _)| j)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn leveler() -> Leveler {
        // Defaults: two disks at 0.21 s: overload at 0.8 × 2 / 0.21 = 7.62 pulls/s.
        Leveler::new(&LevelerSpec::default(), 2, Secs(0.21))
    }

    fn sample(cpu: f64, pulls_per_s: f64, active: u32, set_aside: u32) -> Sample {
        Sample {
            cpu,
            pulls_per_s,
            active,
            set_aside,
        }
    }

    #[test]
    fn overload_rate_is_the_fraction_of_disk_capacity() {
        assert!((leveler().overload_rate() - 1.6 / 0.21).abs() < 1e-12);
    }

    #[test]
    fn heavy_paging_with_idle_cpu_sets_a_job_aside() {
        let l = leveler();
        assert_eq!(l.decide(&sample(0.2, 9.0, 5, 0)), Action::SetAside);
        // Exactly at the rate counts as overload; CPU at the threshold does not.
        assert_eq!(l.decide(&sample(0.49, 1.6 / 0.21, 3, 0)), Action::SetAside);
        assert_eq!(l.decide(&sample(0.5, 9.0, 3, 1)), Action::Hold);
    }

    #[test]
    fn the_last_active_job_is_never_set_aside() {
        let l = leveler();
        assert_eq!(l.decide(&sample(0.1, 9.0, 1, 4)), Action::Hold);
        let two = Leveler::new(
            &LevelerSpec {
                min_active: 2,
                ..LevelerSpec::default()
            },
            2,
            Secs(0.21),
        );
        assert_eq!(two.decide(&sample(0.1, 9.0, 2, 0)), Action::Hold);
        assert_eq!(two.decide(&sample(0.1, 9.0, 3, 0)), Action::SetAside);
    }

    #[test]
    fn busy_cpu_or_light_paging_restores_a_job() {
        let l = leveler();
        assert_eq!(l.decide(&sample(0.9, 9.0, 2, 1)), Action::Restore);
        assert_eq!(l.decide(&sample(0.3, 3.0, 2, 1)), Action::Restore);
        // Between the criteria: hold.
        assert_eq!(l.decide(&sample(0.6, 5.0, 2, 1)), Action::Hold);
        // Nothing to restore.
        assert_eq!(l.decide(&sample(0.9, 0.0, 2, 0)), Action::Hold);
    }

    #[test]
    fn the_most_recently_activated_job_is_set_aside() {
        // Jobs 0-2 started in order, then job 0 restored (stamp 7): job 0 goes first.
        assert_eq!(set_aside_choice([(0, 7), (1, 1), (2, 2)]), Some(0));
        assert_eq!(set_aside_choice([(1, 1), (2, 2)]), Some(2));
        assert_eq!(set_aside_choice(std::iter::empty()), None);
    }
}
