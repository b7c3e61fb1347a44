//! Output files: checked before any work starts, written to a temporary file beside
//! the target and renamed into place only when every output of the run is complete.

use std::fs;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::error::CliError;

/// One output the user asked for.
#[derive(Debug, Clone)]
pub(crate) struct Target {
    /// The option that named it (`--pairs-out`).
    pub(crate) flag: &'static str,
    /// The path as given.
    pub(crate) path: PathBuf,
    /// The path with its folder resolved (symbolic links, `..`), for comparisons.
    resolved: PathBuf,
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
/// not a folder), none is the input or inside an input folder, none is named twice,
/// and the saved index or filter read (`index_in`) is not overwritten unless
/// `rewrite_index_in` and by `--index-out`, `--add` or `--bloom-out`.
pub(crate) fn check(
    outputs: &[(&'static str, Option<&Path>)],
    input: Option<&Path>,
    index_in: Option<&Path>,
    rewrite_index_in: bool,
) -> Result<Vec<Target>, CliError> {
    let input = match input {
        Some(p) => Some(
            fs::canonicalize(p).map_err(|e| CliError::Input(format!("{}: {e}", p.display())))?,
        ),
        None => None,
    };
    let index_in = index_in.and_then(|p| fs::canonicalize(p).ok());
    let mut targets: Vec<Target> = Vec::new();
    for &(flag, path) in outputs {
        let Some(path) = path else { continue };
        let usage = |m: String| CliError::Usage(format!("{flag} {}: {m}", path.display()));
        let resolved = resolve(path).map_err(|e| usage(e.to_string()))?;
        if resolved.is_dir() {
            return Err(usage("is a folder; give a file name".into()));
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
        let rewrites_index =
            rewrite_index_in && matches!(flag, "--index-out" | "--add" | "--bloom-out");
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
                other.flag
            )));
        }
        targets.push(Target {
            flag,
            path: path.to_path_buf(),
            resolved,
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
    }
}

impl Pending {
    /// Starts writing `target`.
    pub(crate) fn create(target: &Path) -> Result<Self, CliError> {
        let dir = folder_of(target);
        let name = target
            .file_name()
            .ok_or_else(|| CliError::output(target, "not a file name"))?
            .to_string_lossy();
        let mut attempt = 0u32;
        loop {
            let path = dir.join(format!(".{name}.{}.{attempt}.ndd-tmp", std::process::id()));
            match fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&path)
            {
                Ok(file) => {
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

/// A complete output waiting to be renamed into place.
pub(crate) struct Ready {
    target: PathBuf,
    temp: TempFile,
}

impl Ready {
    /// Renames the file into place (atomic on one file system).
    pub(crate) fn commit(mut self) -> Result<(), CliError> {
        fs::rename(&self.temp.path, &self.target).map_err(|e| CliError::output(&self.target, e))?;
        self.temp.keep = true;
        Ok(())
    }
}

/// Writes `s` as a TSV field: backslash, tab, newline and carriage return escaped as
/// `\\`, `\t`, `\n` and `\r`, so that every row has its fields on one line.
pub(crate) fn tsv_field(out: &mut impl Write, s: &str) -> io::Result<()> {
    let mut start = 0;
    for (i, b) in s.bytes().enumerate() {
        let esc: &[u8] = match b {
            b'\\' => b"\\\\",
            b'\t' => b"\\t",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            _ => continue,
        };
        out.write_all(&s.as_bytes()[start..i])?;
        out.write_all(esc)?;
        start = i + 1;
    }
    out.write_all(&s.as_bytes()[start..])
}

/// A TSV field as [`tsv_field`] wrote it, unescaped; a backslash before any other
/// character (or at the end) is kept as it is.
pub(crate) fn tsv_unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.peek() {
            Some('t') => out.push('\t'),
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('\\') => out.push('\\'),
            _ => {
                out.push('\\');
                continue;
            }
        }
        chars.next();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The escaping undone by the rule it documents gives the id back.
    #[test]
    fn tsv_fields_round_trip_and_stay_on_one_line() {
        let unescape = tsv_unescape;
        assert_eq!(tsv_unescape("a\\x\\"), "a\\x\\");
        for id in [
            "plain",
            "a\tb",
            "line\nbreak\r\n",
            "back\\slash\\t",
            "",
            "é\t漢",
        ] {
            let mut buf = Vec::new();
            tsv_field(&mut buf, id).unwrap();
            let s = String::from_utf8(buf).unwrap();
            assert!(!s.contains(['\t', '\n', '\r']), "{s:?}");
            assert_eq!(unescape(&s), id);
        }
    }
}
