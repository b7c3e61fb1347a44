//! Bytes to text under a [`TextEncoding`]: the one place folder files and JSONL lines
//! are decoded, so both follow the same rules.

use std::borrow::Cow;

use super::options::TextEncoding;

/// The UTF-8 byte order mark, accepted (and dropped) at the start of a file.
pub(super) const BOM: &[u8] = b"\xEF\xBB\xBF";

/// How text was decoded, for the counts of [`ReadStats`](crate::ReadStats).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Decoded {
    /// UTF-8 as it was (or ASCII under a single-byte encoding).
    Utf8,
    /// From UTF-16 with a byte order mark.
    Utf16,
    /// From Windows-1252 or Latin-1, with a byte outside ASCII.
    Legacy,
}

/// Why bytes are not text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum NotText {
    /// Not UTF-8: the first invalid byte's offset.
    NotUtf8(usize),
    /// A UTF-16 byte order mark, then bytes that are not UTF-16.
    BadUtf16(&'static str),
    /// A NUL character of a UTF-16 text (its offset in characters).
    Nul(usize),
}

/// `bytes` (a whole folder file when `utf16` is set, a JSONL line otherwise, either
/// without a leading UTF-8 byte order mark) as text under `encoding`.
///
/// A UTF-16 byte order mark decides for a file: the rest is UTF-16 of that order,
/// whatever `encoding` says. Otherwise valid UTF-8 is borrowed under
/// [`TextEncoding::Utf8`] and [`TextEncoding::Auto`]; bytes that are not are an
/// error, or Windows-1252 under `Auto`; the single-byte encodings decode every input.
pub(super) fn decode(
    bytes: &[u8],
    encoding: TextEncoding,
    utf16: bool,
) -> Result<(Cow<'_, str>, Decoded), NotText> {
    if utf16 {
        let order = match bytes {
            [0xFF, 0xFE, ..] => Some((encoding_rs::UTF_16LE, "UTF-16LE")),
            [0xFE, 0xFF, ..] => Some((encoding_rs::UTF_16BE, "UTF-16BE")),
            _ => None,
        };
        if let Some((enc, name)) = order {
            let text = enc
                .decode_without_bom_handling_and_without_replacement(&bytes[2..])
                .ok_or(NotText::BadUtf16(name))?;
            if let Some(at) = text.chars().position(|c| c == '\0') {
                return Err(NotText::Nul(at));
            }
            return Ok((Cow::Owned(text.into_owned()), Decoded::Utf16));
        }
    }
    let ascii = || bytes.is_ascii();
    match encoding {
        TextEncoding::Utf8 => std::str::from_utf8(bytes)
            .map(|s| (Cow::Borrowed(s), Decoded::Utf8))
            .map_err(|e| NotText::NotUtf8(e.valid_up_to())),
        TextEncoding::Auto => match std::str::from_utf8(bytes) {
            Ok(s) => Ok((Cow::Borrowed(s), Decoded::Utf8)),
            Err(_) => Ok((windows_1252(bytes), Decoded::Legacy)),
        },
        TextEncoding::Windows1252 if ascii() => Ok((windows_1252(bytes), Decoded::Utf8)),
        TextEncoding::Windows1252 => Ok((windows_1252(bytes), Decoded::Legacy)),
        TextEncoding::Latin1 if ascii() => Ok((latin1(bytes), Decoded::Utf8)),
        TextEncoding::Latin1 => Ok((latin1(bytes), Decoded::Legacy)),
    }
}

/// Windows-1252 (every byte decodes: the five unassigned ones to C1 controls, as
/// WHATWG specifies).
fn windows_1252(bytes: &[u8]) -> Cow<'_, str> {
    encoding_rs::WINDOWS_1252
        .decode_without_bom_handling(bytes)
        .0
}

/// ISO-8859-1: byte `b` is `U+00bb`.
fn latin1(bytes: &[u8]) -> Cow<'_, str> {
    if bytes.is_ascii() {
        // ASCII is valid UTF-8 as it is.
        String::from_utf8_lossy(bytes)
    } else {
        Cow::Owned(bytes.iter().map(|&b| char::from(b)).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf16_with_a_byte_order_mark_is_decoded_in_either_order() {
        let le: Vec<u8> = [0xFF, 0xFE]
            .into_iter()
            .chain("né €".encode_utf16().flat_map(u16::to_le_bytes))
            .collect();
        let be: Vec<u8> = [0xFE, 0xFF]
            .into_iter()
            .chain("né €".encode_utf16().flat_map(u16::to_be_bytes))
            .collect();
        for bytes in [le, be] {
            let (text, how) = decode(&bytes, TextEncoding::Utf8, true).unwrap();
            assert_eq!((text.as_ref(), how), ("né €", Decoded::Utf16));
        }
        // An odd byte after the mark is not UTF-16.
        assert_eq!(
            decode(&[0xFF, 0xFE, b'a'], TextEncoding::Utf8, true),
            Err(NotText::BadUtf16("UTF-16LE"))
        );
        // A NUL character is binary, as a NUL byte is.
        assert_eq!(
            decode(&[0xFF, 0xFE, b'a', 0, 0, 0], TextEncoding::Utf8, true),
            Err(NotText::Nul(1))
        );
        // A JSONL line is not sniffed: FF is not UTF-8.
        assert_eq!(
            decode(&[0xFF, 0xFE, b'a', 0], TextEncoding::Utf8, false),
            Err(NotText::NotUtf8(0))
        );
    }

    #[test]
    fn the_single_byte_encodings_differ_only_in_80_to_9f() {
        // 0x80 is the euro sign in Windows-1252, a C1 control in Latin-1; 0xE9 is é
        // in both.
        let bytes = b"\x80 caf\xe9";
        let (w, how) = decode(bytes, TextEncoding::Windows1252, false).unwrap();
        assert_eq!((w.as_ref(), how), ("€ café", Decoded::Legacy));
        let (l, _) = decode(bytes, TextEncoding::Latin1, false).unwrap();
        assert_eq!(l.as_ref(), "\u{80} café");
        let (a, how) = decode(bytes, TextEncoding::Auto, false).unwrap();
        assert_eq!((a.as_ref(), how), ("€ café", Decoded::Legacy));
        assert_eq!(
            decode(bytes, TextEncoding::Utf8, false),
            Err(NotText::NotUtf8(0))
        );
        // Valid UTF-8 stays UTF-8 under auto, becomes mojibake when the user says
        // Windows-1252 (the user's word is taken).
        let (a, how) = decode("é".as_bytes(), TextEncoding::Auto, false).unwrap();
        assert_eq!((a.as_ref(), how), ("é", Decoded::Utf8));
        let (w, _) = decode("é".as_bytes(), TextEncoding::Windows1252, false).unwrap();
        assert_eq!(w.as_ref(), "Ã©");
        // ASCII is not counted as decoded.
        let (_, how) = decode(b"plain", TextEncoding::Latin1, false).unwrap();
        assert_eq!(how, Decoded::Utf8);
    }
}
