#!/usr/bin/env python3
"""Bytes per document of each section of a saved index's segment file (the folder
form, `ndd dedup --index-out DIR/`), for segment versions 1 and 2
(crates/pipeline/src/persist/segments.rs and records.rs). docs/performance.md, "The
saved index in a compact record", was measured with it.

Usage: scripts/index_sections.py DIR/segment-00000001.ndds
"""
import struct
import sys


class Reader:
    def __init__(self, data):
        self.b, self.p = data, 6

    def u64(self):
        v = struct.unpack_from("<Q", self.b, self.p)[0]
        self.p += 8
        return v

    def u32(self):
        self.p += 4

    def u8(self):
        self.p += 1
        return self.b[self.p - 1]

    def skip(self, n):
        self.p += n

    def blob(self):
        self.skip(self.u64())


def marker(r, out):
    """Records in `out` a section's name and its bytes, from `start` to here."""
    return lambda name, start: out.append((name, r.p - start))


def header(r, mark):
    """The segment header every version starts with; returns its document count."""
    s = r.p
    r.u64(), r.u64()
    count = r.u64()
    mark("header (generation, first document, count)", s)
    return count


def sections_v1(r, out):
    mark = marker(r, out)
    count = header(r, mark)
    s = r.p
    for _ in range(count):
        r.blob()
    mark("ids (8-byte length + UTF-8)", s)
    s = r.p
    r.skip(8 * r.u64())
    mark("group labels (u64)", s)
    s = r.p
    r.skip(8 * r.u64())
    mark("label changes", s)
    s = r.p
    for _ in range(r.u64()):
        r.blob()
        r.u32()
    mark("digests (8-byte length + 20 + u32 document)", s)
    s = r.p
    if r.u8():
        r.skip(8 * r.u64())
    mark("set sizes (u64)", s)
    s = r.p
    for _ in range(r.u64()):
        r.u32()
        r.skip(8 * r.u64())
    mark("signatures (u32 key + 8-byte length + num_perm x 8)", s)
    s = r.p
    if r.u8():
        r.skip(8 * r.u64())
    mark("shingle sets (u64)", s)
    return count


def sections_v2(r, out):
    mark = marker(r, out)
    count = header(r, mark)
    for name in ["ids (LEB128 length + UTF-8)", "group labels (LEB128 distance)",
                 "sketched bitmap"]:
        s = r.p
        r.blob()
        mark(name, s)
    s = r.p
    r.u64()
    r.blob()
    mark("digests (LEB128 gap + 20)", s)
    s = r.p
    if r.u8():
        r.blob()
    mark("set sizes (LEB128)", s)
    s = r.p
    if r.u8():
        r.skip(8 * r.u64())
        r.u64()
        mark("shingle sets (u64) + check", s)
    else:
        r.blob()
        mark("signatures (num_perm x 8 per sketched document)", s)
    s = r.p
    r.skip(8 * r.u64())
    mark("label changes", s)
    return count


def main():
    data = open(sys.argv[1], "rb").read()
    if data[:4] != b"NDDS":
        sys.exit("not a segment file")
    version = struct.unpack_from("<H", data, 4)[0]
    r, out = Reader(data), []
    count = (sections_v1 if version == 1 else sections_v2)(r, out)
    r.skip(8)
    out.append(("magic, version, checksum", 14))
    assert r.p == len(data), (r.p, len(data))
    print(f"segment version {version}, {count:,} documents")
    print("| section | bytes | per document |\n| --- | ---: | ---: |")
    for name, n in out:
        print(f"| {name} | {n:,} | {n / max(count, 1):.1f} |")
    print(f"| total | {len(data):,} | {len(data) / max(count, 1):.1f} |")


main()
