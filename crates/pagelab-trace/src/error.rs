//! Errors of the replacement lab. Each names where the problem is (file, byte offset, line or
//! argument) and what was expected, in one line, so that the command-line front end can print it
//! as it is.

use std::path::PathBuf;

/// Everything that can go wrong reading, writing or analysing a reference string.
#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    /// The operating system refused an operation on a file.
    #[error("{path}: {source}")]
    Io {
        /// The file concerned.
        path: PathBuf,
        /// What the operating system said.
        source: std::io::Error,
    },
    /// A binary file is not what it claims to be: wrong magic, version, checksum, truncation.
    #[error("{path}: at byte {offset}: {what}")]
    Corrupt {
        /// The file concerned.
        path: PathBuf,
        /// Byte offset of the problem.
        offset: u64,
        /// What was found and what was expected.
        what: String,
    },
    /// A text trace has a line that cannot be read.
    #[error("{path}: line {line}: {what}")]
    Parse {
        /// The file concerned.
        path: PathBuf,
        /// One-based line number.
        line: u64,
        /// What was found and what was expected.
        what: String,
    },
    /// An argument or parameter is out of its domain (zero frames, a page size that is not a
    /// power of two, ...). The message names the argument.
    #[error("{0}")]
    Invalid(String),
    /// A Linux replay's cgroup could not charge a page: reclaim freed nothing on every one of
    /// `try_charge_memcg`'s tries, where the kernel would OOM-kill the replayer.
    #[error(
        "memory.max of {limit} pages: reclaim freed nothing 16 times (the kernel would OOM-kill \
         the replayer)"
    )]
    OomKilled {
        /// The cgroup's limit [pages].
        limit: u32,
    },
    /// The work was stopped by a signal (`pagelab_core::interrupt`).
    #[error(transparent)]
    Interrupted(#[from] pagelab_core::Interrupted),
}

impl TraceError {
    /// An I/O error on `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        TraceError::Io {
            path: path.into(),
            source,
        }
    }

    /// An invalid argument, described in one line.
    pub fn invalid(what: impl Into<String>) -> Self {
        TraceError::Invalid(what.into())
    }
}
