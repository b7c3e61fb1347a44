//! The page's structure, its data blob against the outcome, and hostile text.

use ndd_pipeline::{Dedup, Document};
use serde_json::Value;

use super::*;

/// The JSON blob of a page, decoded.
fn blob(html: &str) -> Value {
    let open = r#"<script type="application/json" id="ndd-data">"#;
    let start = html.find(open).expect("data element") + open.len();
    let len = html[start..].find("</script>").expect("end of data");
    serde_json::from_str(&html[start..start + len]).expect("the blob is JSON")
}

/// Elements opened and closed in a page, as a stack: every element the template
/// opens is closed in order (void elements aside), outside the script and style
/// bodies, which are raw text up to their own end tag.
fn check_well_formed(html: &str) {
    const VOID: [&str; 4] = ["meta", "input", "br", "hr"];
    let mut stack: Vec<String> = Vec::new();
    let mut rest = html.strip_prefix("<!DOCTYPE html>").expect("doctype first");
    while let Some(at) = rest.find('<') {
        rest = &rest[at + 1..];
        let end = rest.find('>').expect("a tag ends");
        let tag = &rest[..end];
        rest = &rest[end + 1..];
        if let Some(name) = tag.strip_prefix('/') {
            assert_eq!(stack.pop().as_deref(), Some(name), "closing {name}");
            continue;
        }
        let name: String = tag
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect();
        if VOID.contains(&name.as_str()) {
            continue;
        }
        if name == "script" || name == "style" {
            let close = format!("</{name}>");
            let body_end = rest.find(&close).expect("raw text ends");
            rest = &rest[body_end + close.len()..];
            continue;
        }
        stack.push(name);
    }
    assert!(stack.is_empty(), "left open: {stack:?}");
}

/// A count or offset of the blob.
fn n(v: &Value) -> usize {
    usize::try_from(v.as_u64().expect("a count")).expect("fits")
}

fn docs() -> Vec<Document> {
    vec![
        Document::new(
            "letter-1",
            "We support the rule.\n\nMercury harms children and the rivers they fish in.",
        ),
        Document::new(
            "other",
            "Completely unrelated text about the weather in spring.",
        ),
        Document::new(
            "letter-2",
            "We support the rule.\n\nMercury harms children and the rivers they fish in.\n\nSigned, a parent.",
        ),
        Document::new(
            "letter-3",
            "We support the rule.\n\nMercury harms children and the rivers they fish in.",
        ),
    ]
}

/// The page of a run over [`docs`] at threshold 0.6, with the run's outcome.
fn letters_page() -> (Vec<Document>, Outcome, Page) {
    let docs = docs();
    let dedup = Dedup::new().threshold(0.6);
    let outcome = dedup.run(&docs).expect("a run");
    let page = HtmlReport::new(&outcome, &docs).plan(&dedup).render();
    (docs, outcome, page)
}

#[test]
fn page_is_well_formed_and_self_contained() {
    let (_, _, page) = letters_page();
    check_well_formed(&page.html);
    // Nothing is fetched: no URL to another place, no external script or style.
    for needle in ["http://", "https://", "src=", "<link"] {
        assert!(!page.html.contains(needle), "{needle}");
    }
    // The size stated is the file's size.
    let meta = r#"<meta name="ndd-file-bytes" content=""#;
    let at = page.html.find(meta).unwrap() + meta.len();
    let digits: String = page.html[at..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    assert_eq!(digits.parse::<usize>().unwrap(), page.html.len());
}

#[test]
fn blob_holds_the_outcome_numbers() {
    let (docs, outcome, page) = letters_page();
    let data = blob(&page.html);
    let s = &data["summary"];
    assert_eq!(s["documents"], 4);
    assert_eq!(n(&s["kept"]), outcome.kept().len());
    assert_eq!(n(&s["dropped"]), outcome.dropped().len());
    assert_eq!(n(&s["groups"]), outcome.groups.len());
    assert_eq!(n(&s["pairs"]), outcome.pairs.len());
    assert_eq!(s["threshold"], 0.6);
    let bound = format!("at most {} members", ndd_pipeline::DEFAULT_MAX_BUCKET_SCAN);
    let settings = s["settings"].as_array().unwrap();
    assert!(
        settings
            .iter()
            .any(|kv| kv[0] == "bucket scan" && kv[1].as_str().unwrap().contains(&bound)),
        "{settings:?}"
    );
    // letter-3 is an exact copy of letter-1, letter-2 a near-duplicate.
    assert_eq!(
        (s["exact"].as_u64(), s["near"].as_u64()),
        (Some(1), Some(1))
    );
    // One group of three: kept letter-1; letter-2 adds a block.
    let groups = data["groups"].as_array().unwrap();
    assert_eq!(groups.len(), 1);
    let g = &groups[0];
    assert_eq!(g[1], 3);
    let id = |slot: &Value| data["docs"][n(slot)][0].clone();
    assert_eq!(id(&g[0]), "letter-1");
    let rows = g[2].as_array().unwrap();
    assert_eq!(rows[0][3], "kept");
    let l2 = rows.iter().find(|r| id(&r[0]) == "letter-2").unwrap();
    assert_eq!(
        (l2[2].as_str(), l2[3].as_str()),
        (Some("near"), Some("block-added"))
    );
    let l3 = rows.iter().find(|r| id(&r[0]) == "letter-3").unwrap();
    assert_eq!(l3[2], "exact");
    // The member's blocks rebuild its text, and the unique block is the signature.
    let text = docs[2].text.as_str();
    let blocks: Vec<usize> = serde_json::from_value(l2[6].clone()).unwrap();
    let mut rebuilt = String::new();
    let mut unique = Vec::new();
    for b in blocks.chunks(3) {
        let part = &text[b[1]..b[2]];
        rebuilt.push_str(part);
        if b[0] == 1 {
            unique.push(part);
        }
    }
    assert_eq!(rebuilt, text);
    assert_eq!(unique, ["Signed, a parent."]);
    // Plots: 50 score bins; one near pair at least; the group size 3 once.
    assert_eq!(data["plots"]["scores"].as_array().unwrap().len(), 50);
    assert_eq!(data["plots"]["sizes"], serde_json::json!([[3, 1]]));
    let bands = &data["plots"]["banding"];
    assert!(bands[0].as_u64().unwrap() >= 1 && bands[1].as_u64().unwrap() >= 1);
}

#[test]
fn hostile_text_cannot_leave_the_data() {
    let evil = "</script><script>alert(1)</script><!-- \u{2028} & </SCRIPT >";
    let docs = vec![
        Document::new(evil, format!("{evil} one two three four five")),
        Document::new("b\"'<>", format!("{evil} one two three four five")),
    ];
    let outcome = Dedup::new().run(&docs).unwrap();
    let page = HtmlReport::new(&outcome, &docs)
        .title(evil)
        .setting(evil, evil)
        .warning(evil)
        .render();
    // Exactly the template's scripts: two opened, two closed.
    let lower = page.html.to_ascii_lowercase();
    assert_eq!(lower.matches("<script").count(), 2);
    assert_eq!(lower.matches("</script").count(), 2);
    assert!(!page.html.contains("<!-- "));
    check_well_formed(&page.html);
    // And the text comes back whole from the blob.
    let data = blob(&page.html);
    assert_eq!(data["docs"][0][0], evil);
    assert_eq!(data["docs"][0][1], docs[0].text.as_str());
    assert_eq!(data["summary"]["warnings"][0], evil);
}

#[test]
fn text_is_cut_at_a_character_boundary_and_blocks_follow() {
    // Two-byte letters: a cut at an odd byte moves back to the boundary.
    let a = "é".repeat(40) + " shared words here and there";
    let b = "é".repeat(40) + " shared words here and elsewhere";
    let docs = vec![Document::new("a", a.clone()), Document::new("b", b.clone())];
    let outcome = Dedup::new().threshold(0.3).run(&docs).unwrap();
    assert_eq!(outcome.groups.len(), 1);
    let page = HtmlReport::new(&outcome, &docs).text_bytes(51).render();
    assert!(page.cut);
    let data = blob(&page.html);
    let shown = data["docs"][0][1].as_str().unwrap();
    assert_eq!(shown, "é".repeat(25));
    assert_eq!(n(&data["docs"][0][2]), a.len());
    // Block offsets are UTF-16 units within the text shown.
    let rows = &data["groups"][0][2];
    let blocks: Vec<usize> = serde_json::from_value(rows[1][5].clone()).unwrap();
    assert!(blocks.chunks(3).all(|bl| bl[2] <= 25));
    assert_eq!(blocks.last(), Some(&25));
}

#[test]
fn a_full_page_keeps_the_largest_groups() {
    let mut texts = vec!["alpha beta gamma delta"; 5];
    texts.extend(["one two three four"; 2]);
    texts.extend(["five six seven eight"; 3]);
    let outcome = Dedup::new().run_texts(&texts).unwrap();
    assert_eq!(outcome.groups.len(), 3);
    let page = HtmlReport::from_parts(&outcome, vec![], vec![])
        .page_bytes(1)
        .render();
    assert_eq!((page.groups_shown, page.groups_total), (1, 3));
    let data = blob(&page.html);
    assert_eq!(data["groups"][0][1], 5);
    assert_eq!(data["summary"]["groups_shown"], 1);
    assert_eq!(data["summary"]["cut"], true);
    // All of them fit by default, largest first.
    let all = blob(
        &HtmlReport::from_parts(&outcome, vec![], vec![])
            .render()
            .html,
    );
    let sizes: Vec<u64> = all["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g[1].as_u64().unwrap())
        .collect();
    assert_eq!(sizes, [5, 3, 2]);
}

#[test]
fn script_safe_keeps_the_json_value() {
    let value = serde_json::json!({ "s": "</script>&<!--\u{2028}\u{2029}" });
    let safe = script_safe(&value.to_string());
    assert!(!safe.contains(['<', '>', '&', '\u{2028}', '\u{2029}']));
    assert_eq!(serde_json::from_str::<Value>(&safe).unwrap(), value);
}

#[test]
fn a_page_from_the_outputs_agrees_with_the_page_of_the_run() {
    // The same run, once from its outcome and once from its groups and pairs only (what
    // --clusters-out and --pairs-out keep): the fates, groups and diffs agree. Keeping
    // the longest letter (letter-2) leaves letter-1 a near-duplicate and letter-3, its
    // copy, an exact copy of a text the group does not keep: both pages count one of
    // each, as `Fate::of_member` says.
    let docs = docs();
    for (representative, exact_near) in [
        (ndd_pipeline::Representative::FirstSeen, None),
        (ndd_pipeline::Representative::Longest, Some((1, 1))),
    ] {
        let outcome = Dedup::new()
            .threshold(0.6)
            .representative(representative)
            .run(&docs)
            .unwrap();
        let ids: Vec<&str> = docs.iter().map(|d| d.id.as_str()).collect();
        let texts: Vec<Option<&str>> = docs.iter().map(|d| Some(d.text.as_str())).collect();
        let from_run = blob(&HtmlReport::new(&outcome, &docs).render().html);
        let from_outputs = blob(
            &HtmlReport::from_groups(&outcome.groups, &outcome.pairs, ids, texts)
                .render()
                .html,
        );
        for key in [
            "documents",
            "kept",
            "unique",
            "kept_for_group",
            "exact",
            "near",
            "dropped",
            "groups",
            "grouped",
            "pairs",
            "bytes",
        ] {
            assert_eq!(
                from_outputs["summary"][key], from_run["summary"][key],
                "{key}"
            );
        }
        if let Some((exact, near)) = exact_near {
            let s = &from_outputs["summary"];
            assert_eq!((n(&s["exact"]), n(&s["near"])), (exact, near));
        }
        assert_eq!(from_outputs["groups"], from_run["groups"]);
        assert_eq!(from_outputs["docs"], from_run["docs"]);
        assert_eq!(from_outputs["plots"]["scores"], from_run["plots"]["scores"]);
    }
}
