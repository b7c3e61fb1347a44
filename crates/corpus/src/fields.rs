//! [`FieldCounts`]: how many JSONL records had each field the options name, to tell a
//! misspelt field from a field some records lack.

use super::options::ReadOptions;
use crate::{Document, Error};

/// What a JSONL field named in [`ReadOptions`] is for.
///
/// # Example
///
/// ```
/// assert_eq!(near_dup::corpus::FieldRole::Order.to_string(), "the order field");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum FieldRole {
    /// [`ReadOptions::id_field`].
    Id,
    /// [`ReadOptions::order_field`].
    Order,
    /// One of [`ReadOptions::attribute_fields`].
    Attribute,
}

impl std::fmt::Display for FieldRole {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            FieldRole::Id => "the id field",
            FieldRole::Order => "the order field",
            FieldRole::Attribute => "an attribute field",
        })
    }
}

/// How many of the JSONL records read into documents had each optional field the
/// options name (a value other than `null`). The text field is not counted: a record
/// without it is rejected.
///
/// # Example
///
/// ```
/// use near_dup::corpus::{read_jsonl_with_progress, FieldRole, JsonlReader, ReadOptions};
/// let input: &[u8] = b"{\"text\": \"a\", \"date\": 3}\n{\"text\": \"b\"}\n";
/// let opts = ReadOptions::default().with_order_field("date");
/// let corpus = read_jsonl_with_progress(JsonlReader::new(input, "in", &opts), |_| {})?;
/// let counts = corpus.fields.as_ref().unwrap();
/// assert_eq!((counts.records, counts.order), (2, 1));
/// let missing = counts.missing(&opts);
/// assert_eq!((missing[0].field.as_str(), missing[0].role, missing[0].without), ("date", FieldRole::Order, 1));
/// # Ok::<(), near_dup::corpus::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct FieldCounts {
    /// Records read into documents (duplicates of an earlier id included).
    pub records: u64,
    /// Records with the id field.
    pub id: u64,
    /// Records with the order field.
    pub order: u64,
    /// Records with each attribute field, in the order of
    /// [`ReadOptions::attribute_fields`].
    pub attributes: Vec<u64>,
}

/// A field the options name that some records read lack (see
/// [`FieldCounts::missing`]).
///
/// # Example
///
/// ```
/// let counts = near_dup::corpus::FieldCounts::default();
/// assert!(counts.missing(&near_dup::corpus::ReadOptions::default()).is_empty());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct MissingField {
    /// The field's name as the options give it.
    pub field: String,
    /// What it is for.
    pub role: FieldRole,
    /// Records without it.
    pub without: u64,
    /// Records read.
    pub records: u64,
}

impl FieldCounts {
    /// Counts one record read into `doc`; `has_id`: whether it had its id field.
    pub(super) fn count(&mut self, doc: &Document, has_id: bool, options: &ReadOptions) {
        self.records += 1;
        self.id += u64::from(has_id);
        self.order += u64::from(doc.order.is_some());
        if self.attributes.len() < options.attribute_fields.len() {
            self.attributes.resize(options.attribute_fields.len(), 0);
        }
        for (name, _) in &doc.attributes {
            if let Some(i) = options
                .attribute_fields
                .iter()
                .position(|f| f.as_str() == &**name)
            {
                self.attributes[i] += 1;
            }
        }
    }

    /// Every optional field `options` name with how many records lack it, for those
    /// some records lack: the id field only if some record has it or
    /// [`ReadOptions::id_required`] is set (a corpus without ids is numbered), the
    /// order field and attribute fields if set.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::corpus::{FieldCounts, ReadOptions};
    /// let mut counts = FieldCounts::default();
    /// counts.records = 10;
    /// counts.id = 10;
    /// assert!(counts.missing(&ReadOptions::default()).is_empty());
    /// counts.id = 0; // numbered by line, as documented
    /// assert!(counts.missing(&ReadOptions::default()).is_empty());
    /// assert_eq!(counts.missing(&ReadOptions::default().with_id_field("url"))[0].without, 10);
    /// ```
    #[must_use]
    pub fn missing(&self, options: &ReadOptions) -> Vec<MissingField> {
        let mut out = Vec::new();
        let mut check = |field: &str, role, have: u64| {
            if have < self.records {
                out.push(MissingField {
                    field: field.to_owned(),
                    role,
                    without: self.records - have,
                    records: self.records,
                });
            }
        };
        if options.id_required || self.id > 0 {
            check(&options.id_field, FieldRole::Id, self.id);
        }
        if let Some(order) = &options.order_field {
            check(order, FieldRole::Order, self.order);
        }
        for (i, name) in options.attribute_fields.iter().enumerate() {
            check(
                name,
                FieldRole::Attribute,
                self.attributes.get(i).copied().unwrap_or(0),
            );
        }
        out
    }

    /// [`Error::FieldNotFound`] for the first field that the options name and expect
    /// (the id field when [`ReadOptions::id_required`], the order field) that no
    /// record read has; `Ok` otherwise, or when no record was read. Attribute fields
    /// are the caller's to judge (an optional one may be absent everywhere): see
    /// [`missing`](Self::missing).
    ///
    /// # Errors
    ///
    /// [`Error::FieldNotFound`], as above.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::corpus::{Error, FieldCounts, ReadOptions};
    /// let mut counts = FieldCounts::default();
    /// counts.records = 3;
    /// let opts = ReadOptions::default().with_order_field("dat");
    /// match counts.check(&opts) {
    ///     Err(Error::FieldNotFound { field, records, .. }) => assert_eq!((field.as_str(), records), ("dat", 3)),
    ///     other => panic!("{other:?}"),
    /// }
    /// ```
    pub fn check(&self, options: &ReadOptions) -> Result<(), Error> {
        match self
            .missing(options)
            .into_iter()
            .find(|m| m.records > 0 && m.without == m.records && m.role != FieldRole::Attribute)
        {
            Some(m) => Err(Error::FieldNotFound {
                field: m.field,
                role: m.role,
                records: m.records,
            }),
            None => Ok(()),
        }
    }
}
