#!/usr/bin/env python3
"""Build labeled near-duplicate sets from real text whose labels come from provenance.

Nothing here is generated: every text is real, and every label says where the text came
from, not what a generator did to it (issue 29, "Defaults that win on real data").

Sets written under data/labeled/ (one JSON object a line: {"id","text","label"}):

  debian-descriptions.jsonl
      The long descriptions of Debian 12 "bookworm" (main, amd64) binary packages,
      labeled by the source package they are built from. Binaries of one source share
      their description's common paragraph and differ in the package-specific one
      (library, headers, documentation, tools): the positives. Hard negatives come from
      sibling source packages: sources whose names differ only in a version or in a
      suffix after the same stem (gcc-12 / gcc-13, llvm-toolchain-14 / -15,
      golang-github-foo-* ...), whose descriptions are near-copies of each other yet
      belong to different sources.
      Inputs: a private `apt-get update` (lists in --apt-dir, the system's apt state is
      not touched) giving the `Packages` index (Package, Source, Description-md5) and
      the `Translation-en` index (the long descriptions by Description-md5).

  dep5-licenses.jsonl
      The license paragraphs of machine-readable (DEP-5) Debian copyright files, labeled
      by the license they name (the paragraph's `License:` short name, normalized:
      case folded, `GPL-2.0+` = `GPL-2+` = `GPL-2.0-or-later`). Different packages quote
      the same license with different wrapping, preambles ("On Debian systems ...") and
      omissions: the positives; licenses that differ in one number or one clause
      (GPL-2+ / GPL-3+ / LGPL-2.1+, BSD-2-clause / BSD-3-clause) are the hard negatives.
      Input: data/debian-copyright.jsonl (the committed copyright files of 562 packages).

Rules shared by both sets (so that the sets are about near-duplicates, not copies, and
so that no pair's label is ambiguous):
  * texts are compared after collapsing whitespace; a text that occurs under two labels
    is dropped everywhere; under one label it is kept once;
  * clusters are capped (--max-cluster, --max-license-cluster; seeded sample) so that no single source or
    license dominates the pair counts;
  * everything is sorted and sampled with a seeded random.Random, so the same inputs
    give byte-identical outputs; data/labeled/manifest.json records the inputs' SHA-256,
    the options and each output's SHA-256 and counts.

Usage:
  python3 scripts/make_real_labeled.py                 # apt-get update (root) + both sets
  python3 scripts/make_real_labeled.py --no-apt        # reuse --apt-dir's lists
Standard library only; network only for apt-get (Debian's mirror).
"""
import argparse
import glob
import hashlib
import json
import os
import random
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "data", "labeled")
COPYRIGHT = os.path.join(ROOT, "data", "debian-copyright.jsonl")


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def apt_update(apt_dir):
    """A private apt-get update that also fetches the English long descriptions."""
    lists = os.path.join(apt_dir, "lists")
    os.makedirs(os.path.join(lists, "partial"), exist_ok=True)
    os.makedirs(os.path.join(apt_dir, "cache"), exist_ok=True)
    conf = os.path.join(apt_dir, "apt-lang.conf")
    with open(conf, "w") as f:
        f.write('#clear Acquire::Languages;\nAcquire::Languages { "en"; };\n')
    cmd = ["apt-get", "update", "-q",
           "-o", "Dir::State::Lists=" + lists,
           "-o", "Dir::Cache=" + os.path.join(apt_dir, "cache"),
           "-o", "Debug::NoLocking=1",
           "-c", conf]
    print("running:", " ".join(cmd), file=sys.stderr)
    subprocess.run(cmd, check=True, stdout=sys.stderr)


def read_index(path):
    """An apt index file (any compression apt knows) as text."""
    out = subprocess.run(["/usr/lib/apt/apt-helper", "cat-file", path],
                         check=True, stdout=subprocess.PIPE).stdout
    return out.decode("utf-8", "replace")


def stanzas(text):
    """Deb822 stanzas as lists of (field, value lines)."""
    for block in text.split("\n\n"):
        fields = []
        for line in block.split("\n"):
            if not line:
                continue
            if line[0] in " \t" and fields:
                fields[-1][1].append(line)
            elif ":" in line:
                k, v = line.split(":", 1)
                fields.append((k.strip(), [v.strip()]))
        if fields:
            yield fields


def field(fields, name):
    for k, v in fields:
        if k.lower() == name.lower():
            return v
    return None


def unfold(lines):
    """A deb822 multi-line value: continuation lines unindented, ' .' as a blank line."""
    out = [lines[0]]
    for line in lines[1:]:
        body = line[1:] if line[:1] in " \t" else line
        out.append("" if body.strip() == "." else body)
    return "\n".join(out).strip()


def squash(t):
    return " ".join(t.split())


def one_index(apt_dir, pattern):
    files = sorted(glob.glob(os.path.join(apt_dir, "lists", pattern)))
    files = [f for f in files if "_dists_bookworm_main_" in f]
    if len(files) != 1:
        sys.exit("expected one bookworm main %s under %s/lists, found %d: run without --no-apt"
                 % (pattern, apt_dir, len(files)))
    return files[0]


def family_of(source):
    """The stem sibling sources share: trailing version numbers and the last dash-separated
    word dropped (gcc-12 -> gcc, llvm-toolchain-15 -> llvm-toolchain,
    golang-github-foo-bar -> golang-github-foo)."""
    s = re.sub(r"[-.]?[0-9][0-9.]*$", "", source)
    if s != source:
        return s
    return source.rsplit("-", 1)[0] if "-" in source else source


def cap_and_sample(clusters, max_cluster, rng):
    """Each cluster (label -> sorted texts) cut to max_cluster texts by a seeded sample."""
    out = {}
    for label in sorted(clusters):
        texts = clusters[label]
        if len(texts) > max_cluster:
            texts = sorted(rng.sample(texts, max_cluster))
        out[label] = texts
    return out


def unique_by_label(pairs):
    """(label, text) pairs -> label -> sorted distinct texts, dropping any text (after
    whitespace collapsing) found under two labels. Returns (clusters, dropped count)."""
    labels_of = {}
    first = {}
    for label, text in pairs:
        key = squash(text)
        if not key:
            continue
        labels_of.setdefault(key, set()).add(label)
        first.setdefault((key, label), text)
    clusters = {}
    dropped = 0
    for (key, label), text in sorted(first.items()):
        if len(labels_of[key]) > 1:
            dropped += 1
            continue
        clusters.setdefault(label, []).append(text)
    for label in clusters:
        clusters[label].sort()
    return clusters, dropped


def debian_descriptions(apt_dir, args, rng):
    packages = one_index(apt_dir, "*_binary-amd64_Packages*")
    translation = one_index(apt_dir, "*_i18n_Translation-en*")
    long_desc = {}
    for st in stanzas(read_index(translation)):
        md5 = field(st, "Description-md5")
        desc = field(st, "Description-en")
        if md5 and desc:
            long_desc[md5[0]] = unfold(desc)
    pairs = []
    for st in stanzas(read_index(packages)):
        pkg = field(st, "Package")
        md5 = field(st, "Description-md5")
        if not pkg or not md5 or md5[0] not in long_desc:
            continue
        src = field(st, "Source")
        source = src[0].split()[0] if src else pkg[0]
        text = long_desc[md5[0]]
        # A synopsis alone (no long description body) says too little to compare.
        if "\n" not in text:
            continue
        pairs.append((source, text))
    clusters, dropped = unique_by_label(pairs)
    clusters = {k: v for k, v in clusters.items() if len(v) >= 2}
    clusters = cap_and_sample(clusters, args.max_cluster, rng)
    # Sibling sources first (they carry the hard negatives), then a seeded sample of the
    # rest, until the document budget is spent.
    families = {}
    for source in sorted(clusters):
        families.setdefault(family_of(source), []).append(source)
    sibling_sources = sorted(s for f in families.values() if len(f) >= 2 for s in f)
    others = sorted(s for f in families.values() if len(f) == 1 for s in f)
    rng.shuffle(sibling_sources)
    rng.shuffle(others)
    chosen, n = [], 0
    for source in sibling_sources[: len(sibling_sources)] + others:
        if n >= args.max_docs:
            break
        if source in sibling_sources and n >= args.max_docs * args.sibling_share:
            continue
        chosen.append(source)
        n += len(clusters[source])
    records = []
    for source in sorted(chosen):
        for i, text in enumerate(clusters[source]):
            records.append({"id": "deb:%s:%d" % (source, i), "text": text, "label": source})
    info = {
        "inputs": {os.path.basename(packages): sha256_file(packages),
                   os.path.basename(translation): sha256_file(translation)},
        "texts_in_two_sources_dropped": dropped,
        "clusters": len(chosen),
        "sibling_families": len({family_of(s) for s in chosen
                                 if len(families[family_of(s)]) >= 2}),
    }
    return records, info


LICENSE_ALIASES = [
    (r"-or-later$", "+"),
    (r"\+?-only$", ""),
    (r"(\d)\.0(?=\+|$)", r"\1"),
    (r"(\d)\.0(?=\+|$)", r"\1"),
    (r"^bsd-(\d)$", r"bsd-\1-clause"),
    (r"^expat$", "mit"),
]


def normalize_license(name):
    """A license short name, case folded, with the spellings of one license made one;
    None for expressions naming several licenses (ambiguous labels)."""
    n = name.strip().lower()
    if not n or re.search(r"\s(or|and|with)\s|[,|&]", n):
        return None
    for pat, rep in LICENSE_ALIASES:
        n = re.sub(pat, rep, n)
    return n


def dep5_licenses(args, rng):
    pairs = []
    with open(COPYRIGHT, encoding="utf-8") as f:
        for line in f:
            rec = json.loads(line)
            text = rec["text"]
            if not text.startswith("Format:"):
                continue
            for st in stanzas(text):
                lic = field(st, "License")
                if not lic or len(lic) < 2:
                    continue
                label = normalize_license(lic[0])
                body = unfold([""] + lic[1:])
                if label and len(body.split()) >= args.min_words:
                    pairs.append((label, body))
    clusters, dropped = unique_by_label(pairs)
    clusters = cap_and_sample(clusters, args.max_license_cluster, rng)
    records = []
    for label in sorted(clusters):
        for i, text in enumerate(clusters[label]):
            records.append({"id": "lic:%s:%d" % (label, i), "text": text, "label": label})
    info = {
        "inputs": {"data/debian-copyright.jsonl": sha256_file(COPYRIGHT)},
        "texts_under_two_licenses_dropped": dropped,
        "clusters": len(clusters),
    }
    return records, info


def write(name, records):
    path = os.path.join(OUT, name)
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        for r in records:
            f.write(json.dumps(r, ensure_ascii=False, separators=(",", ":"), sort_keys=True))
            f.write("\n")
    sizes = {}
    for r in records:
        sizes[r["label"]] = sizes.get(r["label"], 0) + 1
    true_pairs = sum(s * (s - 1) // 2 for s in sizes.values())
    return {
        "file": "data/labeled/" + name,
        "sha256": sha256_file(path),
        "bytes": os.path.getsize(path),
        "documents": len(records),
        "labels": len(sizes),
        "labels_with_2_or_more": sum(1 for s in sizes.values() if s >= 2),
        "true_pairs": true_pairs,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--apt-dir", default="/tmp/ndd-labels",
                    help="private apt lists and cache (outside the repository)")
    ap.add_argument("--no-apt", action="store_true", help="reuse --apt-dir, no apt-get update")
    ap.add_argument("--seed", type=int, default=29)
    ap.add_argument("--max-docs", type=int, default=4000,
                    help="documents in the Debian descriptions set (about)")
    ap.add_argument("--sibling-share", type=float, default=0.6,
                    help="at most this share of them from sibling-source families")
    ap.add_argument("--max-cluster", type=int, default=8, help="texts per label at most")
    ap.add_argument("--max-license-cluster", type=int, default=30,
                    help="license texts per license name at most")
    ap.add_argument("--min-words", type=int, default=8,
                    help="license paragraphs shorter than this are left out")
    args = ap.parse_args()
    os.makedirs(OUT, exist_ok=True)
    if not args.no_apt:
        apt_update(args.apt_dir)
    manifest = {"script": "scripts/make_real_labeled.py", "seed": args.seed,
                "options": {"max_docs": args.max_docs, "sibling_share": args.sibling_share,
                            "max_cluster": args.max_cluster,
                            "max_license_cluster": args.max_license_cluster,
                            "min_words": args.min_words},
                "sets": {}}
    recs, info = debian_descriptions(args.apt_dir, args, random.Random(args.seed))
    info.update(write("debian-descriptions.jsonl", recs))
    manifest["sets"]["debian-descriptions"] = info
    recs, info = dep5_licenses(args, random.Random(args.seed))
    info.update(write("dep5-licenses.jsonl", recs))
    manifest["sets"]["dep5-licenses"] = info
    with open(os.path.join(OUT, "manifest.json"), "w", encoding="utf-8", newline="\n") as f:
        json.dump(manifest, f, indent=2, sort_keys=True)
        f.write("\n")
    json.dump(manifest, sys.stderr, indent=2, sort_keys=True)
    print(file=sys.stderr)


if __name__ == "__main__":
    main()
