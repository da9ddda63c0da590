//! A device served one request at a time in arrival order: the UNIX V6 RK11 controller's
//! queue (rk.c `rkstrategy` appends, `rkstart` takes the head; Chanson §2.A) and the M44's
//! IBM 1301 disks ("served in order", B&G 1968). The caller times each request when it
//! starts, by the device catalogue's law, and schedules its completion.
//!
//! ```text
//!   submit ──► [ queued … ] ──start_next──► in service ──finish──► done
//! ```

use std::collections::VecDeque;

/// A FIFO device queue with one request in service.
#[derive(Clone, Debug)]
pub struct FifoQueue<R> {
    queued: VecDeque<R>,
    in_service: Option<R>,
}

impl<R> Default for FifoQueue<R> {
    fn default() -> Self {
        FifoQueue {
            queued: VecDeque::new(),
            in_service: None,
        }
    }
}

impl<R> FifoQueue<R> {
    /// An idle, empty queue.
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends `r`; true if the device is idle, so that the caller starts it now
    /// ([`FifoQueue::start_next`]).
    pub fn submit(&mut self, r: R) -> bool {
        self.queued.push_back(r);
        self.in_service.is_none()
    }

    /// Puts the head request in service and returns it; `None` if nothing is queued. The
    /// device must be idle.
    pub fn start_next(&mut self) -> Option<&R> {
        debug_assert!(self.in_service.is_none(), "one request at a time");
        self.in_service = Some(self.queued.pop_front()?);
        self.in_service.as_ref()
    }

    /// The request in service is done: returned, and the device idle (`None`: it was idle).
    pub fn finish(&mut self) -> Option<R> {
        self.in_service.take()
    }

    /// Whether a request is in service.
    pub fn is_busy(&self) -> bool {
        self.in_service.is_some()
    }

    /// Requests queued and in service [requests].
    pub fn len(&self) -> usize {
        self.queued.len() + usize::from(self.in_service.is_some())
    }

    /// True with nothing queued or in service.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_are_served_one_at_a_time_in_arrival_order() {
        let mut q = FifoQueue::new();
        assert!(q.submit(1), "an idle device starts at once");
        assert_eq!(q.start_next(), Some(&1));
        assert!(!q.submit(2) && !q.submit(3), "a busy device queues");
        assert_eq!((q.len(), q.is_busy()), (3, true));
        assert_eq!(q.finish(), Some(1));
        assert_eq!(q.start_next(), Some(&2));
        assert_eq!(q.finish(), Some(2));
        assert_eq!(q.start_next(), Some(&3));
        assert_eq!(q.finish(), Some(3));
        assert_eq!(q.start_next(), None);
        assert!(q.is_empty() && !q.is_busy() && q.finish().is_none());
    }
}
