//! HTML to text in a single pass, without regular expressions or dependencies.
//!
//! This is the preprocessing step of Zhang, Yao, Ji and Fang (Mathematical Problems in Engineering 2016) (section 4.1, step 1): "HTML framing
//! elements such as `<script…>…</script>`, `<style…>…</style>`, `<a…>…</a>` and
//! `<iframe…>…</iframe>` are replaced with blank spaces", so that navigation links,
//! advertisements and code do not count as content.
//!
//! # What the conversion does
//!
//! * **Dropped elements.** The start tag, content and end tag of `script`, `style`,
//!   `a` and `iframe` (the default; see [`HtmlStripper`] to change the set) are
//!   replaced by one separator. The content ends at the first matching end tag
//!   (`</name` followed by whitespace, `/`, `>` or the end of input, any case); with
//!   none, everything to the end of the input is dropped. Nested or overlapping tags
//!   inside are not interpreted (as in a browser, `<a>` cannot nest and
//!   `<script>` content is raw text). A start tag written self-closing (`<a … />`,
//!   `<script src=x/>`) has no content, so nothing after it is dropped.
//! * **Markup that is not text.** Comments `<!-- … -->`, CDATA sections
//!   `<![CDATA[ … ]]>`, declarations such as `<!DOCTYPE html>` and processing
//!   instructions `<? … >` are replaced by one separator; an unterminated one runs to
//!   the end of the input.
//! * **Every other tag** `<name …>` or `</name …>` (name starting with an ASCII
//!   letter) is replaced by a separator, so words on either side never merge. A `>`
//!   inside a quoted attribute value does not end the tag.
//! * **Separators.** Block-level elements ([`BLOCK_ELEMENTS`]: `p`, `div`, `br`,
//!   `li`, `h1`–`h6`, `tr`, …) give a newline `'\n'`, all others a space `' '`
//!   ([`HtmlStripper::block_newlines`]`(false)` makes every separator a space).
//!   Consecutive separators collapse into one (a newline if any of them is one); a
//!   separator is omitted after text that already ends in a newline, a space
//!   separator after text ending in any ASCII whitespace or directly followed by
//!   text starting with it; separators at the very start or end of the output are
//!   omitted. Whitespace in the text itself is never changed.
//! * **Text** between tags is copied byte for byte (any Unicode is preserved), except
//!   character references:
//!   * named: `&amp;` `&lt;` `&gt;` `&quot;` `&apos;` and a few common typographic
//!     ones (see [`decode_named_entity`]); `&nbsp;` becomes a plain space `' '` and
//!     `&shy;` (soft hyphen) is removed. The `;` is required, and unknown names
//!     (`&foo;`, `AT&T`) are left as they are;
//!   * numeric: decimal `&#NNN;` and hexadecimal `&#xHH;`/`&#XHH;` (the `;` may be
//!     omitted, as HTML allows). Zero, surrogates and values above `U+10FFFF` become
//!     `U+FFFD`. `&#` without digits is left as is.
//! * **Malformed input never panics.** A `<` that does not start a tag (`a < b`,
//!   `x <= 3`, `<3`), or a tag with no closing `>` anywhere after it, is kept as text.
//!   A `</` not followed by a letter is kept as text too, except the empty `</>`,
//!   which is removed.
//!
//! Every step is linear in the input, except that searching for the closing tag of a
//! dropped element scans forward once per candidate `</`.
//!
//! # Example
//!
//! ```
//! use near_dup::shingle::html::html_to_text;
//!
//! let page = "<html><head><style>p { color: red }</style></head><body>\
//!             <h1>Caf&eacute; &amp; Bar</h1><p>Open <b>daily</b> &#8211; \
//!             <a href=\"/menu\">see the menu</a>from&nbsp;9.</p>\
//!             <script>track('x > y');</script></body></html>";
//! assert_eq!(html_to_text(page), "Caf&eacute; & Bar\nOpen daily \u{2013} from 9.");
//! ```

/// The elements whose content is dropped by default: exactly Zhang, Yao, Ji and Fang's (Mathematical Problems in Engineering 2016) framing
/// elements (section 4.1, step 1).
///
/// # Example
///
/// ```
/// use near_dup::shingle::html::{html_to_text, DEFAULT_DROPPED_ELEMENTS};
/// assert_eq!(DEFAULT_DROPPED_ELEMENTS, ["script", "style", "a", "iframe"]);
/// assert_eq!(html_to_text("one <iframe src=x>two</iframe>three"), "one three");
/// ```
pub const DEFAULT_DROPPED_ELEMENTS: [&str; 4] = ["script", "style", "a", "iframe"];

/// Elements whose tags become a newline rather than a space (when
/// [`HtmlStripper::block_newlines`] is on, the default).
///
/// # Example
///
/// ```
/// use near_dup::shingle::html::{html_to_text, BLOCK_ELEMENTS};
/// assert!(BLOCK_ELEMENTS.contains(&"p"));
/// assert_eq!(html_to_text("<li>one</li><li>two</li>"), "one\ntwo");
/// assert_eq!(html_to_text("one<br>two"), "one\ntwo");
/// ```
pub const BLOCK_ELEMENTS: [&str; 44] = [
    "address",
    "article",
    "aside",
    "blockquote",
    "body",
    "br",
    "caption",
    "dd",
    "details",
    "dialog",
    "div",
    "dl",
    "dt",
    "fieldset",
    "figcaption",
    "figure",
    "footer",
    "form",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "head",
    "header",
    "hr",
    "html",
    "li",
    "main",
    "nav",
    "ol",
    "option",
    "p",
    "pre",
    "section",
    "summary",
    "table",
    "tbody",
    "tfoot",
    "thead",
    "title",
    "tr",
    "ul",
];

/// Converts HTML to text with the default settings (Zhang, Yao, Ji and Fang's (Mathematical Problems in Engineering 2016) dropped elements,
/// newlines for block elements). See the [module documentation](self) for the rules.
///
/// # Example
///
/// ```
/// use near_dup::shingle::html::html_to_text;
/// assert_eq!(html_to_text("<p>a &lt; b</p><p>and <A HREF='x'>ad</A>c</p>"), "a < b\nand c");
/// assert_eq!(html_to_text("plain text, unchanged"), "plain text, unchanged");
/// ```
#[must_use]
pub fn html_to_text(html: &str) -> String {
    let mut out = String::with_capacity(html.len());
    html_to_text_into(html, &mut out);
    out
}

/// [`html_to_text`] appending to `out`, so one buffer can be reused across documents.
/// The text already in `out` is kept; the separator rules treat the start of the
/// appended text as the start of the output.
///
/// # Example
///
/// ```
/// use near_dup::shingle::html::html_to_text_into;
/// let mut buf = String::new();
/// for page in ["<p>first</p>", "<p>second</p>"] {
///     buf.clear();
///     html_to_text_into(page, &mut buf);
///     assert!(!buf.contains('<'));
/// }
/// assert_eq!(buf, "second");
/// ```
pub fn html_to_text_into(html: &str, out: &mut String) {
    strip(html, out, &DEFAULT_DROPPED_ELEMENTS, true);
}

/// HTML-to-text converter with a configurable set of elements whose content is
/// dropped, built with chained methods. [`HtmlStripper::default`] behaves exactly like
/// [`html_to_text`].
///
/// # Example
///
/// ```
/// use near_dup::shingle::html::HtmlStripper;
///
/// let page = "<nav>Home | About</nav><p>Read <a href=/doc>the docs</a>.</p>";
/// let keep_links = HtmlStripper::new().keep_content("a").drop_content("NAV");
/// assert_eq!(keep_links.strip(page), "Read the docs .");
/// let flat = HtmlStripper::new().block_newlines(false);
/// assert_eq!(flat.strip("<p>one</p><p>two</p>"), "one two");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HtmlStripper {
    /// Lower-case names of the elements whose content is dropped.
    dropped: Vec<String>,
    /// Whether block-level tags give `'\n'` rather than `' '`.
    block_newlines: bool,
}

impl Default for HtmlStripper {
    /// Drops [`DEFAULT_DROPPED_ELEMENTS`], newlines for [`BLOCK_ELEMENTS`].
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::shingle::html::{html_to_text, HtmlStripper};
    /// let html = "<style>x</style><p>text</p>";
    /// assert_eq!(HtmlStripper::default().strip(html), html_to_text(html));
    /// ```
    fn default() -> Self {
        HtmlStripper {
            dropped: DEFAULT_DROPPED_ELEMENTS
                .iter()
                .map(|s| (*s).to_owned())
                .collect(),
            block_newlines: true,
        }
    }
}

impl HtmlStripper {
    /// The default converter (same as [`HtmlStripper::default`]).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::shingle::html::HtmlStripper;
    /// assert_eq!(HtmlStripper::new(), HtmlStripper::default());
    /// assert!(HtmlStripper::new().drops("script"));
    /// ```
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Also drop the content of element `name` (ASCII case-insensitive; for example
    /// `"nav"`, `"noscript"`, `"template"`, `"svg"`). A name that cannot be a tag name
    /// (empty, or not starting with an ASCII letter) never matches.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::shingle::html::HtmlStripper;
    /// let s = HtmlStripper::new().drop_content("noscript");
    /// assert_eq!(s.strip("a<noscript>enable JS</noscript>b"), "a b");
    /// ```
    #[must_use]
    pub fn drop_content(mut self, name: &str) -> Self {
        let name = name.to_ascii_lowercase();
        if !self.dropped.contains(&name) {
            self.dropped.push(name);
        }
        self
    }

    /// Keep the content of element `name` (ASCII case-insensitive): its tags become
    /// separators like any other tag.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::shingle::html::HtmlStripper;
    /// let s = HtmlStripper::new().keep_content("A");
    /// assert_eq!(s.strip("see <a href=x>this</a>"), "see this");
    /// ```
    #[must_use]
    pub fn keep_content(mut self, name: &str) -> Self {
        self.dropped.retain(|d| !d.eq_ignore_ascii_case(name));
        self
    }

    /// Keep the content of every element: only tags, comments and declarations are
    /// removed.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::shingle::html::HtmlStripper;
    /// let s = HtmlStripper::new().keep_all_content();
    /// assert_eq!(s.strip("<style>b{}</style>x"), "b{} x");
    /// ```
    #[must_use]
    pub fn keep_all_content(mut self) -> Self {
        self.dropped.clear();
        self
    }

    /// Whether block-level tags ([`BLOCK_ELEMENTS`]) become `'\n'` (`true`, the
    /// default) or a space like every other tag (`false`).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::shingle::html::HtmlStripper;
    /// assert_eq!(HtmlStripper::new().strip("<p>a</p><p>b</p>"), "a\nb");
    /// assert_eq!(HtmlStripper::new().block_newlines(false).strip("<p>a</p><p>b</p>"), "a b");
    /// ```
    #[must_use]
    pub fn block_newlines(mut self, yes: bool) -> Self {
        self.block_newlines = yes;
        self
    }

    /// Whether the content of element `name` is dropped (ASCII case-insensitive).
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::shingle::html::HtmlStripper;
    /// assert!(HtmlStripper::new().drops("IFRAME"));
    /// assert!(!HtmlStripper::new().drops("p"));
    /// ```
    #[must_use]
    pub fn drops(&self, name: &str) -> bool {
        self.dropped.iter().any(|d| d.eq_ignore_ascii_case(name))
    }

    /// Converts `html` to text with these settings.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::shingle::html::HtmlStripper;
    /// assert_eq!(HtmlStripper::new().strip("<b>bold</b> move"), "bold move");
    /// ```
    #[must_use]
    pub fn strip(&self, html: &str) -> String {
        let mut out = String::with_capacity(html.len());
        self.strip_into(html, &mut out);
        out
    }

    /// Converts `html` to text with these settings, appending to `out`.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::shingle::html::HtmlStripper;
    /// let mut out = String::from("title: ");
    /// HtmlStripper::new().strip_into("<h1>Hello</h1>", &mut out);
    /// assert_eq!(out, "title: Hello");
    /// ```
    pub fn strip_into(&self, html: &str, out: &mut String) {
        strip(html, out, &self.dropped, self.block_newlines);
    }
}

/// A cheap heuristic: does `text` look like HTML (so that it should go through
/// [`html_to_text`])?
///
/// True if the text contains `<!--`, a `<!DOCTYPE` declaration (any case), or a start
/// or end tag of a common HTML element (`<p>`, `</div>`, `<br/>`, `<a href=…>`, …:
/// the element name, any case, followed by whitespace, `/` or `>`). Stops at the first
/// such evidence; plain text with `<` in other roles (`a < b`, `<user@example.org>`,
/// `<https://example.org>`, `Vec<T>`) is not HTML.
///
/// # Example
///
/// ```
/// use near_dup::shingle::html::looks_like_html;
/// assert!(looks_like_html("<!doctype html><title>x</title>"));
/// assert!(looks_like_html("Hello<BR>world"));
/// assert!(!looks_like_html("Copyright 2024 Jane Doe <jane@example.org>"));
/// assert!(!looks_like_html("if a < b && c > d"));
/// ```
#[must_use]
pub fn looks_like_html(text: &str) -> bool {
    let b = text.as_bytes();
    let mut i = 0;
    while let Some(off) = find_byte(b, i, b'<') {
        let lt = off;
        let rest = &b[lt + 1..];
        if starts_with_ignore_case(rest, b"!--") || starts_with_ignore_case(rest, b"!doctype") {
            return true;
        }
        let name_start = if rest.first() == Some(&b'/') { 1 } else { 0 };
        let name = &rest[name_start..];
        let len = name
            .iter()
            .position(|c| !c.is_ascii_alphanumeric())
            .unwrap_or(name.len());
        if len > 0
            && matches!(
                name.get(len),
                Some(b' ' | b'\t' | b'\n' | b'\r' | b'\x0c' | b'/' | b'>')
            )
            && COMMON_ELEMENTS
                .iter()
                .any(|e| e.as_bytes().eq_ignore_ascii_case(&name[..len]))
        {
            return true;
        }
        i = lt + 1;
    }
    false
}

/// Element names that [`looks_like_html`] takes as evidence of HTML.
const COMMON_ELEMENTS: [&str; 58] = [
    "a",
    "abbr",
    "article",
    "aside",
    "b",
    "blockquote",
    "body",
    "br",
    "button",
    "code",
    "dd",
    "div",
    "dl",
    "dt",
    "em",
    "footer",
    "form",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "head",
    "header",
    "hr",
    "html",
    "i",
    "iframe",
    "img",
    "input",
    "label",
    "li",
    "link",
    "main",
    "meta",
    "nav",
    "noscript",
    "ol",
    "option",
    "p",
    "pre",
    "script",
    "section",
    "select",
    "small",
    "span",
    "strong",
    "style",
    "sub",
    "sup",
    "table",
    "tbody",
    "td",
    "th",
    "title",
    "tr",
    "ul",
];

/// The replacement text of the named character reference `&name;` (without `&` and
/// `;`), or `None` if the name is not one [`html_to_text`] decodes (it is then left
/// as is). Names are case-sensitive, as in HTML.
///
/// Decoded: `amp` `lt` `gt` `quot` `apos` `nbsp` (as a plain space `' '`), `shy` (as
/// nothing), `copy` `reg` `trade` `hellip` `mdash` `ndash` `lsquo` `rsquo` `ldquo`
/// `rdquo` `laquo` `raquo` `euro` `middot` `bull` `deg` `times`.
///
/// # Example
///
/// ```
/// use near_dup::shingle::html::decode_named_entity;
/// assert_eq!(decode_named_entity("amp"), Some("&"));
/// assert_eq!(decode_named_entity("nbsp"), Some(" "));
/// assert_eq!(decode_named_entity("AMP"), None);
/// assert_eq!(decode_named_entity("eacute"), None);
/// ```
#[must_use]
pub fn decode_named_entity(name: &str) -> Option<&'static str> {
    Some(match name {
        "amp" => "&",
        "lt" => "<",
        "gt" => ">",
        "quot" => "\"",
        "apos" => "'",
        "nbsp" => " ",
        "shy" => "",
        "copy" => "\u{a9}",
        "reg" => "\u{ae}",
        "trade" => "\u{2122}",
        "hellip" => "\u{2026}",
        "mdash" => "\u{2014}",
        "ndash" => "\u{2013}",
        "lsquo" => "\u{2018}",
        "rsquo" => "\u{2019}",
        "ldquo" => "\u{201c}",
        "rdquo" => "\u{201d}",
        "laquo" => "\u{ab}",
        "raquo" => "\u{bb}",
        "euro" => "\u{20ac}",
        "middot" => "\u{b7}",
        "bull" => "\u{2022}",
        "deg" => "\u{b0}",
        "times" => "\u{d7}",
        _ => return None,
    })
}

// ---------------------------------------------------------------------------------
// The scanner.
// ---------------------------------------------------------------------------------

/// Longest named reference looked up (longer `&…;` runs are left as text).
const MAX_ENTITY_NAME: usize = 32;

/// Position of the first `needle` byte at or after `from`.
#[inline]
fn find_byte(b: &[u8], from: usize, needle: u8) -> Option<usize> {
    b.get(from..)?
        .iter()
        .position(|&c| c == needle)
        .map(|p| p + from)
}

/// Position of the first occurrence of `needle` (non-empty) at or after `from`.
fn find_seq(b: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    let first = *needle.first()?;
    let mut i = from;
    while let Some(p) = find_byte(b, i, first) {
        if b[p..].starts_with(needle) {
            return Some(p);
        }
        i = p + 1;
    }
    None
}

fn starts_with_ignore_case(b: &[u8], prefix: &[u8]) -> bool {
    b.len() >= prefix.len() && b[..prefix.len()].eq_ignore_ascii_case(prefix)
}

#[inline]
fn is_html_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r' | b'\x0c')
}

/// End of a tag name starting at `from`: the first whitespace, `/` or `>`.
fn tag_name_end(b: &[u8], from: usize) -> usize {
    b[from..]
        .iter()
        .position(|&c| is_html_space(c) || c == b'/' || c == b'>')
        .map_or(b.len(), |p| p + from)
}

/// Scans a tag's attributes from `from` (just after the name) to its closing `>`.
/// Returns the position of that `>` and whether the tag is written self-closing
/// (`/>` outside an unquoted attribute value), or `None` if there is no `>` at or
/// after `from`. A `>` inside a quoted value does not end the tag, unless the quotes
/// never balance, in which case the first `>` after the opening quote does.
fn scan_tag_end(b: &[u8], from: usize) -> Option<(usize, bool)> {
    enum St {
        /// Between attributes or inside a name.
        Normal,
        /// After `=`, skipping whitespace before the value.
        AfterEq,
        /// Inside an unquoted value.
        Unquoted,
    }
    let mut st = St::Normal;
    let mut slash = false;
    let mut i = from;
    while i < b.len() {
        let c = b[i];
        match st {
            St::Normal => match c {
                b'>' => return Some((i, slash)),
                b'=' => {
                    st = St::AfterEq;
                    slash = false;
                }
                b'/' => slash = true,
                _ => slash = false,
            },
            St::AfterEq => match c {
                b'>' => return Some((i, false)),
                b'"' | b'\'' => {
                    match find_byte(b, i + 1, c) {
                        Some(close) => i = close,
                        // Unbalanced quote: end the tag at the next `>` instead.
                        None => return find_byte(b, i + 1, b'>').map(|p| (p, false)),
                    }
                    st = St::Normal;
                }
                c if is_html_space(c) => {}
                _ => st = St::Unquoted,
            },
            St::Unquoted => match c {
                b'>' => return Some((i, false)),
                c if is_html_space(c) => st = St::Normal,
                _ => {}
            },
        }
        i += 1;
    }
    // Every `>` after `from` is inside quotes: end at the first one anyway, so that
    // `None` means exactly "no `>` after `from`".
    find_byte(b, from, b'>').map(|p| (p, false))
}

/// Finds the end tag `</name` (ASCII case-insensitive, followed by whitespace, `/`,
/// `>` or the end) at or after `from`; returns the position just past its `>`, or the
/// input length if there is no such end tag or it is unterminated.
fn skip_to_end_tag(b: &[u8], from: usize, name: &[u8]) -> usize {
    let mut i = from;
    while let Some(p) = find_seq(b, i, b"</") {
        let n = p + 2;
        if starts_with_ignore_case(&b[n..], name) {
            let after = n + name.len();
            match b.get(after) {
                None => return b.len(),
                Some(&c) if is_html_space(c) || c == b'/' || c == b'>' => {
                    return scan_tag_end(b, after).map_or(b.len(), |(gt, _)| gt + 1);
                }
                Some(_) => {}
            }
        }
        i = p + 2;
    }
    b.len()
}

/// Output writer applying the separator rules.
struct Writer<'o> {
    out: &'o mut String,
    /// `out.len()` when the conversion started.
    start: usize,
    /// `out.len()` right after the last separator pushed, if any.
    sep_end: Option<usize>,
}

impl Writer<'_> {
    fn text(&mut self, s: &str) {
        // A space separator directly followed by whitespace in the text is redundant.
        if self.sep_end == Some(self.out.len())
            && self.out.ends_with(' ')
            && s.as_bytes().first().is_some_and(|&c| is_html_space(c))
        {
            self.out.pop();
            self.sep_end = None;
        }
        self.out.push_str(s);
    }

    fn separator(&mut self, newline: bool) {
        let len = self.out.len();
        if len == self.start {
            return;
        }
        if self.sep_end == Some(len) {
            if newline && self.out.ends_with(' ') {
                self.out.pop();
                self.out.push('\n');
            }
            return;
        }
        // Text already ending in whitespace needs no space, nor a newline if it ends
        // in one.
        if let Some(&last) = self.out.as_bytes().last() {
            if last == b'\n' || (!newline && is_html_space(last)) {
                return;
            }
        }
        self.out.push(if newline { '\n' } else { ' ' });
        self.sep_end = Some(self.out.len());
    }

    fn finish(self) {
        if self.sep_end == Some(self.out.len()) && self.out.len() > self.start {
            self.out.pop();
        }
    }
}

/// Decodes the character reference at `b[amp] == b'&'`. Returns the position after it
/// and writes its replacement, or returns `None` (nothing written) if it is not one.
fn decode_reference(html: &str, amp: usize, w: &mut Writer<'_>) -> Option<usize> {
    let b = html.as_bytes();
    let mut i = amp + 1;
    if b.get(i) == Some(&b'#') {
        i += 1;
        let hex = matches!(b.get(i), Some(b'x' | b'X'));
        if hex {
            i += 1;
        }
        let radix = if hex { 16 } else { 10 };
        let digits_start = i;
        let mut value: u32 = 0;
        while let Some(d) = b.get(i).and_then(|&c| char::from(c).to_digit(radix)) {
            // Saturate above the Unicode range: the result is U+FFFD either way.
            value = value.saturating_mul(radix).saturating_add(d).min(0x11_0000);
            i += 1;
        }
        if i == digits_start {
            return None;
        }
        if b.get(i) == Some(&b';') {
            i += 1;
        }
        let c = match char::from_u32(value) {
            Some('\0') | None => char::REPLACEMENT_CHARACTER,
            Some(c) => c,
        };
        let mut buf = [0u8; 4];
        w.text(c.encode_utf8(&mut buf));
        return Some(i);
    }
    let name_len = b[i..]
        .iter()
        .take(MAX_ENTITY_NAME + 1)
        .position(|c| !c.is_ascii_alphanumeric())?;
    if name_len == 0 || b.get(i + name_len) != Some(&b';') {
        return None;
    }
    let replacement = decode_named_entity(&html[i..i + name_len])?;
    w.text(replacement);
    Some(i + name_len + 1)
}

/// The conversion. `dropped` holds element names whose content is dropped.
fn strip<S: AsRef<str>>(html: &str, out: &mut String, dropped: &[S], block_newlines: bool) {
    let b = html.as_bytes();
    let n = b.len();
    let mut w = Writer {
        start: out.len(),
        out,
        sep_end: None,
    };
    let is_block = |name: &[u8]| {
        block_newlines
            && BLOCK_ELEMENTS
                .iter()
                .any(|e| e.as_bytes().eq_ignore_ascii_case(name))
    };
    // No tag can end after the last `>`: checking this first keeps inputs full of
    // `<` and short of `>` linear.
    let last_gt = b.iter().rposition(|&c| c == b'>');
    let may_end = |from: usize| last_gt.is_some_and(|g| g >= from);
    let mut i = 0;
    // Start of the text not yet copied.
    let mut text_from = 0;
    while i < n {
        let c = b[i];
        if c != b'<' && c != b'&' {
            i += 1;
            continue;
        }
        // All positions compared below hold ASCII bytes, so slicing there is on a
        // char boundary.
        if c == b'&' {
            w.text(&html[text_from..i]);
            match decode_reference(html, i, &mut w) {
                Some(next) => i = next,
                None => {
                    w.text("&");
                    i += 1;
                }
            }
            text_from = i;
            continue;
        }
        // c == b'<'
        let rest = &b[i + 1..];
        // (end of the markup, whether it gives a newline); `None`: not markup.
        let markup: Option<(usize, bool)> = match rest.first() {
            Some(b'!') => {
                if rest.starts_with(b"!--") {
                    // Comment; `<!-->` and `<!--->` are empty comments.
                    let body = i + 4;
                    let end = if b[body..].starts_with(b">") {
                        body + 1
                    } else if b[body..].starts_with(b"->") {
                        body + 2
                    } else {
                        find_seq(b, body, b"-->").map_or(n, |p| p + 3)
                    };
                    Some((end, false))
                } else if starts_with_ignore_case(rest, b"![cdata[") {
                    Some((find_seq(b, i + 9, b"]]>").map_or(n, |p| p + 3), false))
                } else {
                    Some((find_byte(b, i + 2, b'>').map_or(n, |p| p + 1), false))
                }
            }
            Some(b'?') => Some((find_byte(b, i + 2, b'>').map_or(n, |p| p + 1), false)),
            Some(b'/') => match rest.get(1) {
                Some(b'>') => Some((i + 3, false)),
                Some(l) if l.is_ascii_alphabetic() && may_end(i) => {
                    let name_end = tag_name_end(b, i + 2);
                    scan_tag_end(b, name_end).map(|(gt, _)| (gt + 1, is_block(&b[i + 2..name_end])))
                }
                _ => None,
            },
            Some(l) if l.is_ascii_alphabetic() && may_end(i) => {
                let name_end = tag_name_end(b, i + 1);
                let name = &b[i + 1..name_end];
                scan_tag_end(b, name_end).map(|(gt, self_closing)| {
                    let dropped = !self_closing
                        && dropped
                            .iter()
                            .any(|d| d.as_ref().as_bytes().eq_ignore_ascii_case(name));
                    let end = if dropped {
                        skip_to_end_tag(b, gt + 1, name)
                    } else {
                        gt + 1
                    };
                    (end, is_block(name))
                })
            }
            _ => None,
        };
        match markup {
            Some((end, newline)) => {
                w.text(&html[text_from..i]);
                w.separator(newline);
                i = end;
                text_from = end;
            }
            None => i += 1,
        }
    }
    w.text(&html[text_from..n]);
    w.finish();
}
