//! Output files: which ones a run writes ([`Output`]), checked before any work starts,
//! written to a temporary file beside the target and renamed into place only when
//! every output of the run is complete.
//!
//! The one place outputs are checked ([`check`]): an output is a regular file (never
//! a device, a FIFO or a socket: they were replaced by a regular file), it replaces
//! no file the run reads (the input, a saved index or filter, `--weights`,
//! `--links-in`, `--lexicon`), and a stored state it rewrites (an index, Bloom
//! filters) is locked for the whole run ([`StateLock`]), so that a second run
//! updating it at once is refused instead of losing a batch. A replaced file keeps
//! its permissions.

use std::fs;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::error::CliError;
use crate::journal::{self, Entry, Journal, alive};
use crate::{input, interrupt};

/// An output file a run can write, named by the option that asks for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Output {
    /// `--keep-out`: the kept records.
    Keep,
    /// `--annotate-out`: every record with its group, fate and reason.
    Annotate,
    /// `--drop-out`: the ids of the documents dropped.
    Drop,
    /// `--pairs-out`: the pairs found.
    Pairs,
    /// `--clusters-out`: every document's cluster.
    Clusters,
    /// `--explain-out`: what differs in each pair.
    Explain,
    /// `--members-out`: each group member against the document kept.
    Members,
    /// `--report-out`: the HTML report.
    Report,
    /// `--index-out`: the saved index.
    IndexOut,
    /// `--add`: the saved index read, rewritten in place with this batch.
    Add,
    /// `--bloom-out`: the saved Bloom filters.
    BloomOut,
    /// `--out` of `ndd train` and `ndd query`: the model, or the query results.
    Out,
    /// `--problems-out`: every bad line or file skipped.
    Problems,
    /// `--ranges-out` of `ndd substrings`: the byte ranges cut per document.
    Ranges,
}

impl Output {
    /// The option that names it.
    pub(crate) fn flag(self) -> &'static str {
        match self {
            Output::Keep => "--keep-out",
            Output::Annotate => "--annotate-out",
            Output::Drop => "--drop-out",
            Output::Pairs => "--pairs-out",
            Output::Clusters => "--clusters-out",
            Output::Explain => "--explain-out",
            Output::Members => "--members-out",
            Output::Report => "--report-out",
            Output::IndexOut => "--index-out",
            Output::Add => "--add",
            Output::BloomOut => "--bloom-out",
            Output::Out => "--out",
            Output::Problems => "--problems-out",
            Output::Ranges => "--ranges-out",
        }
    }

    /// Whether it is a saved state that may rewrite the state read, in place.
    fn rewrites_state(self) -> bool {
        matches!(self, Output::IndexOut | Output::Add | Output::BloomOut)
    }
}

/// Whether an output of this run is `-`, standard output: the run's summary then goes
/// to standard error, so that standard output holds the output's bytes alone.
static STDOUT_TAKEN: AtomicBool = AtomicBool::new(false);

/// Prints the run's summary: on standard output, or on standard error when an output
/// is written there (`--pairs-out -`).
pub(crate) fn print_summary(summary: &str) {
    if STDOUT_TAKEN.load(Ordering::Relaxed) {
        eprint!("{summary}");
    } else {
        print!("{summary}");
    }
}

/// One output the user asked for.
#[derive(Debug, Clone)]
pub(crate) struct Target {
    /// Which output it is.
    pub(crate) output: Output,
    /// The path as given.
    pub(crate) path: PathBuf,
    /// The path with its folder resolved (symbolic links, `..`), for comparisons.
    resolved: PathBuf,
    /// The lock on the stored state this output rewrites, held while the target
    /// lives (the whole run).
    _lock: Option<Arc<StateLock>>,
    /// A saved index in the folder form (`--index-out DIR/`, `--add` to a folder),
    /// saved by the index itself rather than written as one file.
    pub(crate) folder: bool,
}

/// A file the run reads, with the option that names it: no output may replace it.
pub(crate) type Read<'a> = (&'static str, Option<&'a Path>);

/// An exclusive lock on a stored state (a saved index, Bloom filters): the file
/// `.NAME.ndd-lock` beside it, created with `create_new` (so only one run holds it)
/// and removed when the lock is dropped, at the end of the run or on its error.
///
/// A run killed outright leaves its lock file; the next run is refused with the lock
/// file's path and the process id written in it, to be removed by hand.
#[derive(Debug)]
pub(crate) struct StateLock {
    path: PathBuf,
}

impl StateLock {
    /// Takes the lock of the state at `state` (a resolved path).
    pub(crate) fn acquire(state: &Path, flag: &str) -> Result<Self, CliError> {
        let name = state
            .file_name()
            .ok_or_else(|| CliError::output(state, "not a file name"))?
            .to_string_lossy();
        let path = folder_of(state).join(format!(".{name}.ndd-lock"));
        match interrupt::create_new(&path) {
            Ok(mut file) => {
                let lock = StateLock { path };
                writeln!(file, "{}", std::process::id())
                    .map_err(|e| CliError::output(&lock.path, e))?;
                Ok(lock)
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                let holder = fs::read_to_string(&path).unwrap_or_default();
                let holder = holder.trim();
                let holder = if holder.is_empty() {
                    String::new()
                } else {
                    format!(" (process {holder})")
                };
                Err(CliError::Output(format!(
                    "{flag} {}: another ndd run is updating it{holder}; wait for it to \
                     finish. Its lock file is {}: if no such run is active (it was \
                     killed), remove that file",
                    state.display(),
                    path.display()
                )))
            }
            Err(e) => Err(CliError::output(&path, e)),
        }
    }
}

impl Drop for StateLock {
    fn drop(&mut self) {
        let _ = fs::remove_file(&self.path);
        interrupt::untrack_now(&self.path);
    }
}

impl Target {
    /// Whether this output is `-`, standard output.
    pub(crate) fn is_stdout(&self) -> bool {
        self.resolved.as_os_str() == "-"
    }
}

/// The folder a file named `path` is in (`.` for a bare file name).
fn folder_of(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// The path `path` stands for once its folder is resolved: two spellings of one file
/// (`./a`, `dir/../a`, a symbolic link to it) resolve to the same path.
fn resolve(path: &Path) -> io::Result<PathBuf> {
    if let Ok(p) = fs::canonicalize(path) {
        return Ok(p);
    }
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "not a file name"))?;
    let parent = folder_of(path);
    let dir = fs::canonicalize(parent).map_err(|e| {
        io::Error::new(
            e.kind(),
            format!("its folder {} cannot be used: {e}", parent.display()),
        )
    })?;
    Ok(dir.join(name))
}

/// Checks every output before the run: each can be created (its folder exists, it is
/// not a folder, nor a device, FIFO or socket), none is the input or inside an input
/// folder, none is a file the run reads (`reads`), none is named twice, and the saved
/// index or filter read (`index_in`) is not overwritten unless `rewrite_index_in` and
/// by `--index-out`, `--add` or `--bloom-out`. A stored state an output rewrites is
/// locked ([`StateLock`]) until the targets are dropped; the state read is refused if
/// another run replaced it since it was read.
pub(crate) fn check(
    outputs: &[(Output, Option<&Path>)],
    input: Option<&Path>,
    index_in: Option<&Path>,
    rewrite_index_in: bool,
    reads: &[Read<'_>],
) -> Result<Vec<Target>, CliError> {
    let input = match input {
        Some(p) => Some(
            fs::canonicalize(p).map_err(|e| CliError::Input(format!("{}: {e}", p.display())))?,
        ),
        None => None,
    };
    let index_in = index_in.and_then(|p| fs::canonicalize(p).ok());
    let reads: Vec<(&str, PathBuf)> = reads
        .iter()
        .filter_map(|&(flag, p)| Some((flag, fs::canonicalize(p?).ok()?)))
        .collect();
    let mut targets: Vec<Target> = Vec::new();
    for &(output, path) in outputs {
        let Some(path) = path else { continue };
        let flag = output.flag();
        let usage = |m: String| CliError::Usage(format!("{flag} {}: {m}", path.display()));
        if path.as_os_str() == "-" {
            if output.rewrites_state() {
                return Err(usage(
                    "a saved index or filter is a file the next run reads; give a file name".into(),
                ));
            }
            if let Some(other) = targets.iter().find(|t| t.is_stdout()) {
                return Err(usage(format!(
                    "standard output is also given to {}; one output at most may be `-`",
                    other.output.flag()
                )));
            }
            STDOUT_TAKEN.store(true, Ordering::Relaxed);
            targets.push(Target {
                output,
                path: path.to_path_buf(),
                resolved: PathBuf::from("-"),
                _lock: None,
                folder: false,
            });
            continue;
        }
        let resolved = resolve(path).map_err(|e| usage(e.to_string()))?;
        // An index may be a folder (an existing one, or a name ending in `/`).
        let folder = matches!(output, Output::IndexOut | Output::Add)
            && (resolved.is_dir() || path.as_os_str().to_string_lossy().ends_with('/'));
        if resolved.is_dir() && !folder {
            return Err(usage("is a folder; give a file name".into()));
        }
        if let Some((read_flag, _)) = reads.iter().find(|(_, r)| *r == resolved) {
            return Err(usage(format!(
                "is the file {read_flag} reads; it would be overwritten"
            )));
        }
        if let Some(input) = &input {
            if &resolved == input {
                return Err(usage("is the input; it would be overwritten".into()));
            }
            if input.is_dir() && resolved.starts_with(input) {
                return Err(usage(
                    "is inside the input folder; the next run would read it as a document".into(),
                ));
            }
        }
        let rewrites_index = rewrite_index_in && output.rewrites_state();
        if index_in.as_ref() == Some(&resolved) && !rewrites_index {
            return Err(usage(
                "is the index or filter read (--index-in, --bloom-in, --index); only --add or \
                 --bloom-out may rewrite it in place"
                    .into(),
            ));
        }
        if let Some(other) = targets.iter().find(|t| t.resolved == resolved) {
            return Err(usage(format!(
                "is also given to {}; each output needs its own file",
                other.output.flag()
            )));
        }
        // A link would be replaced by the output, not followed: `/dev/stdout` (as root)
        // became a regular file.
        if fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
            return Err(usage(format!(
                "is a symbolic link (to {}); the output would replace the link, not the \
                 file it names. Name that file instead",
                fs::read_link(path).map_or_else(|_| "?".to_owned(), |t| t.display().to_string())
            )));
        }
        // The path as given, followed, and as resolved.
        let metas = [fs::metadata(path), fs::metadata(&resolved)];
        for meta in metas.iter().flatten() {
            if !(meta.is_file() || (folder && meta.is_dir())) {
                return Err(usage(
                    "is not a regular file (a device, a FIFO or a socket); outputs are \
                     written to regular files only, replacing them"
                        .into(),
                ));
            }
        }
        // A commit of an earlier run killed in the middle is finished (or undone)
        // before this run reads or writes anything there.
        journal::recover(folder_of(&resolved));
        let lock = if output.rewrites_state() {
            let lock = StateLock::acquire(&resolved, flag)?;
            if index_in.as_ref() == Some(&resolved) && !input::unchanged_since_read(&resolved) {
                return Err(CliError::Output(format!(
                    "{flag} {}: another ndd run replaced it after this run read it; its \
                     update would be lost. Run again",
                    path.display()
                )));
            }
            Some(Arc::new(lock))
        } else {
            None
        };
        targets.push(Target {
            output,
            path: path.to_path_buf(),
            resolved,
            _lock: lock,
            folder,
        });
    }
    Ok(targets)
}

/// An output being written: a temporary file in the target's folder, created as any
/// new file is (the user's umask decides its permissions), removed if the run fails
/// before [`Ready::commit`].
pub(crate) struct Pending {
    target: PathBuf,
    temp: TempFile,
    writer: BufWriter<fs::File>,
}

/// A temporary file removed when dropped, unless it was renamed into place.
struct TempFile {
    path: PathBuf,
    keep: bool,
}

impl Drop for TempFile {
    fn drop(&mut self) {
        if !self.keep {
            let _ = fs::remove_file(&self.path);
        }
        interrupt::untrack(&self.path);
    }
}

impl Pending {
    /// Starts writing `target`.
    pub(crate) fn create(target: &Path) -> Result<Self, CliError> {
        // Standard output is written at the commit, from a temporary file: nothing
        // reaches it unless the whole run succeeds.
        let stdout = target.as_os_str() == "-";
        let temp_dir = std::env::temp_dir();
        let dir = if stdout { &temp_dir } else { folder_of(target) };
        let name = if stdout {
            "ndd-stdout".into()
        } else {
            target
                .file_name()
                .ok_or_else(|| CliError::output(target, "not a file name"))?
                .to_string_lossy()
        };
        remove_stale(dir, &name);
        let mut attempt = 0u32;
        loop {
            let path = dir.join(format!(".{name}.{}.{attempt}.ndd-tmp", std::process::id()));
            match interrupt::create_new(&path) {
                Ok(file) => {
                    // A replaced file keeps its permissions (a 0600 output became 0644).
                    if let Ok(meta) = fs::symlink_metadata(target) {
                        if meta.is_file() && !stdout {
                            file.set_permissions(meta.permissions())
                                .map_err(|e| CliError::output(target, e))?;
                        }
                    }
                    return Ok(Pending {
                        target: target.to_path_buf(),
                        temp: TempFile { path, keep: false },
                        writer: BufWriter::with_capacity(1 << 16, file),
                    });
                }
                // A leftover of a run that was killed: try the next name.
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists && attempt < 100 => {
                    attempt += 1;
                }
                Err(e) => return Err(CliError::output(target, e)),
            }
        }
    }

    /// Where the bytes go.
    pub(crate) fn writer(&mut self) -> &mut impl Write {
        &mut self.writer
    }

    /// A second handle on the temporary file, for a writer of its own (the records
    /// of a Parquet or zstd input); nothing else is written through [`writer`](Self::writer).
    pub(crate) fn file(&self) -> io::Result<fs::File> {
        self.writer.get_ref().try_clone()
    }

    /// Flushes and syncs the temporary file; [`commit`](Ready::commit) renames it.
    pub(crate) fn finish(self) -> Result<Ready, CliError> {
        let Pending {
            target,
            temp,
            writer,
        } = self;
        let file = writer
            .into_inner()
            .map_err(|e| CliError::output(&target, e.error()))?;
        file.sync_all().map_err(|e| CliError::output(&target, e))?;
        Ok(Ready { target, temp })
    }
}

/// Removes what a killed run of the tool left beside the output `name` in `dir`: its
/// temporary files `.NAME.PID.N.ndd-tmp` and the backups `.NAME.PID.ndd-old` of a
/// commit it did not finish, when process `PID` is no longer running. Only regular
/// files of exactly those names are touched (they were left forever: up to 244 MB,
/// 11.8 GB once). The commit journals in `dir` are recovered first
/// ([`journal::recover`]); the files of a process whose journal is still there (it
/// could not be recovered) are left.
fn remove_stale(dir: &Path, name: &str) {
    journal::recover(dir);
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let prefix = format!(".{name}.");
    for entry in entries.flatten() {
        let file_name = entry.file_name();
        let Some(rest) = file_name.to_str().and_then(|f| f.strip_prefix(&prefix)) else {
            continue;
        };
        let pid = if let Some(r) = rest.strip_suffix(".ndd-old") {
            r
        } else if let Some(r) = rest.strip_suffix(".ndd-tmp") {
            match r.split_once('.') {
                Some((pid, n)) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => pid,
                _ => continue,
            }
        } else {
            continue;
        };
        let Some(pid) = journal::parse_pid(pid) else {
            continue;
        };
        if !alive(pid)
            && entry.file_type().is_ok_and(|t| t.is_file())
            && !journal::journal_path(dir, pid).exists()
        {
            let _ = fs::remove_file(entry.path());
        }
    }
}

/// Moves every finished output into place, all or nothing: see [`commit_files`].
pub(crate) fn commit_all(ready: Vec<Ready>) -> Result<(), CliError> {
    let (to_stdout, ready): (Vec<Ready>, Vec<Ready>) =
        ready.into_iter().partition(|r| r.target.as_os_str() == "-");
    commit_files(ready)?;
    // Standard output last, once every file is in place.
    to_stdout.into_iter().try_for_each(Ready::commit)
}

/// The absolute path of `path`: its folder resolved, its name kept.
fn absolute(path: &Path) -> io::Result<PathBuf> {
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "not a file name"))?;
    Ok(fs::canonicalize(folder_of(path))?.join(name))
}

/// [`commit_all`]'s files: all renamed into place, or none, across a failure and
/// across a kill. Each file an output replaces is first kept as a hard link (or a
/// copy) `.NAME.PID.ndd-old`; a [`Journal`] listing every output is written (the
/// commit point); the outputs are renamed one by one; the backups and the journal
/// are removed. When a rename fails, the journal is marked `abort` and the outputs
/// already renamed are put back (a new one removed, a replaced one restored), and the
/// error says that no output changed. A run killed in between leaves its journal,
/// which the next run writing an output in that folder recovers ([`journal`]). An
/// interrupt (SIGINT, SIGTERM) waits for the commit to end ([`interrupt::hold`]).
fn commit_files(mut ready: Vec<Ready>) -> Result<(), CliError> {
    if ready.is_empty() {
        return Ok(());
    }
    let mut held = interrupt::hold();
    let pid = std::process::id();
    let mut entries = ready
        .iter()
        .map(|r| {
            let absolute = |p: &Path| absolute(p).map_err(|e| CliError::output(&r.target, e));
            Ok(Entry {
                target: absolute(&r.target)?,
                temp: absolute(&r.temp.path)?,
                backup: None,
            })
        })
        .collect::<Result<Vec<Entry>, CliError>>()?;
    let drop_backups = |entries: &[Entry]| {
        for b in entries.iter().filter_map(|e| e.backup.as_ref()) {
            let _ = fs::remove_file(b);
        }
    };
    for i in 0..ready.len() {
        let (r, entry) = (&ready[i], &entries[i]);
        if fs::symlink_metadata(&r.target).is_ok_and(|m| m.is_file()) {
            let name = r.target.file_name().unwrap_or_default().to_string_lossy();
            let backup = folder_of(&entry.target).join(format!(".{name}.{pid}.ndd-old"));
            let _ = fs::remove_file(&backup);
            let made = fs::hard_link(&r.target, &backup)
                .or_else(|_| fs::copy(&r.target, &backup).map(drop));
            if let Err(e) = made {
                drop_backups(&entries);
                return Err(CliError::output(
                    &r.target,
                    format!("keeping the old file before replacing it: {e}; no output was changed"),
                ));
            }
            entries[i].backup = Some(backup);
        }
    }
    let journal = Journal::write(entries.clone(), pid).map_err(|e| {
        drop_backups(&entries);
        CliError::output(
            &ready[0].target,
            format!("writing the commit journal: {e}; no output was changed"),
        )
    })?;
    for r in &mut ready {
        journal::pause();
        if let Err(e) = fs::rename(&r.temp.path, &r.target) {
            // A kill from here on puts the outputs back too (the journal says so;
            // were it not marked, its roll forward would find no temporary file
            // left once they are put back).
            let _ = journal.abort();
            journal.roll_back();
            journal.remove();
            return Err(CliError::output(
                &r.target,
                format!("{e}; no output was changed"),
            ));
        }
        r.temp.keep = true;
        held.untrack(&r.temp.path);
    }
    drop_backups(&entries);
    journal.remove();
    Ok(())
}

/// A complete output waiting to be renamed into place.
pub(crate) struct Ready {
    target: PathBuf,
    temp: TempFile,
}

impl Ready {
    /// Renames the file into place (atomic on one file system); for `-`, copies it to
    /// standard output (and removes it).
    pub(crate) fn commit(mut self) -> Result<(), CliError> {
        if self.target.as_os_str() == "-" {
            let mut file =
                fs::File::open(&self.temp.path).map_err(|e| CliError::output(&self.target, e))?;
            let mut out = io::stdout().lock();
            return io::copy(&mut file, &mut out)
                .and_then(|_| out.flush())
                .map_err(|e| CliError::output(&self.target, e));
        }
        fs::rename(&self.temp.path, &self.target).map_err(|e| CliError::output(&self.target, e))?;
        self.temp.keep = true;
        Ok(())
    }
}
