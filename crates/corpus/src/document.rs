//! [`Document`]: what every stage reads, and [`OrderKey`], the user's order of them.

use std::cmp::Ordering;
use std::sync::Arc;

/// One document of a corpus: the user's id, its text, and optionally a value that
/// orders documents (a timestamp or sequence number) for the
/// `Representative::Order` policy of `ndd-pipeline` and for picking reference
/// copies.
///
/// # Example
///
/// ```
/// use near_dup::corpus::{Document, OrderKey};
/// let d = Document::new("letter-17", "Dear Administrator, ...").with_order(OrderKey::Number(1.7e9));
/// assert_eq!(d.id, "letter-17");
/// assert!(d.order.is_some());
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Document {
    /// The user's id (a JSONL `id` field, a file's path below the input folder, or the
    /// line number when the record has none). Numbers keep their JSON spelling.
    pub id: String,
    /// The text (HTML already converted to text where the reader did so).
    pub text: String,
    /// The user's order of documents, when given (earliest first).
    pub order: Option<OrderKey>,
    /// Named attribute values (a docket, a relay, a footer), as the reader found them
    /// in the fields [`ReadOptions::attribute_fields`](crate::ReadOptions::attribute_fields)
    /// names; a field missing or `null` is not listed. The constrained grouping
    /// (`ndd-pipeline`'s `GroupMethod::Durian`) reads them.
    pub attributes: Vec<(Arc<str>, String)>,
}

impl Document {
    /// A document without an order key.
    ///
    /// # Example
    ///
    /// ```
    /// let d = near_dup::corpus::Document::new("a", "some text");
    /// assert_eq!(d.text, "some text");
    /// ```
    pub fn new(id: impl Into<String>, text: impl Into<String>) -> Self {
        Document {
            id: id.into(),
            text: text.into(),
            order: None,
            attributes: Vec::new(),
        }
    }

    /// The same document with an order key.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::corpus::{Document, OrderKey};
    /// let d = Document::new("a", "t").with_order(OrderKey::Text("2006-05-01".into()));
    /// assert_eq!(d.order, Some(OrderKey::Text("2006-05-01".into())));
    /// ```
    #[must_use]
    pub fn with_order(mut self, order: OrderKey) -> Self {
        self.order = Some(order);
        self
    }

    /// The same document with attribute `name` set to `value` (replacing an earlier
    /// value of that name).
    ///
    /// # Example
    ///
    /// ```
    /// let d = near_dup::corpus::Document::new("a", "t").with_attribute("docket", "EPA-0056");
    /// assert_eq!(d.attribute("docket"), Some("EPA-0056"));
    /// assert_eq!(d.attribute("relay"), None);
    /// ```
    #[must_use]
    pub fn with_attribute(mut self, name: impl Into<Arc<str>>, value: impl Into<String>) -> Self {
        let name = name.into();
        self.attributes.retain(|(n, _)| *n != name);
        self.attributes.push((name, value.into()));
        self
    }

    /// The value of attribute `name`, if the document has it.
    ///
    /// # Example
    ///
    /// ```
    /// let d = near_dup::corpus::Document::new("a", "t").with_attribute("relay", "r1");
    /// assert_eq!(d.attribute("relay"), Some("r1"));
    /// ```
    #[must_use]
    pub fn attribute(&self, name: &str) -> Option<&str> {
        self.attributes
            .iter()
            .find(|(n, _)| &**n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// A user-supplied value that orders documents: a number (epoch seconds, a sequence
/// number) or a string (an ISO 8601 timestamp sorts correctly as text).
///
/// Numbers order numerically and before every string; strings order by their bytes;
/// NaN is not accepted by readers (it has no place in an order) and sorts after every
/// other number if built by hand.
///
/// # Example
///
/// ```
/// use near_dup::corpus::OrderKey;
/// let mut keys = vec![OrderKey::Text("b".into()), OrderKey::Number(10.0), OrderKey::Number(2.0)];
/// keys.sort();
/// assert_eq!(keys, [OrderKey::Number(2.0), OrderKey::Number(10.0), OrderKey::Text("b".into())]);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub enum OrderKey {
    /// A numeric order value.
    Number(f64),
    /// A textual order value, compared byte-wise.
    Text(String),
}

impl Eq for OrderKey {}

impl PartialOrd for OrderKey {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for OrderKey {
    fn cmp(&self, other: &Self) -> Ordering {
        match (self, other) {
            (OrderKey::Number(a), OrderKey::Number(b)) => a.total_cmp(b),
            (OrderKey::Number(_), OrderKey::Text(_)) => Ordering::Less,
            (OrderKey::Text(_), OrderKey::Number(_)) => Ordering::Greater,
            (OrderKey::Text(a), OrderKey::Text(b)) => a.cmp(b),
        }
    }
}
