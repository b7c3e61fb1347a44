#!/usr/bin/env python3
"""Rustdoc examples are written as a user of the facade writes them.

Every crate the facade `near-dup` re-exports shows its rustdoc examples on the facade's
docs.rs pages, so an example must compile in a program whose only dependency is
`near-dup`: it names `near_dup::minhash::MinHasher`, not `ndd_minhash::MinHasher`, and
uses no dev-dependency (`tempfile`, ...). The member crates' doctests compile against the
facade (a path-only dev-dependency on `near-dup`), which proves the paths resolve; this
script proves no example still reaches a member crate by its own name, and that the
facade's front page (README.md) has no relative link, which is dead on docs.rs.

    scripts/check_doc_paths.py              # check; exit 1 with file:line of each finding
    scripts/check_doc_paths.py --fix        # rewrite `ndd_x::` to `near_dup::x::` in examples
    scripts/check_doc_paths.py --self-test  # the checks catch what they should
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
# The member crates the facade re-exports, by the facade's module name (ndd-core's items
# are at the facade's root).
CRATES = ["core", "shingle", "eval", "minhash", "lsh", "index", "simhash", "ncd", "imatch",
          "align", "cluster", "learn", "scale", "corpus", "pipeline", "report", "repeats"]
MEMBER_PATH = re.compile(r"\bndd_(" + "|".join(CRATES) + r")\b")
# Crates a facade user does not have. (`serde`/`serde_json` stay allowed: an example of
# the `serde` feature shows a program that has them.)
FOREIGN = re.compile(r"\b(tempfile|proptest|rand_chacha|criterion)::")
NON_RUST = {"text", "sh", "bash", "console", "json", "jsonl", "toml", "shell", "python",
            "mermaid", "csv", "html", "diff", "yaml", "none", "plain"}
REPO = "https://github.com/ndd-rs/ndd/blob/main/"


def facade_path(m: re.Match) -> str:
    return "near_dup" if m.group(1) == "core" else "near_dup::" + m.group(1)


def is_rust(info: str) -> bool:
    tags = [t.strip() for t in info.split(",") if t.strip()]
    return not any(t in NON_RUST for t in tags)


def example_lines(lines: list[str], doc_prefix: re.Pattern):
    """Yields (index, prefix length) of every line inside a Rust code block of a doc."""
    inside = rust = False
    for i, line in enumerate(lines):
        m = doc_prefix.match(line)
        if not m:
            inside = False  # the comment ended, and with it any block
            continue
        fence = re.match(r"\s*(```+|~~~+)(.*)$", line[m.end():])
        if fence:
            inside = not inside
            rust = inside and is_rust(fence.group(2))
            continue
        if inside and rust:
            yield i, m.end()


def doc_files():
    """(path, doc-comment prefix) of every file whose examples the facade shows."""
    for name in CRATES:
        crate = ROOT / "crates" / name
        for f in sorted((crate / "src").rglob("*.rs")):
            yield f, re.compile(r"^\s*//[/!] ?")
        readme = crate / "README.md"
        if readme.exists() and 'include_str!("../README.md")' in (crate / "src" / "lib.rs").read_text():
            yield readme, re.compile(r"^")
    yield ROOT / "README.md", re.compile(r"^")


def scan(text: str, prefix: re.Pattern, fix: bool):
    lines = text.split("\n")
    findings = []
    for i, start in example_lines(lines, prefix):
        body = lines[i][start:]
        if MEMBER_PATH.search(body):
            findings.append((i + 1, "names a member crate: " + body.strip()))
            if fix:
                lines[i] = lines[i][:start] + MEMBER_PATH.sub(facade_path, body)
        if FOREIGN.search(body):
            findings.append((i + 1, "uses a crate a facade user lacks: " + body.strip()))
    return findings, "\n".join(lines)


def readme_links(text: str) -> list[tuple[int, str]]:
    findings = []
    for n, line in enumerate(text.split("\n"), 1):
        for target in re.findall(r"\]\(([^)\s]+)\)", line) + re.findall(r"^\[[^\]]+\]:\s*(\S+)", line):
            if target.startswith("#") or re.match(r"[a-z]+:", target) and not target.startswith(REPO):
                continue
            if not target.startswith(REPO):
                findings.append((n, f"relative link (dead on docs.rs): {target}"))
            elif not (ROOT / target[len(REPO):].split("#")[0]).exists():
                findings.append((n, f"link to a file the repository lacks: {target}"))
    return findings


def self_test() -> int:
    doc = re.compile(r"^\s*//[/!] ?")
    sample = "\n".join([
        "/// ```", "/// use ndd_minhash::MinHasher;", "/// # let d = tempfile::tempdir()?;",
        "/// let e: ndd_core::Error;", "/// ```", "/// ```text", "/// ndd_lsh stays", "/// ```",
        "/// use ndd_lsh::X; // outside a block: prose"])
    found, fixed = scan(sample, doc, fix=True)
    ok = [n for n, _ in found] == [2, 3, 4]
    ok &= "use near_dup::minhash::MinHasher;" in fixed and "near_dup::Error" in fixed
    ok &= "ndd_lsh stays" in fixed and "use ndd_lsh::X; // outside" in fixed
    links = readme_links("[a](docs/x.md) [b](#top) [c](https://example.com) [d](" + REPO + "no/such.md)")
    ok &= [m.split(":")[0] for _, m in links] == ["relative link (dead on docs.rs)", "link to a file the repository lacks"]
    print("self-test", "passed" if ok else "FAILED")
    return 0 if ok else 1


def main() -> int:
    if "--self-test" in sys.argv:
        return self_test()
    fix = "--fix" in sys.argv
    bad = 0
    for path, prefix in doc_files():
        text = path.read_text()
        findings, fixed = scan(text, prefix, fix)
        if path == ROOT / "README.md":
            findings += readme_links(text)
        if fix and fixed != text:
            path.write_text(fixed)
        for line, what in findings:
            if not (fix and what.startswith("names a member crate")):
                bad += 1
                print(f"{path.relative_to(ROOT)}:{line}: {what}")
    if bad:
        print(f"{bad} finding(s): examples must compile for a program that depends only on near-dup")
        return 1
    print("rustdoc examples use the facade's paths; README links resolve")
    return 0


if __name__ == "__main__":
    sys.exit(main())
