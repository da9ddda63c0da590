//! Capturing a real program's reference string with valgrind's lackey.
//!
//! ```text
//!  valgrind --tool=lackey --trace-mem=yes --log-fd=N PROGRAM ARGS...
//!      │ fd N (a pipe; the program keeps its own stdin, stdout, stderr)
//!      ▼
//!  lackey parser ─► pages (address >> log2 page size) ─► TraceWriter ─► FILE (renamed at the end)
//! ```
//!
//! Lackey prints one line per instruction fetch (`I  addr,size`) and per data access
//! (` L`, ` S`, ` M`), in program order; `==pid==` lines are valgrind's own messages. The lines
//! go through a pipe straight into the writer as they come, so a capture of billions of
//! references never touches a text file. An access that straddles a page boundary references
//! each page it touches (see [`crate::read`]).
//!
//! The pipe's write end is made inheritable only around the spawn, under a lock, so that
//! concurrent captures in one process do not hold each other's pipes open. A process spawned
//! concurrently by other code in the same process may still inherit it for its lifetime; the
//! capture then sees end-of-file only when that process exits too.
//!
//! Valgrind follows one process: a program reached through a wrapper script that `exec`s the
//! real one (a version manager's shim, for instance) yields the wrapper's references only. The
//! description records the resolved `program_path` so that this shows; give the real binary.
//!
//! A missing valgrind, a missing program, or a non-zero exit of valgrind (it exits with the
//! program's status) is a one-line error, and no output file appears.

use std::cell::Cell;
use std::fs::File;
use std::io::{BufReader, Read};
use std::os::fd::{AsRawFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::format::{check_page_size, TraceInfo, TraceWriter};
use crate::read::{KindFilter, Pager, Units};
use crate::TraceError;

/// Serialises the window in which a pipe end is inheritable.
static SPAWN: Mutex<()> = Mutex::new(());

/// The lackey options pagelab runs valgrind with.
pub const LACKEY_OPTIONS: [&str; 2] = ["--tool=lackey", "--trace-mem=yes"];

/// Runs `program args...` under valgrind's lackey and streams its references into a pagelab
/// trace at `output` with pages of `page_size` [bytes]. `progress(bytes of lackey output read,
/// None)` is called every few MB. Uses `valgrind` from `PATH`.
pub fn capture(
    program: &Path,
    args: &[String],
    page_size: u64,
    output: &Path,
    progress: &mut dyn FnMut(u64, Option<u64>),
) -> Result<TraceInfo, TraceError> {
    capture_with(
        Path::new("valgrind"),
        program,
        args,
        page_size,
        output,
        progress,
    )
}

/// Finds `program` as a shell would: a path if it contains a `/`, else the first executable
/// of that name on `PATH`.
pub fn resolve_program(program: &Path) -> Result<PathBuf, TraceError> {
    use std::os::unix::fs::PermissionsExt;
    let executable = |p: &Path| {
        p.metadata()
            .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
            .unwrap_or(false)
    };
    let s = program.as_os_str().to_string_lossy();
    if s.is_empty() {
        return Err(TraceError::invalid("capture: no program given"));
    }
    if s.contains('/') {
        if executable(program) {
            return Ok(program.to_path_buf());
        }
        return Err(TraceError::invalid(format!(
            "capture: program {}: no such executable file",
            program.display()
        )));
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    for dir in std::env::split_paths(&path) {
        let cand = dir.join(program);
        if executable(&cand) {
            return Ok(cand);
        }
    }
    Err(TraceError::invalid(format!(
        "capture: program {s}: not found on PATH"
    )))
}

/// The version string of `valgrind` (`valgrind-3.19.0`), or a one-line error if it cannot run.
pub fn valgrind_version(valgrind: &Path) -> Result<String, TraceError> {
    let out = Command::new(valgrind).arg("--version").stdin(Stdio::null()).output().map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            TraceError::invalid(format!(
                "capture: {} not found: install valgrind (it provides the lackey tool) to capture traces",
                valgrind.display()
            ))
        } else {
            TraceError::io(valgrind, e)
        }
    })?;
    if !out.status.success() {
        return Err(TraceError::invalid(format!(
            "capture: {} --version failed ({})",
            valgrind.display(),
            out.status
        )));
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// Starts valgrind's lackey on `program` with its log on a pipe; returns the child and the
/// pipe's read end.
fn spawn_lackey(
    valgrind: &Path,
    program: &Path,
    args: &[String],
) -> Result<(Child, OwnedFd), TraceError> {
    let pipe_err = |e: rustix::io::Errno| TraceError::io("pipe", e.into());
    let (read_end, write_end) = rustix::pipe::pipe().map_err(pipe_err)?;
    rustix::io::fcntl_setfd(&read_end, rustix::io::FdFlags::CLOEXEC).map_err(pipe_err)?;
    let child = {
        let _guard = SPAWN.lock().unwrap_or_else(|p| p.into_inner());
        rustix::io::fcntl_setfd(&write_end, rustix::io::FdFlags::empty()).map_err(pipe_err)?;
        let spawned = Command::new(valgrind)
            .args(LACKEY_OPTIONS)
            .arg(format!("--log-fd={}", write_end.as_raw_fd()))
            .arg(program)
            .args(args)
            .spawn();
        // The child holds its copy; ours must close so that the pipe ends with the child.
        drop(write_end);
        spawned.map_err(|e| TraceError::io(valgrind, e))?
    };
    Ok((child, read_end))
}

/// As [`capture`], with the valgrind executable given.
pub fn capture_with(
    valgrind: &Path,
    program: &Path,
    args: &[String],
    page_size: u64,
    output: &Path,
    progress: &mut dyn FnMut(u64, Option<u64>),
) -> Result<TraceInfo, TraceError> {
    check_page_size(page_size, "capture --page-size")?;
    let resolved = resolve_program(program)?;
    let version = valgrind_version(valgrind)?;
    let description = serde_json::json!({
        "tool": format!("valgrind {}", LACKEY_OPTIONS.join(" ")),
        "valgrind_version": version,
        "program": program.display().to_string(),
        "program_path": resolved.display().to_string(),
        "args": args,
        "page_size": page_size,
        "filters": {"kinds": "all", "address_ranges": []},
    });
    let writer = TraceWriter::create(output, page_size, description)?;

    let (child, read_end) = spawn_lackey(valgrind, &resolved, args)?;

    let count = Rc::new(Cell::new(0u64));
    let mut pipe = Counted {
        inner: File::from(read_end),
        count: count.clone(),
    };
    // A child that writes nothing (still starting, or an untraced grandchild doing the work)
    // leaves the read below blocked; the watchdog kills it when a stop is asked for.
    let child = Arc::new(Mutex::new(child));
    let watchdog = Watchdog::start(child.clone());
    let mut input = BufReader::with_capacity(1 << 20, &mut pipe);
    let log = PathBuf::from(format!("lackey output of {}", program.display()));
    let result = {
        let mut pager = Pager::new(
            writer,
            Units::Addresses,
            KindFilter::All,
            &[],
            count,
            None,
            progress,
        );
        let mut emit = |a: u64, s: u32, k| pager.access(a, s, k);
        let r = crate::read::read_lackey_stream(&mut input, &log, &mut emit)
            .and_then(|_| Ok(pagelab_core::interrupt::check()?));
        pager.report(true);
        r.map(|_| pager.writer)
    };
    watchdog.stop();
    let mut child = child.lock().unwrap_or_else(|p| p.into_inner());
    let writer = match result {
        Ok(w) => w,
        Err(e) => {
            let _ = child.kill();
            let _ = child.wait();
            return Err(e);
        }
    };
    let status = child.wait().map_err(|e| TraceError::io(valgrind, e))?;
    if !status.success() {
        return Err(TraceError::invalid(format!(
            "capture: valgrind running {} exited with {status}; no trace written",
            program.display()
        )));
    }
    writer.finish()
}

/// Kills the child when a stop is asked for (`pagelab_core::interrupt`), checking every
/// [`Watchdog::PERIOD`] until stopped.
struct Watchdog {
    done: Arc<AtomicBool>,
    thread: std::thread::JoinHandle<()>,
}

impl Watchdog {
    /// How often the flag is looked at.
    const PERIOD: Duration = Duration::from_millis(50);

    fn start(child: Arc<Mutex<Child>>) -> Watchdog {
        let done = Arc::new(AtomicBool::new(false));
        let seen = done.clone();
        let thread = std::thread::spawn(move || {
            while !seen.load(Ordering::Relaxed) {
                if pagelab_core::interrupt::pending().is_some() {
                    let _ = child.lock().unwrap_or_else(|p| p.into_inner()).kill();
                    return;
                }
                std::thread::sleep(Self::PERIOD);
            }
        });
        Watchdog { done, thread }
    }

    fn stop(self) {
        self.done.store(true, Ordering::Relaxed);
        let _ = self.thread.join();
    }
}

/// A reader that counts the bytes it passes on.
struct Counted {
    inner: File,
    count: Rc<Cell<u64>>,
}

impl Read for Counted {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count.set(self.count.get() + n as u64);
        Ok(n)
    }
}
