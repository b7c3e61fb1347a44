//! [`ReadOptions`]: field names, HTML handling, the size limit and the error policy.

/// What to do when a line or file is rejected.
///
/// # Example
///
/// ```
/// use near_dup::corpus::{ErrorPolicy, ReadOptions};
/// assert_eq!(ReadOptions::default().errors, ErrorPolicy::Skip);
/// let strict = ReadOptions::default().with_errors(ErrorPolicy::Stop);
/// assert_eq!(strict.errors, ErrorPolicy::Stop);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ErrorPolicy {
    /// Collect a [`Problem`](super::Problem) and go on with the next line or file
    /// (the default).
    #[default]
    Skip,
    /// Return [`Error::Input`](crate::Error::Input) at the first problem.
    Stop,
}

/// When the folder reader converts a file from HTML to text with
/// [`ndd_shingle::html::html_to_text`].
///
/// # Example
///
/// ```
/// use near_dup::corpus::{HtmlMode, ReadOptions};
/// assert_eq!(ReadOptions::default().html, HtmlMode::Auto);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum HtmlMode {
    /// Files named `*.html` or `*.htm` (any case), and files whose text
    /// [`looks_like_html`](ndd_shingle::html::looks_like_html) (the default).
    #[default]
    Auto,
    /// Every file.
    Always,
    /// No file: markup stays in the text.
    Never,
}

/// How the bytes of folder files and JSONL lines become text.
///
/// Whatever the choice, a byte order mark decides first: a UTF-8 one is dropped, and a
/// folder file that starts with a UTF-16 one (`FF FE` little-endian, `FE FF`
/// big-endian) is decoded from UTF-16 (counted in [`ReadStats::utf16_decoded`]).
/// Bytes that are not UTF-8 are never guessed at silently: by default they are an
/// [`Encoding`](crate::ProblemKind::Encoding) problem; the other choices decode them,
/// and [`ReadStats::legacy_decoded`] counts the files and lines that held any byte
/// outside ASCII and were decoded so.
///
/// [`ReadStats::utf16_decoded`]: crate::ReadStats::utf16_decoded
/// [`ReadStats::legacy_decoded`]: crate::ReadStats::legacy_decoded
///
/// # Example
///
/// ```
/// use near_dup::corpus::{JsonlReader, ReadOptions, TextEncoding};
/// let line = b"{\"text\": \"caf\xe9\"}\n"; // Latin-1
/// let strict = ReadOptions::default();
/// assert!(JsonlReader::new(&line[..], "in", &strict).next().unwrap().is_err());
/// let auto = ReadOptions::default().with_encoding(TextEncoding::Auto);
/// let doc = JsonlReader::new(&line[..], "in", &auto).next().unwrap()?;
/// assert_eq!(doc.text, "café");
/// # Ok::<(), near_dup::corpus::Problem>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TextEncoding {
    /// UTF-8 only (the default): other bytes are an
    /// [`Encoding`](crate::ProblemKind::Encoding) problem.
    #[default]
    Utf8,
    /// UTF-8 where the bytes are valid UTF-8, Windows-1252 (the WHATWG superset of
    /// Latin-1 that web browsers use for it) where they are not, decided per file or
    /// line.
    Auto,
    /// Every file and line is Windows-1252, valid UTF-8 or not.
    Windows1252,
    /// Every file and line is ISO-8859-1 (Latin-1): byte `b` is the character
    /// `U+00bb`, so bytes `80`-`9F` are C1 control characters (where Windows-1252 has
    /// `€`, quotes and dashes).
    Latin1,
}

impl TextEncoding {
    /// The name the tool's `--encoding` gives it.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(near_dup::corpus::TextEncoding::Windows1252.name(), "windows-1252");
    /// ```
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            TextEncoding::Utf8 => "utf-8",
            TextEncoding::Auto => "auto",
            TextEncoding::Windows1252 => "windows-1252",
            TextEncoding::Latin1 => "latin-1",
        }
    }
}

/// The default of [`ReadOptions::max_document_bytes`]: 64 MiB.
///
/// # Example
///
/// ```
/// use near_dup::corpus::{DEFAULT_MAX_DOCUMENT_BYTES, ReadOptions};
/// assert_eq!(ReadOptions::default().max_document_bytes, DEFAULT_MAX_DOCUMENT_BYTES);
/// assert_eq!(DEFAULT_MAX_DOCUMENT_BYTES, 64 << 20);
/// ```
pub const DEFAULT_MAX_DOCUMENT_BYTES: u64 = 64 << 20;

/// How a corpus is read: JSONL field names, HTML conversion of folder files, the
/// largest document accepted and what to do with rejected lines and files.
///
/// Fields are public; the `with_*` methods chain.
///
/// # Example
///
/// ```
/// use near_dup::corpus::{ErrorPolicy, HtmlMode, ReadOptions};
/// let opts = ReadOptions::default()
///     .with_text_field("body")
///     .with_id_field("doc_id")
///     .with_order_field("published")
///     .with_html(HtmlMode::Never)
///     .with_max_document_bytes(1 << 20)
///     .with_errors(ErrorPolicy::Stop);
/// assert_eq!(opts.text_field, "body");
/// assert_eq!(opts.order_field.as_deref(), Some("published"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ReadOptions {
    /// The JSONL field holding the id (default `"id"`): a string, or a number kept in
    /// its JSON spelling. A record without it (or with `null`) gets its line number.
    ///
    /// Every field name may be a JSON pointer (RFC 6901): a name that starts with `/`
    /// names a nested value, `/meta/id` the `id` member of the `meta` object,
    /// `/ids/0` the first element of the array `ids` (`~1` stands for `/` and `~0`
    /// for `~` in a member's name). A name without a leading `/` is a top-level
    /// member, as it is spelled.
    pub id_field: String,
    /// Whether the id field must be found: if set (as
    /// [`with_id_field`](Self::with_id_field) does) and no record read has it, reading
    /// fails with [`Error::FieldNotFound`](crate::Error::FieldNotFound) rather than
    /// numbering every document by its line (a misspelt field name). Default `false`:
    /// a corpus without ids is numbered.
    pub id_required: bool,
    /// The JSONL field holding the text (default `"text"`): a string.
    pub text_field: String,
    /// The JSONL field holding the order key, if any (default none): a number or a
    /// string, see [`OrderKey`](crate::OrderKey). A record without it (or with `null`)
    /// has no order key; if no record read has it, reading fails with
    /// [`Error::FieldNotFound`](crate::Error::FieldNotFound).
    pub order_field: Option<String>,
    /// JSONL fields read into [`Document::attributes`](crate::Document::attributes)
    /// (default none): each a string, or a number kept in its JSON spelling; a record
    /// without one (or with `null`) lacks that attribute
    /// ([`FieldCounts::missing`](crate::FieldCounts::missing) says how many).
    pub attribute_fields: Vec<String>,
    /// How bytes become text (default [`TextEncoding::Utf8`]).
    pub encoding: TextEncoding,
    /// HTML conversion of folder files (default [`HtmlMode::Auto`]). JSONL text is never
    /// converted.
    pub html: HtmlMode,
    /// The largest JSONL line or folder file accepted, in bytes as stored (a JSONL
    /// line counts its JSON syntax and escapes; a gzip-compressed file counts its
    /// decompressed lines). Larger ones are reported as problems after reading at most
    /// this many bytes of them into memory. Default [`DEFAULT_MAX_DOCUMENT_BYTES`].
    pub max_document_bytes: u64,
    /// Whether folder walking includes files and folders whose name starts with `.`
    /// (default `false`: `.git`, `.DS_Store` and the like are not documents). The
    /// input folder itself is always read, whatever its name.
    pub hidden: bool,
    /// Whether folder walking follows symbolic links to files and folders outside the
    /// input folder (default `false`: such a link is an
    /// [`Unreadable`](crate::ProblemKind::Unreadable) problem and is not read, so a link
    /// planted in a corpus cannot bring a system file into the kept output). Links
    /// within the input folder are always followed.
    pub follow_links_out: bool,
    /// What to do with a rejected line or file (default [`ErrorPolicy::Skip`]).
    pub errors: ErrorPolicy,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            id_field: "id".to_owned(),
            id_required: false,
            text_field: "text".to_owned(),
            order_field: None,
            attribute_fields: Vec::new(),
            encoding: TextEncoding::Utf8,
            html: HtmlMode::Auto,
            max_document_bytes: DEFAULT_MAX_DOCUMENT_BYTES,
            hidden: false,
            follow_links_out: false,
            errors: ErrorPolicy::Skip,
        }
    }
}

impl ReadOptions {
    /// Sets [`id_field`](Self::id_field), and [`id_required`](Self::id_required): a
    /// field named is a field expected.
    ///
    /// # Example
    ///
    /// ```
    /// let o = near_dup::corpus::ReadOptions::default().with_id_field("url");
    /// assert_eq!(o.id_field, "url");
    /// assert!(o.id_required);
    /// ```
    #[must_use]
    pub fn with_id_field(mut self, name: impl Into<String>) -> Self {
        self.id_field = name.into();
        self.id_required = true;
        self
    }

    /// Sets [`id_required`](Self::id_required) (after
    /// [`with_id_field`](Self::with_id_field), to keep a named id field optional).
    ///
    /// # Example
    ///
    /// ```
    /// let o = near_dup::corpus::ReadOptions::default().with_id_field("url").with_id_required(false);
    /// assert!(!o.id_required);
    /// ```
    #[must_use]
    pub fn with_id_required(mut self, required: bool) -> Self {
        self.id_required = required;
        self
    }

    /// Sets [`encoding`](Self::encoding).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::corpus::{ReadOptions, TextEncoding};
    /// let o = ReadOptions::default().with_encoding(TextEncoding::Latin1);
    /// assert_eq!(o.encoding, TextEncoding::Latin1);
    /// ```
    #[must_use]
    pub fn with_encoding(mut self, encoding: TextEncoding) -> Self {
        self.encoding = encoding;
        self
    }

    /// Sets [`text_field`](Self::text_field).
    ///
    /// # Example
    ///
    /// ```
    /// let o = near_dup::corpus::ReadOptions::default().with_text_field("body");
    /// assert_eq!(o.text_field, "body");
    /// ```
    #[must_use]
    pub fn with_text_field(mut self, name: impl Into<String>) -> Self {
        self.text_field = name.into();
        self
    }

    /// Sets [`attribute_fields`](Self::attribute_fields).
    ///
    /// # Example
    ///
    /// ```
    /// let o = near_dup::corpus::ReadOptions::default().with_attribute_fields(["docket", "relay"]);
    /// assert_eq!(o.attribute_fields, ["docket", "relay"]);
    /// ```
    #[must_use]
    pub fn with_attribute_fields<S: Into<String>>(
        mut self,
        names: impl IntoIterator<Item = S>,
    ) -> Self {
        self.attribute_fields = names.into_iter().map(Into::into).collect();
        self
    }

    /// Sets [`order_field`](Self::order_field).
    ///
    /// # Example
    ///
    /// ```
    /// let o = near_dup::corpus::ReadOptions::default().with_order_field("date");
    /// assert_eq!(o.order_field.as_deref(), Some("date"));
    /// ```
    #[must_use]
    pub fn with_order_field(mut self, name: impl Into<String>) -> Self {
        self.order_field = Some(name.into());
        self
    }

    /// Sets [`html`](Self::html).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::corpus::{HtmlMode, ReadOptions};
    /// assert_eq!(ReadOptions::default().with_html(HtmlMode::Always).html, HtmlMode::Always);
    /// ```
    #[must_use]
    pub fn with_html(mut self, mode: HtmlMode) -> Self {
        self.html = mode;
        self
    }

    /// Sets [`max_document_bytes`](Self::max_document_bytes).
    ///
    /// # Example
    ///
    /// ```
    /// let o = near_dup::corpus::ReadOptions::default().with_max_document_bytes(4096);
    /// assert_eq!(o.max_document_bytes, 4096);
    /// ```
    #[must_use]
    pub fn with_max_document_bytes(mut self, bytes: u64) -> Self {
        self.max_document_bytes = bytes;
        self
    }

    /// Sets [`follow_links_out`](Self::follow_links_out).
    ///
    /// # Example
    ///
    /// ```
    /// let o = near_dup::corpus::ReadOptions::default().with_follow_links_out(true);
    /// assert!(o.follow_links_out);
    /// ```
    #[must_use]
    pub fn with_follow_links_out(mut self, on: bool) -> Self {
        self.follow_links_out = on;
        self
    }

    /// Sets [`hidden`](Self::hidden).
    ///
    /// # Example
    ///
    /// ```
    /// assert!(near_dup::corpus::ReadOptions::default().with_hidden(true).hidden);
    /// ```
    #[must_use]
    pub fn with_hidden(mut self, hidden: bool) -> Self {
        self.hidden = hidden;
        self
    }

    /// Sets [`errors`](Self::errors).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::corpus::{ErrorPolicy, ReadOptions};
    /// assert_eq!(ReadOptions::default().with_errors(ErrorPolicy::Stop).errors, ErrorPolicy::Stop);
    /// ```
    #[must_use]
    pub fn with_errors(mut self, policy: ErrorPolicy) -> Self {
        self.errors = policy;
        self
    }
}
