//! SIGINT and SIGTERM: the run's own files in progress (temporary outputs, backups
//! of a commit, lock files) are removed and the tool exits with status 130 or 143
//! (128 + the signal), as a shell reports an interrupted command. Without it an
//! interrupted run left hidden temporary outputs of 16–30 MB beside the outputs,
//! never removed (issue 30).
//!
//! The files are registered here as they are created ([`create_tracked`]); a signal is
//! received by a thread of its own ([`install`]), which takes the registry, removes
//! every file in it and exits. The commit of the outputs holds the registry while it
//! renames them ([`hold`]): a signal arriving then waits for the commit to end, so
//! that the outputs are all old or all new, never some of each.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, PoisonError};

/// The files to remove when the run is interrupted.
static FILES: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// The registry, held: while it lives an interrupt waits.
pub(crate) struct Held(MutexGuard<'static, Vec<PathBuf>>);

impl Held {
    /// Registers `path`, created or about to be created by this run.
    pub(crate) fn track(&mut self, path: &Path) {
        self.0.push(path.to_path_buf());
    }

    /// Forgets `path`: it is no longer the run's to remove (renamed into place,
    /// removed, or a lock released).
    pub(crate) fn untrack(&mut self, path: &Path) {
        self.0.retain(|p| p != path);
    }
}

/// Holds the registry: an interrupt received meanwhile is acted on when it is
/// released.
pub(crate) fn hold() -> Held {
    Held(FILES.lock().unwrap_or_else(PoisonError::into_inner))
}

/// Creates a file with `create` and registers `path`, under the registry, so that an
/// interrupt either comes before the file exists or removes it.
pub(crate) fn create_tracked<T>(
    path: &Path,
    create: impl FnOnce(&Path) -> io::Result<T>,
) -> io::Result<T> {
    let mut held = hold();
    let made = create(path)?;
    held.track(path);
    Ok(made)
}

/// Creates the new file `path` for writing (`create_new`: an existing file is an
/// error) and registers it ([`create_tracked`]).
pub(crate) fn create_new(path: &Path) -> io::Result<fs::File> {
    create_tracked(path, |path| {
        fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(path)
    })
}

/// Forgets `path` (see [`Held::untrack`]). When the registry is held already (by
/// this thread's commit, or by the interrupt about to remove every file) it is left
/// registered: removing it at an interrupt is then harmless, as its name is this
/// process's own (it holds the process id) and it no longer exists.
pub(crate) fn untrack(path: &Path) {
    if let Ok(mut files) = FILES.try_lock() {
        files.retain(|p| p != path);
    }
}

/// Forgets `path`, waiting for the registry: for a file whose name another process
/// may take once it is removed (a lock file).
pub(crate) fn untrack_now(path: &Path) {
    hold().untrack(path);
}

/// Removes every registered file and exits with status 128 + `signal`.
#[cfg_attr(not(unix), allow(dead_code))]
fn interrupted(signal: i32) -> ! {
    let held = hold();
    for path in held.0.iter() {
        let _ = fs::remove_file(path);
    }
    std::process::exit(128 + signal)
}

/// Receives SIGINT and SIGTERM on a thread of their own for the rest of the run (see
/// the module's documentation). Elsewhere than on Unix nothing is installed.
pub(crate) fn install() {
    #[cfg(unix)]
    {
        use signal_hook::consts::{SIGINT, SIGTERM};
        // Without the handler (it cannot be installed) a signal ends the run as it
        // did before: its temporary files are then left for the next run to remove.
        if let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM]) {
            std::thread::spawn(move || {
                if let Some(signal) = signals.forever().next() {
                    interrupted(signal);
                }
            });
        }
    }
}
