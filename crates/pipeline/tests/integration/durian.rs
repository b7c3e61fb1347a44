//! The constrained grouping stage (`GroupMethod::Durian`) against connected
//! components on collections whose right answer is known by construction: sibling
//! campaigns on two dockets, a bridge document between two letters, the earliest
//! copy as the reference copy.
#![allow(clippy::unwrap_used)] // tests unwrap to fail loudly

use ndd_core::ErrorKind;
use ndd_pipeline::{Dedup, Document, DurianGrouping, Error, GroupMethod, OrderKey};

const LETTER_A: &str = "We urge the agency to adopt the strictest possible limits on mercury emissions from coal fired power plants. \
    Mercury poisons the fish our families eat and harms the development of children. \
    The technology to cut these emissions exists today and is affordable for every utility.";
const LETTER_B: &str = "Please raise the fuel economy standards for cars and light trucks to at least forty miles per gallon. \
    Better mileage saves drivers money at the pump and cuts our dependence on imported oil. \
    Automakers already sell efficient vehicles abroad and can do the same here.";

fn campaign(prefix: &str, text: &str, copies: usize, docket: &str) -> Vec<Document> {
    (0..copies)
        .map(|i| Document::new(format!("{prefix}-{i}"), text).with_attribute("docket", docket))
        .collect()
}

fn group_ids(docs: &[Document], out: &ndd_pipeline::Outcome) -> Vec<Vec<String>> {
    out.groups
        .iter()
        .map(|g| g.members.iter().map(|&m| docs[m].id.clone()).collect())
        .collect()
}

#[test]
fn sibling_campaigns_on_two_dockets_stay_apart() {
    // The same letter sent on another docket with one clause changed: by text alone
    // one campaign; by docket two.
    let sibling = LETTER_A.replace("coal fired power plants", "cement kilns and boilers");
    let mut docs = campaign("epa", LETTER_A, 7, "EPA-OAR-2002-0056");
    docs.extend(campaign("other", &sibling, 7, "EPA-HQ-OAR-2002-0051"));
    // An edited copy of each, citing its docket.
    docs.push(
        Document::new("epa-edit", format!("{LETTER_A} I live near a plant."))
            .with_attribute("docket", "EPA-OAR-2002-0056"),
    );
    docs.push(
        Document::new("other-edit", format!("{sibling} I live near a kiln."))
            .with_attribute("docket", "EPA-HQ-OAR-2002-0051"),
    );
    let base = Dedup::new().threshold(0.5);
    let components = base.clone().run(&docs).unwrap();
    assert_eq!(components.groups.len(), 1, "text alone joins the siblings");
    let plain = base
        .clone()
        .group(GroupMethod::Durian(DurianGrouping::new()))
        .run(&docs)
        .unwrap();
    let with_docket = base
        .group(GroupMethod::Durian(
            DurianGrouping::new().cannot_if_different("docket"),
        ))
        .run(&docs)
        .unwrap();
    let ids = group_ids(&docs, &with_docket);
    assert_eq!(ids.len(), 2, "{ids:?}");
    assert!(
        ids[0].iter().all(|id| id.starts_with("epa")) && ids[0].len() == 8,
        "{ids:?}"
    );
    assert!(
        ids[1].iter().all(|id| id.starts_with("other")) && ids[1].len() == 8,
        "{ids:?}"
    );
    // Each group is kept as its reference copy, the first of its 7 copies.
    assert_eq!(with_docket.groups[0].representative, 0);
    assert_eq!(with_docket.groups[0].copies, Some(7));
    // Without the docket rule the first reference copy takes the sibling campaign
    // (its distance is small): one group, as components.
    assert_eq!(plain.groups.len(), 1);
}

#[test]
fn a_bridge_document_does_not_chain_two_letters() {
    // Half of letter A followed by half of letter B: similar to both.
    let half = |t: &str, first: bool| {
        let w: Vec<&str> = t.split_whitespace().collect();
        let m = w.len() / 2;
        if first {
            w[..m].join(" ")
        } else {
            w[m..].join(" ")
        }
    };
    let bridge = format!("{} {}", half(LETTER_A, true), half(LETTER_B, false));
    let mut docs = campaign("a", LETTER_A, 6, "x");
    docs.push(Document::new("bridge", bridge));
    docs.extend(campaign("b", LETTER_B, 6, "x"));
    let base = Dedup::new().threshold(0.3);
    let components = base.clone().run(&docs).unwrap();
    let durian = base
        .group(GroupMethod::Durian(DurianGrouping::new()))
        .run(&docs)
        .unwrap();
    let a_group = |out: &ndd_pipeline::Outcome| out.group_of(0).map(|g| g.members.clone());
    let b_group = |out: &ndd_pipeline::Outcome| out.group_of(7).map(|g| g.members.clone());
    // The bridge chains the two letters into one component...
    assert_eq!(components.groups.len(), 1);
    assert_eq!(a_group(&components), b_group(&components));
    // ...which the clustering never does: each letter seeds its own group.
    assert_ne!(a_group(&durian), b_group(&durian));
    assert_eq!(durian.groups.len(), 2);
}

#[test]
fn the_reference_copy_is_the_earliest_copy() {
    let times = [5.0, 3.0, 9.0, 1.0, 7.0, 8.0];
    let mut docs: Vec<Document> = times
        .iter()
        .enumerate()
        .map(|(i, &t)| Document::new(format!("c{i}"), LETTER_B).with_order(OrderKey::Number(t)))
        .collect();
    // An edited copy: its candidate pair is with the first copy (c0), the one the
    // exact pass keeps; the reference copy (c3) must still reach it.
    docs.push(Document::new(
        "edit",
        format!("{LETTER_B} Thank you for reading."),
    ));
    let out = Dedup::new()
        .group(GroupMethod::Durian(DurianGrouping::new()))
        .run(&docs)
        .unwrap();
    assert_eq!(out.groups.len(), 1);
    assert_eq!(
        (out.groups[0].representative, out.groups[0].copies),
        (3, Some(6))
    );
    assert_eq!(out.groups[0].members, (0..7).collect::<Vec<_>>());
    // m = 6: six copies are not "more than m", so no reference copy; the group is
    // still found, kept by the representative policy (first seen).
    let out = Dedup::new()
        .group(GroupMethod::Durian(DurianGrouping::new().min_copies(6)))
        .run(&docs)
        .unwrap();
    assert_eq!(
        (out.groups[0].representative, out.groups[0].copies),
        (0, None)
    );
}

#[test]
fn without_the_exact_pass_groups_are_still_found() {
    let docs = campaign("a", LETTER_A, 6, "x");
    let out = Dedup::new()
        .exact_pass(false)
        .group(GroupMethod::Durian(DurianGrouping::new()))
        .run(&docs)
        .unwrap();
    assert_eq!(out.groups.len(), 1);
    assert_eq!(out.groups[0].members.len(), 6);
    assert_eq!(out.groups[0].copies, None);
}

#[test]
fn settings_are_checked_before_reading() {
    for bad in [
        DurianGrouping::new().theta(f64::NAN),
        DurianGrouping::new().theta(-1.0),
        DurianGrouping::new().family_alpha(f64::INFINITY),
        DurianGrouping::new().mu(0.0),
        DurianGrouping::new().must_overlap(1.5),
    ] {
        let err = Dedup::new()
            .group(GroupMethod::Durian(bad))
            .validate()
            .unwrap_err();
        assert!(
            matches!(&err, Error::Core(e) if e.kind() == ErrorKind::InvalidParameter),
            "{err}"
        );
    }
    assert!("durian".parse::<GroupMethod>().is_ok());
    assert!("single-link".parse::<GroupMethod>().is_err());
    // Empty input: no groups.
    let out = Dedup::new()
        .group(GroupMethod::Durian(DurianGrouping::new()))
        .run(&[])
        .unwrap();
    assert!(out.groups.is_empty());
}
