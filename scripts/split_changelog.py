#!/usr/bin/env python3
"""Writes each member crate's CHANGELOG.md from the workspace's root CHANGELOG.md.

Every entry of the root changelog that starts with a crate's name (- `ndd-lsh`: ...)
goes to that crate's changelog, under the same version heading, without the prefix.
Run from the repository root after editing CHANGELOG.md:

    python3 scripts/split_changelog.py
"""
import glob
import re

root = open("CHANGELOG.md").read()
parts = re.split(r"^## (.+)$", root, flags=re.M)
sections = [(parts[i].strip(), parts[i + 1]) for i in range(1, len(parts), 2)]


def entries(body):
    items, cur = [], None
    for line in body.split("\n"):
        if line.startswith("- "):
            if cur:
                items.append(cur)
            cur = line
        elif line.startswith("  ") and cur is not None:
            cur += "\n" + line
        else:
            if cur:
                items.append(cur)
            cur = None
    if cur:
        items.append(cur)
    return items


for toml in sorted(glob.glob("crates/*/Cargo.toml")):
    pkg = re.search(r'^name = "([^"]+)"', open(toml).read(), re.M).group(1)
    head = re.compile(r"^- `%s`(?: \(new\))?(?::\s*|'s )" % re.escape(pkg))
    out = [
        f"# Changelog of {pkg}",
        "",
        f"All notable changes to `{pkg}`, in the [Keep a Changelog](https://keepachangelog.com/en/1.1.0/) form.",
        "Changes to golden vectors (values that signatures, hashes or byte forms depend on) are",
        "marked **value-breaking**. Generated from the workspace's root `CHANGELOG.md` by",
        "`scripts/split_changelog.py`.",
        "",
    ]
    for title, body in sections:
        items = [head.sub("- ", e) for e in entries(body) if head.match(e)]
        out += [f"## [{title}]", ""]
        if title == "Unreleased":
            breaking = any("value-breaking" in e.lower() for e in items)
            out += [
                "Value-breaking: "
                + ("yes, in the entries that say so." if breaking else "no (golden vectors unchanged)."),
                "",
            ]
        out += items or ["- No change of its own (see the workspace changelog)."]
        out.append("")
    open(toml.replace("Cargo.toml", "CHANGELOG.md"), "w").write("\n".join(out))
