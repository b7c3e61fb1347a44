#!/usr/bin/env python3
"""Build data/debian-copyright.jsonl from the Debian copyright files on this machine.

Every Debian package ships its copyright and license notice as
/usr/share/doc/<package>/copyright. This script collects those files into one
JSON Lines file, one object per line:

    {"id": "<package name>", "text": "<file content>"}

Selection rules (deterministic for a given set of installed packages):

* only regular directories: /usr/share/doc/<pkg> entries that are symbolic links
  to another package's directory (e.g. gcc-12 -> gcc-12-base) are skipped, so
  every record is a file that package ships itself;
* only files that decode as UTF-8 (strict) and are at most 64 KiB;
* as many records as fit in the size budget (default 3,000,000 bytes of output)
  are kept: candidates are taken smallest first (ties broken by package name)
  until the next one would exceed the budget, so the largest files are the ones
  left out; the kept records are then written sorted by package name (byte order);
* JSON is written with ensure_ascii=False (UTF-8 output, non-ASCII kept as is),
  compact separators, sorted output, "\n" line endings.

Usage:
    python3 data/make_debian_copyright.py [--doc-root /usr/share/doc]
        [--out data/debian-copyright.jsonl] [--max-bytes 3000000]
        [--max-file-bytes 65536]
"""

import argparse
import json
import os
import sys


def main() -> int:
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--doc-root", default="/usr/share/doc")
    ap.add_argument("--out", default=os.path.join(here, "debian-copyright.jsonl"))
    ap.add_argument("--max-bytes", type=int, default=3_000_000)
    ap.add_argument("--max-file-bytes", type=int, default=64 * 1024)
    args = ap.parse_args()

    stats = {"seen": 0, "symlink": 0, "missing": 0, "too_big": 0,
             "not_utf8": 0, "over_budget": 0}
    candidates = []
    for pkg in sorted(os.listdir(args.doc_root), key=lambda s: s.encode("utf-8")):
        pkg_dir = os.path.join(args.doc_root, pkg)
        path = os.path.join(pkg_dir, "copyright")
        if os.path.islink(pkg_dir):
            if os.path.isfile(path):
                stats["symlink"] += 1
            continue
        if not os.path.isfile(path):
            continue
        stats["seen"] += 1
        with open(path, "rb") as f:
            raw = f.read()
        if len(raw) > args.max_file_bytes:
            stats["too_big"] += 1
            continue
        try:
            text = raw.decode("utf-8", errors="strict")
        except UnicodeDecodeError:
            stats["not_utf8"] += 1
            continue
        line = json.dumps({"id": pkg, "text": text}, ensure_ascii=False,
                          separators=(",", ":")) + "\n"
        candidates.append((len(line.encode("utf-8")), pkg.encode("utf-8"), line))

    kept = []
    total = 0
    for size, key, line in sorted(candidates):
        if total + size > args.max_bytes:
            break
        kept.append((key, line))
        total += size
    stats["over_budget"] = len(candidates) - len(kept)
    lines = [line for _, line in sorted(kept)]

    with open(args.out, "w", encoding="utf-8", newline="\n") as f:
        f.writelines(lines)
    print(f"wrote {len(lines)} records, {total} bytes to {args.out}", file=sys.stderr)
    print("skipped: " + ", ".join(f"{k}={v}" for k, v in stats.items() if k != "seen")
          + f" (of {stats['seen']} regular package directories)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
