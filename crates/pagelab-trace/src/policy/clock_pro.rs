//! CLOCK-Pro (Jiang, Chen & Zhang 2005): LIRS's reuse-distance test on a clock.
//!
//! All tracked pages sit on one circular list in order of recency, newest just behind the hot
//! hand. Resident pages are *hot* or *cold*; a cold page may be in its *test period*, and a
//! cold page reclaimed during its test period stays on the list as a *non-resident test* page
//! (at most `frames` of them). Every page has a reference bit, set by hits. Three hands move
//! from older to newer pages:
//!
//! ```text
//!   hand_cold  at a resident cold page: bit 0 -> reclaim it (kept as non-resident if in test);
//!              bit 1 and in test -> promote to hot; bit 1, not in test -> start a test period
//!              and move it to the head. Stops after one reclaim.
//!   hand_hot   at a hot page: bit 1 -> clear it (the page is passed, so it is now the newest);
//!              bit 0 -> demote it to cold and stop. At a cold page: end its test period;
//!              a non-resident test page is dropped. Runs while hot pages exceed frames - m_c.
//!   hand_test  ends the test period of the next cold page and drops the next non-resident
//!              one; runs while non-resident test pages exceed frames.
//! ```
//!
//! A fault on a non-resident test page makes it hot at the head (its reuse distance beat the
//! coldest hot page's); any other fault inserts a cold page in its test period at the head,
//! with its bit clear (a run's second reference sets it). The cold target m_c adapts: +1 when a
//! cold page is re-referenced in its test period, -1 when a test period ends without one;
//! it stays within 1 ..= frames - 1.
//!
//! Deviations (the paper leaves these open, section 4): the initial cold target is a parameter,
//! `initial_cold_fraction` of the frames (default 0.01, the share LIRS gives resident HIR
//! pages, Jiang & Zhang 2002); hand_test stops after dropping one non-resident page rather
//! than at the next cold page; a page that hand_test drops while its own fault is being served
//! is treated as a new page.

use super::{Memory, ParamInfo, PolicyState, Replacement, SpecParams, NIL};
use crate::TraceError;
use serde::{Deserialize, Serialize};

/// Parameters of CLOCK-Pro.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ClockProSpec {
    /// Initial cold target as a share of the frames [1] -- parameter, default 0.01 (the resident
    /// HIR share of LIRS, Jiang & Zhang 2002); at least one frame.
    pub initial_cold_fraction: f64,
}

impl Default for ClockProSpec {
    fn default() -> Self {
        ClockProSpec {
            initial_cold_fraction: 0.01,
        }
    }
}

impl SpecParams for ClockProSpec {
    const PARAMS: &'static [ParamInfo] = &[ParamInfo {
        name: "initial_cold_fraction",
        unit: "[1]",
        default: "0.01",
        doc: "initial cold-page target as a share of the frames (it then adapts)",
    }];
}

const ABSENT: u8 = 0;
const HOT: u8 = 1;
const COLD: u8 = 2;
const TEST: u8 = 3;

/// CLOCK-Pro state: the circular list, per-page status and bits, the three hands.
#[derive(Clone, Debug)]
pub struct ClockPro {
    status: Vec<u8>,
    in_test: Vec<bool>,
    refd: Vec<bool>,
    next: Vec<u32>,
    prev: Vec<u32>,
    hand_hot: u32,
    hand_cold: u32,
    hand_test: u32,
    n_hot: u32,
    n_cold: u32,
    n_test: u32,
    m: u32,
    m_c: u32,
}

impl ClockPro {
    /// CLOCK-Pro over `frames` frames [frames] for pages `0..page_bound`.
    pub fn new(spec: &ClockProSpec, frames: u32, page_bound: u32) -> Result<Self, TraceError> {
        let f = spec.initial_cold_fraction;
        if !(f > 0.0 && f < 1.0) {
            return Err(TraceError::invalid(format!(
                "clock-pro.initial_cold_fraction: {f}; expected a number between 0 and 1 (exclusive)"
            )));
        }
        let n = page_bound as usize;
        let mut me = ClockPro {
            status: vec![ABSENT; n],
            in_test: vec![false; n],
            refd: vec![false; n],
            next: vec![NIL; n],
            prev: vec![NIL; n],
            hand_hot: NIL,
            hand_cold: NIL,
            hand_test: NIL,
            n_hot: 0,
            n_cold: 0,
            n_test: 0,
            m: frames,
            m_c: 0,
        };
        me.m_c = me.clamp_cold((f * f64::from(frames)) as u32);
        Ok(me)
    }

    fn clamp_cold(&self, c: u32) -> u32 {
        c.clamp(1, self.m.saturating_sub(1).max(1))
    }

    /// Inserts `x` at the head: just behind the hot hand.
    fn insert_head(&mut self, x: u32) {
        let h = self.hand_hot;
        if h == NIL {
            self.next[x as usize] = x;
            self.prev[x as usize] = x;
            self.hand_hot = x;
            self.hand_cold = x;
            self.hand_test = x;
            return;
        }
        let p = self.prev[h as usize];
        self.next[p as usize] = x;
        self.prev[x as usize] = p;
        self.next[x as usize] = h;
        self.prev[h as usize] = x;
    }

    /// Takes `x` off the list; hands on it move to the next page.
    fn unlink(&mut self, x: u32) {
        let n = self.next[x as usize];
        if n == x {
            self.hand_hot = NIL;
            self.hand_cold = NIL;
            self.hand_test = NIL;
            return;
        }
        let p = self.prev[x as usize];
        self.next[p as usize] = n;
        self.prev[n as usize] = p;
        for h in [&mut self.hand_hot, &mut self.hand_cold, &mut self.hand_test] {
            if *h == x {
                *h = n;
            }
        }
    }

    fn end_test(&mut self, x: u32) {
        if self.in_test[x as usize] {
            self.in_test[x as usize] = false;
            self.m_c = self.clamp_cold(self.m_c - 1);
        }
    }

    /// Drops a non-resident test page from the list (its test period ended).
    fn drop_test(&mut self, x: u32) {
        self.unlink(x);
        self.status[x as usize] = ABSENT;
        self.in_test[x as usize] = false;
        self.n_test -= 1;
        self.m_c = self.clamp_cold(self.m_c - 1);
    }

    fn run_hand_hot(&mut self) {
        loop {
            let x = self.hand_hot;
            match self.status[x as usize] {
                HOT => {
                    self.hand_hot = self.next[x as usize];
                    if self.refd[x as usize] {
                        self.refd[x as usize] = false;
                    } else {
                        self.status[x as usize] = COLD;
                        self.n_hot -= 1;
                        self.n_cold += 1;
                        return;
                    }
                }
                COLD => {
                    self.end_test(x);
                    self.hand_hot = self.next[x as usize];
                }
                _ => self.drop_test(x),
            }
        }
    }

    fn run_hand_test(&mut self) {
        loop {
            let x = self.hand_test;
            match self.status[x as usize] {
                TEST => {
                    self.drop_test(x);
                    return;
                }
                COLD => {
                    self.end_test(x);
                    self.hand_test = self.next[x as usize];
                }
                _ => self.hand_test = self.next[x as usize],
            }
        }
    }

    fn balance_hot(&mut self) {
        while self.n_hot > self.m - self.m_c {
            self.run_hand_hot();
        }
    }

    /// Frees one frame: hand_cold reclaims the first unreferenced cold page.
    fn run_hand_cold(&mut self, mem: &mut Memory) {
        loop {
            if self.n_cold == 0 {
                self.run_hand_hot();
            }
            let x = self.hand_cold;
            if self.status[x as usize] != COLD {
                self.hand_cold = self.next[x as usize];
                continue;
            }
            let xi = x as usize;
            if self.refd[xi] {
                self.refd[xi] = false;
                if self.in_test[xi] {
                    self.in_test[xi] = false;
                    self.status[xi] = HOT;
                    self.n_cold -= 1;
                    self.n_hot += 1;
                    self.m_c = self.clamp_cold(self.m_c + 1);
                    self.hand_cold = self.next[xi];
                } else {
                    self.in_test[xi] = true;
                    self.unlink(x);
                    self.insert_head(x);
                }
                continue;
            }
            mem.reclaim(x);
            self.n_cold -= 1;
            if self.in_test[xi] {
                self.status[xi] = TEST;
                self.n_test += 1;
                self.hand_cold = self.next[xi];
                while self.n_test > self.m {
                    self.run_hand_test();
                }
            } else {
                self.unlink(x);
                self.status[xi] = ABSENT;
            }
            break;
        }
        self.balance_hot();
    }

    fn fault(&mut self, x: u32, mem: &mut Memory) {
        let xi = x as usize;
        if self.status[xi] == TEST {
            self.m_c = self.clamp_cold(self.m_c + 1);
        }
        if self.n_hot + self.n_cold == self.m {
            self.run_hand_cold(mem);
        }
        if self.status[xi] == TEST {
            self.unlink(x);
            self.n_test -= 1;
            self.in_test[xi] = false;
            self.status[xi] = HOT;
            self.n_hot += 1;
            self.refd[xi] = false;
            self.insert_head(x);
            self.balance_hot();
        } else {
            self.status[xi] = COLD;
            self.in_test[xi] = true;
            self.refd[xi] = false;
            self.n_cold += 1;
            self.insert_head(x);
        }
    }

    fn collect(&self, want: u8) -> Vec<u32> {
        let mut v = Vec::new();
        let h = self.hand_hot;
        if h == NIL {
            return v;
        }
        let mut x = h;
        loop {
            if self.status[x as usize] == want {
                v.push(x);
            }
            x = self.next[x as usize];
            if x == h {
                return v;
            }
        }
    }
}

impl Replacement for ClockPro {
    fn reserve_pages(&mut self, page_bound: u32) {
        let n = page_bound as usize;
        if self.status.len() < n {
            self.status.resize(n, ABSENT);
            self.in_test.resize(n, false);
            self.refd.resize(n, false);
            self.next.resize(n, NIL);
            self.prev.resize(n, NIL);
        }
    }

    #[inline]
    fn reference(&mut self, page: u32, count: u32, _now: u64, mem: &mut Memory) -> bool {
        let s = self.status[page as usize];
        let hit = s == HOT || s == COLD;
        if hit {
            self.refd[page as usize] = true;
        } else {
            self.fault(page, mem);
            if count > 1 {
                self.refd[page as usize] = true;
            }
        }
        hit
    }

    fn is_resident(&self, page: u32) -> bool {
        matches!(self.status.get(page as usize), Some(&HOT) | Some(&COLD))
    }

    fn resident(&self) -> u32 {
        self.n_hot + self.n_cold
    }

    fn state(&self) -> PolicyState {
        let hand = |h: u32| if h == NIL { vec![] } else { vec![h] };
        let referenced = |v: Vec<u32>| v.into_iter().filter(|&p| self.refd[p as usize]).collect();
        let mut order = Vec::new();
        if self.hand_hot != NIL {
            let mut x = self.hand_hot;
            loop {
                order.push(x);
                x = self.next[x as usize];
                if x == self.hand_hot {
                    break;
                }
            }
        }
        let cold = self.collect(COLD);
        let in_test = cold
            .iter()
            .copied()
            .filter(|&p| self.in_test[p as usize])
            .collect();
        PolicyState {
            lists: vec![
                ("clock (oldest first, from hand_hot)".into(), order),
                ("hot".into(), self.collect(HOT)),
                ("cold".into(), cold.clone()),
                ("cold in test".into(), in_test),
                ("non-resident test".into(), self.collect(TEST)),
                (
                    "referenced".into(),
                    referenced([self.collect(HOT), cold].concat()),
                ),
                ("hand_cold".into(), hand(self.hand_cold)),
                ("hand_test".into(), hand(self.hand_test)),
            ],
            values: vec![("m_c".into(), f64::from(self.m_c))],
            ..PolicyState::default()
        }
    }
}
