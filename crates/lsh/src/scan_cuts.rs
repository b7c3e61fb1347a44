//! [`ScanCuts`]: the one bucket-scan rule of every engine (which members of a bucket a
//! bounded read reads) and the count of the reads the bound cut.

/// How often the bound of [`LshIndex::set_max_bucket_scan`] cut a bucket read of
/// [`LshIndex::query_then_insert`] since the index was made: counted as the walks stop
/// (two additions per cut read, nothing per candidate). A read is cut when the bucket
/// held more earlier members than the bound, so that the oldest of them were not read
/// (their pairs with the new document are not reported, unless another band meets
/// them). Plain queries ([`query_into`](crate::LshIndex::query_into)) do not count.
///
/// [`LshIndex::set_max_bucket_scan`]: crate::LshIndex::set_max_bucket_scan
/// [`LshIndex::query_then_insert`]: crate::LshIndex::query_then_insert
///
/// # Example
///
/// ```
/// use near_dup::SchemeId;
/// use near_dup::lsh::{LshIndex, LshParams, PlainSlots, ScanCuts};
/// let s = PlainSlots::new(SchemeId::new("d").finish(), vec![1, 2, 3, 4])?;
/// let mut index = LshIndex::new(LshParams::new(2, 2)?);
/// index.set_max_bucket_scan(Some(3));
/// let mut found = Vec::new();
/// for i in 0..6 {
///     index.query_then_insert(i, &s, &mut found)?;
/// }
/// // Documents 4 and 5 met 4 and 5 earlier members in each of the 2 bands, read 3.
/// assert_eq!(index.scan_cuts(), ScanCuts { reads: 4, documents: 2 });
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ScanCuts {
    /// Bucket reads cut: one per document and band whose bucket held more earlier
    /// members than the bound.
    pub reads: u64,
    /// Documents with at least one cut read.
    pub documents: u64,
}

impl ScanCuts {
    /// The one bucket-scan rule of every engine: a read of a bucket that holds
    /// `members_before` members before the reading document is cut by the bound
    /// `scan` (its oldest members are not read) when they are more than `scan`. The
    /// walk of [`LshIndex::query_then_insert`] counts its cuts by it, and the
    /// out-of-core shuffle of `ndd-pipeline`, which reads buckets from sorted files.
    ///
    /// [`LshIndex::query_then_insert`]: crate::LshIndex::query_then_insert
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::lsh::ScanCuts;
    /// assert!(!ScanCuts::cuts(3, 3)); // three earlier members, three read
    /// assert!(ScanCuts::cuts(4, 3)); // the oldest of four is not read
    /// assert!(!ScanCuts::cuts(4, usize::MAX)); // no bound
    /// ```
    #[must_use]
    pub fn cuts(members_before: usize, scan: usize) -> bool {
        members_before > scan
    }

    /// The members a read bounded by `scan` reads of the `members_before` members of a
    /// bucket before the reading document, numbered from the bucket's oldest (0): the
    /// newest `scan` of them. The read is cut ([`cuts`](Self::cuts)) exactly when the
    /// range does not start at 0. The sorted band join of the in-memory engine pairs a
    /// document with these members, as the out-of-core shuffle of `ndd-pipeline` and the
    /// walk of [`LshIndex::query_then_insert`] (newest first) do.
    ///
    /// [`LshIndex::query_then_insert`]: crate::LshIndex::query_then_insert
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::lsh::ScanCuts;
    /// assert_eq!(ScanCuts::read_range(3, 3), 0..3); // all three read
    /// assert_eq!(ScanCuts::read_range(5, 3), 2..5); // the oldest two are not
    /// assert_eq!(ScanCuts::read_range(5, usize::MAX), 0..5); // no bound
    /// assert!(ScanCuts::cuts(5, 3) && !ScanCuts::cuts(3, 3));
    /// ```
    #[must_use]
    pub fn read_range(members_before: usize, scan: usize) -> std::ops::Range<usize> {
        members_before.saturating_sub(scan)..members_before
    }

    /// Whether the bound cut any read.
    ///
    /// # Example
    ///
    /// ```
    /// assert!(!near_dup::lsh::ScanCuts::default().any());
    /// ```
    #[must_use]
    pub fn any(&self) -> bool {
        self.reads > 0
    }

    /// The cuts counted since `earlier`, a value of the same index taken before (a
    /// batch's share of an index that lives across batches).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::lsh::ScanCuts;
    /// let before = ScanCuts { reads: 3, documents: 1 };
    /// let after = ScanCuts { reads: 10, documents: 4 };
    /// assert_eq!(after.since(before), ScanCuts { reads: 7, documents: 3 });
    /// ```
    #[must_use]
    pub fn since(self, earlier: ScanCuts) -> ScanCuts {
        ScanCuts {
            reads: self.reads.saturating_sub(earlier.reads),
            documents: self.documents.saturating_sub(earlier.documents),
        }
    }
}
