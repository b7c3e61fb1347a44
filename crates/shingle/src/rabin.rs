//! 64-bit Rabin fingerprints (M. O. Rabin, "Fingerprinting by random polynomials",
//! 1981), the hash Broder used for shingles (Hajishirzi, Yih and Kołcz (SIGIR 2010, section 2.1) and Gambosi's slides).
//!
//! # Specification
//!
//! Let `P(x) = x^64 + p(x)` be an irreducible polynomial of degree 64 over GF(2).
//! It is given as the `u64` value `poly` holding the 64 low coefficients of `P`:
//! bit `j` of `poly` (value `1 << j`) is the coefficient of `x^j`; the leading term
//! `x^64` is implicit. The default is [`DEFAULT_POLYNOMIAL`] `= 0x1B`, that is
//! `P(x) = x^64 + x^4 + x^3 + x + 1`.
//!
//! A byte string `b[0] b[1] … b[n-1]` is read as the bit string of its bytes in order,
//! each byte most significant bit first, and that bit string as the polynomial
//! `A(x)` whose first bit is the coefficient of the highest power:
//!
//! ```text
//! A(x) = Σ_{i=0}^{n-1} Σ_{k=0}^{7} bit_k(b[i]) · x^(8·(n-1-i) + k)
//! ```
//!
//! where `bit_k(b)` is `(b >> k) & 1`. In other words `A(x)` is the big-endian integer
//! of the bytes with integer bits as polynomial coefficients. The fingerprint is
//!
//! ```text
//! f(b) = A(x) · x^64  mod  P(x)
//! ```
//!
//! returned as a `u64` whose bit `j` is the coefficient of `x^j` of the remainder
//! (degree below 64). No initial value and no final XOR are applied, so:
//!
//! * the empty string has fingerprint `0`, and so does any string of zero bytes:
//!   leading zero bytes do not change a fingerprint (`f("\0a") == f("a")`), which is
//!   inherent to the definition and harmless for text;
//! * `f` is linear: `f(a ⊕ b) = f(a) ⊕ f(b)` for strings of equal length;
//! * `f(a ‖ b) = f(a) · x^(8·|b|) + f(b) mod P`, which is what [`RabinFingerprinter::extend`]
//!   and [`RabinWindow`] exploit.
//!
//! The one-byte string `[1]` has fingerprint `x^64 mod P = poly`.
//!
//! For two distinct strings of at most `n` bits and `P` drawn uniformly among
//! irreducible polynomials of degree 64, the probability that their fingerprints
//! collide is at most about `n / 2^64` (Rabin 1981). With a fixed public polynomial the
//! fingerprint is a fast, well-spread, deterministic hash, not a cryptographic one.
//!
//! # Implementation
//!
//! Byte at a time with a 256-entry table `T[j] = j(x) · x^64 mod P` built when the
//! fingerprinter is constructed (at compile time for the default polynomial): appending
//! byte `c` to a string with fingerprint `s` gives `(s << 8) ⊕ T[(s >> 56) ⊕ c]`.
//!
//! # Example
//!
//! ```
//! use near_dup::shingle::rabin::{RabinFingerprinter, RabinWindow};
//!
//! let fp = RabinFingerprinter::default();
//! // One shot, or piece by piece without building the concatenation.
//! let whole = fp.fingerprint(b"jack london");
//! let pieces = fp.extend(fp.extend(fp.fingerprint(b"jack"), b" "), b"london");
//! assert_eq!(whole, pieces);
//!
//! // A rolling window of 4 bytes.
//! let mut window = RabinWindow::new(&fp, 4)?;
//! let rolled: Vec<u64> = b"abcdef".iter().filter_map(|&b| window.push(b)).collect();
//! assert_eq!(rolled, vec![fp.fingerprint(b"abcd"), fp.fingerprint(b"bcde"), fp.fingerprint(b"cdef")]);
//! # Ok::<(), near_dup::Error>(())
//! ```

use std::fmt;

use ndd_core::Error;

/// The default polynomial's low coefficients: `P(x) = x^64 + x^4 + x^3 + x + 1`.
///
/// Irreducible over GF(2) (checked by [`is_irreducible`] and by the crate's tests), and
/// the usual pentanomial for GF(2^64).
///
/// # Example
///
/// ```
/// use near_dup::shingle::rabin::{DEFAULT_POLYNOMIAL, RabinFingerprinter, is_irreducible};
/// assert!(is_irreducible(DEFAULT_POLYNOMIAL));
/// assert_eq!(RabinFingerprinter::default().polynomial(), DEFAULT_POLYNOMIAL);
/// // The one-byte string 0x01 is the polynomial 1, and 1 · x^64 mod P = P − x^64.
/// assert_eq!(RabinFingerprinter::default().fingerprint(&[1]), DEFAULT_POLYNOMIAL);
/// ```
pub const DEFAULT_POLYNOMIAL: u64 = 0x1B;

/// The 256-entry table of the default polynomial, built at compile time.
const DEFAULT_TABLE: [u64; 256] = build_table(DEFAULT_POLYNOMIAL);

/// The shared default fingerprinter (see [`RabinFingerprinter::shared`]).
static DEFAULT_FINGERPRINTER: RabinFingerprinter = RabinFingerprinter {
    poly: DEFAULT_POLYNOMIAL,
    table: DEFAULT_TABLE,
};

/// `a · x mod P` for `a` of degree below 64, `P = x^64 + poly`.
#[inline]
const fn mul_x(a: u64, poly: u64) -> u64 {
    let carry = a >> 63;
    (a << 1) ^ (poly & 0u64.wrapping_sub(carry))
}

/// `T[j] = j(x) · x^64 mod P` for every byte value `j`.
const fn build_table(poly: u64) -> [u64; 256] {
    let mut table = [0u64; 256];
    let mut j = 0usize;
    while j < 256 {
        // j(x) · x^64 = j(x) · x^56 · x^8: start from j at bits 56..63 (= j · x^56,
        // degree < 64) and multiply by x eight times, reducing each time.
        let mut v = (j as u64) << 56;
        let mut k = 0;
        while k < 8 {
            v = mul_x(v, poly);
            k += 1;
        }
        table[j] = v;
        j += 1;
    }
    table
}

/// `a · b mod P` for `a`, `b` of degree below 64 (shift-and-add, 64 steps).
const fn mul_mod(a: u64, b: u64, poly: u64) -> u64 {
    let mut acc = 0u64;
    let mut a = a;
    let mut b = b;
    while b != 0 {
        if b & 1 == 1 {
            acc ^= a;
        }
        a = mul_x(a, poly);
        b >>= 1;
    }
    acc
}

/// `a^e mod P` by square and multiply.
const fn pow_mod(a: u64, e: u64, poly: u64) -> u64 {
    let mut result = 1u64;
    let mut base = a;
    let mut e = e;
    while e != 0 {
        if e & 1 == 1 {
            result = mul_mod(result, base, poly);
        }
        base = mul_mod(base, base, poly);
        e >>= 1;
    }
    result
}

/// Degree of a nonzero polynomial held in a `u128` (bit `j` = coefficient of `x^j`).
const fn degree(a: u128) -> u32 {
    127 - a.leading_zeros()
}

/// Greatest common divisor of two polynomials over GF(2) held in `u128`s.
const fn gcd(a: u128, b: u128) -> u128 {
    let mut a = a;
    let mut b = b;
    while b != 0 {
        // a := a mod b
        let db = degree(b);
        while a != 0 && degree(a) >= db {
            a ^= b << (degree(a) - db);
        }
        let t = a;
        a = b;
        b = t;
    }
    a
}

/// Whether `P(x) = x^64 + poly` is irreducible over GF(2), by Rabin's test.
///
/// A polynomial `P` of degree `n` over GF(2) is irreducible if and only if
/// `x^(2^n) ≡ x (mod P)` and `gcd(x^(2^(n/q)) − x mod P, P) = 1` for every prime `q`
/// dividing `n` (M. O. Rabin, "Probabilistic algorithms in finite fields", 1980). For
/// `n = 64 = 2^6` the only prime divisor is 2, so the test is: 64 squarings of `x`
/// give back `x`, and the polynomial after 32 squarings, minus `x`, is coprime to `P`.
/// Runs in a few microseconds.
///
/// # Example
///
/// ```
/// use near_dup::shingle::rabin::is_irreducible;
/// assert!(is_irreducible(0x1B)); // x^64 + x^4 + x^3 + x + 1
/// assert!(!is_irreducible(0x1A)); // divisible by x
/// assert!(!is_irreducible(0x01)); // x^64 + 1 = (x + 1)^64
/// ```
#[must_use]
pub const fn is_irreducible(poly: u64) -> bool {
    let x = 2u64;
    let mut r = x;
    let mut i = 0;
    let mut after_32 = 0u64;
    while i < 64 {
        r = mul_mod(r, r, poly);
        i += 1;
        if i == 32 {
            after_32 = r;
        }
    }
    if r != x {
        return false;
    }
    let full = (1u128 << 64) | poly as u128;
    gcd(full, (after_32 ^ x) as u128) == 1
}

/// Table-driven 64-bit Rabin fingerprints modulo a fixed irreducible polynomial of
/// degree 64; see the [module documentation](self) for the exact definition.
///
/// Holds a 2 KiB table; [`RabinFingerprinter::shared`] returns a `'static` default one
/// without copying it.
///
/// # Example
///
/// ```
/// use near_dup::shingle::rabin::RabinFingerprinter;
///
/// let fp = RabinFingerprinter::default();
/// assert_eq!(fp.fingerprint(b""), 0);
/// assert_ne!(fp.fingerprint(b"a rose is a rose"), fp.fingerprint(b"a rose is a rosE"));
/// // x^64 + x^4 + x^3 + x + 1 is the default; other irreducible polynomials work too.
/// let other = RabinFingerprinter::new(0x1B)?;
/// assert_eq!(other, fp);
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct RabinFingerprinter {
    /// Low 64 coefficients of `P`.
    poly: u64,
    /// `table[j] = j(x) · x^64 mod P`.
    table: [u64; 256],
}

impl fmt::Debug for RabinFingerprinter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RabinFingerprinter")
            .field("poly", &format_args!("{:#018x}", self.poly))
            .finish_non_exhaustive()
    }
}

impl Default for RabinFingerprinter {
    /// The fingerprinter for [`DEFAULT_POLYNOMIAL`] (`x^64 + x^4 + x^3 + x + 1`); its
    /// table is built at compile time, so this is a 2 KiB copy.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::shingle::rabin::RabinFingerprinter;
    /// assert_eq!(RabinFingerprinter::default().polynomial(), 0x1B);
    /// ```
    fn default() -> Self {
        DEFAULT_FINGERPRINTER.clone()
    }
}

impl RabinFingerprinter {
    /// A fingerprinter modulo `P(x) = x^64 + poly` (bit `j` of `poly` is the
    /// coefficient of `x^j`; the `x^64` term is implicit).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] (parameter `poly`) if `P` is reducible over GF(2),
    /// as checked by [`is_irreducible`]: fingerprints modulo a reducible polynomial
    /// lose Rabin's collision bound.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::ErrorKind;
    /// use near_dup::shingle::rabin::RabinFingerprinter;
    ///
    /// assert!(RabinFingerprinter::new(0x1B).is_ok()); // x^64 + x^4 + x^3 + x + 1
    /// let err = RabinFingerprinter::new(0).unwrap_err(); // x^64 = x · x^63
    /// assert_eq!(err.kind(), ErrorKind::InvalidParameter);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn new(poly: u64) -> Result<Self, Error> {
        if !is_irreducible(poly) {
            return Err(Error::invalid_parameter(
                "poly",
                format!(
                    "x^64 + {poly:#x} (low coefficients, x^64 implicit) is reducible over GF(2); \
                     use an irreducible polynomial such as {DEFAULT_POLYNOMIAL:#x}"
                ),
            ));
        }
        Ok(RabinFingerprinter {
            poly,
            table: build_table(poly),
        })
    }

    /// The shared fingerprinter for [`DEFAULT_POLYNOMIAL`], with no copy of its table.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::shingle::rabin::RabinFingerprinter;
    /// let fp = RabinFingerprinter::shared();
    /// assert_eq!(fp, &RabinFingerprinter::default());
    /// ```
    #[must_use]
    pub fn shared() -> &'static RabinFingerprinter {
        &DEFAULT_FINGERPRINTER
    }

    /// The low 64 coefficients of the polynomial `P(x) = x^64 + poly`.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::shingle::rabin::RabinFingerprinter;
    /// assert_eq!(RabinFingerprinter::default().polynomial(), 0x1B);
    /// ```
    #[must_use]
    pub fn polynomial(&self) -> u64 {
        self.poly
    }

    /// The fingerprint `A(x) · x^64 mod P` of `bytes` (see the module documentation).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::shingle::rabin::RabinFingerprinter;
    /// let fp = RabinFingerprinter::default();
    /// assert_eq!(fp.fingerprint(b"abc"), fp.extend(fp.fingerprint(b"a"), b"bc"));
    /// assert_eq!(fp.fingerprint(b"\0\0abc"), fp.fingerprint(b"abc"));
    /// ```
    #[inline]
    #[must_use]
    pub fn fingerprint(&self, bytes: &[u8]) -> u64 {
        self.extend(0, bytes)
    }

    /// The fingerprint of `s ‖ bytes`, given `fp = fingerprint(s)`: fingerprints a
    /// concatenation piece by piece without building it. `extend(0, b)` is
    /// `fingerprint(b)`.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::shingle::rabin::RabinFingerprinter;
    /// let fp = RabinFingerprinter::default();
    /// let mut h = 0;
    /// for (i, token) in ["jack", "london", "traveled"].iter().enumerate() {
    ///     if i > 0 {
    ///         h = fp.extend_byte(h, b' ');
    ///     }
    ///     h = fp.extend(h, token.as_bytes());
    /// }
    /// assert_eq!(h, fp.fingerprint(b"jack london traveled"));
    /// ```
    #[inline]
    #[must_use]
    pub fn extend(&self, fp: u64, bytes: &[u8]) -> u64 {
        bytes.iter().fold(fp, |s, &c| self.extend_byte(s, c))
    }

    /// The fingerprint of `s ‖ [byte]`, given `fp = fingerprint(s)`.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::shingle::rabin::RabinFingerprinter;
    /// let fp = RabinFingerprinter::default();
    /// assert_eq!(fp.extend_byte(fp.fingerprint(b"ab"), b'c'), fp.fingerprint(b"abc"));
    /// ```
    #[inline]
    #[must_use]
    pub fn extend_byte(&self, fp: u64, byte: u8) -> u64 {
        (fp << 8) ^ self.table[usize::from(fp.to_be_bytes()[0] ^ byte)]
    }

    /// The fingerprint of `a ‖ b` from `fp_a = fingerprint(a)`, `fp_b = fingerprint(b)`
    /// and `len_b = b.len()`, in O(log `len_b`) time:
    /// `fp_a · x^(8·len_b) + fp_b mod P`.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::shingle::rabin::RabinFingerprinter;
    /// let fp = RabinFingerprinter::default();
    /// let (a, b) = (b"near-duplicate ".as_slice(), b"detection".as_slice());
    /// let joined = fp.concat(fp.fingerprint(a), fp.fingerprint(b), b.len());
    /// assert_eq!(joined, fp.fingerprint(b"near-duplicate detection"));
    /// ```
    #[must_use]
    pub fn concat(&self, fp_a: u64, fp_b: u64, len_b: usize) -> u64 {
        mul_mod(fp_a, self.x_pow_8n(len_b), self.poly) ^ fp_b
    }

    /// `x^(8·n) mod P`, without overflow for any `n`.
    fn x_pow_8n(&self, n: usize) -> u64 {
        // x^(8n) = (x^8)^n; x^8 has degree below 64 so it is its own residue.
        // usize fits in u64 on every supported target (at most 64-bit pointers).
        let n = u64::try_from(n).unwrap_or(u64::MAX);
        pow_mod(1 << 8, n, self.poly)
    }
}

/// Rolling Rabin fingerprint of the last `w` bytes pushed, O(1) per byte.
///
/// Keeps the fingerprint `s` of the current window. Pushing byte `c` when the window
/// is full computes `extend_byte(s, c) ⊕ OUT[o]`, where `o` is the byte leaving the
/// window and `OUT[o] = o(x) · x^(8w) · x^64 mod P` is a second 256-entry table built
/// at construction. Every fingerprint returned equals
/// [`RabinFingerprinter::fingerprint`] of the window's `w` bytes.
///
/// # Example
///
/// ```
/// use near_dup::shingle::rabin::{RabinFingerprinter, RabinWindow};
///
/// let fp = RabinFingerprinter::default();
/// let mut w = RabinWindow::new(&fp, 3)?;
/// assert_eq!(w.push(b'a'), None);
/// assert_eq!(w.push(b'b'), None);
/// assert_eq!(w.push(b'c'), Some(fp.fingerprint(b"abc")));
/// assert_eq!(w.push(b'd'), Some(fp.fingerprint(b"bcd")));
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Clone)]
pub struct RabinWindow {
    /// `table[j] = j(x) · x^64 mod P`.
    table: [u64; 256],
    /// `out[o] = o(x) · x^(8w) · x^64 mod P`.
    out: [u64; 256],
    /// Low coefficients of `P`.
    poly: u64,
    /// Window length in bytes (at least 1).
    width: usize,
    /// The last `min(pushed, width)` bytes; a ring once full, grown on demand so a
    /// huge `width` costs nothing until bytes arrive.
    ring: Vec<u8>,
    /// Position of the oldest byte in `ring` once full.
    head: usize,
    /// Fingerprint of the bytes in the window.
    fp: u64,
}

impl fmt::Debug for RabinWindow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RabinWindow")
            .field("poly", &format_args!("{:#018x}", self.poly))
            .field("width", &self.width)
            .field("filled", &self.ring.len())
            .field("fingerprint", &self.fingerprint())
            .finish_non_exhaustive()
    }
}

impl RabinWindow {
    /// A rolling window of `width` bytes over the fingerprinter's polynomial.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] (parameter `width`) if `width` is 0.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::shingle::rabin::{RabinFingerprinter, RabinWindow};
    /// let fp = RabinFingerprinter::default();
    /// assert!(RabinWindow::new(&fp, 0).is_err());
    /// assert_eq!(RabinWindow::new(&fp, 8)?.width(), 8);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn new(fingerprinter: &RabinFingerprinter, width: usize) -> Result<Self, Error> {
        if width == 0 {
            return Err(Error::invalid_parameter("width", "must be at least 1"));
        }
        let shift = fingerprinter.x_pow_8n(width);
        let poly = fingerprinter.poly;
        let mut out = [0u64; 256];
        for (o, slot) in out.iter_mut().enumerate() {
            // fingerprint([o]) = table[o]; times x^(8w).
            *slot = mul_mod(fingerprinter.table[o], shift, poly);
        }
        Ok(RabinWindow {
            table: fingerprinter.table,
            out,
            poly,
            width,
            ring: Vec::with_capacity(width.min(4096)),
            head: 0,
            fp: 0,
        })
    }

    /// The window length in bytes.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::shingle::rabin::{RabinFingerprinter, RabinWindow};
    /// let w = RabinWindow::new(&RabinFingerprinter::default(), 5)?;
    /// assert_eq!(w.width(), 5);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn width(&self) -> usize {
        self.width
    }

    /// Pushes one byte; returns the fingerprint of the last `width` bytes once at
    /// least `width` bytes have been pushed since construction or [`reset`](Self::reset),
    /// `None` before.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::shingle::rabin::{RabinFingerprinter, RabinWindow};
    /// let fp = RabinFingerprinter::default();
    /// let mut w = RabinWindow::new(&fp, 2)?;
    /// assert_eq!(w.push(b'x'), None);
    /// assert_eq!(w.push(b'y'), Some(fp.fingerprint(b"xy")));
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[inline]
    pub fn push(&mut self, byte: u8) -> Option<u64> {
        let s = (self.fp << 8) ^ self.table[usize::from(self.fp.to_be_bytes()[0] ^ byte)];
        if self.ring.len() < self.width {
            self.ring.push(byte);
            self.fp = s;
            return (self.ring.len() == self.width).then_some(s);
        }
        // Full: `head < width == ring.len()` always holds here.
        let slot = self.ring.get_mut(self.head)?;
        let old = std::mem::replace(slot, byte);
        self.head += 1;
        if self.head == self.width {
            self.head = 0;
        }
        self.fp = s ^ self.out[usize::from(old)];
        Some(self.fp)
    }

    /// Pushes every byte of `bytes`, calling `emit` with each full-window fingerprint.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::shingle::rabin::{RabinFingerprinter, RabinWindow};
    /// let fp = RabinFingerprinter::default();
    /// let mut w = RabinWindow::new(&fp, 3)?;
    /// let mut all = Vec::new();
    /// w.push_all(b"abcd", |h| all.push(h));
    /// assert_eq!(all, vec![fp.fingerprint(b"abc"), fp.fingerprint(b"bcd")]);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn push_all<F: FnMut(u64)>(&mut self, bytes: &[u8], mut emit: F) {
        for &b in bytes {
            if let Some(h) = self.push(b) {
                emit(h);
            }
        }
    }

    /// The fingerprint of the current window, `None` while fewer than `width` bytes
    /// have been pushed.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::shingle::rabin::{RabinFingerprinter, RabinWindow};
    /// let fp = RabinFingerprinter::default();
    /// let mut w = RabinWindow::new(&fp, 1)?;
    /// assert_eq!(w.fingerprint(), None);
    /// w.push(b'z');
    /// assert_eq!(w.fingerprint(), Some(fp.fingerprint(b"z")));
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn fingerprint(&self) -> Option<u64> {
        (self.ring.len() == self.width).then_some(self.fp)
    }

    /// Empties the window (keeps the tables and the ring's allocation).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::shingle::rabin::{RabinFingerprinter, RabinWindow};
    /// let fp = RabinFingerprinter::default();
    /// let mut w = RabinWindow::new(&fp, 1)?;
    /// w.push(b'a');
    /// w.reset();
    /// assert_eq!(w.fingerprint(), None);
    /// assert_eq!(w.push(b'b'), Some(fp.fingerprint(b"b")));
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn reset(&mut self) {
        self.ring.clear();
        self.head = 0;
        self.fp = 0;
    }
}
