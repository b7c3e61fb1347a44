#!/usr/bin/env python3
"""Build the benchmark corpora from real English text published by package registries.

Sources (real documents only, nothing generated):
  * Debian bookworm long package descriptions: the `main/i18n/Translation-en` index of the
    suites bookworm-security, bookworm-updates and bookworm (in that order), downloaded over
    HTTP from deb.debian.org by hash (`Acquire-By-Hash`), each checked against the SHA-256
    its suite's InRelease file lists; the InRelease signature is checked with gpgv and the
    Debian archive keyring when both are installed. No root, no apt state touched.
  * ScanCode's license database, the PyPI wheel licensedcode-data 32.1.0 (`pip download`),
    checked against its pinned SHA-256: the full license texts (*.LICENSE) and the
    license-notice rules (*.RULE).

Outputs (under bench/data/, not committed):
  corpus.jsonl        Debian descriptions + full license texts, one {"id","text"} a line.
                      Natural near-duplicates: -dev/-doc packages sharing a description,
                      license variants.
  corpus_large.jsonl  ~100 MB throughput corpus: every real text above plus the license rules,
                      shuffled (fixed seed) and packed whole into documents of >= 8 KB; new
                      shuffles until the size target is reached. Throughput only: its documents
                      share text.
  manifest.json       what was built: the inputs' hashes and dates, counts, the corpora's SHA-256.

Pinning. The wheel is pinned by version and hash. bookworm (the point release) changes only
at a point release, but bookworm-updates and bookworm-security follow the live mirror, and
snapshot.debian.org was not reachable from the machine that recorded the manifest. So
bench/corpus-manifest.json records, per snapshot that was built, the Translation-en hashes,
the InRelease dates, the document counts and the SHA-256 of both corpora; this script
compares its build with it and says what drifted. `--pinned` fetches the recorded
Translation-en files by hash instead of the current ones (the mirror keeps superseded
by-hash files for a while; the bookworm file for the life of the point release) and then
reproduces the recorded corpus byte for byte. `--record` appends the build to the manifest.

Usage (from the repository root or bench/):
    python3 bench/make_corpus.py [--pinned] [--record] [--large-mb 100]
"""
import argparse
import bz2
import datetime
import gzip
import hashlib
import json
import lzma
import os
import random
import shutil
import subprocess
import sys
import tempfile
import urllib.request
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.environ.get("NDD_BENCH_DATA") or os.path.join(HERE, "data")
CACHE = os.path.join(HERE, "cache")
MANIFEST = os.path.join(HERE, "corpus-manifest.json")

MIRROR = "http://deb.debian.org"
# (archive, suite): the order in which descriptions are read (the first copy of a
# package+description wins), which is also the order of the documents in corpus.jsonl.
SUITES = [("debian-security", "bookworm-security"), ("debian", "bookworm-updates"),
          ("debian", "bookworm")]
INDEX = "main/i18n/Translation-en"
KEYRING = "/usr/share/keyrings/debian-archive-keyring.gpg"

LICENSEDCODE = "licensedcode-data==32.1.0"
LICENSEDCODE_WHEEL = "licensedcode_data-32.1.0-py3-none-any.whl"
LICENSEDCODE_SHA256 = "18f60bde6dbabbc0a925d45ed80089cdbb7168156a2a1c118737198f9b743b96"

LARGE_SEED = 20261121


def sha256_bytes(b):
    return hashlib.sha256(b).hexdigest()


def sha256_file(path):
    with open(path, "rb") as f:
        return sha256_bytes(f.read())  # at most ~100 MB


def get(url):
    print("fetching", url, file=sys.stderr)
    with urllib.request.urlopen(url, timeout=120) as r:
        return r.read()


def release_fields(text):
    """Date and the SHA256 section ({path: (sha256, size)}) of a Release/InRelease file."""
    date, sums, in_sums = None, {}, False
    for line in text.splitlines():
        if line.startswith("Date: "):
            date = line[6:].strip()
        if line.startswith("SHA256:"):
            in_sums = True
            continue
        if in_sums and line.startswith(" "):
            sha, size, path = line.split()
            sums[path] = (sha, int(size))
        else:
            in_sums = False
    return date, sums


def check_signature(raw, suite):
    gpgv = shutil.which("gpgv")
    if not gpgv or not os.path.exists(KEYRING):
        print("warning: gpgv or %s missing: %s InRelease signature not checked "
              "(the file hashes still are)" % (KEYRING, suite), file=sys.stderr)
        return False
    with tempfile.NamedTemporaryFile(suffix=".InRelease") as f:
        f.write(raw)
        f.flush()
        r = subprocess.run([gpgv, "--keyring", KEYRING, f.name], capture_output=True)
    if r.returncode != 0:
        sys.exit("InRelease of %s: bad signature\n%s" % (suite, r.stderr.decode(errors="replace")))
    return True


def decompress(name, raw):
    if name.endswith(".xz"):
        return lzma.decompress(raw)
    if name.endswith(".bz2"):
        return bz2.decompress(raw)
    if name.endswith(".gz"):
        return gzip.decompress(raw)
    return raw


def fetch_translation(archive, suite, pin=None):
    """The uncompressed Translation-en of one suite, checked; and what was fetched.

    `pin`: a recorded snapshot's entry for the suite (its compressed file's name and hash,
    and the uncompressed hash), fetched by hash instead of the current file."""
    raw = get("%s/%s/dists/%s/InRelease" % (MIRROR, archive, suite))
    signed = check_signature(raw, suite)
    date, sums = release_fields(raw.decode("utf-8", "replace"))
    if pin is None:
        if INDEX not in sums:
            sys.exit("%s: no %s in its InRelease" % (suite, INDEX))
        # the smallest compressed form the InRelease lists, fetched by its own hash
        name = next((INDEX + ext for ext in (".xz", ".bz2", ".gz") if INDEX + ext in sums), INDEX)
        want, file_sha = sums[INDEX][0], sums[name][0]
    else:
        name, want, file_sha = pin["file"], pin["sha256"], pin["file_sha256"]
        date = pin["date"]  # the pinned file's own InRelease date, not today's
    info = {"suite": suite, "date": date, "file": name, "file_sha256": file_sha,
            "sha256": want, "signed": signed}
    os.makedirs(CACHE, exist_ok=True)
    cached = os.path.join(CACHE, "%s_%s.Translation-en" % (suite, want))
    if os.path.exists(cached) and sha256_file(cached) == want:
        with open(cached, "rb") as f:
            return f.read(), info
    url = "%s/%s/dists/%s/main/i18n/by-hash/SHA256/%s" % (MIRROR, archive, suite, file_sha)
    try:
        body = get(url)
    except OSError as e:
        sys.exit("%s: %s is not on the mirror (%s)%s" % (
            suite, url, e, "; a superseded snapshot: build without --pinned and read the "
            "drift report" if pin else ""))
    if sha256_bytes(body) != file_sha:
        sys.exit("%s %s: SHA-256 does not match" % (suite, name))
    text = decompress(name, body)
    if sha256_bytes(text) != want:
        sys.exit("%s %s: SHA-256 %s, expected %s" % (suite, INDEX, sha256_bytes(text), want))
    with open(cached, "wb") as f:
        f.write(text)
    return text, info


def parse_descriptions(text, seen, docs):
    for stanza in text.decode("utf-8", "replace").split("\n\n"):
        pkg = md5 = None
        desc_lines = []
        in_desc = False
        for line in stanza.split("\n"):
            if line.startswith("Package: "):
                pkg = line[9:].strip()
                in_desc = False
            elif line.startswith("Description-md5: "):
                md5 = line[17:].strip()
                in_desc = False
            elif line.startswith("Description-en: "):
                desc_lines.append(line[16:].strip())
                in_desc = True
            elif in_desc and line.startswith(" "):
                body = line[1:]
                desc_lines.append("" if body.strip() == "." else body)
            else:
                in_desc = False
        if not pkg or not desc_lines:
            continue
        key = (pkg, md5)
        if key in seen:  # the same package and description in two suites
            continue
        seen.add(key)
        docs.append(("deb:%s:%s" % (pkg, (md5 or "")[:8]), "\n".join(desc_lines).strip()))


def debian_descriptions(pins):
    seen, docs, fetched = set(), [], []
    for archive, suite in SUITES:
        text, info = fetch_translation(archive, suite, pins.get(suite))
        before = len(docs)
        parse_descriptions(text, seen, docs)
        info["descriptions"] = len(docs) - before
        fetched.append(info)
    return docs, fetched


def strip_front_matter(t):
    if t.startswith("---"):
        end = t.find("\n---", 3)
        if end != -1:
            t = t[end + 4:]
    return t.strip()


def licensedcode_texts():
    wheel = os.path.join(CACHE, LICENSEDCODE_WHEEL)
    if not os.path.exists(wheel):
        os.makedirs(CACHE, exist_ok=True)
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps",
                        "--only-binary", ":all:", "-d", CACHE, LICENSEDCODE], check=True)
    got = sha256_file(wheel)
    if got != LICENSEDCODE_SHA256:
        sys.exit("%s: SHA-256 %s, pinned %s" % (wheel, got, LICENSEDCODE_SHA256))
    z = zipfile.ZipFile(wheel)
    lic, rules = [], []
    for info in sorted(z.infolist(), key=lambda i: i.filename):
        name = info.filename
        if name.endswith(".LICENSE") or name.endswith(".RULE"):
            t = strip_front_matter(z.read(name).decode("utf-8", "replace"))
            if not t:
                continue
            base = os.path.basename(name).rsplit(".", 1)[0]
            if name.endswith(".LICENSE"):
                lic.append(("lic:" + base, t))
            else:
                rules.append(("rule:" + base, t))
    return lic, rules


def write_jsonl(path, docs):
    n = nbytes = 0
    with open(path, "w", encoding="utf-8") as f:
        for i, t in docs:
            f.write(json.dumps({"id": i, "text": t}, ensure_ascii=False))
            f.write("\n")
            n += 1
            nbytes += len(t.encode("utf-8"))
    return n, nbytes


def pack_large(pool, large_mb, seed):
    """Whole texts shuffled and packed into >= 8 KB documents until large_mb MB of text."""
    rng = random.Random(seed)
    target = int(large_mb * 1e6)
    large, total, passes = [], 0, 0
    while total < target:
        order = list(range(len(pool)))
        rng.shuffle(order)
        cur, cur_len = [], 0
        for k in order:
            t = pool[k][1]
            cur.append(t)
            cur_len += len(t.encode("utf-8")) + 2
            if cur_len >= 8192:
                large.append(("big:%d:%d" % (passes, len(large)), "\n\n".join(cur)))
                total += cur_len - 2
                cur, cur_len = [], 0
                if total >= target:
                    break
        passes += 1
    return large, passes


def load_manifest():
    if os.path.exists(MANIFEST):
        with open(MANIFEST, encoding="utf-8") as f:
            return json.load(f)
    return {"snapshots": []}


def drift_report(built, recorded):
    """Compare this build with the recorded snapshots; print what matches and what drifted."""
    if not recorded:
        print("no snapshot recorded in %s yet" % MANIFEST)
        return
    for snap in recorded:
        if snap["corpus"]["sha256"] == built["corpus"]["sha256"]:
            print("corpus.jsonl is byte-identical to the snapshot recorded %s" % snap["built"])
            return
    last = recorded[-1]
    print("corpus.jsonl differs from every recorded snapshot; against the last (%s):"
          % last["built"])
    for a, b in zip(last["debian"], built["debian"]):
        same = "same file" if a["sha256"] == b["sha256"] else "CHANGED"
        print("  %-18s %s: %d descriptions then, %d now" % (a["suite"], same, a["descriptions"],
                                                          b["descriptions"]))
    for key in ("corpus", "corpus_large"):
        print("  %-18s %d docs then, %d now; %d bytes of text then, %d now"
              % (key, last[key]["docs"], built[key]["docs"], last[key]["text_bytes"],
                 built[key]["text_bytes"]))
    print("(the Debian suites follow the live mirror; `--pinned` fetches the recorded files)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pinned", action="store_true",
                    help="fetch the Translation-en files of the last recorded snapshot by hash")
    ap.add_argument("--record", action="store_true",
                    help="append this build to bench/corpus-manifest.json")
    ap.add_argument("--large-mb", type=float, default=100.0)
    a = ap.parse_args()
    os.makedirs(DATA, exist_ok=True)
    manifest = load_manifest()
    pins = {}
    if a.pinned:
        if not manifest["snapshots"]:
            sys.exit("--pinned: no snapshot recorded in %s" % MANIFEST)
        pins = {d["suite"]: d for d in manifest["snapshots"][-1]["debian"]}

    deb, fetched = debian_descriptions(pins)
    lic, rules = licensedcode_texts()

    small = os.path.join(DATA, "corpus.jsonl")
    n, nb = write_jsonl(small, deb + lic)
    print("corpus.jsonl: %d docs (%d Debian descriptions, %d license texts), %.1f MB of text, "
          "mean %.0f bytes/doc" % (n, len(deb), len(lic), nb / 1e6, nb / n))
    pool = deb + lic + rules
    large, passes = pack_large(pool, a.large_mb, LARGE_SEED)
    big = os.path.join(DATA, "corpus_large.jsonl")
    n2, nb2 = write_jsonl(big, large)
    print("corpus_large.jsonl: %d docs packed from %d real texts (%d passes), %.1f MB of text, "
          "mean %.0f bytes/doc" % (n2, len(pool), passes, nb2 / 1e6, nb2 / n2))

    built = {
        "built": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%MZ"),
        "debian": fetched,
        "licensedcode": {"wheel": LICENSEDCODE_WHEEL, "sha256": LICENSEDCODE_SHA256,
                         "license_texts": len(lic), "rules": len(rules)},
        "corpus": {"docs": n, "text_bytes": nb, "sha256": sha256_file(small)},
        "corpus_large": {"docs": n2, "text_bytes": nb2, "large_mb": a.large_mb,
                         "seed": LARGE_SEED, "sha256": sha256_file(big)},
    }
    with open(os.path.join(DATA, "manifest.json"), "w", encoding="utf-8") as f:
        json.dump(built, f, indent=2)
        f.write("\n")
    print("corpus.jsonl sha256 %s" % built["corpus"]["sha256"])
    drift_report(built, manifest["snapshots"])
    if a.record:
        manifest["snapshots"].append(built)
        with open(MANIFEST, "w", encoding="utf-8") as f:
            json.dump(manifest, f, indent=2)
            f.write("\n")
        print("recorded in", MANIFEST)


if __name__ == "__main__":
    main()
