//! One JSONL line to a [`Document`]: a typed parse that looks only at the configured
//! fields (borrowing the text when it has no escapes, skipping every other field
//! without building it) and schema errors named in the user's terms.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;

use super::ProblemKind;
use super::options::ReadOptions;
use crate::{Document, OrderKey};

/// A field value, reduced to what the reader needs.
enum Scalar<'a> {
    Str(Cow<'a, str>),
    Num(f64),
    Null,
    /// Any other JSON type, named for the message ("a boolean", "an array", …).
    Other(&'static str),
}

impl Scalar<'_> {
    fn type_name(&self) -> &'static str {
        match self {
            Scalar::Str(_) => "a string",
            Scalar::Num(_) => "a number",
            Scalar::Null => "null",
            Scalar::Other(t) => t,
        }
    }
}

struct ScalarVisitor;

impl<'de> Visitor<'de> for ScalarVisitor {
    type Value = Scalar<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Scalar::Str(Cow::Borrowed(v)))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Scalar::Str(Cow::Owned(v.to_owned())))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        Ok(Scalar::Str(Cow::Owned(v)))
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
        Ok(Scalar::Other("a boolean"))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        Ok(Scalar::Num(v as f64))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        Ok(Scalar::Num(v as f64))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
        Ok(Scalar::Num(v))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Scalar::Null)
    }
    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Scalar::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Scalar::Other("an array"))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Scalar::Other("an object"))
    }
}

impl<'de> de::Deserialize<'de> for Scalar<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ScalarVisitor)
    }
}

/// Which configured field a key is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    Text,
    Id,
    Order,
    /// The i-th of [`ReadOptions::attribute_fields`].
    Attribute(usize),
    Other,
}

struct KeySeed<'o>(&'o ReadOptions);

impl<'de> DeserializeSeed<'de> for KeySeed<'_> {
    type Value = Role;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Role, D::Error> {
        d.deserialize_str(self)
    }
}

impl Visitor<'_> for KeySeed<'_> {
    type Value = Role;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a field name")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Role, E> {
        Ok(if v == self.0.text_field {
            Role::Text
        } else if v == self.0.id_field {
            Role::Id
        } else if self.0.order_field.as_deref() == Some(v) {
            Role::Order
        } else if let Some(i) = self.0.attribute_fields.iter().position(|f| f == v) {
            Role::Attribute(i)
        } else {
            Role::Other
        })
    }
}

/// The configured fields of one line, before the schema checks.
#[derive(Default)]
struct Fields<'a> {
    text: Option<Scalar<'a>>,
    id: Option<&'a RawValue>,
    order: Option<Scalar<'a>>,
    /// Attribute values by field index (raw JSON).
    attributes: Vec<(usize, &'a RawValue)>,
    /// The first configured field that appeared twice.
    repeated: Option<Role>,
}

enum Line<'a> {
    Object(Fields<'a>),
    /// Every top-level member (when a field is a JSON pointer), to look fields up in.
    Members(Members<'a>),
    NotObject(&'static str),
}

/// The members of a JSON object in order, values unparsed.
type Members<'a> = Vec<(Cow<'a, str>, &'a RawValue)>;

/// A line's parse: the configured fields picked out as the line is scanned, or
/// (`members`) every top-level member kept for JSON pointers to look into.
struct LineSeed<'o> {
    opts: &'o ReadOptions,
    members: bool,
}

impl<'de> DeserializeSeed<'de> for LineSeed<'_> {
    type Value = Line<'de>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Line<'de>, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for LineSeed<'_> {
    type Value = Line<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Line<'de>, A::Error> {
        if self.members {
            return members(map).map(Line::Members);
        }
        let mut fields = Fields::default();
        while let Some(role) = map.next_key_seed(KeySeed(self.opts))? {
            let seen = match role {
                Role::Text => fields.text.replace(map.next_value()?).is_some(),
                Role::Id => fields.id.replace(map.next_value()?).is_some(),
                Role::Order => fields.order.replace(map.next_value()?).is_some(),
                Role::Attribute(i) => {
                    let seen = fields.attributes.iter().any(|&(j, _)| j == i);
                    fields.attributes.push((i, map.next_value()?));
                    seen
                }
                Role::Other => {
                    map.next_value::<IgnoredAny>()?;
                    false
                }
            };
            if seen && fields.repeated.is_none() {
                fields.repeated = Some(role);
            }
        }
        Ok(Line::Object(fields))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Line<'de>, A::Error> {
        ScalarVisitor
            .visit_seq(seq)
            .map(|s| Line::NotObject(s.type_name()))
    }
    fn visit_borrowed_str<E: de::Error>(self, _: &'de str) -> Result<Line<'de>, E> {
        Ok(Line::NotObject("a string"))
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<Line<'de>, E> {
        Ok(Line::NotObject("a string"))
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Line<'de>, E> {
        Ok(Line::NotObject("a boolean"))
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Line<'de>, E> {
        Ok(Line::NotObject("a number"))
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Line<'de>, E> {
        Ok(Line::NotObject("a number"))
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Line<'de>, E> {
        Ok(Line::NotObject("a number"))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Line<'de>, E> {
        Ok(Line::NotObject("null"))
    }
}

/// Every member of a JSON object, values unparsed.
fn members<'de, A: MapAccess<'de>>(mut map: A) -> Result<Members<'de>, A::Error> {
    let mut out = Vec::new();
    while let Some(key) = map.next_key::<Scalar<'de>>()? {
        let Scalar::Str(key) = key else {
            return Err(de::Error::custom("a member name that is not a string"));
        };
        out.push((key, map.next_value()?));
    }
    Ok(out)
}

/// A JSON object's members, as a value to parse nested objects into.
struct Object<'a>(Members<'a>);

impl<'de> de::Deserialize<'de> for Object<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Object<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Object<'de>, A::Error> {
                members(map).map(Object)
            }
        }
        d.deserialize_map(V)
    }
}

/// Whether a field name is a JSON pointer (RFC 6901): it starts with `/`.
fn is_pointer(name: &str) -> bool {
    name.starts_with('/')
}

/// The value `name` names among `top` (a top-level member, or a JSON pointer into
/// nested objects and arrays): `Ok(None)` where there is none, `Err(())` where a
/// member on the way appears more than once.
fn look_up<'a>(
    top: &[(Cow<'a, str>, &'a RawValue)],
    name: &str,
) -> Result<Option<&'a RawValue>, ()> {
    let one = |members: &[(Cow<'a, str>, &'a RawValue)], key: &str| {
        let mut found = members.iter().filter(|(k, _)| k == key).map(|&(_, v)| v);
        match (found.next(), found.next()) {
            (first, None) => Ok(first),
            _ => Err(()),
        }
    };
    let Some(pointer) = name.strip_prefix('/') else {
        return one(top, name);
    };
    // RFC 6901: `~1` is `/`, then `~0` is `~` (so `~01` is `~1`).
    let mut tokens = pointer
        .split('/')
        .map(|t| t.replace("~1", "/").replace("~0", "~"));
    let first = tokens.next().unwrap_or_default();
    let Some(mut value) = one(top, &first)? else {
        return Ok(None);
    };
    for token in tokens {
        let raw: &'a str = value.get();
        let next = match raw.as_bytes().first() {
            Some(b'{') => match serde_json::from_str::<Object<'a>>(raw) {
                Ok(Object(members)) => one(&members, &token)?,
                Err(_) => None,
            },
            Some(b'[') => {
                // RFC 6901 array indexes: digits, no leading zero.
                let index = (token == "0" || !token.starts_with('0'))
                    .then(|| token.parse::<usize>().ok())
                    .flatten()
                    .filter(|_| token.bytes().all(|b| b.is_ascii_digit()));
                match (index, serde_json::from_str::<Vec<&'a RawValue>>(raw)) {
                    (Some(i), Ok(items)) => items.get(i).copied(),
                    _ => None,
                }
            }
            _ => None,
        };
        match next {
            Some(v) => value = v,
            None => return Ok(None),
        }
    }
    Ok(Some(value))
}

/// The configured fields among a line's members, looked up by name or JSON pointer.
fn fields_of<'a>(top: &[(Cow<'a, str>, &'a RawValue)], opts: &ReadOptions) -> Fields<'a> {
    let mut fields = Fields::default();
    let mut find = |name: &str, role: Role| match look_up(top, name) {
        Ok(v) => v,
        Err(()) => {
            fields.repeated.get_or_insert(role);
            None
        }
    };
    let scalar = |raw: &'a RawValue| {
        <Scalar<'a> as de::Deserialize<'a>>::deserialize(&mut serde_json::Deserializer::from_str(
            raw.get(),
        ))
        .unwrap_or(Scalar::Other("unreadable"))
    };
    let text = find(&opts.text_field, Role::Text).map(scalar);
    let id = find(&opts.id_field, Role::Id);
    let order = opts
        .order_field
        .as_deref()
        .and_then(|name| find(name, Role::Order))
        .map(scalar);
    let attributes = opts
        .attribute_fields
        .iter()
        .enumerate()
        .filter_map(|(i, name)| find(name, Role::Attribute(i)).map(|v| (i, v)))
        .collect();
    Fields {
        text,
        id,
        order,
        attributes,
        repeated: fields.repeated,
    }
}

/// The name of a JSON value from its first byte (the value is valid JSON).
fn raw_type_name(raw: &str) -> &'static str {
    match raw.as_bytes().first() {
        Some(b'"') => "a string",
        Some(b'{') => "an object",
        Some(b'[') => "an array",
        Some(b't' | b'f') => "a boolean",
        Some(b'n') => "null",
        _ => "a number",
    }
}

/// `serde_json`'s message without its " at line L column C" suffix.
fn bare_message(e: &serde_json::Error) -> String {
    let full = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    match full.strip_suffix(&suffix) {
        Some(m) => m.to_owned(),
        None => full,
    }
}

/// Parses one non-blank JSONL line into a document, and whether the record has its
/// id field (not `null`); `line_no` is the id of a record without one.
pub(super) fn parse_line(
    line: &str,
    line_no: u64,
    opts: &ReadOptions,
) -> Result<(Document, bool), (ProblemKind, String)> {
    if let Some(flat) = super::flat_record::parse_flat(line, line_no, opts) {
        return Ok(flat);
    }
    parse_line_serde(line, line_no, opts)
}

/// [`parse_line`] through `serde_json` alone: every line the flat-record path does not
/// take.
pub(super) fn parse_line_serde(
    line: &str,
    line_no: u64,
    opts: &ReadOptions,
) -> Result<(Document, bool), (ProblemKind, String)> {
    let mut de = serde_json::Deserializer::from_str(line);
    let pointers = is_pointer(&opts.text_field)
        || is_pointer(&opts.id_field)
        || opts.order_field.as_deref().is_some_and(is_pointer)
        || opts.attribute_fields.iter().any(|f| is_pointer(f));
    let parsed = LineSeed {
        opts,
        members: pointers,
    }
    .deserialize(&mut de)
    .and_then(|v| de.end().map(|()| v));
    let fields = match parsed {
        Ok(Line::Object(fields)) => fields,
        Ok(Line::Members(members)) => fields_of(&members, opts),
        Ok(Line::NotObject(t)) => {
            return Err((
                ProblemKind::MalformedJson,
                format!("the line is {t}, expected a JSON object"),
            ));
        }
        Err(e) => {
            return Err((
                ProblemKind::MalformedJson,
                format!(
                    "malformed JSON at column {}: {}",
                    e.column(),
                    bare_message(&e)
                ),
            ));
        }
    };
    let schema = |m: String| Err((ProblemKind::Schema, m));
    if let Some(role) = fields.repeated {
        let name = match role {
            Role::Text => &opts.text_field,
            Role::Id => &opts.id_field,
            Role::Attribute(i) => &opts.attribute_fields[i],
            _ => opts.order_field.as_deref().unwrap_or_default(),
        };
        return schema(format!("field {name:?} appears more than once"));
    }
    let text = match fields.text {
        Some(Scalar::Str(s)) => s,
        None => {
            return schema(format!(
                "field {:?} (the text field) is missing",
                opts.text_field
            ));
        }
        Some(other) => {
            return schema(format!(
                "field {:?} is {}, expected a string",
                opts.text_field,
                other.type_name()
            ));
        }
    };
    let has_id = fields.id.is_some_and(|raw| raw.get() != "null");
    let id = match fields.id.map(RawValue::get) {
        None | Some("null") => line_no.to_string(),
        Some(raw) if raw.starts_with('"') => match serde_json::from_str::<String>(raw) {
            Ok(s) => s,
            Err(e) => return schema(format!("field {:?}: {e}", opts.id_field)),
        },
        Some(raw) if raw_type_name(raw) == "a number" => raw.to_owned(),
        Some(raw) => {
            return schema(format!(
                "field {:?} is {}, expected a string or a number",
                opts.id_field,
                raw_type_name(raw)
            ));
        }
    };
    let order = match fields.order {
        None | Some(Scalar::Null) => None,
        Some(Scalar::Num(x)) if x.is_finite() => Some(OrderKey::Number(x)),
        Some(Scalar::Num(_)) => {
            return schema(format!(
                "field {:?} is not a finite number",
                opts.order_field.as_deref().unwrap_or_default()
            ));
        }
        Some(Scalar::Str(s)) => Some(OrderKey::Text(s.into_owned())),
        Some(other) => {
            return schema(format!(
                "field {:?} (the order field) is {}, expected a number or a string",
                opts.order_field.as_deref().unwrap_or_default(),
                other.type_name()
            ));
        }
    };
    let mut attributes: Vec<(std::sync::Arc<str>, String)> =
        Vec::with_capacity(fields.attributes.len());
    for (i, raw) in fields.attributes {
        let name = &opts.attribute_fields[i];
        let raw = raw.get();
        let value = match raw_type_name(raw) {
            "null" => continue,
            "a string" => match serde_json::from_str::<String>(raw) {
                Ok(s) => s,
                Err(e) => return schema(format!("field {name:?}: {e}")),
            },
            "a number" => raw.to_owned(),
            other => {
                return schema(format!(
                    "field {name:?} (an attribute) is {other}, expected a string or a number"
                ));
            }
        };
        attributes.push((std::sync::Arc::from(name.as_str()), value));
    }
    if text.trim().is_empty() {
        let what = if text.is_empty() {
            "empty"
        } else {
            "only whitespace"
        };
        return Err((
            ProblemKind::Empty,
            format!("field {:?} (the text) is {what}", opts.text_field),
        ));
    }
    Ok((
        Document {
            id,
            text: text.into_owned(),
            order,
            attributes,
        },
        has_id,
    ))
}

/// `record` (one JSON object: a JSONL line without its line end) with the value of
/// the text field `field` (a top-level name, or a JSON pointer such as `/meta/text`)
/// replaced by `text` as a JSON string; every other byte of the record is kept as it
/// was (member order, spacing, the spelling of numbers and escapes), so a tool that
/// edits documents (removing repeated lines, say) writes the record back with all its
/// other fields intact.
///
/// # Errors
///
/// [`Error::Input`](crate::Error::Input) (located at the field) when the record is
/// not one JSON object, when it has no such field, or when a member on the field's
/// path appears more than once (which value would be replaced is then ambiguous).
///
/// # Example
///
/// ```
/// use near_dup::corpus::with_text;
/// let record = r#"{"id": 7.0, "text": "a\nb", "meta": {"lang": "en"}}"#;
/// let edited = with_text(record, "text", "a\n")?;
/// assert_eq!(edited, r#"{"id": 7.0, "text": "a\n", "meta": {"lang": "en"}}"#);
/// let nested = with_text(r#"{"doc": {"body": "x"}, "n": 1}"#, "/doc/body", "y")?;
/// assert_eq!(nested, r#"{"doc": {"body": "y"}, "n": 1}"#);
/// assert!(with_text(r#"{"id": 1}"#, "text", "y").is_err());
/// # Ok::<(), near_dup::corpus::Error>(())
/// ```
pub fn with_text(record: &str, field: &str, text: &str) -> Result<String, crate::Error> {
    let fail = |message: String| crate::Error::Input {
        location: format!("field {field:?}"),
        message,
    };
    let Object(members) = serde_json::from_str::<Object<'_>>(record).map_err(|e| {
        fail(format!(
            "the record is not a JSON object: {}",
            bare_message(&e)
        ))
    })?;
    let value = match look_up(&members, field) {
        Ok(Some(v)) => v.get(),
        Ok(None) => return Err(fail("the record has no such field".to_owned())),
        Err(()) => {
            return Err(fail(
                "a member on the field's path appears more than once".to_owned(),
            ));
        }
    };
    // `value` borrows from `record` (raw values are slices of the input): its offset.
    let start = (value.as_ptr() as usize)
        .checked_sub(record.as_ptr() as usize)
        .filter(|&s| s + value.len() <= record.len())
        .ok_or_else(|| fail("the field's value is not a slice of the record".to_owned()))?;
    let quoted = serde_json::to_string(text).map_err(|e| fail(e.to_string()))?;
    let mut out = String::with_capacity(record.len() - value.len() + quoted.len());
    out.push_str(&record[..start]);
    out.push_str(&quoted);
    out.push_str(&record[start + value.len()..]);
    Ok(out)
}

/// The record of line `number` (1-based) of a JSON Lines input, from the line as read:
/// without its line end (every trailing `\n` and `\r`) and, on line 1, without a UTF-8
/// byte order mark. What is left, spaces or tabs after the object included, is the
/// record's own bytes: what `ndd dedup` copies back.
///
/// # Example
///
/// ```
/// use near_dup::corpus::line_record;
/// assert_eq!(line_record(b"\xEF\xBB\xBF{\"text\": \"a\"} \r\n", 1), b"{\"text\": \"a\"} ");
/// assert_eq!(line_record(b"\xEF\xBB\xBF{}\n", 2), b"\xEF\xBB\xBF{}"); // a BOM only starts a file
/// ```
#[must_use]
pub fn line_record(line: &[u8], number: u64) -> &[u8] {
    let mut record = line;
    if number == 1 {
        record = record.strip_prefix(crate::decode::BOM).unwrap_or(record);
    }
    while let [rest @ .., b'\n' | b'\r'] = record {
        record = rest;
    }
    record
}

#[cfg(test)]
mod tests {
    use super::with_text;

    #[test]
    fn with_text_replaces_only_the_text_value() {
        let record = "{\"text\" : \"old \\u00e9\",\"n\":1e3,\"text2\":\"old\"}";
        assert_eq!(
            with_text(record, "text", "new \"quoted\"\n").unwrap(),
            "{\"text\" : \"new \\\"quoted\\\"\\n\",\"n\":1e3,\"text2\":\"old\"}"
        );
        // An escaped member name is found by its value.
        assert_eq!(
            with_text("{\"te\\u0078t\":\"a\"}", "text", "b").unwrap(),
            "{\"te\\u0078t\":\"b\"}"
        );
        // JSON pointers: `~1` is `/`, arrays by index.
        assert_eq!(
            with_text("{\"a/b\":[\"x\",\"y\"]}", "/a~1b/1", "z").unwrap(),
            "{\"a/b\":[\"x\",\"z\"]}"
        );
    }

    #[test]
    fn with_text_refuses_what_it_cannot_rewrite() {
        for (record, field) in [
            ("[1, 2]", "text"),
            ("{\"text\": \"a\"", "text"),
            ("{\"id\": 1}", "text"),
            ("{\"text\": \"a\", \"text\": \"b\"}", "text"),
            ("{\"m\": {\"t\": 1}}", "/m/u"),
        ] {
            let e = with_text(record, field, "x").unwrap_err();
            assert!(
                e.to_string().starts_with(&format!("field {field:?}: ")),
                "{e}"
            );
        }
    }
}
