//! The commit journal: what makes the outputs of a run change together across a kill
//! (SIGKILL, a power loss) in the middle of their renames, which left 3 outputs new
//! and 3 old (issue 27).
//!
//! Before the first rename, the commit writes a journal listing each output's
//! temporary file, its final name and the backup of the file it replaces, into every
//! folder that holds an output: `.ndd-commit.PID.ndd-journal`, written to
//! `….ndd-journal-tmp`, synced and renamed, so that a journal is whole or absent. The
//! folder of the first output holds the *home* copy, written last: its existence is
//! the commit point. When the renames are done the journals are removed, the home
//! copy last.
//!
//! A journal of a process that has ended is recovered by the next run writing an
//! output in its folder ([`recover`]), before that run does any work, with one rule:
//!
//! - **Roll forward** when the home copy exists and says `commit`: every temporary
//!   file still there is renamed into place (all its temporary files were complete
//!   and synced before the journal was written), then the backups are removed.
//! - **Roll back** otherwise (no home copy: the run was killed before its commit
//!   point, or the home copy says `abort`: a rename failed and the run was putting
//!   the old outputs back): every backup is renamed back into place and an output
//!   that had no earlier file and whose temporary file is gone is removed.
//!
//! Either way the remaining temporary files and backups are removed, then the
//! journals, the home copy last. Each step can be done again, so a recovery that is
//! itself killed is finished by the next one. Only a journal whose entries name
//! temporary files and backups of its own process beside their outputs is acted on
//! (`.NAME.PID.N.ndd-tmp`, `.NAME.PID.ndd-old`): a forged journal cannot move other
//! files. Whether a process has ended is known on Linux only; elsewhere journals are
//! left, as the temporary files are.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The first line of a journal.
const HEADER: &str = "ndd-commit-journal 1";

/// An output of the commit: absolute paths.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Entry {
    /// Where the output goes.
    pub(crate) target: PathBuf,
    /// Its complete temporary file.
    pub(crate) temp: PathBuf,
    /// The hard link (or copy) of the file it replaces, if there was one.
    pub(crate) backup: Option<PathBuf>,
}

/// A journal written for a commit in progress.
#[derive(Debug)]
pub(crate) struct Journal {
    /// The home copy (the commit point).
    home: PathBuf,
    /// The copies in the other folders.
    copies: Vec<PathBuf>,
    entries: Vec<Entry>,
}

/// Whether the process `pid` is running (Linux: its `/proc` entry; elsewhere it is
/// assumed to be, so nothing of it is removed).
pub(crate) fn alive(pid: u32) -> bool {
    if cfg!(target_os = "linux") {
        pid == std::process::id() || Path::new(&format!("/proc/{pid}")).exists()
    } else {
        true
    }
}

/// The process id written in a file name: ASCII digits only.
pub(crate) fn parse_pid(digits: &str) -> Option<u32> {
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// The folder a file is in.
fn folder(path: &Path) -> &Path {
    path.parent().unwrap_or(Path::new("."))
}

/// The name of the journal of process `pid` in `dir`.
pub(crate) fn journal_path(dir: &Path, pid: u32) -> PathBuf {
    dir.join(format!(".ndd-commit.{pid}.ndd-journal"))
}

/// `path` beside itself with `-tmp` appended: where a journal is written first.
fn temp_of(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push("-tmp");
    path.with_file_name(name)
}

/// The milliseconds to pause before each rename of a commit: the hidden variable
/// `NDD_TEST_COMMIT_PAUSE_MS`, for tests that kill a run in the middle of its commit
/// (`crates/cli/tests/integration/reliability.rs`); unset, no pause.
pub(crate) fn pause() {
    if let Some(ms) = std::env::var("NDD_TEST_COMMIT_PAUSE_MS")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
    {
        std::thread::sleep(Duration::from_millis(ms.min(60_000)));
    }
}

/// The bytes of `path` in hexadecimal (a path may hold any byte but NUL and `/`).
fn hex(path: &Path) -> String {
    #[cfg(unix)]
    let bytes = std::os::unix::ffi::OsStrExt::as_bytes(path.as_os_str()).to_vec();
    #[cfg(not(unix))]
    let bytes = path.to_string_lossy().into_owned().into_bytes();
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The path [`hex`] wrote.
fn unhex(s: &str) -> Option<PathBuf> {
    if s.len() % 2 != 0 || s.is_empty() {
        return None;
    }
    let bytes = (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect::<Option<Vec<u8>>>()?;
    #[cfg(unix)]
    let path = PathBuf::from(<std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(&bytes));
    #[cfg(not(unix))]
    let path = PathBuf::from(String::from_utf8(bytes).ok()?);
    Some(path)
}

/// A journal's text.
fn text(state: &str, home: &Path, entries: &[Entry]) -> String {
    let mut t = format!("{HEADER}\nstate {state}\nhome {}\n", hex(home));
    for e in entries {
        let backup = e.backup.as_deref().map_or_else(|| "-".to_owned(), hex);
        t.push_str(&format!(
            "entry {} {} {backup}\n",
            hex(&e.target),
            hex(&e.temp)
        ));
    }
    t.push_str("end\n");
    t
}

/// Writes `text` to `path` whole or not at all: a temporary file synced, renamed,
/// and the folder synced.
fn write_whole(path: &Path, text: &str) -> io::Result<()> {
    let temp = temp_of(path);
    let written = (|| {
        let mut file = fs::File::create(&temp)?;
        file.write_all(text.as_bytes())?;
        file.sync_all()?;
        fs::rename(&temp, path)
    })();
    if written.is_err() {
        let _ = fs::remove_file(&temp);
    }
    written?;
    // The rename itself reaches the disk (a power loss after it keeps it).
    if let Ok(dir) = fs::File::open(folder(path)) {
        let _ = dir.sync_all();
    }
    Ok(())
}

impl Journal {
    /// Writes the journal of `entries` (process `pid`'s) into every folder holding an
    /// output, the home copy last; when any write fails, none is left.
    pub(crate) fn write(entries: Vec<Entry>, pid: u32) -> io::Result<Journal> {
        let mut paths: Vec<PathBuf> = Vec::new();
        for e in &entries {
            let path = journal_path(folder(&e.target), pid);
            if !paths.contains(&path) {
                paths.push(path);
            }
        }
        let home = paths.remove(0);
        let journal = Journal {
            home,
            copies: paths,
            entries,
        };
        let t = text("commit", &journal.home, &journal.entries);
        for path in journal.copies.iter().chain([&journal.home]) {
            if let Err(e) = write_whole(path, &t) {
                journal.remove();
                return Err(e);
            }
        }
        Ok(journal)
    }

    /// Marks the commit as abandoned (a rename failed) before its outputs are put
    /// back, so that a kill meanwhile is recovered by putting them back too.
    pub(crate) fn abort(&self) -> io::Result<()> {
        write_whole(&self.home, &text("abort", &self.home, &self.entries))
    }

    /// Puts back every output as it was before the commit ([`roll_back`]).
    pub(crate) fn roll_back(&self) {
        roll_back(&self.entries, true);
    }

    /// Removes the journals, the home copy last.
    pub(crate) fn remove(&self) {
        for path in self.copies.iter().chain([&self.home]) {
            let _ = fs::remove_file(path);
        }
    }
}

/// Every backup renamed back into place; when the renames had begun
/// (`renames_began`), an output that had no earlier file and whose temporary file
/// was renamed is removed; then the temporary files and backups left are removed.
fn roll_back(entries: &[Entry], renames_began: bool) {
    for e in entries {
        match &e.backup {
            Some(b) if b.exists() => {
                let _ = fs::rename(b, &e.target);
            }
            Some(_) => {}
            None if renames_began && !e.temp.exists() => {
                let _ = fs::remove_file(&e.target);
            }
            None => {}
        }
    }
    remove_leftovers(entries);
}

/// Every temporary file still there renamed into place, then the backups removed;
/// the outputs whose rename failed are returned.
fn roll_forward(entries: &[Entry]) -> Vec<(PathBuf, io::Error)> {
    let mut failed = Vec::new();
    for e in entries {
        if e.temp.is_file() {
            if let Err(err) = fs::rename(&e.temp, &e.target) {
                failed.push((e.target.clone(), err));
            }
        }
    }
    if failed.is_empty() {
        remove_leftovers(entries);
    }
    failed
}

/// Removes the temporary files and backups of `entries` that are left.
fn remove_leftovers(entries: &[Entry]) {
    for e in entries {
        let _ = fs::remove_file(&e.temp);
        if let Some(b) = &e.backup {
            let _ = fs::remove_file(b);
        }
    }
}

/// A journal read back: its state, home copy and entries, or `None` when it is not
/// a whole journal of process `pid` whose entries name that process's own
/// temporary files and backups beside their outputs.
fn parse(text: &str, pid: u32) -> Option<(String, PathBuf, Vec<Entry>)> {
    let mut lines = text.lines();
    if lines.next()? != HEADER {
        return None;
    }
    let state = lines.next()?.strip_prefix("state ")?.to_owned();
    let home = unhex(lines.next()?.strip_prefix("home ")?)?;
    if home.file_name()? != journal_path(Path::new(""), pid).file_name()? {
        return None;
    }
    let mut entries = Vec::new();
    let mut ended = false;
    for line in lines {
        if ended {
            return None;
        }
        if line == "end" {
            ended = true;
            continue;
        }
        let mut fields = line.strip_prefix("entry ")?.split(' ');
        let target = unhex(fields.next()?)?;
        let temp = unhex(fields.next()?)?;
        let backup = match fields.next()? {
            "-" => None,
            b => Some(unhex(b)?),
        };
        if fields.next().is_some() {
            return None;
        }
        let dir = folder(&target);
        let name = target.file_name()?.to_str()?;
        let temp_name = temp.file_name()?.to_str()?;
        let n = temp_name
            .strip_prefix(&format!(".{name}.{pid}."))?
            .strip_suffix(".ndd-tmp")?;
        let own_temp =
            folder(&temp) == dir && !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit());
        let own_backup = backup.as_deref().is_none_or(|b| {
            folder(b) == dir && b.file_name() == Some(format!(".{name}.{pid}.ndd-old").as_ref())
        });
        if !(target.is_absolute() && own_temp && own_backup) {
            return None;
        }
        entries.push(Entry {
            target,
            temp,
            backup,
        });
    }
    (ended && !entries.is_empty()).then_some((state, home, entries))
}

/// Recovers the journals left in `dir` by processes that have ended (see the
/// module's documentation), and removes their half-written journals; a warning on
/// standard error says what was done. A journal that cannot be read is left alone.
pub(crate) fn recover(dir: &Path) {
    let Ok(list) = fs::read_dir(dir) else {
        return;
    };
    for item in list.flatten() {
        let file_name = item.file_name();
        let Some(rest) = file_name
            .to_str()
            .and_then(|n| n.strip_prefix(".ndd-commit."))
        else {
            continue;
        };
        let (pid, half) = if let Some(pid) = rest.strip_suffix(".ndd-journal-tmp") {
            (pid, true)
        } else if let Some(pid) = rest.strip_suffix(".ndd-journal") {
            (pid, false)
        } else {
            continue;
        };
        let Some(pid) = parse_pid(pid) else {
            continue;
        };
        if alive(pid) || !item.file_type().is_ok_and(|t| t.is_file()) {
            continue;
        }
        if half {
            let _ = fs::remove_file(item.path());
        } else {
            recover_one(&item.path(), pid);
        }
    }
}

/// Recovers the journal at `path` of the ended process `pid`.
fn recover_one(path: &Path, pid: u32) {
    // A journal is a few lines per output; a large file there is not one.
    if fs::metadata(path).map_or(true, |m| m.len() > 1 << 24) {
        return;
    }
    let Some((_, home, entries)) = fs::read_to_string(path).ok().and_then(|t| parse(&t, pid))
    else {
        return;
    };
    // The commit point: the home copy, read again (this may be it).
    let state = fs::read_to_string(&home)
        .ok()
        .and_then(|t| parse(&t, pid))
        .and_then(|(state, _, e)| (e == entries).then_some(state));
    let forward = state.as_deref() == Some("commit");
    let names = entries
        .iter()
        .map(|e| e.target.display().to_string())
        .collect::<Vec<_>>()
        .join(", ");
    if forward {
        let failed = roll_forward(&entries);
        if !failed.is_empty() {
            for (target, err) in failed {
                eprintln!(
                    "warning: {}: the interrupted commit of process {pid} could not be \
                     finished ({err}); its journal {} is kept to try again",
                    target.display(),
                    home.display()
                );
            }
            return;
        }
        eprintln!(
            "warning: the outputs of a run killed while it moved them into place \
             (process {pid}) were completed: {names}"
        );
    } else {
        roll_back(&entries, state.is_some());
        eprintln!(
            "warning: the outputs of a run killed while it moved them into place \
             (process {pid}) were put back as they were: {names}"
        );
    }
    let mut copies: Vec<PathBuf> = Vec::new();
    for e in &entries {
        let copy = journal_path(folder(&e.target), pid);
        if copy != home && !copies.contains(&copy) {
            copies.push(copy);
        }
    }
    if !copies.iter().any(|c| c == path) && path != home {
        copies.push(path.to_path_buf());
    }
    for copy in copies.iter().chain([&home]) {
        let _ = fs::remove_file(copy);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(dir: &Path, name: &str, pid: u32, backup: bool) -> Entry {
        Entry {
            target: dir.join(name),
            temp: dir.join(format!(".{name}.{pid}.0.ndd-tmp")),
            backup: backup.then(|| dir.join(format!(".{name}.{pid}.ndd-old"))),
        }
    }

    /// The id of a process that has ended.
    fn dead_pid() -> u32 {
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        child.wait().unwrap();
        pid
    }

    /// Outputs `a` (replacing an old file) in `one` and `b` (new) in `two`, killed
    /// after the commit point with `a` renamed: each way of leaving the commit is
    /// recovered from either folder to all new (forward) or all old (back), with
    /// nothing hidden left.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_commit_is_rolled_forward_or_back_by_its_rule() {
        #[derive(Clone, Copy, Debug)]
        enum Left {
            /// Killed between the renames.
            Renaming,
            /// Killed while putting the old outputs back after a failed rename.
            Aborting,
            /// Killed before the home copy was written.
            BeforeCommitPoint,
        }
        for (left, from_two) in [
            (Left::Renaming, false),
            (Left::Renaming, true),
            (Left::Aborting, true),
            (Left::BeforeCommitPoint, true),
        ] {
            let dir = tempfile::tempdir().unwrap();
            let one = dir.path().canonicalize().unwrap().join("one");
            let two = one.with_file_name("two");
            fs::create_dir(&one).unwrap();
            fs::create_dir(&two).unwrap();
            let pid = dead_pid();
            let a = entry(&one, "a", pid, true);
            let b = entry(&two, "b", pid, false);
            fs::write(&a.target, "old a").unwrap();
            fs::hard_link(&a.target, a.backup.as_ref().unwrap()).unwrap();
            fs::write(&a.temp, "new a").unwrap();
            fs::write(&b.temp, "new b").unwrap();
            let journal = Journal::write(vec![a.clone(), b.clone()], pid).unwrap();
            assert!(journal_path(&one, pid).exists() && journal_path(&two, pid).exists());
            fs::rename(&a.temp, &a.target).unwrap();
            match left {
                Left::Renaming => {}
                Left::Aborting => journal.abort().unwrap(),
                Left::BeforeCommitPoint => {
                    fs::rename(&a.target, &a.temp).unwrap();
                    fs::hard_link(a.backup.as_ref().unwrap(), &a.target).unwrap();
                    fs::remove_file(journal_path(&one, pid)).unwrap();
                }
            }
            recover(if from_two { &two } else { &one });
            let now = (
                fs::read_to_string(&a.target).ok(),
                fs::read_to_string(&b.target).ok(),
            );
            let want = match left {
                Left::Renaming => (Some("new a".to_owned()), Some("new b".to_owned())),
                _ => (Some("old a".to_owned()), None),
            };
            assert_eq!(now, want, "{left:?}");
            for folder in [&one, &two] {
                let hidden: Vec<_> = fs::read_dir(folder)
                    .unwrap()
                    .map(|e| e.unwrap().file_name())
                    .filter(|n| n.to_string_lossy().starts_with('.'))
                    .collect();
                assert!(hidden.is_empty(), "{left:?}: {hidden:?}");
            }
            // Done again: nothing changes.
            recover(&one);
            recover(&two);
            let again = (
                fs::read_to_string(&a.target).ok(),
                fs::read_to_string(&b.target).ok(),
            );
            assert_eq!(again, want, "{left:?}");
        }
    }

    /// A journal reads back as written; one naming files that are not its process's
    /// own temporary files and backups, or cut short, is not read.
    #[test]
    fn a_journal_reads_back_and_a_forged_one_does_not() {
        let dir = Path::new("/some/where");
        let entries = vec![entry(dir, "a.tsv", 7, true), entry(dir, "b\tc d", 7, false)];
        let home = journal_path(dir, 7);
        let t = text("commit", &home, &entries);
        assert_eq!(
            parse(&t, 7),
            Some(("commit".to_owned(), home.clone(), entries.clone()))
        );
        assert_eq!(parse(&t, 8), None);
        assert_eq!(parse(&t[..t.len() - 4], 7), None);
        for forged in [
            Entry {
                temp: PathBuf::from("/etc/passwd"),
                ..entries[0].clone()
            },
            Entry {
                temp: dir.join(".a.tsv.8.0.ndd-tmp"),
                ..entries[0].clone()
            },
            Entry {
                backup: Some(PathBuf::from("/some/where/.b.tsv.7.ndd-old")),
                ..entries[0].clone()
            },
            Entry {
                target: PathBuf::from("a.tsv"),
                temp: PathBuf::from(".a.tsv.7.0.ndd-tmp"),
                backup: None,
            },
        ] {
            assert_eq!(parse(&text("commit", &home, &[forged]), 7), None);
        }
    }
}
