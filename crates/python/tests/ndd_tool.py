"""The `ndd dedup` tool as the oracle of the Python tests and of the Spark job's test:
its clusters file read back as groups of ids and kept positions."""

import csv
import subprocess


def read_clusters(paths):
    """The `id`/`cluster` rows of one or more TSV files with a header line."""
    rows = []
    for path in paths:
        with open(path, newline="", encoding="utf-8") as f:
            rows += list(csv.DictReader(f, delimiter="\t"))
    return rows


def grouped(rows):
    """(groups of two or more ids, each sorted, sorted; the kept positions, sorted) of
    `id`/`cluster` rows, the cluster being the kept document's position."""
    by_cluster = {}
    for row in rows:
        by_cluster.setdefault(row["cluster"], []).append(row["id"])
    groups = sorted(sorted(g) for g in by_cluster.values() if len(g) > 1)
    return groups, sorted(int(c) for c in by_cluster)


def tool_clusters(ndd_bin, corpus, args, out):
    """Runs `ndd dedup -i corpus --clusters-out out ARGS` and reads `out` back."""
    subprocess.run(
        [str(ndd_bin), "dedup", "-i", str(corpus), "--clusters-out", str(out), *args],
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        timeout=300,
    )
    return read_clusters([out])
