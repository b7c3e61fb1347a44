//! The common JSONL record, decoded without `serde_json`: one flat object whose
//! members are all strings (`{"id": "…", "text": "…"}` and any other string members),
//! read with the reader's default fields (no order field, no attributes, no JSON
//! pointer). Every text is decoded once into a string of its exact length (the
//! `serde_json` path copies an escaped string into a scratch buffer grown as it goes,
//! then copies it again into the document).
//!
//! The path only ever answers with what [`parse_line`](super::record::parse_line)'s
//! `serde_json` parse gives: it answers only for lines it fully validates (JSON
//! whitespace, structure, member names without escapes, every string's escapes and
//! surrogate pairs, no control character), and for anything else (another value type,
//! a repeated field, an escaped name, a lone surrogate, a text that is blank, a
//! missing text) it answers `None` and the line goes to `serde_json`, which decides
//! and words the problem.

use std::cell::RefCell;

use crate::Document;

use super::options::ReadOptions;

/// The document of `line` (a JSONL record without its line end, UTF-8) and whether the
/// record has its id field, when `line` is a flat object of string members that the
/// reader's default parse would accept; `None` when it is not, or when this path
/// cannot tell (then the caller parses it with `serde_json`). `line_no` is the id of a
/// record without one.
pub(super) fn parse_flat(line: &str, line_no: u64, opts: &ReadOptions) -> Option<(Document, bool)> {
    if opts.order_field.is_some()
        || !opts.attribute_fields.is_empty()
        // A JSON pointer (record.rs's `is_pointer`, not called: record.rs calls this
        // file, and files import one way).
        || opts.text_field.starts_with('/')
        || opts.id_field.starts_with('/')
    {
        return None;
    }
    let b = line.as_bytes();
    // No control character anywhere: none is allowed in a string, and the only ones
    // allowed between tokens (tab, CR, LF) are rare in JSONL (such a line goes to
    // serde_json). One pass over the line (the fold vectorizes; `any` would not).
    if b.iter().fold(0xFF, |m: u8, &c| m.min(c)) < 0x20 {
        return None;
    }
    let mut i = skip_ws(b, 0);
    if b.get(i) != Some(&b'{') {
        return None;
    }
    i = skip_ws(b, i + 1);
    let mut text: Option<String> = None;
    let mut id: Option<String> = None;
    loop {
        // A member name, without escapes (an escaped name goes to serde_json).
        if b.get(i) != Some(&b'"') {
            return None;
        }
        let (name_end, _) = scan_string(b, i + 1)?;
        if b.get(i + 1..name_end)?.contains(&b'\\') {
            return None;
        }
        let name = line.get(i + 1..name_end)?;
        i = skip_ws(b, name_end + 1);
        if b.get(i) != Some(&b':') {
            return None;
        }
        i = skip_ws(b, i + 1);
        // Only string values.
        if b.get(i) != Some(&b'"') {
            return None;
        }
        // The text field first: a name that is both is the text (as serde_json's path).
        let slot = if name == opts.text_field {
            Some(&mut text)
        } else if name == opts.id_field {
            Some(&mut id)
        } else {
            None
        };
        let end = if let Some(slot) = slot {
            if slot.is_some() {
                // A repeated field: serde_json's path words the problem.
                return None;
            }
            let (value, end) = decode_string(line, i + 1)?;
            *slot = Some(value);
            end
        } else {
            scan_string(b, i + 1)?.0
        };
        i = skip_ws(b, end + 1);
        match b.get(i) {
            Some(b',') => i = skip_ws(b, i + 1),
            Some(b'}') => break,
            _ => return None,
        }
    }
    if skip_ws(b, i + 1) != b.len() {
        return None;
    }
    let text = text?;
    if text.trim().is_empty() {
        return None;
    }
    let has_id = id.is_some();
    Some((
        Document {
            id: id.unwrap_or_else(|| line_no.to_string()),
            text,
            order: None,
            attributes: Vec::new(),
        },
        has_id,
    ))
}

/// The first byte at or after `i` that is not JSON whitespace (or `b.len()`).
fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while let Some(b' ' | b'\n' | b'\t' | b'\r') = b.get(i) {
        i += 1;
    }
    i
}

/// The string whose contents start at `start` (after its opening quote): the index of
/// its closing quote and the length of its decoded contents in bytes; `None` if it is
/// not a string `serde_json` decodes to a Rust string (an unknown escape, bad hex, a
/// lone surrogate) or is not closed. (The caller has checked the line has no control
/// character.)
pub(crate) fn scan_string(b: &[u8], start: usize) -> Option<(usize, usize)> {
    let mut i = start;
    let mut len = 0;
    loop {
        let rest = b.get(i..)?;
        let k = memchr::memchr2(b'"', b'\\', rest)?;
        len += k;
        i += k;
        if b.get(i) == Some(&b'"') {
            return Some((i, len));
        }
        match b.get(i + 1)? {
            b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => {
                len += 1;
                i += 2;
            }
            b'u' => {
                let (c, used) = unicode_escape(b.get(i..)?)?;
                len += c.len_utf8();
                i += used;
            }
            _ => return None,
        }
    }
}

/// The character of the `\uXXXX` escape (or surrogate pair `\uXXXX\uXXXX`) at the start
/// of `b`, and how many bytes it takes; `None` for bad hex or a lone surrogate.
fn unicode_escape(b: &[u8]) -> Option<(char, usize)> {
    let hi = hex4(b.get(2..6)?)?;
    match hi {
        0xD800..=0xDBFF => {
            if b.get(6..8)? != b"\\u" {
                return None;
            }
            let lo = hex4(b.get(8..12)?)?;
            if !(0xDC00..=0xDFFF).contains(&lo) {
                return None;
            }
            let c = char::from_u32(0x1_0000 + ((hi - 0xD800) << 10) + (lo - 0xDC00))?;
            Some((c, 12))
        }
        0xDC00..=0xDFFF => None,
        _ => Some((char::from_u32(hi)?, 6)),
    }
}

/// Four hexadecimal digits (either case) as a number.
fn hex4(b: &[u8]) -> Option<u32> {
    b.iter().try_fold(0u32, |n, &c| {
        let d = char::from(c).to_digit(16)?;
        Some(n * 16 + d)
    })
}

thread_local! {
    /// The decoded contents of a string with escapes, built here before they are
    /// copied into a string of their exact length (one buffer per thread, reused while
    /// it holds at most [`KEPT_BUFFER`] bytes).
    static DECODED: RefCell<String> = const { RefCell::new(String::new()) };
}

/// The largest [`DECODED`] buffer a thread keeps for its next string (1 MiB): one made
/// for a longer text (up to the reader's 64 MiB limit) is freed after it.
const KEPT_BUFFER: usize = 1 << 20;

/// The string whose contents start at `start` in `line` (after its opening quote),
/// decoded, and the index of its closing quote; `None` when [`scan_string`] would answer
/// `None`. The walk to the closing quote and the decode are one pass (a member the
/// reader keeps was scanned, then decoded in a second walk over its escapes). A string
/// without an escape is copied as it is; one with escapes is decoded into the thread's
/// buffer, then copied: either way the string is allocated at its exact length.
pub(crate) fn decode_string(line: &str, start: usize) -> Option<(String, usize)> {
    let b = line.as_bytes();
    let mut i = start;
    let mut k = memchr::memchr2(b'"', b'\\', b.get(i..)?)?;
    if b.get(i + k) == Some(&b'"') {
        return Some((line.get(i..i + k)?.to_owned(), i + k));
    }
    DECODED.with_borrow_mut(|out| {
        out.clear();
        // At most the rest of the line (an escape never decodes to more bytes than it
        // takes): one allocation at most, never a doubling.
        out.reserve(b.len().saturating_sub(start));
        let mut walk = || loop {
            out.push_str(line.get(i..i + k)?);
            i += k;
            if b.get(i) == Some(&b'"') {
                return Some((out.as_str().to_owned(), i));
            }
            let (c, used) = match b.get(i + 1)? {
                b'"' => ('"', 2),
                b'\\' => ('\\', 2),
                b'/' => ('/', 2),
                b'b' => ('\u{8}', 2),
                b'f' => ('\u{c}', 2),
                b'n' => ('\n', 2),
                b'r' => ('\r', 2),
                b't' => ('\t', 2),
                b'u' => unicode_escape(b.get(i..)?)?,
                _ => return None,
            };
            out.push(c);
            i += used;
            k = memchr::memchr2(b'"', b'\\', b.get(i..)?)?;
        };
        let decoded = walk();
        if out.capacity() > KEPT_BUFFER {
            *out = String::new();
        }
        decoded
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::parse_line_serde;

    /// `parse_flat` answers only with what `serde_json`'s path gives, and the text it
    /// builds has its exact length as capacity.
    fn agrees(line: &str, opts: &ReadOptions) -> bool {
        let flat = parse_flat(line, 7, opts);
        let serde = parse_line_serde(line, 7, opts);
        if let Some((doc, has_id)) = &flat {
            assert_eq!(
                serde.as_ref().ok(),
                Some(&(doc.clone(), *has_id)),
                "line {line:?}"
            );
            assert_eq!(doc.text.capacity(), doc.text.len(), "line {line:?}");
        }
        flat.is_some()
    }

    #[test]
    fn flat_records_are_decoded_as_serde_json_decodes_them() {
        let opts = ReadOptions::default();
        for line in [
            r#"{"id": "a", "text": "one two"}"#,
            r#"{"text":"x\ny\t\"q\" \\ \/ \b\f\r","id":"b"}"#,
            "  { \"text\" : \"caf\\u00e9 \\u20AC \\ud83d\\ude00 \\u0000\" , \"other\": \"\\u00e9\" }  ",
            r#"{"text": "no id"}"#,
            r#"{"id": "", "text": "empty id", "id2": "x", "id2": "y"}"#,
            "{\"id\": \"é😀\", \"text\": \"ünï \u{2028}\"}",
        ] {
            assert!(agrees(line, &opts), "not taken: {line:?}");
        }
    }

    #[test]
    fn what_the_flat_path_does_not_decide_goes_to_serde_json() {
        let opts = ReadOptions::default();
        for line in [
            r#"{"id": 7, "text": "a number id"}"#,
            r#"{"id": 7.0, "text": "a"}"#,
            r#"{"id": null, "text": "a"}"#,
            r#"{"id": "a", "text": "x", "n": 1}"#,
            r#"{"id": "a", "text": "x", "m": {"k": "v"}}"#,
            r#"{"text": "a", "text": "b"}"#,
            r#"{"id": "a", "id": "b", "text": "c"}"#,
            r#"{"te\u0078t": "escaped name"}"#,
            r#"{"text": "lone \ud800 surrogate"}"#,
            r#"{"text": "lone \udc00 low"}"#,
            r#"{"text": "pair \ud800\u0041"}"#,
            r#"{"text": "bad \x escape"}"#,
            r#"{"text": "bad \u12g4 hex"}"#,
            "{\"text\": \"control \u{1} char\"}",
            "{\"text\":\t\"a tab between tokens\"}",
            r#"{"text": "   "}"#,
            r#"{"text": ""}"#,
            r#"{"id": "a"}"#,
            r#"{}"#,
            r#"{"text": "a",}"#,
            r#"{"text": "a"} x"#,
            r#"{"text": "a"}}"#,
            r#"{"text": "unclosed}"#,
            r#"{"text" "a"}"#,
            r#"["text", "a"]"#,
            r#""text""#,
            r#"{"text": "a" "id": "b"}"#,
            r#"{"text": "trailing \"#,
            r#"{"text": "short \u12"}"#,
        ] {
            assert!(!agrees(line, &opts), "taken: {line:?}");
        }
        // Options the flat path leaves to serde_json.
        let line = r#"{"id": "a", "text": "x", "date": "2020"}"#;
        for opts in [
            ReadOptions::default().with_order_field("date"),
            ReadOptions::default().with_text_field("/text"),
        ] {
            assert!(parse_flat(line, 1, &opts).is_none());
        }
        let both = ReadOptions::default().with_id_field("text");
        assert!(agrees(r#"{"text": "both"}"#, &both));
    }

    /// Each JSON string literal decoded from just after its opening quote: the string
    /// `serde_json` decodes, ending at the literal's closing quote, or `None` where
    /// `serde_json` refuses it; long escaped strings (one past the buffer a thread
    /// keeps), then short ones, through the same thread's buffer.
    #[test]
    fn one_pass_decode_gives_serde_jsons_string_and_its_end() {
        let long = format!("\"{}\"", "ab\\n\\u00e9 ".repeat(5_000));
        // Past the buffer a thread keeps: freed after it.
        let huge = format!("\"{}\"", "ab\\n\\u00e9 ".repeat(100_000));
        assert!(huge.len() > KEPT_BUFFER);
        let literals = [
            long.as_str(),
            r#""""#,
            huge.as_str(),
            r#""plain""#,
            r#""\n""#,
            r#""\\\"""#,
            r#""a\"b""#,
            r#""end\\""#,
            r#""\ud83d\ude00 \u00e9\/\b\f\r\t""#,
            r#""short""#,
            r#""bad \x""#,
            r#""lone \ud800""#,
            r#""unclosed"#,
            r#""unclosed \""#,
        ];
        for lit in literals {
            let want = serde_json::from_str::<String>(lit).ok();
            let got = decode_string(lit, 1);
            assert_eq!(got.as_ref().map(|(s, _)| s), want.as_ref(), "{lit}");
            if let Some((s, end)) = got {
                assert_eq!(end, lit.len() - 1, "{lit}");
                assert_eq!(s.capacity(), s.len(), "{lit}");
            }
        }
    }

    /// Random records built from pieces that stress the decoder (every escape, pairs
    /// and lone surrogates, control characters, multi-byte text, repeated and other
    /// members): wherever the flat path answers, serde_json answers the same.
    #[test]
    fn random_records_agree_with_serde_json() {
        const PIECES: &[&str] = &[
            "a",
            "word ",
            "é",
            "😀",
            "\\n",
            "\\\"",
            "\\\\",
            "\\/",
            "\\b",
            "\\f",
            "\\r",
            "\\t",
            "\\u00e9",
            "\\u20ac",
            "\\uD83D\\uDE00",
            "\\ud800",
            "\\udc00",
            "\\u0000",
            "\\x",
            "\u{1}",
            "\u{7f}",
            " ",
            "\\u12",
            "}",
            "{",
            ",",
            ":",
        ];
        const NAMES: &[&str] = &["\"id\"", "\"text\"", "\"other\"", "\"te\\u0078t\""];
        let opts = ReadOptions::default();
        let mut state = 0x9E37_79B9_7F4A_7C15_u64;
        let mut next = |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            usize::try_from(state % n as u64).unwrap_or(0)
        };
        let (mut taken, mut total) = (0, 0);
        for _ in 0..20_000 {
            let mut line = String::from("{");
            for m in 0..1 + next(3) {
                if m > 0 {
                    line.push_str([",", " , ", ",\t", ", "][next(4)]);
                }
                line.push_str(NAMES[next(NAMES.len())]);
                line.push_str([":", " : "][next(2)]);
                line.push('"');
                // Mostly clean pieces, sometimes a hostile one.
                for _ in 0..next(12) {
                    let piece = if next(20) == 0 {
                        PIECES[next(PIECES.len())]
                    } else {
                        PIECES[next(15)]
                    };
                    line.push_str(piece);
                }
                line.push('"');
            }
            line.push_str(["}", " }", "} ", "}", "}", "", "}x"][next(7)]);
            total += 1;
            taken += usize::from(agrees(&line, &opts));
        }
        // The test means something only if both sides are exercised.
        assert!(
            taken > total / 20 && taken < total,
            "{taken} of {total} taken"
        );
    }
}
