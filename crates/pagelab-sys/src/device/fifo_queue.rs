//! A device served one request at a time in arrival order: the UNIX V6 RK11 controller's
//! queue (rk.c `rkstrategy` appends, `rkstart` takes the head; Chanson §2.A) and the M44's
//! IBM 1301 disks ("served in order", B&G 1968). The caller times each request when it
//! starts, by the device catalogue's law, and schedules its completion.
//!
//! ```text
//!   submit ──► [ queued … ] ──start_next──► in service ──finish──► done
//! ```
//!
//! Where every request's service time is known when it arrives (the M44's pages, a fixed time
//! each), the same queue has a closed form, [`FifoBacklog`]: Lindley's recursion (Lindley 1952;
//! Kleinrock 1975, §8.1), start = max(free, ready) and free = start + service, gives each
//! request's completion at its arrival, with no event at its start.

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

/// A FIFO device queue in closed form: only the time the device falls idle is kept, and a
/// request booked on arrival learns its completion at once. Requests booked in order of arrival
/// are served in that order, each starting when the device is free and the request is ready.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FifoBacklog {
    free_at: u64,
}

impl FifoBacklog {
    /// An idle device.
    pub fn new() -> Self {
        Self::default()
    }

    /// Books a request that arrives now, can start no earlier than `ready` and takes
    /// `service` [ns]; returns its completion [ns]. The request keeps its place in the queue
    /// while it waits to be ready.
    pub fn book(&mut self, ready: u64, service: u64) -> u64 {
        self.free_at = self.free_at.max(ready) + service;
        self.free_at
    }

    /// When the last request booked completes [ns] (0: nothing booked yet).
    pub fn free_at(&self) -> u64 {
        self.free_at
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Requests (arrival, service) served by the event-driven queue: completions in order.
    fn served_by_events(requests: &[(u64, u64)]) -> Vec<u64> {
        let mut q = FifoQueue::new();
        let (mut done, mut busy_until) = (Vec::new(), None::<u64>);
        let mut next = 0;
        while done.len() < requests.len() {
            // The next event: the completion in service, or the next arrival (a completion
            // first on a tie, as a device finishes before its next request is queued).
            let arrival = requests.get(next).map(|r| r.0);
            match (busy_until, arrival) {
                (Some(t), a) if a.is_none_or(|a| t <= a) => {
                    q.finish();
                    done.push(t);
                    busy_until = q.start_next().map(|&(_, s)| t + s);
                }
                (_, Some(a)) => {
                    if q.submit(requests[next]) {
                        busy_until = q.start_next().map(|&(_, s)| a + s);
                    }
                    next += 1;
                }
                _ => unreachable!("a request is in service or still to come"),
            }
        }
        done
    }

    #[test]
    fn the_closed_form_gives_the_event_driven_queues_completions() {
        let mut rng = 0x9e37_79b9_7f4a_7c15_u64;
        let mut draw = |n: u64| {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng % n
        };
        let mut t = 0;
        let requests: Vec<(u64, u64)> = (0..500)
            .map(|_| {
                t += draw(300);
                (t, 1 + draw(400))
            })
            .collect();
        let mut backlog = FifoBacklog::new();
        let closed: Vec<u64> = requests.iter().map(|&(a, s)| backlog.book(a, s)).collect();
        assert_eq!(closed, served_by_events(&requests));
        assert_eq!(backlog.free_at(), *closed.last().unwrap());
    }

    #[test]
    fn a_request_not_yet_ready_keeps_its_place_and_starts_when_ready() {
        let mut d = FifoBacklog::new();
        assert_eq!(d.book(0, 10), 10, "an idle device starts at once");
        assert_eq!(
            d.book(50, 10),
            60,
            "ready at 50, after the device fell idle at 10"
        );
        assert_eq!(
            d.book(0, 5),
            65,
            "booked later, served after the one waiting to be ready"
        );
    }

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
