//! Stopping long work when the user asks (Ctrl-C, SIGTERM).
//!
//! ```text
//!  signal ─► handler (installed by the front end) ─► request(signal) ─► PENDING
//!                                                                         │
//!  long loops: every few thousand events, per chunk or per block ─► check()? ─► Err(Interrupted)
//! ```
//!
//! A signal is a fact about the whole process, so the one piece of state here is a process-wide
//! atomic holding the pending signal number (0: none). The models never install handlers and
//! never read the clock for this: they call [`check`] at a bounded interval of work (an atomic
//! load, a few nanoseconds) and return [`Interrupted`] up the stack like any other error, so
//! that temporary files are removed by their owners' `Drop` and no result is half written. The
//! front end installs the handlers (`signal_hook::flag::register_usize` writes the signal
//! number into [`shared_flag`]) and turns [`Interrupted`] into its exit status (128 + signal).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

static PENDING: OnceLock<Arc<AtomicUsize>> = OnceLock::new();

fn pending_flag() -> &'static Arc<AtomicUsize> {
    PENDING.get_or_init(|| Arc::new(AtomicUsize::new(0)))
}

/// The work was stopped by a signal before it finished.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("interrupted by {}", signal_name(*signal))]
pub struct Interrupted {
    /// The signal's number (2: SIGINT, 15: SIGTERM).
    pub signal: i32,
}

fn signal_name(signal: i32) -> String {
    match signal {
        2 => "SIGINT (Ctrl-C)".into(),
        15 => "SIGTERM".into(),
        n => format!("signal {n}"),
    }
}

/// The flag a signal handler writes the signal number into (for `signal_hook`).
pub fn shared_flag() -> Arc<AtomicUsize> {
    pending_flag().clone()
}

/// Asks every long loop of the process to stop, as signal `signal` would.
pub fn request(signal: i32) {
    pending_flag().store(signal.max(1) as usize, Ordering::SeqCst);
}

/// The signal asked for, if any.
pub fn pending() -> Option<i32> {
    match pending_flag().load(Ordering::Relaxed) {
        0 => None,
        s => Some(s as i32),
    }
}

/// Forgets a request (after the front end has acted on it).
pub fn clear() {
    pending_flag().store(0, Ordering::SeqCst);
}

/// `Err(Interrupted)` if a stop was asked for. Call it at a bounded interval of work.
#[inline]
pub fn check() -> Result<(), Interrupted> {
    match pending() {
        None => Ok(()),
        Some(signal) => Err(Interrupted { signal }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_is_seen_until_cleared() {
        clear();
        assert_eq!(check(), Ok(()));
        request(15);
        assert_eq!(check(), Err(Interrupted { signal: 15 }));
        assert_eq!(check().unwrap_err().to_string(), "interrupted by SIGTERM");
        shared_flag().store(2, Ordering::SeqCst);
        assert_eq!(pending(), Some(2));
        clear();
        assert_eq!(check(), Ok(()));
    }
}
