//! Errors of the system model. Every message is one line naming where the problem is (the spec's
//! origin and key path, an override argument, a file) and what was expected, so that the command
//! line can print it as it is.

/// Everything that can go wrong building or running a system.
#[derive(Debug, thiserror::Error)]
pub enum SysError {
    /// The TOML text does not parse.
    #[error("{origin}: {what}")]
    Syntax {
        /// Where the text came from (a file name, `<string>`).
        origin: String,
        /// The parser's message, flattened to one line.
        what: String,
    },
    /// A key is unknown or a value has the wrong form.
    #[error("{origin}: {path}: {what}")]
    Spec {
        /// Where the text came from.
        origin: String,
        /// Dotted key path of the offending value.
        path: String,
        /// What was found and what was expected.
        what: String,
    },
    /// A `--set key.path=value` override cannot be applied.
    #[error("--set {arg}: {what}")]
    Override {
        /// The override as given.
        arg: String,
        /// What was expected.
        what: String,
    },
    /// A cross-field check failed (zero frames, a device without a channel, ...).
    #[error("{origin}: {path}: {what}")]
    Invalid {
        /// Where the spec came from.
        origin: String,
        /// Dotted key path of the offending value.
        path: String,
        /// What was expected.
        what: String,
    },
    /// A program's reference string failed (a corrupt trace, a missing file).
    #[error("{0}")]
    Trace(#[from] pagelab_trace::TraceError),
    /// The run was stopped by a signal (`pagelab_core::interrupt`).
    #[error(transparent)]
    Interrupted(#[from] pagelab_core::Interrupted),
    /// The spec would need more memory than the machine has (see `budget`).
    #[error("{0}")]
    OverBudget(String),
}

/// One line from a possibly multi-line message.
pub(crate) fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}
