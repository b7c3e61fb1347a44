#!/usr/bin/env python3
"""Writes the shard fixtures of ndd-corpus's tests with other implementations than
ours: Parquet files by pyarrow, .jsonl.zst files by the `zstd` command.

    python3 -m venv /tmp/venv && /tmp/venv/bin/pip install pyarrow
    /tmp/venv/bin/python scripts/make_shard_fixtures.py

Output: crates/corpus/tests/fixtures/shards/ (committed; tests do not need pyarrow).
"""
import json
import pathlib
import shutil
import subprocess

import pyarrow as pa
import pyarrow.parquet as pq

OUT = pathlib.Path(__file__).resolve().parent.parent / "crates/corpus/tests/fixtures/shards"

FOX = "the quick brown fox jumps over the lazy dog near the river bank"
ROWS = [
    # id, text, lang, score, tags: the two foxes are exact copies.
    ("p1", FOX, "en", 0.5, ["a", "b"]),
    ("p2", "a completely different sentence about parquet files", None, 1.25, []),
    ("p3", FOX, "fr", None, ["c"]),
    ("p4", "yet another text that shares nothing with the others", "de", 3.0, None),
]
MORE = [
    ("q1", FOX, "en", 7.0, ["d"]),
    ("q2", "the last document of the second shard stands alone", "en", 8.5, []),
]


def table(rows, dictionary=False):
    ids, texts, langs, scores, tags = zip(*rows)
    text = pa.array(texts, pa.string())
    if dictionary:
        text = text.dictionary_encode()
    return pa.table(
        {
            "id": pa.array(ids, pa.string()),
            "text": text,
            "lang": pa.array(langs, pa.string()),
            "score": pa.array(scores, pa.float64()),
            "tags": pa.array(tags, pa.list_(pa.string())),
        }
    )


def main():
    if OUT.exists():
        shutil.rmtree(OUT)
    (OUT / "parquet").mkdir(parents=True)
    (OUT / "zst").mkdir(parents=True)
    # Two shards, small row groups (two rows each) so that row groups are crossed.
    pq.write_table(table(ROWS), OUT / "parquet/part-0.parquet", row_group_size=2, compression="snappy")
    pq.write_table(table(MORE), OUT / "parquet/part-1.parquet", compression="zstd")
    # One file whose text column is dictionary-typed (a pandas categorical).
    pq.write_table(table(ROWS, dictionary=True), OUT / "dictionary.parquet", compression="gzip")
    # A text column of the wrong type.
    pq.write_table(pa.table({"text": pa.array([1, 2], pa.int64())}), OUT / "int_text.parquet")
    for name, rows in [("part-0.jsonl.zst", ROWS), ("part-1.jsonl.zst", MORE)]:
        lines = "".join(
            json.dumps({"id": r[0], "text": r[1], "lang": r[2], "score": r[3], "tags": r[4]}) + "\n"
            for r in rows
        )
        subprocess.run(["zstd", "-q", "-19", "-o", str(OUT / "zst" / name)], input=lines.encode(), check=True)


if __name__ == "__main__":
    main()
