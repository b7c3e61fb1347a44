//! HTML to text: paper 001's dropped elements, entities, malformed markup, Unicode,
//! and properties over arbitrary input.

#![allow(clippy::unwrap_used)] // tests unwrap to fail loudly

use ndd_shingle::html::{HtmlStripper, html_to_text, html_to_text_into, looks_like_html};
use proptest::prelude::*;

/// Asserts `html_to_text(input) == expected` for every `(input, expected)` case; a
/// failure names the input.
fn check(cases: &[(&str, &str)]) {
    for &(input, expected) in cases {
        assert_eq!(html_to_text(input), expected, "html_to_text({input:?})");
    }
}

// ---------------------------------------------------------------------------------
// Paper 001, section 4.1 step 1: script, style, a, iframe replaced by blank space.
// ---------------------------------------------------------------------------------

#[test]
fn paper_framing_elements_are_dropped() {
    let page = r#"<html>
<head><title>News</title>
<style type="text/css">body { font: 12px } a > b { color: red }</style>
<script type="text/javascript">var x = "<p>not text</p>"; if (a < b && c > d) {}</script>
</head>
<body>
<div class="nav"><a href="/">Home</a> | <a href="/about">About us</a></div>
<p>The core text of the page.</p>
<iframe src="https://ads.example/banner">Your browser does not support iframes.</iframe>
<p>More core text.</p>
</body></html>"#;
    let text = html_to_text(page);
    for gone in [
        "font",
        "color",
        "var x",
        "not text",
        "Home",
        "About",
        "ads",
        "support iframes",
    ] {
        assert!(!text.contains(gone), "{gone:?} should be dropped: {text:?}");
    }
    assert!(text.contains("News"));
    assert!(text.contains("The core text of the page."));
    assert!(text.contains("More core text."));
    let words: Vec<&str> = text.split_whitespace().collect();
    assert_eq!(
        words,
        [
            "News", "|", "The", "core", "text", "of", "the", "page.", "More", "core", "text."
        ]
    );
}

#[test]
fn dropped_element_leaves_one_blank() {
    check(&[
        ("left<script>x()</script>right", "left right"),
        ("left<style>p{}</style>right", "left right"),
        ("left<a href=x>link</a>right", "left right"),
        ("left<iframe>f</iframe>right", "left right"),
        // Whitespace of the text itself is kept.
        ("left <a>link</a> right", "left  right"),
    ]);
}

#[test]
fn tag_names_are_case_insensitive() {
    check(&[
        ("a<SCRIPT>x</script>b", "a b"),
        ("a<Script Type=x>x</SCRIPT >b", "a b"),
        ("a<A HREF='y'>x</A>b", "a b"),
        ("<P>one</P><DIV>two</DIV>", "one\ntwo"),
    ]);
}

#[test]
fn end_tag_must_match_the_whole_name() {
    // `</scripts>` and `</abbr>` do not close `<script>` / `<a>`.
    check(&[
        ("x<script>a</scripts>b</script>y", "x y"),
        ("x<a>1<abbr>2</abbr>3</a>y", "x y"),
        // `<abbr>` is not `<a>`: its content stays.
        ("x <abbr>kept</abbr> y", "x kept y"),
    ]);
}

#[test]
fn unclosed_dropped_element_runs_to_the_end() {
    check(&[
        ("before<script>alert('x'); <p>never", "before"),
        ("before<style>p {", "before"),
        ("before<a href=x>rest", "before"),
        // Unterminated end tag at the very end.
        ("before<script>x</script", "before"),
    ]);
}

#[test]
fn nested_and_overlapping_anchors() {
    // The first `</a>` ends the dropped content; the stray `</a>` is a separator.
    check(&[
        ("x<a>1<a>2</a>3</a>y", "x 3 y"),
        ("x<a href=1><b>bold</a></b>y", "x y"),
    ]);
}

#[test]
fn self_closing_dropped_elements_have_no_content() {
    check(&[
        ("x<script src=\"a.js\"/>y", "x y"),
        ("x<a name=top />y", "x y"),
        ("x<iframe/>y", "x y"),
        // `/` inside an unquoted value is not self-closing: `<a href=/>` opens an anchor.
        ("x<a href=/>link</a>y", "x y"),
    ]);
}

#[test]
fn gt_inside_quoted_attributes() {
    check(&[
        (r#"a<img alt="x > y" src='p>q'>b"#, "a b"),
        (r#"a<a title="1>2">drop</a>b"#, "a b"),
        (r#"a<div data-x = "<p>">b</div>"#, "a\nb"),
        // A quote in an attribute name does not start a value.
        (r#"a<span x"y>b</span>"#, "a b"),
        // Unbalanced quote: the tag ends at the first `>` after it.
        (r#"a<span title="oops>b"#, "a b"),
    ]);
}

// ---------------------------------------------------------------------------------
// Comments, declarations, CDATA, processing instructions.
// ---------------------------------------------------------------------------------

#[test]
fn comments_and_declarations_are_dropped() {
    check(&[
        ("<!DOCTYPE html>text", "text"),
        ("<!doctype html>text", "text"),
        ("a<!-- a <p> comment -- with > signs -->b", "a b"),
        ("a<!---->b", "a b"),
        ("a<!-->b", "a b"),
        ("a<!--->b", "a b"),
        ("a<![CDATA[ x > y ]]>b", "a b"),
        ("<?xml version=\"1.0\"?>a", "a"),
        ("a<!-- unterminated <p>b", "a"),
        ("a<![CDATA[ unterminated", "a"),
    ]);
}

// ---------------------------------------------------------------------------------
// Entities.
// ---------------------------------------------------------------------------------

#[test]
fn named_entities() {
    check(&[
        ("&amp; &lt; &gt; &quot; &apos; &#39;", "& < > \" ' '"),
        ("a&nbsp;b", "a b"),
        ("hy&shy;phen", "hyphen"),
        (
            "&copy; &mdash; &hellip; &euro;",
            "\u{a9} \u{2014} \u{2026} \u{20ac}",
        ),
        // Double-escaped text decodes once.
        ("&amp;lt;", "&lt;"),
    ]);
}

#[test]
fn unknown_or_unterminated_named_entities_are_left_as_is() {
    for s in [
        "&eacute;",
        "AT&T",
        "a & b",
        "&amp",
        "&;",
        "&&",
        "&AMP;",
        "fish&chips;",
        "&",
    ] {
        assert_eq!(html_to_text(s), s);
    }
    let long = format!("&{};", "a".repeat(100));
    assert_eq!(html_to_text(&long), long);
}

#[test]
fn numeric_entities() {
    check(&[
        ("&#65;&#x42;&#X43;&#x0044;", "ABCD"),
        ("&#233;t&#xE9;", "\u{e9}t\u{e9}"),
        ("&#x1F600;", "\u{1F600}"),
        // `;` is optional for numeric references.
        ("&#65B", "AB"),
        ("&#x41g", "Ag"),
        // Invalid code points become U+FFFD.
        ("&#0;", "\u{fffd}"),
        ("&#xD800;", "\u{fffd}"),
        ("&#x110000;", "\u{fffd}"),
        ("&#99999999999999999999;", "\u{fffd}"),
        ("&#xFFFFFFFFFFFFFFFFFFFFFFFF;x", "\u{fffd}x"),
        // No digits: left as is.
        ("&#;", "&#;"),
        ("&#x;", "&#x;"),
        ("&#", "&#"),
        ("&#xg;", "&#xg;"),
    ]);
}

// ---------------------------------------------------------------------------------
// Malformed markup and `<` as text.
// ---------------------------------------------------------------------------------

#[test]
fn lt_that_does_not_start_a_tag_is_text() {
    for s in [
        "a < b",
        "x <= 3",
        "I <3 you",
        "<",
        "a<",
        "a <- b",
        "</ not a tag",
        "a </1> b",
        "a<b",
        "if a<b then c",
        "<<<<",
        "< p>",
    ] {
        assert_eq!(html_to_text(s), s, "{s:?}");
    }
    // `</>` is removed.
    assert_eq!(html_to_text("a</>b"), "a b");
}

#[test]
fn tags_are_separators() {
    check(&[
        ("one<b>two</b>three", "one two three"),
        ("one<br>two<br/>three", "one\ntwo\nthree"),
        ("<p>a</p>\n\n<p>b</p>", "a\n\n\nb"),
        ("<td>a</td><td>b</td>", "a b"),
        ("<p> spaced </p>", " spaced "),
        ("<span>x</span> <span>y</span>", "x y"),
        // Separators collapse, a newline wins.
        ("a<b><i></i></b><p><span>b", "a\nb"),
        // Only markup: empty.
        ("<p><br/><!-- c --></p>", ""),
        ("", ""),
    ]);
}

#[test]
fn stripper_options() {
    let flat = HtmlStripper::new().block_newlines(false);
    assert_eq!(flat.strip("<h1>T</h1><p>a</p><p>b</p>"), "T a b");
    let keep = HtmlStripper::new().keep_all_content();
    assert_eq!(keep.strip("<script>s</script><a>l</a>"), "s l");
    let more = HtmlStripper::new()
        .drop_content("nav")
        .drop_content("Footer");
    assert!(more.drops("NAV") && more.drops("footer") && more.drops("a"));
    assert_eq!(
        more.strip("<nav>menu</nav><p>body</p><footer>(c)</footer>"),
        "body"
    );
    let no_links = HtmlStripper::new().keep_content("a");
    assert!(!no_links.drops("a"));
    assert_eq!(no_links.strip("see <a href=x>this</a>."), "see this .");
    // Weird names never match a tag and never panic.
    let weird = HtmlStripper::new().drop_content("").drop_content("<!--");
    assert_eq!(weird.strip("<p>x</p>"), "x");
}

#[test]
fn into_appends_and_reuses_the_buffer() {
    let mut out = String::from("prefix:");
    html_to_text_into("<p>body</p>", &mut out);
    assert_eq!(out, "prefix:body");
    out.clear();
    html_to_text_into("<p>a</p><p>b</p>", &mut out);
    assert_eq!(out, "a\nb");
}

// ---------------------------------------------------------------------------------
// Unicode.
// ---------------------------------------------------------------------------------

#[test]
fn non_ascii_text_is_preserved_byte_exact() {
    let texts = [
        "Zoë's café — naïve façade",
        "日本語のテキスト、句読点。",
        "Привет, мир! Ελληνικά. עברית. العربية",
        "emoji 🦀🚀 and combining e\u{301}",
        "\u{feff}BOM and \u{a0}nbsp and \u{200b}zero width",
    ];
    for t in texts {
        assert_eq!(html_to_text(t), t);
        let wrapped = format!("<div><p>{t}</p><script>x</script></div>");
        assert_eq!(html_to_text(&wrapped), t);
        // Tags touching multi-byte characters.
        let tight = format!("{t}<br>{t}");
        assert_eq!(html_to_text(&tight), format!("{t}\n{t}"));
    }
    // Non-ASCII in tag names and attributes.
    check(&[
        ("x<ü title='ß'>y</ü>z", "x<ü title='ß'>y</ü>z"),
        ("x<pé title='ß'>y</pé>z", "x y z"),
    ]);
}

// ---------------------------------------------------------------------------------
// looks_like_html.
// ---------------------------------------------------------------------------------

#[test]
fn looks_like_html_heuristic() {
    for html in [
        "<!DOCTYPE html><html></html>",
        "<html>",
        "text <p>para</p>",
        "line<br/>line",
        "<DIV CLASS=x>",
        "x <!-- comment --> y",
        "see <a href=\"x\">link</a>",
        "</span>",
    ] {
        assert!(looks_like_html(html), "{html:?}");
    }
    for text in [
        "",
        "plain text",
        "a < b > c",
        "Jane Doe <jane@example.org>",
        "<https://example.org/path>",
        "Vec<T> and HashMap<K, V>",
        "<3",
        "<<p",
        "x <paragraph> y",
        "Files: *\nCopyright: 2020 Foo <foo@bar.org>\nLicense: GPL-2+",
    ] {
        assert!(!looks_like_html(text), "{text:?}");
    }
}

#[test]
fn bundled_corpus_is_mostly_not_html() {
    // The bundled Debian copyright files are plain text: the heuristic should reject
    // nearly all of them. Skipped when the data file is absent.
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../data/debian-copyright.jsonl"
    );
    let Ok(data) = std::fs::read_to_string(path) else {
        return;
    };
    let lines: Vec<&str> = data.lines().collect();
    let flagged = lines.iter().filter(|l| looks_like_html(l)).count();
    assert!(lines.len() > 100);
    assert!(
        flagged * 20 < lines.len(),
        "{flagged} of {} flagged",
        lines.len()
    );
}

// ---------------------------------------------------------------------------------
// Properties.
// ---------------------------------------------------------------------------------

/// Escapes text so that it is HTML whose text is exactly `s`.
fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;")
}

/// Fragments that exercise the scanner's edge cases when concatenated.
const FRAGMENTS: &[&str] = &[
    "<",
    ">",
    "</",
    "/>",
    "<!",
    "<!--",
    "-->",
    "<?",
    "<![CDATA[",
    "]]>",
    "&",
    "&#",
    "&#x",
    ";",
    "amp",
    "lt",
    "nbsp",
    "65",
    "ff",
    "\"",
    "'",
    "=",
    " ",
    "\n",
    "a",
    "p",
    "script",
    "SCRIPT",
    "style",
    "iframe",
    "br",
    "div",
    "<a",
    "</a>",
    "<script>",
    "</script>",
    "<p>",
    "é",
    "日本",
    "🦀",
    "\u{0}",
    "\u{fffd}",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn arbitrary_strings_never_panic(s in any::<String>()) {
        let out = html_to_text(&s);
        prop_assert!(out.len() <= s.len());
        let _ = looks_like_html(&s);
        let _ = HtmlStripper::new().block_newlines(false).keep_all_content().strip(&s);
    }

    #[test]
    fn fragment_soup_never_panics(parts in proptest::collection::vec(proptest::sample::select(FRAGMENTS), 0..40)) {
        let s: String = parts.concat();
        let out = html_to_text(&s);
        // Decoding never grows the text: a reference is at least as long as its
        // UTF-8 (`&#0` to U+FFFD is 3 to 3) and markup becomes at most one byte.
        prop_assert!(out.len() <= s.len());
        let _ = looks_like_html(&s);
        let mut buf = String::from("x");
        html_to_text_into(&s, &mut buf);
        prop_assert!(buf.starts_with('x'));
        prop_assert_eq!(&buf[1..], out.as_str());
    }

    #[test]
    fn plain_text_is_unchanged(s in "[^<&]*") {
        prop_assert_eq!(html_to_text(&s), s.clone());
        prop_assert!(!looks_like_html(&s));
    }

    #[test]
    fn escaped_text_round_trips(s in any::<String>()) {
        let html = escape(&s);
        prop_assert_eq!(html_to_text(&html), s.clone());
        let wrapped = format!("<p>{html}</p>");
        prop_assert_eq!(html_to_text(&wrapped), s.clone());
        let comment: String = s.chars().filter(|&c| c != '-' && c != '>').collect();
        let with_junk = format!("<script>{html}</script>{html}<!--{comment}-->");
        prop_assert_eq!(html_to_text(&with_junk), s);
    }

    #[test]
    fn words_outside_tags_survive(words in proptest::collection::vec("[a-zA-Z0-9]{1,10}", 1..20)) {
        // Words joined by random tags keep their order and never merge.
        let tags = ["<b>", "</b>", "<br>", "<p class='x'>", "<span title=\"a>b\">", "<!-- c -->", "<a>drop</a>"];
        let mut html = String::new();
        for (i, w) in words.iter().enumerate() {
            html.push_str(tags[i % tags.len()]);
            html.push_str(w);
        }
        let text = html_to_text(&html);
        let got: Vec<&str> = text.split_whitespace().collect();
        let expected: Vec<&str> = words.iter().map(String::as_str).collect();
        prop_assert_eq!(got, expected);
    }
}
