//! The exact system page survival index Ψs of bard 1975 §5, eq. 4:
//!
//! ```text
//!   Ψs = Σ_j n_j / m   over the m pages replaced in a period, n_j = the essential
//!        interruptions its user suffered between the page's last reference and its replacement
//! ```
//!
//! An *essential* interruption leaves the program unrunnable (bard §5, "interruptions which
//! left that program unrunnable"). [`Essential::Unrunnable`] (default) reads that literally:
//! a page exception that waits (for a frame or a page read), a minidisk virtual I/O, a console
//! write and the terminal read that ends a transaction (in CP-67 all of a virtual machine's I/O,
//! console included, is virtual I/O). [`Essential::PagingAndVio`] counts only the events eq. 5
//! counts as P and V (page exceptions and minidisk I/O). Neither counts a queue-drop by the
//! scheduler (the program is runnable, only not admitted).
//!
//! Each user keeps a running count; every frame keeps the user that last referenced it and that
//! user's count at the reference (set again when the page is read in, the faulting reference).
//! At replacement n_j is the difference. A shared page is charged to its last referencer. The
//! books also sum n_j per owner, so that each program's own survival index can be compared with
//! the common Ψ* of eq. 1 (bard §4).

use crate::memory::NONE;
use pagelab_core::Frames;
use serde::{Deserialize, Serialize};

/// Which interruptions count as essential in eq. 4 (bard §5).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Essential {
    /// Every interruption that leaves the program unrunnable: page waits, minidisk I/O, console
    /// writes, the terminal read at the end of a transaction (bard §5's parenthesis).
    #[default]
    Unrunnable,
    /// Page waits and minidisk I/O only: the events of eq. 5's ΔP + ΔV.
    PagingAndVio,
}

/// Who last referenced a frame, and that user's essential interruptions then.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mark {
    /// The referencing user (NONE: never referenced).
    pub user: u32,
    /// Its essential interruptions at the reference [count].
    pub at: u64,
}

/// Per-user interruption counts and per-frame marks.
#[derive(Clone, Debug)]
pub struct SurvivalBooks {
    /// Essential interruptions per user since time zero [count].
    pub essential: Vec<u64>,
    /// Last reference mark per frame.
    pub marks: Vec<Mark>,
    /// Per owner: sum of n_j and count of its replaced pages, from [`SurvivalBooks::tally`].
    pub owner_sums: Vec<(u64, u64)>,
    /// Which interruptions [`SurvivalBooks::interrupted`] is told of (the caller decides).
    pub kind: Essential,
}

impl SurvivalBooks {
    /// Books for `users` users and `frames` frames.
    pub fn new(users: usize, frames: usize) -> SurvivalBooks {
        SurvivalBooks {
            essential: vec![0; users],
            marks: vec![Mark { user: NONE, at: 0 }; frames],
            owner_sums: vec![(0, 0); users],
            kind: Essential::default(),
        }
    }

    /// Books for `users` users and `frames` frames counting interruptions of `kind`.
    pub fn of_kind(users: u32, frames: Frames, kind: Essential) -> SurvivalBooks {
        SurvivalBooks {
            kind,
            ..SurvivalBooks::new(users as usize, frames.get() as usize)
        }
    }

    /// `u` became unrunnable on a page exception or a virtual I/O.
    pub fn interrupted(&mut self, u: u32) {
        self.essential[u as usize] += 1;
    }

    /// `u` references the page in frame `f` now.
    #[inline]
    pub fn referenced(&mut self, f: u32, u: u32) {
        self.marks[f as usize] = Mark {
            user: u,
            at: self.essential[u as usize],
        };
    }

    /// The page in frame `f` is replaced: n_j of eq. 4, or `None` if it was never referenced.
    pub fn replaced(&self, f: u32) -> Option<u64> {
        let m = self.marks[f as usize];
        (m.user != NONE).then(|| self.essential[m.user as usize] - m.at)
    }

    /// Adds the replaced page in frame `f`, with its n_j, to its owner's sums.
    pub fn tally(&mut self, f: u32, n: u64) {
        let u = self.marks[f as usize].user;
        if u != NONE {
            let s = &mut self.owner_sums[u as usize];
            s.0 += n;
            s.1 += 1;
        }
    }

    /// Eq. 4 over the pages of owner `u` tallied so far; `None` if none was replaced.
    pub fn owner_psi(&self, u: u32) -> Option<f64> {
        let (n, m) = self.owner_sums[u as usize];
        (m > 0).then(|| n as f64 / m as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eq_4_on_a_hand_worked_history() {
        // Users 0 and 1, frames 0..3. User 0 references frame 0, then suffers 3 interruptions;
        // user 1 references frame 1, suffers 1, references frame 2, suffers 4 more.
        let mut b = SurvivalBooks::new(2, 3);
        b.referenced(0, 0);
        for _ in 0..3 {
            b.interrupted(0);
        }
        b.referenced(1, 1);
        b.interrupted(1);
        b.referenced(2, 1);
        for _ in 0..4 {
            b.interrupted(1);
        }
        // n = 3, 5, 4: Ψs = 12/3 = 4.
        let n: Vec<u64> = (0..3).map(|f| b.replaced(f).unwrap()).collect();
        assert_eq!(n, vec![3, 5, 4]);
        assert_eq!(n.iter().sum::<u64>() as f64 / 3.0, 4.0);
        // A re-reference restarts the count; another user's interruptions do not count.
        b.referenced(0, 0);
        b.interrupted(1);
        assert_eq!(b.replaced(0), Some(0));
        assert_eq!(SurvivalBooks::new(1, 1).replaced(0), None);
    }

    #[test]
    fn owner_sums_split_eq_4_by_program() {
        // Frames 1 and 2 belong to user 1 (n = 5 and 4), frame 0 to user 0 (n = 3).
        let mut b = SurvivalBooks::new(2, 3);
        b.referenced(0, 0);
        b.referenced(1, 1);
        b.interrupted(1);
        b.referenced(2, 1);
        for _ in 0..3 {
            b.interrupted(0);
        }
        for _ in 0..4 {
            b.interrupted(1);
        }
        for f in 0..3 {
            let n = b.replaced(f).unwrap();
            b.tally(f, n);
        }
        assert_eq!(b.owner_psi(0), Some(3.0));
        assert_eq!(b.owner_psi(1), Some(4.5));
        assert_eq!(SurvivalBooks::new(1, 1).owner_psi(0), None);
    }
}
