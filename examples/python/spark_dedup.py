#!/usr/bin/env python3
"""Near-duplicate detection of a corpus on Spark with near_dup: `ndd dedup`'s groups
(the MinHash method, connected components, the first-seen document kept) from a job
that runs on any number of executors.

Every stage is near_dup's (ndd's crates); Spark only moves the data between them:

1. Read JSONL or Parquet (`id`, `text`); each record gets its input position.
2. Exact pass (`near_dup.exact_digests`, per partition): the first document of each
   digest is kept, the others are its copies (pairs) and stay out of the buckets.
3. Sketch and band keys (`near_dup.sketch`, `near_dup.band_keys`, per partition,
   mapInArrow): one row per (band, key, position).
4. Group by (band, key): each member is paired with at most `max_bucket_scan` (256)
   earlier members, the newest first, as ndd's in-memory index walks a bucket.
5. Verify the distinct candidate pairs on their texts (`near_dup.verify`, exact
   Jaccard of the shingle sets, per partition).
6. Connected components of the verified and exact pairs by iterated joins (min-label
   propagation: a group's label is its smallest position, the document kept).
7. Write the kept records (JSON lines) and every document's cluster (`id`, `cluster`:
   the kept document's position, as `ndd dedup --clusters-out`).

The in-memory pipeline also drops, before exact verification, candidates whose
MinHash estimate lies many standard errors below the threshold (a shortcut that
changes no group unless a pair's estimate is implausibly far off); this job verifies
every candidate exactly. Usage:

    spark-submit examples/python/spark_dedup.py -i data/debian-copyright.jsonl -o out/
    python examples/python/spark_dedup.py -i corpus.parquet -o out/ --master 'local-cluster[2,1,1024]'
"""

import argparse
import sys

import numpy as np
import pyarrow as pa
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

import near_dup

MAX_BUCKET_SCAN = 256


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("-i", "--input", required=True, help="JSONL (.jsonl, .json, .gz) or Parquet (.parquet, a folder of them)")
    p.add_argument("-o", "--out", required=True, help="output folder: kept/ (JSON lines) and clusters/ (TSV with a header)")
    p.add_argument("-t", "--threshold", type=float, default=0.8)
    p.add_argument("--num-perm", type=int, default=128)
    p.add_argument("--k", type=int, default=None, help="word k-grams (ndd's default 3)")
    p.add_argument("--char-k", type=int, default=None, help="character k-grams instead of words")
    p.add_argument("--format", choices=["jsonl", "parquet"], default=None, help="default: from the input's name")
    p.add_argument("--master", default=None, help="Spark master (default: spark-submit's)")
    p.add_argument("--partitions", type=int, default=None, help="partitions of the documents (default: Spark's)")
    return p.parse_args(argv)


def read_corpus(spark, path, fmt):
    """Records with their input positions: (pos, id, text)."""
    fmt = fmt or ("parquet" if path.rstrip("/").endswith(".parquet") else "jsonl")
    df = spark.read.parquet(path) if fmt == "parquet" else spark.read.json(path)
    rows = df.select(F.col("id").cast("string").alias("id"), F.col("text").cast("string").alias("text"))
    indexed = rows.rdd.zipWithIndex().map(lambda r: (r[1], r[0][0], r[0][1]))
    return spark.createDataFrame(indexed, "pos long, id string, text string")


def with_digests(batches):
    for b in batches:
        texts = b.column("text").to_pylist()
        digests = near_dup.exact_digests(texts)
        yield pa.RecordBatch.from_arrays(
            [b.column("pos"), pa.array(digests, pa.binary())], names=["pos", "digest"]
        )


def band_rows(num_perm, threshold, k, char_k):
    def run(batches):
        for b in batches:
            if b.num_rows == 0:
                continue
            texts = b.column("text").to_pylist()
            sig = near_dup.sketch(texts, num_perm=num_perm, k=k, char_k=char_k)
            keys = near_dup.band_keys(sig, threshold=threshold)
            n, bands = keys.shape
            pos = np.asarray(b.column("pos").to_numpy(zero_copy_only=False), dtype=np.int64)
            yield pa.RecordBatch.from_arrays(
                [
                    pa.array(np.tile(np.arange(bands, dtype=np.int32), n)),
                    pa.array(keys.reshape(-1).view(np.int64)),
                    pa.array(np.repeat(pos, bands)),
                ],
                names=["band", "key", "pos"],
            )

    return run


def bucket_pairs(rows):
    """Each member of a bucket with at most MAX_BUCKET_SCAN earlier members, the newest first."""
    for row in rows:
        members = sorted(row["members"])
        for i, b in enumerate(members):
            for a in members[max(0, i - MAX_BUCKET_SCAN) : i]:
                yield (a, b)


def verifier(threshold, k, char_k):
    def run(batches):
        for b in batches:
            if b.num_rows == 0:
                continue
            ta, tb = b.column("text_a").to_pylist(), b.column("text_b").to_pylist()
            n = len(ta)
            kept, _scores = near_dup.verify(
                ta + tb, [(i, n + i) for i in range(n)], threshold=threshold, verify="jaccard", k=k, char_k=char_k
            )
            rows = kept[:, 0]
            yield pa.RecordBatch.from_arrays(
                [pa.array(b.column("a").to_numpy()[rows]), pa.array(b.column("b").to_numpy()[rows])],
                names=["a", "b"],
            )

    return run


def components(edges):
    """Min-label propagation over undirected edges (a, b) by iterated joins: each
    vertex's label becomes the smallest label among itself and its neighbours until
    none changes. Returns (v, label) for every vertex with an edge."""
    both = edges.select(F.col("a").alias("src"), F.col("b").alias("dst")).union(
        edges.select(F.col("b").alias("src"), F.col("a").alias("dst"))
    ).localCheckpoint()
    labels = both.select(F.col("src").alias("v")).distinct().withColumn("label", F.col("v")).localCheckpoint()
    while True:
        offered = both.join(labels, both.src == labels.v).select(F.col("dst").alias("v"), "label")
        new = labels.union(offered).groupBy("v").agg(F.min("label").alias("label")).localCheckpoint()
        changed = new.alias("n").join(labels.alias("o"), "v").where(F.col("n.label") < F.col("o.label")).count()
        labels = new
        if changed == 0:
            return labels


def run(spark, args):
    docs = read_corpus(spark, args.input, args.format)
    if args.partitions:
        docs = docs.repartition(args.partitions)
    docs = docs.localCheckpoint()

    # 2. Exact pass.
    digests = docs.mapInArrow(with_digests, "pos long, digest binary")
    first = digests.groupBy("digest").agg(F.min("pos").alias("first"))
    copies = digests.join(first, "digest")
    exact_edges = copies.where(F.col("pos") != F.col("first")).select(F.col("first").alias("a"), F.col("pos").alias("b"))
    unique = docs.join(copies.where(F.col("pos") == F.col("first")).select("pos"), "pos")

    # 3-4. Band keys, buckets, candidate pairs.
    keys = unique.mapInArrow(band_rows(args.num_perm, args.threshold, args.k, args.char_k), "band int, key long, pos long")
    buckets = keys.groupBy("band", "key").agg(F.collect_list("pos").alias("members")).where(F.size("members") > 1)
    candidates = spark.createDataFrame(buckets.rdd.mapPartitions(bucket_pairs), "a long, b long").distinct()

    # 5. Verification on the texts.
    texts = docs.select("pos", "text")
    joined = (
        candidates.join(texts.select(F.col("pos").alias("a"), F.col("text").alias("text_a")), "a")
        .join(texts.select(F.col("pos").alias("b"), F.col("text").alias("text_b")), "b")
    )
    verified = joined.mapInArrow(verifier(args.threshold, args.k, args.char_k), "a long, b long")

    # 6. Groups.
    labels = components(exact_edges.union(verified))

    # 7. Outputs.
    clusters = docs.join(labels.withColumnRenamed("v", "pos"), "pos", "left").select(
        "pos", "id", "text", F.coalesce("label", "pos").alias("cluster")
    )
    clusters.where(F.col("cluster") == F.col("pos")).orderBy("pos").select("id", "text").write.mode(
        "overwrite"
    ).json(f"{args.out}/kept")
    clusters.orderBy("pos").select("id", "cluster").write.mode("overwrite").option("sep", "\t").option(
        "header", True
    ).csv(f"{args.out}/clusters")


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    builder = SparkSession.builder.appName("near_dup spark_dedup")
    if args.master:
        builder = builder.master(args.master)
    spark = builder.getOrCreate()
    try:
        run(spark, args)
    finally:
        spark.stop()


if __name__ == "__main__":
    main()
