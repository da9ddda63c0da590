//! The event queue: a heap ordered by `(time, seq)`, so that events due at the same
//! instant come out in the order they were scheduled (NeXosim, SimPy's `_eid`). Ties never
//! depend on heap accident, which is what makes runs bit-identical.

use crate::time::Tick;

/// Children per node: a shallower heap than a binary one, its four children in one or two
/// cache lines.
const ARITY: usize = 4;

/// The key `(at, seq)` as one integer, compared in one step.
#[inline]
fn key(at: Tick, seq: u64) -> u128 {
    (u128::from(at.0) << 64) | u128::from(seq)
}

#[derive(Debug)]
struct Entry<E> {
    key: u128,
    event: E,
}

/// A future-event list with FIFO tie-breaking: a 4-ary min-heap on `(time, seq)`. Keys are
/// unique, so the order events leave in does not depend on the heap's shape.
#[derive(Debug)]
pub struct EventQueue<E> {
    heap: Vec<Entry<E>>,
    next_seq: u64,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> EventQueue<E> {
    /// An empty queue.
    pub fn new() -> Self {
        EventQueue {
            heap: Vec::new(),
            next_seq: 0,
        }
    }

    /// Schedules `event` at `at`; returns its sequence number.
    #[inline]
    pub fn schedule(&mut self, at: Tick, event: E) -> u64 {
        let seq = self.next_seq;
        self.next_seq += 1;
        let k = key(at, seq);
        let mut i = self.heap.len();
        self.heap.push(Entry { key: k, event });
        // Sift up: move parents down until the new entry's place is found.
        while i > 0 {
            let parent = (i - 1) / ARITY;
            if self.heap[parent].key <= k {
                break;
            }
            self.heap.swap(i, parent);
            i = parent;
        }
        seq
    }

    /// Time of the earliest pending event, if any.
    #[inline]
    pub fn peek_time(&self) -> Option<Tick> {
        self.heap.first().map(|e| Tick((e.key >> 64) as u64))
    }

    /// Removes and returns the earliest event with its time.
    #[inline]
    pub fn pop(&mut self) -> Option<(Tick, E)> {
        let last = self.heap.pop()?;
        let top = if self.heap.is_empty() {
            last
        } else {
            let top = std::mem::replace(&mut self.heap[0], last);
            self.sift_down();
            top
        };
        Some((Tick((top.key >> 64) as u64), top.event))
    }

    /// Restores the heap after the root was replaced: the smallest child moves up until the
    /// root's entry is no larger than the children.
    #[inline]
    fn sift_down(&mut self) {
        let n = self.heap.len();
        let k = self.heap[0].key;
        let mut i = 0;
        loop {
            let first = i * ARITY + 1;
            if first >= n {
                break;
            }
            let end = (first + ARITY).min(n);
            let mut c = first;
            let mut ck = self.heap[first].key;
            for j in first + 1..end {
                let jk = self.heap[j].key;
                if jk < ck {
                    c = j;
                    ck = jk;
                }
            }
            if k <= ck {
                break;
            }
            self.heap.swap(i, c);
            i = c;
        }
    }

    /// Pending events.
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// True when nothing is pending.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_time_events_leave_in_schedule_order() {
        let mut q = EventQueue::new();
        q.schedule(Tick(5), 'b');
        q.schedule(Tick(1), 'a');
        q.schedule(Tick(5), 'c');
        q.schedule(Tick(5), 'd');
        let order: Vec<char> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, vec!['a', 'b', 'c', 'd']);
    }

    /// Against a list kept sorted, with many equal times and pops between schedules.
    #[test]
    fn pops_in_time_then_schedule_order() {
        let mut q = EventQueue::new();
        let mut model: Vec<(Tick, u64, u32)> = Vec::new();
        let mut x: u64 = 12345;
        for i in 0..5000u32 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let at = Tick((x >> 40) % 64 + u64::from(i / 100) * 8);
            let seq = q.schedule(at, i);
            model.push((at, seq, i));
            if (x >> 20).is_multiple_of(3) {
                model.sort();
                let (t, _, e) = model.remove(0);
                assert_eq!(q.pop(), Some((t, e)));
            }
        }
        model.sort();
        for (t, _, e) in model {
            assert_eq!(q.pop(), Some((t, e)));
        }
        assert!(q.is_empty());
    }
}
