//! LIRS: low inter-reference recency set (Jiang & Zhang 2002).
//!
//! Pages are LIR (low inter-reference recency: always resident) or HIR. The frames split into
//! L_lirs for LIR pages and L_hirs (a small fraction) for resident HIR pages. Two lists:
//!
//! ```text
//!   stack S (top = most recent):  LIR pages, and HIR pages (resident or not) more recent than
//!                                 the bottom LIR page; pruned so that its bottom is LIR
//!   queue Q (front = oldest):     resident HIR pages; a fault reclaims the front
//! ```
//!
//! A reference to an HIR page that is still in S has an inter-reference recency lower than the
//! bottom LIR page's recency, so it becomes LIR and the bottom LIR page becomes resident HIR (to
//! the end of Q); S is then pruned. A reference to an HIR page not in S re-enters S at the top
//! and stays HIR (resident at the end of Q). The first L_lirs distinct pages become LIR.
//! S is not bounded beyond the pages of the string (the paper's basic algorithm).
//!
//! Parameters: `hir_fraction` [1], default 0.01 (the paper's 1% of the cache for resident
//! HIR pages); L_hirs = max(1, floor(hir_fraction * frames)), at most frames - 1, so LIRS
//! needs at least 2 frames.

use super::list::{Links, List};
use super::{Memory, ParamInfo, PolicyState, Replacement, SpecParams};
use crate::TraceError;
use serde::{Deserialize, Serialize};

/// Parameters of LIRS.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LirsSpec {
    /// Share of the frames for resident HIR pages [1] -- parameter, default 0.01 (source:
    /// Jiang & Zhang 2002, section 4, 1% of the cache size).
    pub hir_fraction: f64,
}

impl Default for LirsSpec {
    fn default() -> Self {
        LirsSpec { hir_fraction: 0.01 }
    }
}

impl SpecParams for LirsSpec {
    const PARAMS: &'static [ParamInfo] = &[ParamInfo {
        name: "hir_fraction",
        unit: "[1]",
        default: "0.01",
        doc: "share of the frames for resident HIR pages (at least one frame)",
    }];
}

const ABSENT: u8 = 0;
const LIR: u8 = 1;
const HIR_RES: u8 = 2;
const HIR_NONRES: u8 = 3;

/// LIRS state: status and stack membership per page, the stack S and the queue Q.
#[derive(Clone, Debug)]
pub struct Lirs {
    status: Vec<u8>,
    in_s: Vec<bool>,
    s_links: Links,
    s: List,
    q_links: Links,
    q: List,
    n_lir: u32,
    l_lirs: u32,
    c: u32,
}

impl Lirs {
    /// LIRS over `frames` frames [frames] (at least 2) for pages `0..page_bound`.
    pub fn new(spec: &LirsSpec, frames: u32, page_bound: u32) -> Result<Self, TraceError> {
        if frames < 2 {
            return Err(TraceError::invalid(format!(
                "frames: {frames} for lirs; expected at least 2 (one LIR and one HIR frame)"
            )));
        }
        if !(spec.hir_fraction > 0.0 && spec.hir_fraction < 1.0) {
            return Err(TraceError::invalid(format!(
                "lirs.hir_fraction: {}; expected a number between 0 and 1 (exclusive)",
                spec.hir_fraction
            )));
        }
        let l_hirs = ((spec.hir_fraction * f64::from(frames)) as u32).clamp(1, frames - 1);
        let n = page_bound as usize;
        Ok(Lirs {
            status: vec![ABSENT; n],
            in_s: vec![false; n],
            s_links: Links::new(page_bound),
            s: List::default(),
            q_links: Links::new(page_bound),
            q: List::default(),
            n_lir: 0,
            l_lirs: frames - l_hirs,
            c: frames,
        })
    }

    fn s_top(&mut self, x: u32) {
        if self.in_s[x as usize] {
            self.s_links.move_front(&mut self.s, x);
        } else {
            self.s_links.push_front(&mut self.s, x);
            self.in_s[x as usize] = true;
        }
    }

    fn prune(&mut self) {
        loop {
            let b = self.s.tail;
            if b == super::NIL || self.status[b as usize] == LIR {
                break;
            }
            self.s_links.remove(&mut self.s, b);
            self.in_s[b as usize] = false;
            if self.status[b as usize] == HIR_NONRES {
                self.status[b as usize] = ABSENT;
            }
        }
    }

    /// The bottom LIR page of S becomes resident HIR at the end of Q.
    fn demote_bottom(&mut self) {
        let y = self.s.tail;
        self.s_links.remove(&mut self.s, y);
        self.in_s[y as usize] = false;
        self.status[y as usize] = HIR_RES;
        self.q_links.push_front(&mut self.q, y);
        self.n_lir -= 1;
        self.prune();
    }

    fn promote(&mut self, x: u32) {
        self.status[x as usize] = LIR;
        self.n_lir += 1;
        self.s_top(x);
        self.demote_bottom();
    }

    #[inline(never)]
    fn touch(&mut self, x: u32, mem: &mut Memory) -> bool {
        match self.status[x as usize] {
            LIR => {
                let was_bottom = self.s.tail == x;
                self.s_top(x);
                if was_bottom {
                    self.prune();
                }
                true
            }
            HIR_RES => {
                self.q_links.remove(&mut self.q, x);
                if self.in_s[x as usize] {
                    self.promote(x);
                } else {
                    self.s_top(x);
                    self.q_links.push_front(&mut self.q, x);
                }
                true
            }
            _ => {
                if self.n_lir < self.l_lirs {
                    self.status[x as usize] = LIR;
                    self.n_lir += 1;
                    self.s_top(x);
                    return false;
                }
                if self.n_lir + self.q.len == self.c {
                    let v = self.q_links.pop_back(&mut self.q);
                    self.status[v as usize] = if self.in_s[v as usize] {
                        HIR_NONRES
                    } else {
                        ABSENT
                    };
                    mem.reclaim(v);
                }
                if self.in_s[x as usize] {
                    self.promote(x);
                } else {
                    self.status[x as usize] = HIR_RES;
                    self.s_top(x);
                    self.q_links.push_front(&mut self.q, x);
                }
                false
            }
        }
    }
}

impl Replacement for Lirs {
    fn reserve_pages(&mut self, page_bound: u32) {
        self.s_links.reserve_pages(page_bound);
        self.q_links.reserve_pages(page_bound);
        if self.status.len() < page_bound as usize {
            self.status.resize(page_bound as usize, ABSENT);
            self.in_s.resize(page_bound as usize, false);
        }
    }

    #[inline(always)]
    fn reference(&mut self, page: u32, count: u32, _now: u64, mem: &mut Memory) -> bool {
        // The common hit: an LIR page above the bottom of S goes to the top, nothing to prune,
        // and a second reference changes nothing.
        if self.status[page as usize] == LIR && self.s.tail != page {
            self.s_links.move_front(&mut self.s, page);
            return true;
        }
        let hit = self.touch(page, mem);
        if count > 1 && self.status[page as usize] != LIR {
            self.touch(page, mem);
        }
        hit
    }

    fn is_resident(&self, page: u32) -> bool {
        matches!(self.status.get(page as usize), Some(&LIR) | Some(&HIR_RES))
    }

    fn resident(&self) -> u32 {
        self.n_lir + self.q.len
    }

    fn state(&self) -> PolicyState {
        PolicyState {
            lists: vec![
                ("S (top first)".into(), self.s_links.collect(&self.s)),
                ("Q (newest first)".into(), self.q_links.collect(&self.q)),
            ],
            ..PolicyState::default()
        }
    }
}
