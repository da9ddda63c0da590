//! The books of a running system, checked: every frame owned once (free xor mapped by exactly
//! the page-table entry that names it), no page both resident and free, every user in exactly
//! one state and on the list that state implies, slots and swap sets consistent, SUMWSS the
//! sum of the admitted projections, and counters that must add up doing so.
//!
//! [`System::check_invariants`] is public and runs in any build; the run loop calls
//! [`System::periodic`] after every event, which runs it every `check_every` events
//! ([`System::set_check_every`]; by default only in debug builds). `periodic` is the loop's one
//! place for work at a bounded interval of events.

use super::{System, UState};
use crate::error::SysError;
use crate::memory::NONE;

impl System<'_> {
    /// Work done at a bounded interval of events: the invariant pass when it is due.
    #[inline]
    pub(super) fn periodic(&mut self) -> Result<(), SysError> {
        if self.check_every == 0 {
            return Ok(());
        }
        self.check_countdown = self.check_countdown.saturating_sub(1);
        if self.check_countdown > 0 {
            return Ok(());
        }
        self.check_countdown = self.check_every;
        self.checked()
    }

    /// The invariant pass as a run error naming the simulated time.
    pub(super) fn checked(&self) -> Result<(), SysError> {
        self.check_invariants().map_err(|e| SysError::Invalid {
            origin: "engine".into(),
            path: format!("t={}", self.ctx.now.as_secs_f64()),
            what: format!("invariant broken: {e}"),
        })
    }

    /// Conservation: frames, pages, users, slots and counters are all accounted for. Returns
    /// the first inconsistency found.
    pub fn check_invariants(&self) -> Result<(), String> {
        self.mem.check()?;
        self.check_users()?;
        self.check_slots()?;
        self.check_swap_sets()?;
        self.paging.check_zswap(&self.mem)?;
        self.check_counters()
    }

    /// The users waiting for a page or a frame and for a VIO, as counted for memory pressure.
    fn check_wait_counts(&self, by_state: &[usize; 8]) -> Result<(), String> {
        let waits = by_state[UState::PageWait as usize] + by_state[UState::FrameWait as usize];
        let vio = by_state[UState::VioWait as usize];
        let counted = (self.sched.n_page_wait, self.sched.n_vio_wait);
        if (waits, vio) != (counted.0 as usize, counted.1 as usize) {
            return Err(format!(
                "{waits} users in page or frame wait and {vio} in VIO wait, counters say {} and {}",
                counted.0, counted.1
            ));
        }
        Ok(())
    }

    fn check_users(&self) -> Result<(), String> {
        let n = self.users.len();
        let mut in_q = 0;
        let mut by_state = [0usize; 8];
        for (i, u) in self.users.iter().enumerate() {
            by_state[u.state as usize] += 1;
            if u.queue.is_some() {
                in_q += 1;
            }
            let in_queue_state = matches!(
                u.state,
                UState::Ready
                    | UState::Running
                    | UState::PageWait
                    | UState::FrameWait
                    | UState::VioWait
            );
            if in_queue_state && u.queue.is_none() {
                return Err(format!("user {i} is {:?} but not in queue", u.state));
            }
        }
        if by_state.iter().sum::<usize>() != n
            || in_q != (self.sched.n_q1 + self.sched.n_q2) as usize
        {
            return Err(format!(
                "{in_q} users in queue, counters say {}",
                self.sched.n_q1 + self.sched.n_q2
            ));
        }
        self.check_wait_counts(&by_state)?;
        let listed = self.sched.e1.len() + self.sched.e2.len();
        if listed != by_state[UState::Eligible as usize] {
            return Err(format!(
                "{listed} on the eligible list, {} eligible",
                by_state[UState::Eligible as usize]
            ));
        }
        let ready = self.dispatch.ready_q1.len() + self.dispatch.ready_q2.len();
        if ready != by_state[UState::Ready as usize] {
            return Err(format!(
                "{ready} on ready lists, {} ready",
                by_state[UState::Ready as usize]
            ));
        }
        let running = self
            .dispatch
            .cpus
            .iter()
            .filter(|c| c.busy && c.user != NONE)
            .count();
        if running != by_state[UState::Running as usize] {
            return Err(format!(
                "{running} bursts, {} running",
                by_state[UState::Running as usize]
            ));
        }
        let sum: f64 = self
            .users
            .iter()
            .filter(|u| u.queue.is_some())
            .map(|u| u.admitted_p)
            .sum();
        if (sum - self.sched.sumwss).abs() > 1e-6 * (1.0 + sum) {
            return Err(format!(
                "SUMWSS {} but admitted projections sum to {sum}",
                self.sched.sumwss
            ));
        }
        Ok(())
    }

    /// Every page with a slot holds a used slot, and no slot twice.
    fn check_slots(&self) -> Result<(), String> {
        let mut per_dev = vec![0u32; self.paging.io.len()];
        for t in &self.mem.tables {
            for p in t.iter().filter(|p| p.slot != NONE) {
                if !self.paging.io.slots(p.dev as usize).is_used(p.slot) {
                    return Err(format!(
                        "a page names free slot {} on device {}",
                        p.slot, p.dev
                    ));
                }
                per_dev[p.dev as usize] += 1;
            }
        }
        for (d, &k) in per_dev.iter().enumerate() {
            if k != self.paging.io.slots(d).used() {
                return Err(format!(
                    "device {d}: {k} pages hold slots, {} slots used",
                    self.paging.io.slots(d).used()
                ));
            }
        }
        Ok(())
    }

    /// Each page of a swap set sits on the set's slot for it.
    fn check_swap_sets(&self) -> Result<(), String> {
        let Some(ps) = &self.paging.swap else {
            return Ok(());
        };
        for u in 0..self.users.len() as u32 {
            for &id in ps.sets_of(u) {
                let set = ps.get(id).ok_or("a user lists a dissolved swap set")?;
                for (i, &p) in set.pages.iter().enumerate() {
                    if p == NONE {
                        continue;
                    }
                    let pte = self
                        .mem
                        .pte(u, p)
                        .ok_or("a swap set names a page with no entry")?;
                    if pte.slot != set.first_slot + i as u32 || pte.dev != set.dev {
                        return Err(format!(
                            "user {u} page {p} of swap set {id} is on slot {}:{}, the set on {}:{}+{i}",
                            pte.dev, pte.slot, set.dev, set.first_slot
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    /// Counters that are parts of others never exceed them.
    fn check_counters(&self) -> Result<(), String> {
        let c = &self.ctx.c;
        let parts = [
            (
                "trivial_transactions",
                c.trivial_transactions,
                "transactions",
                c.transactions,
            ),
            ("steals", c.steals, "victims", c.victims),
            ("stolen_reads", c.stolen_reads, "page_reads", c.page_reads),
            ("psi_replaced", c.psi_replaced, "victims", c.victims),
            (
                "q1_stay_page_reads",
                c.q1_stay_page_reads,
                "page_reads",
                c.page_reads,
            ),
            (
                "pressure_full_s",
                c.pressure_full_s,
                "pressure_some_s",
                c.pressure_some_s,
            ),
            ("pressure_some_s", c.pressure_some_s, "time_s", c.time_s),
        ];
        for (part, x, whole, y) in parts {
            if x > y {
                return Err(format!("{part} {x} exceeds {whole} {y}"));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::load_spec;
    use crate::memory::FrameState;
    use crate::System;

    fn small_system() -> System<'static> {
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../presets/vm370.toml"
        ))
        .unwrap();
        let o = [("workload.users", "6"), ("memory.frames", "64")]
            .map(|(k, v)| (k.to_string(), v.to_string()));
        let spec = load_spec(&text, "vm370.toml", &o).unwrap();
        System::build(&spec, 1, None).unwrap()
    }

    #[test]
    fn the_books_balance_at_the_start() {
        small_system().check_invariants().unwrap();
    }

    #[test]
    fn a_frame_both_free_and_mapped_is_caught() {
        let mut sys = small_system();
        let f = sys.mem.take_free().unwrap();
        sys.mem.map(0, 3, f, FrameState::Resident);
        sys.check_invariants().unwrap();
        // Broken on purpose: the frame goes back to the free list still mapped.
        sys.mem.frames[f as usize].state = FrameState::Free;
        let e = sys.check_invariants().unwrap_err();
        assert!(e.contains("free"), "{e}");
    }

    #[test]
    fn a_resident_count_off_by_one_is_caught() {
        let mut sys = small_system();
        sys.mem.resident[2] += 1;
        let e = sys.check_invariants().unwrap_err();
        assert!(e.contains("owner 2"), "{e}");
    }

    #[test]
    fn counters_that_do_not_add_up_are_caught() {
        let mut sys = small_system();
        sys.ctx.c.steals = 1.0;
        let e = sys.check_invariants().unwrap_err();
        assert!(e.contains("steals"), "{e}");
    }

    #[test]
    fn a_wait_counter_out_of_step_is_caught() {
        let mut sys = small_system();
        // Broken on purpose: nobody waits for a VIO at the start.
        sys.sched.n_vio_wait = 1;
        let e = sys.check_invariants().unwrap_err();
        assert!(e.contains("VIO wait"), "{e}");
    }

    #[test]
    fn full_pressure_longer_than_some_is_caught() {
        let mut sys = small_system();
        (
            sys.ctx.c.time_s,
            sys.ctx.c.pressure_some_s,
            sys.ctx.c.pressure_full_s,
        ) = (2.0, 1.0, 1.5);
        let e = sys.check_invariants().unwrap_err();
        assert!(e.contains("pressure_full_s"), "{e}");
    }

    #[test]
    fn a_pool_frame_the_pool_does_not_list_is_caught() {
        let mut sys = small_system();
        // Broken on purpose: a frame in pool state with no pool, then one the pool omits.
        let f = sys.mem.take_for_pool().unwrap();
        let e = sys.check_invariants().unwrap_err();
        assert!(e.contains("pool state without a pool"), "{e}");
        let spec = crate::zswap::ZswapSpec::default();
        sys.paging.zswap = Some(crate::zswap::Zswap::new(spec, 64));
        sys.paging.zswap.as_mut().unwrap().insert(0, 3, 1366);
        let e = sys.check_invariants().unwrap_err();
        assert!(e.contains("needs 1"), "{e}");
        sys.paging.zswap.as_mut().unwrap().frames.push(f);
        sys.check_invariants().unwrap();
    }

    #[test]
    fn a_user_in_two_places_is_caught() {
        let mut sys = small_system();
        sys.sched.n_q1 += 1;
        let e = sys.check_invariants().unwrap_err();
        assert!(e.contains("in queue"), "{e}");
    }
}
