//! Compressors: the `C(x)` of the normalized compression distance.
//!
//! NCD only needs the *length* of a compressed string. A [`Compressor`] measures it
//! into a buffer it owns and reuses, so measuring many strings allocates nothing once
//! the buffer has grown (except [`Lz4`], whose crate allocates an 8–16 KB hash table
//! per call). Every compressor can also write the compressed bytes and read them back
//! ([`Compressor::compress_into`], [`Compressor::decompress_into`]): the tests check
//! `decompress(compress(x)) == x` and that the measured length is the length of those
//! bytes, so the lengths NCD uses are honest.
//!
//! | type | format | measured bytes |
//! | --- | --- | --- |
//! | [`Snappy`] (default) | Snappy raw block (`snap::raw`), as `Snappy.compress` in Java | varint length + block |
//! | [`Lz4`] | LZ4 block (`lz4_flex::block`) with a 4-byte length prefix | 4 + block |
//! | [`Deflate`] | raw deflate, zlib (+6) or gzip (+18), levels 0–9 (`flate2`) | the whole stream |
//!
//! X. Zhang, Y. Yao, Y. Ji, B. Fang, "Effective and Fast Near Duplicate Detection via
//! Signature-Based Compression Metrics", Hindawi research article, 2016, uses Snappy
//! (section 5.1) and finds Snappy and LZ4 better than gzip and zip at τ = 0.7
//! (section 5.4.2, Figure 10).
//!
//! # Example
//!
//! ```
//! use near_dup::ncd::{Compressor, CompressorKind};
//! let mut c = CompressorKind::Snappy.build()?;
//! let text = "abc".repeat(100);
//! let n = c.compressed_len(text.as_bytes())?;
//! assert!(n < 40, "{n}");
//! let mut z = Vec::new();
//! c.compress_into(text.as_bytes(), &mut z)?;
//! assert_eq!(z.len(), n);
//! # Ok::<(), near_dup::Error>(())
//! ```

use std::fmt;
use std::io::Read;
use std::str::FromStr;

use flate2::{Compress, Compression, FlushCompress, Status};
use ndd_core::Error;

/// Measures the compressed length of byte strings (the `C(x)` of NCD).
///
/// Object-safe on purpose: the cost of a call is dominated by compression, so a
/// `Box<dyn Compressor>` chosen at run time costs nothing measurable. Implementations
/// keep their scratch space inside, hence `&mut self`; [`box_clone`](Self::box_clone)
/// gives each thread its own.
///
/// # Example
///
/// ```
/// use near_dup::ncd::{Compressor, Snappy};
/// let mut c = Snappy::new();
/// assert_eq!(c.name(), "snappy");
/// let short = c.compressed_len(b"the cat sat on the mat")?;
/// let long = c.compressed_len("the cat sat on the mat ".repeat(50).as_bytes())?;
/// assert!(long < 50 * short);
/// # Ok::<(), near_dup::Error>(())
/// ```
pub trait Compressor: Send + Sync + fmt::Debug {
    /// A short name (`snappy`, `lz4`, `deflate-6`, `zlib-6`, `gzip-9`, ...).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::ncd::{Compressor, Deflate};
    /// assert_eq!(Deflate::gzip(9)?.name(), "gzip-9");
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    fn name(&self) -> String;

    /// The compressed length of `data` in bytes (the whole stream, headers included).
    ///
    /// # Errors
    ///
    /// [`ndd_core::ErrorKind::InvalidInput`] when the underlying compressor refuses
    /// the input (for example Snappy above about 4 GB).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::ncd::{Compressor, Lz4};
    /// assert_eq!(Lz4::new().compressed_len(b"")?, 5); // 4-byte length + 1 token
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    fn compressed_len(&mut self, data: &[u8]) -> Result<usize, Error>;

    /// Clears `out` and writes the compressed bytes of `data` to it; `out.len()`
    /// equals [`compressed_len`](Self::compressed_len).
    ///
    /// # Errors
    ///
    /// As [`compressed_len`](Self::compressed_len).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::ncd::{Compressor, Snappy};
    /// let mut c = Snappy::new();
    /// let mut z = Vec::new();
    /// c.compress_into(b"hello hello hello", &mut z)?;
    /// assert_eq!(z.len(), c.compressed_len(b"hello hello hello")?);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    fn compress_into(&mut self, data: &[u8], out: &mut Vec<u8>) -> Result<(), Error>;

    /// Clears `out` and writes the bytes that `compressed` (from
    /// [`compress_into`](Self::compress_into)) decompresses to.
    ///
    /// # Errors
    ///
    /// [`ndd_core::ErrorKind::CorruptData`] when `compressed` is not a valid stream.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::ncd::{Compressor, Deflate};
    /// let mut c = Deflate::zlib(6)?;
    /// let (mut z, mut back) = (Vec::new(), Vec::new());
    /// c.compress_into(b"round trip", &mut z)?;
    /// c.decompress_into(&z, &mut back)?;
    /// assert_eq!(back, b"round trip");
    /// assert!(c.decompress_into(b"garbage", &mut back).is_err());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    fn decompress_into(&mut self, compressed: &[u8], out: &mut Vec<u8>) -> Result<(), Error>;

    /// A fresh compressor with the same parameters (scratch space not shared), for
    /// another thread.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::ncd::{Compressor, Snappy};
    /// let c: Box<dyn Compressor> = Box::new(Snappy::new());
    /// assert_eq!(c.box_clone().name(), "snappy");
    /// ```
    fn box_clone(&self) -> Box<dyn Compressor>;
}

impl Compressor for Box<dyn Compressor> {
    fn name(&self) -> String {
        (**self).name()
    }
    fn compressed_len(&mut self, data: &[u8]) -> Result<usize, Error> {
        (**self).compressed_len(data)
    }
    fn compress_into(&mut self, data: &[u8], out: &mut Vec<u8>) -> Result<(), Error> {
        (**self).compress_into(data, out)
    }
    fn decompress_into(&mut self, compressed: &[u8], out: &mut Vec<u8>) -> Result<(), Error> {
        (**self).decompress_into(compressed, out)
    }
    fn box_clone(&self) -> Box<dyn Compressor> {
        (**self).box_clone()
    }
}

fn corrupt(what: &str, e: impl fmt::Display) -> Error {
    Error::corrupt_data(format!("{what}: {e}"))
}

// ---------------------------------------------------------------------------------

/// Snappy, raw block format (`snap::raw`): a varint of the input length followed by
/// the block, the format of `Snappy.compress` in Java and of the SigNCD paper
/// (section 5.1). The encoder's hash table and the output buffer are reused.
///
/// # Example
///
/// ```
/// use near_dup::ncd::{Compressor, Snappy};
/// let mut c = Snappy::new();
/// assert_eq!(c.compressed_len(b"")?, 1);
/// assert_eq!(c.compressed_len(b"abc")?, 5); // varint 3, literal tag, 3 bytes
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug)]
pub struct Snappy {
    encoder: snap::raw::Encoder,
    buf: Vec<u8>,
}

impl Snappy {
    /// A Snappy compressor.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::ncd::{Compressor, Snappy};
    /// assert_eq!(Snappy::new().name(), "snappy");
    /// ```
    #[must_use]
    pub fn new() -> Self {
        Snappy {
            encoder: snap::raw::Encoder::new(),
            buf: Vec::new(),
        }
    }
}

impl Default for Snappy {
    fn default() -> Self {
        Self::new()
    }
}

impl Compressor for Snappy {
    fn name(&self) -> String {
        "snappy".into()
    }

    fn compressed_len(&mut self, data: &[u8]) -> Result<usize, Error> {
        let max = snap::raw::max_compress_len(data.len());
        if max == 0 {
            return Err(Error::invalid_input("input too large for Snappy"));
        }
        if self.buf.len() < max {
            self.buf.resize(max, 0);
        }
        self.encoder
            .compress(data, &mut self.buf)
            .map_err(|e| Error::invalid_input(format!("snappy: {e}")))
    }

    fn compress_into(&mut self, data: &[u8], out: &mut Vec<u8>) -> Result<(), Error> {
        let n = self.compressed_len(data)?;
        out.clear();
        out.extend_from_slice(&self.buf[..n]);
        Ok(())
    }

    fn decompress_into(&mut self, compressed: &[u8], out: &mut Vec<u8>) -> Result<(), Error> {
        let len = snap::raw::decompress_len(compressed).map_err(|e| corrupt("snappy", e))?;
        if len > compressed.len().saturating_mul(64).saturating_add(64) {
            // Snappy expands at most ~21x per copy tag; refuse absurd lengths
            // before allocating.
            return Err(Error::corrupt_data(
                "snappy: implausible decompressed length",
            ));
        }
        out.clear();
        out.resize(len, 0);
        let n = snap::raw::Decoder::new()
            .decompress(compressed, out)
            .map_err(|e| corrupt("snappy", e))?;
        out.truncate(n);
        Ok(())
    }

    fn box_clone(&self) -> Box<dyn Compressor> {
        Box::new(Snappy::new())
    }
}

// ---------------------------------------------------------------------------------

/// LZ4 block format (`lz4_flex::block`, pure Rust) with a 4-byte little-endian length
/// prefix (the `compress_prepend_size` format), so the stream can be decompressed. The
/// output buffer is reused; `lz4_flex` allocates its hash table per call.
///
/// # Example
///
/// ```
/// use near_dup::ncd::{Compressor, Lz4};
/// let mut c = Lz4::new();
/// let n = c.compressed_len("abcd".repeat(100).as_bytes())?;
/// assert!(n < 30, "{n}");
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Default)]
pub struct Lz4 {
    buf: Vec<u8>,
}

impl Lz4 {
    /// An LZ4 compressor.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::ncd::{Compressor, Lz4};
    /// assert_eq!(Lz4::new().name(), "lz4");
    /// ```
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }
}

impl Compressor for Lz4 {
    fn name(&self) -> String {
        "lz4".into()
    }

    fn compressed_len(&mut self, data: &[u8]) -> Result<usize, Error> {
        if u32::try_from(data.len()).is_err() {
            return Err(Error::invalid_input(
                "input too large for a 4-byte LZ4 length",
            ));
        }
        let max = lz4_flex::block::get_maximum_output_size(data.len());
        if self.buf.len() < max {
            self.buf.resize(max, 0);
        }
        let n = lz4_flex::block::compress_into(data, &mut self.buf)
            .map_err(|e| Error::invalid_input(format!("lz4: {e}")))?;
        Ok(4 + n)
    }

    fn compress_into(&mut self, data: &[u8], out: &mut Vec<u8>) -> Result<(), Error> {
        let n = self.compressed_len(data)? - 4;
        let len = u32::try_from(data.len()).unwrap_or(u32::MAX);
        out.clear();
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&self.buf[..n]);
        Ok(())
    }

    fn decompress_into(&mut self, compressed: &[u8], out: &mut Vec<u8>) -> Result<(), Error> {
        let (len, block) =
            lz4_flex::block::uncompressed_size(compressed).map_err(|e| corrupt("lz4", e))?;
        if len > block.len().saturating_mul(256).saturating_add(64) {
            // LZ4 expands at most 255x; refuse absurd lengths before allocating.
            return Err(Error::corrupt_data("lz4: implausible decompressed length"));
        }
        out.clear();
        out.resize(len, 0);
        let n = lz4_flex::block::decompress_into(block, out).map_err(|e| corrupt("lz4", e))?;
        if n != len {
            return Err(Error::corrupt_data(
                "lz4: length prefix does not match the block",
            ));
        }
        Ok(())
    }

    fn box_clone(&self) -> Box<dyn Compressor> {
        Box::new(Lz4::new())
    }
}

// ---------------------------------------------------------------------------------

/// The container around a deflate stream.
///
/// # Example
///
/// ```
/// use near_dup::ncd::DeflateFormat;
/// assert_eq!(DeflateFormat::Gzip.overhead(), 18);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DeflateFormat {
    /// Raw deflate (RFC 1951), no header.
    Raw,
    /// zlib (RFC 1950): 2-byte header, 4-byte Adler-32.
    Zlib,
    /// gzip (RFC 1952): 10-byte header (no name, no time), CRC-32 and length.
    Gzip,
}

impl DeflateFormat {
    /// Bytes the container adds to the deflate stream.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::ncd::DeflateFormat;
    /// assert_eq!((DeflateFormat::Raw.overhead(), DeflateFormat::Zlib.overhead()), (0, 6));
    /// ```
    #[must_use]
    pub const fn overhead(self) -> usize {
        match self {
            DeflateFormat::Raw => 0,
            DeflateFormat::Zlib => 6,
            DeflateFormat::Gzip => 18,
        }
    }
}

/// Deflate (`flate2` over the pure-Rust `miniz_oxide`), raw, zlib or gzip, at a level
/// 0–9. The compression state (about 300 KB) is made once and reset per call, and the
/// output buffer is reused.
///
/// # Example
///
/// ```
/// use near_dup::ncd::{Compressor, Deflate};
/// let text = "to be or not to be, that is the question. ".repeat(20);
/// let fast = Deflate::raw(1)?.compressed_len(text.as_bytes())?;
/// let best = Deflate::raw(9)?.compressed_len(text.as_bytes())?;
/// assert!(best <= fast);
/// assert_eq!(Deflate::gzip(9)?.compressed_len(text.as_bytes())?, best + 18);
/// # Ok::<(), near_dup::Error>(())
/// ```
pub struct Deflate {
    format: DeflateFormat,
    level: u32,
    state: Compress,
    buf: Vec<u8>,
}

impl fmt::Debug for Deflate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Deflate")
            .field("format", &self.format)
            .field("level", &self.level)
            .finish_non_exhaustive()
    }
}

impl Deflate {
    /// A deflate compressor in `format` at `level`.
    ///
    /// # Errors
    ///
    /// [`ndd_core::ErrorKind::InvalidParameter`] when `level > 9`.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::ncd::{Compressor, Deflate, DeflateFormat};
    /// assert_eq!(Deflate::new(DeflateFormat::Zlib, 6)?.name(), "zlib-6");
    /// assert!(Deflate::new(DeflateFormat::Raw, 10).is_err());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn new(format: DeflateFormat, level: u32) -> Result<Self, Error> {
        if level > 9 {
            return Err(Error::invalid_parameter("level", "must lie in 0..=9"));
        }
        Ok(Deflate {
            format,
            level,
            state: Compress::new(Compression::new(level), format == DeflateFormat::Zlib),
            buf: Vec::new(),
        })
    }

    /// Raw deflate at `level`.
    ///
    /// # Errors
    ///
    /// As [`new`](Self::new).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::ncd::{Compressor, Deflate};
    /// assert_eq!(Deflate::raw(6)?.name(), "deflate-6");
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn raw(level: u32) -> Result<Self, Error> {
        Self::new(DeflateFormat::Raw, level)
    }

    /// zlib at `level`.
    ///
    /// # Errors
    ///
    /// As [`new`](Self::new).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::ncd::{Compressor, Deflate};
    /// assert_eq!(Deflate::zlib(1)?.name(), "zlib-1");
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn zlib(level: u32) -> Result<Self, Error> {
        Self::new(DeflateFormat::Zlib, level)
    }

    /// gzip at `level`.
    ///
    /// # Errors
    ///
    /// As [`new`](Self::new).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::ncd::{Compressor, Deflate};
    /// assert_eq!(Deflate::gzip(6)?.name(), "gzip-6");
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn gzip(level: u32) -> Result<Self, Error> {
        Self::new(DeflateFormat::Gzip, level)
    }

    /// The container format.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::ncd::{Deflate, DeflateFormat};
    /// assert_eq!(Deflate::gzip(6)?.format(), DeflateFormat::Gzip);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn format(&self) -> DeflateFormat {
        self.format
    }

    /// The compression level.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::ncd::Deflate::raw(3)?.level(), 3);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn level(&self) -> u32 {
        self.level
    }

    /// Compresses `data` into `self.buf` (the deflate or zlib stream, no gzip wrapper).
    fn run(&mut self, data: &[u8]) -> Result<usize, Error> {
        self.state.reset();
        self.buf.clear();
        let want = data.len() + data.len() / 1000 + 64;
        if self.buf.capacity() < want {
            self.buf.reserve(want);
        }
        loop {
            let consumed = usize::try_from(self.state.total_in()).unwrap_or(usize::MAX);
            let rest = data.get(consumed..).unwrap_or(&[]);
            let status = self
                .state
                .compress_vec(rest, &mut self.buf, FlushCompress::Finish)
                .map_err(|e| Error::invalid_input(format!("deflate: {e}")))?;
            match status {
                Status::StreamEnd => break,
                Status::Ok | Status::BufError => {
                    let more = self.buf.capacity().max(64);
                    self.buf.reserve(more);
                }
            }
        }
        Ok(self.buf.len())
    }
}

impl Compressor for Deflate {
    fn name(&self) -> String {
        let f = match self.format {
            DeflateFormat::Raw => "deflate",
            DeflateFormat::Zlib => "zlib",
            DeflateFormat::Gzip => "gzip",
        };
        format!("{f}-{}", self.level)
    }

    fn compressed_len(&mut self, data: &[u8]) -> Result<usize, Error> {
        let n = self.run(data)?;
        Ok(if self.format == DeflateFormat::Gzip {
            n + DeflateFormat::Gzip.overhead()
        } else {
            n
        })
    }

    fn compress_into(&mut self, data: &[u8], out: &mut Vec<u8>) -> Result<(), Error> {
        out.clear();
        if self.format == DeflateFormat::Gzip {
            // Header: magic, CM = deflate, no flags, MTIME 0, XFL 0, OS 255 (unknown).
            out.extend_from_slice(&[0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255]);
            self.run(data)?;
            out.extend_from_slice(&self.buf);
            let mut crc = flate2::Crc::new();
            crc.update(data);
            out.extend_from_slice(&crc.sum().to_le_bytes());
            out.extend_from_slice(&crc.amount().to_le_bytes());
        } else {
            self.run(data)?;
            out.extend_from_slice(&self.buf);
        }
        Ok(())
    }

    fn decompress_into(&mut self, compressed: &[u8], out: &mut Vec<u8>) -> Result<(), Error> {
        out.clear();
        let result = match self.format {
            DeflateFormat::Raw => flate2::read::DeflateDecoder::new(compressed).read_to_end(out),
            DeflateFormat::Zlib => flate2::read::ZlibDecoder::new(compressed).read_to_end(out),
            DeflateFormat::Gzip => flate2::read::GzDecoder::new(compressed).read_to_end(out),
        };
        result.map(|_| ()).map_err(|e| corrupt(&self.name(), e))
    }

    fn box_clone(&self) -> Box<dyn Compressor> {
        Box::new(Deflate {
            format: self.format,
            level: self.level,
            state: Compress::new(
                Compression::new(self.level),
                self.format == DeflateFormat::Zlib,
            ),
            buf: Vec::new(),
        })
    }
}

// ---------------------------------------------------------------------------------

/// A compressor chosen by name, e.g. from a command line: `snappy`, `lz4`,
/// `deflate[-L]`, `zlib[-L]`, `gzip[-L]` (level `L` in 0–9, default 6).
///
/// # Example
///
/// ```
/// use near_dup::ncd::{Compressor, CompressorKind, DeflateFormat};
/// let k: CompressorKind = "gzip-9".parse()?;
/// assert_eq!(k, CompressorKind::Deflate(DeflateFormat::Gzip, 9));
/// assert_eq!(k.build()?.name(), "gzip-9");
/// assert_eq!("zlib".parse::<CompressorKind>()?, CompressorKind::Deflate(DeflateFormat::Zlib, 6));
/// assert!("brotli".parse::<CompressorKind>().is_err());
/// assert!("gzip-12".parse::<CompressorKind>().is_err());
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum CompressorKind {
    /// [`Snappy`] (the default, the paper's).
    #[default]
    Snappy,
    /// [`Lz4`].
    Lz4,
    /// [`Deflate`] in a format at a level.
    Deflate(DeflateFormat, u32),
}

impl CompressorKind {
    /// Makes the compressor.
    ///
    /// # Errors
    ///
    /// [`ndd_core::ErrorKind::InvalidParameter`] for a deflate level above 9.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::ncd::{Compressor, CompressorKind};
    /// assert_eq!(CompressorKind::Lz4.build()?.name(), "lz4");
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn build(self) -> Result<Box<dyn Compressor>, Error> {
        Ok(match self {
            CompressorKind::Snappy => Box::new(Snappy::new()),
            CompressorKind::Lz4 => Box::new(Lz4::new()),
            CompressorKind::Deflate(f, level) => Box::new(Deflate::new(f, level)?),
        })
    }
}

impl FromStr for CompressorKind {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self, Error> {
        let (name, level) = match s.split_once('-') {
            Some((n, l)) => {
                let level: u32 = l.parse().ok().filter(|l| *l <= 9).ok_or_else(|| {
                    Error::invalid_parameter("compressor", format!("bad level in {s:?} (0..=9)"))
                })?;
                (n, Some(level))
            }
            None => (s, None),
        };
        let deflate = |f| Ok(CompressorKind::Deflate(f, level.unwrap_or(6)));
        match (name, level) {
            ("snappy", None) => Ok(CompressorKind::Snappy),
            ("lz4", None) => Ok(CompressorKind::Lz4),
            ("deflate", _) => deflate(DeflateFormat::Raw),
            ("zlib", _) => deflate(DeflateFormat::Zlib),
            ("gzip", _) => deflate(DeflateFormat::Gzip),
            _ => Err(Error::invalid_parameter(
                "compressor",
                format!("unknown compressor {s:?} (snappy, lz4, deflate[-L], zlib[-L], gzip[-L])"),
            )),
        }
    }
}
