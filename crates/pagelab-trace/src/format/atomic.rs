//! An output file that appears whole or not at all: written under a temporary name in the
//! target's directory and renamed over the target when committed; removed if dropped first.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::TraceError;

static SERIAL: AtomicU64 = AtomicU64::new(0);

/// A temporary file that becomes `target` on [`AtomicFile::commit`].
#[derive(Debug)]
pub(crate) struct AtomicFile {
    target: PathBuf,
    temp: PathBuf,
    committed: bool,
}

impl AtomicFile {
    /// Creates the temporary file next to `target`.
    pub(crate) fn create(target: &Path) -> Result<(AtomicFile, File), TraceError> {
        let dir = match target.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let name = target
            .file_name()
            .ok_or_else(|| {
                TraceError::invalid(format!("output {}: not a file name", target.display()))
            })?
            .to_string_lossy()
            .into_owned();
        let serial = SERIAL.fetch_add(1, Ordering::Relaxed);
        let temp = dir.join(format!(".{name}.{}.{serial}.tmp", std::process::id()));
        let file = File::options()
            .write(true)
            .read(true)
            .create_new(true)
            .open(&temp)
            .map_err(|e| TraceError::io(&temp, e))?;
        Ok((
            AtomicFile {
                target: target.to_path_buf(),
                temp,
                committed: false,
            },
            file,
        ))
    }

    /// The temporary path being written.
    pub(crate) fn temp_path(&self) -> &Path {
        &self.temp
    }

    /// The final path.
    pub(crate) fn target(&self) -> &Path {
        &self.target
    }

    /// Syncs `file` and renames the temporary over the target.
    pub(crate) fn commit(mut self, file: File) -> Result<(), TraceError> {
        file.sync_all().map_err(|e| TraceError::io(&self.temp, e))?;
        drop(file);
        std::fs::rename(&self.temp, &self.target).map_err(|e| TraceError::io(&self.target, e))?;
        self.committed = true;
        Ok(())
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if !self.committed {
            let _ = std::fs::remove_file(&self.temp);
        }
    }
}
