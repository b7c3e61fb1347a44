# Independent implementation of ndd-simhash's value specification (the crate docs,
# "Value specification"), written from that text and the xxHash v0.8 / ndd hashing
# specifications, not from the Rust code, to produce the golden vectors of
# tests/integration/simhash.rs. Pure Python 3 (no xxhash module needed: XXH3-64 of 1..16 bytes is
# implemented below and checked against the reference values ndd-core pins).
# Run: python3 crates/simhash/tests/simhash_spec.py
import re, struct

M = (1 << 64) - 1
GAMMA = 0x9E3779B97F4A7C15
KGRAM_B = 0x9E3779B97F4A7C15

def fmix64(x):
    x ^= x >> 33; x = (x * 0xff51afd7ed558ccd) & M
    x ^= x >> 33; x = (x * 0xc4ceb9fe1a85ec53) & M
    x ^= x >> 33; return x

# --- XXH3-64 for inputs of 1 to 16 bytes (xxHash v0.8 specification) ---------------
SECRET = bytes([
    0xb8, 0xfe, 0x6c, 0x39, 0x23, 0xa4, 0x4b, 0xbe, 0x7c, 0x01, 0x81, 0x2c, 0xf7, 0x21, 0xad, 0x1c,
    0xde, 0xd4, 0x6d, 0xe9, 0x83, 0x90, 0x97, 0xdb, 0x72, 0x40, 0xa4, 0xa4, 0xb7, 0xb3, 0x67, 0x1f,
    0xcb, 0x79, 0xe6, 0x4e, 0xcc, 0xc0, 0xe5, 0x78, 0x82, 0x5a, 0xd0, 0x7d, 0xcc, 0xff, 0x72, 0x21,
    0xb8, 0x08, 0x46, 0x74, 0xf7, 0x43, 0x24, 0x8e])
P64_2 = 0xC2B2AE3D27D4EB4F
P64_3 = 0x165667B19E3779F9
PMX1 = 0x165667919E3779F9
PMX2 = 0x9FB21C651E98DF25
def r32(b, i): return int.from_bytes(b[i:i + 4], 'little')
def r64(b, i): return int.from_bytes(b[i:i + 8], 'little')
def rotl(x, r): return ((x << r) | (x >> (64 - r))) & M
def swap32(x): return int.from_bytes(x.to_bytes(4, 'little'), 'big')
def swap64(x): return int.from_bytes(x.to_bytes(8, 'little'), 'big')
def xxh64_avalanche(h):
    h ^= h >> 33; h = (h * P64_2) & M; h ^= h >> 29; h = (h * P64_3) & M; h ^= h >> 32; return h
def xxh3_avalanche(h):
    h ^= h >> 37; h = (h * PMX1) & M; h ^= h >> 32; return h
def rrmxmx(h, n):
    h ^= rotl(h, 49) ^ rotl(h, 24); h = (h * PMX2) & M
    h ^= (h >> 35) + n; h = (h * PMX2) & M; h ^= h >> 28; return h
def xxh3_short(data, seed):
    n = len(data)
    assert 1 <= n <= 16
    if n <= 3:
        combined = (data[0] << 16) | (data[n >> 1] << 24) | data[n - 1] | (n << 8)
        bitflip = ((r32(SECRET, 0) ^ r32(SECRET, 4)) + seed) & M
        return xxh64_avalanche(combined ^ bitflip)
    if n <= 8:
        seed = seed ^ (swap32(seed & 0xFFFFFFFF) << 32)
        bitflip = ((r64(SECRET, 8) ^ r64(SECRET, 16)) - seed) & M
        input64 = (r32(data, n - 4) + (r32(data, 0) << 32)) & M
        return rrmxmx(input64 ^ bitflip, n)
    bitflip1 = ((r64(SECRET, 24) ^ r64(SECRET, 32)) + seed) & M
    bitflip2 = ((r64(SECRET, 40) ^ r64(SECRET, 48)) - seed) & M
    lo = r64(data, 0) ^ bitflip1
    hi = r64(data, n - 8) ^ bitflip2
    prod = lo * hi
    acc = (n + swap64(lo) + hi + ((prod & M) ^ (prod >> 64))) & M
    return xxh3_avalanche(acc)
# Reference values pinned by ndd-core (from the C implementation).
assert xxh3_short(b"a", 0) == 0xe6c632b61e964e1f
assert xxh3_short(b"jack", 0) == 0x2b0a4a911beeeaf0
assert xxh3_short(b"london", 0) == 0xa7b6a18faefb7dad
assert xxh3_short(b"near-duplicate", 42) == 0x510f2acf8f8d3c6b

# --- word k-gram shingles of ASCII text (ndd-shingle defaults) ---------------------
def kgram(hs):
    acc = 0
    for h in hs: acc = (acc * KGRAM_B + h) & M
    return fmix64(acc)
def word_shingles(text, k=5):
    toks = [t.lower().encode() for t in re.findall(r'[A-Za-z0-9]+', text)]
    hs = [xxh3_short(t, 0) for t in toks]
    if not hs: return []
    if len(hs) < k: return [kgram(hs)]          # short document: one shingle
    return [kgram(hs[i:i + k]) for i in range(len(hs) - k + 1)]

# --- the signature -----------------------------------------------------------------
def det_ln(x):
    bits = struct.unpack('<Q', struct.pack('<d', x))[0]
    e = ((bits >> 52) & 0x7FF) - 1023
    m = struct.unpack('<d', struct.pack('<Q', (bits & 0x000FFFFFFFFFFFFF) | (1023 << 52)))[0]
    if m > 1.4142135623730951: m *= 0.5; e += 1
    s = (m - 1.0) / (m + 1.0); s2 = s * s
    acc = 1.0 / 23.0
    for k in range(10, 0, -1): acc = acc * s2 + 1.0 / (2 * k + 1)
    return float(e) * 0.6931471805599453 + 2.0 * s * (acc * s2 + 1.0)

A = [-3.969683028665376e1, 2.209460984245205e2, -2.759285104469687e2, 1.38357751867269e2, -3.066479806614716e1, 2.506628277459239]
B = [-5.447609879822406e1, 1.615858368580409e2, -1.556989798598866e2, 6.680131188771972e1, -1.328068155288572e1]
C = [-7.784894002430293e-3, -3.223964580411365e-1, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783]
D = [7.784695709041462e-3, 3.224671290700398e-1, 2.445134137142996, 3.754408661907416]
def quantile(p):
    def tail(p):
        q = (-2.0 * det_ln(p)) ** 0.5   # IEEE sqrt (correctly rounded), as math.sqrt
        return (((((C[0]*q + C[1])*q + C[2])*q + C[3])*q + C[4])*q + C[5]) / ((((D[0]*q + D[1])*q + D[2])*q + D[3])*q + 1.0)
    if p < 0.02425: return tail(p)
    if p <= 1.0 - 0.02425:
        q = p - 0.5; r = q * q
        return (((((A[0]*r + A[1])*r + A[2])*r + A[3])*r + A[4])*r + A[5])*q / (((((B[0]*r + B[1])*r + B[2])*r + B[3])*r + B[4])*r + 1.0)
    return -tail(1.0 - p)

def sign_words(f, seed, nwords):
    s = fmix64(f ^ fmix64(seed ^ 0x73696D6861736821))
    return [s if j == 0 else fmix64((s + j * GAMMA) & M) for j in range(nwords)]
def gauss(f, seed, i):
    s = fmix64(f ^ fmix64(seed ^ 0x676175737369616E))
    x = fmix64((s + (i + 1) * GAMMA) & M)
    return quantile(((x >> 12) + 0.5) * (1.0 / 4503599627370496.0))

def simhash(weighted, bits, seed, projection, unit):
    """weighted: list of (feature, weight) contributions in push order; unit: all
    weights are 1 (integer counting for sign values)."""
    nw = (bits + 63) // 64
    bitsout = 0
    if projection == 'sign' and unit:
        n = len(weighted); c = [0] * (64 * nw)
        for f, _ in weighted:
            for j, b in enumerate(sign_words(f, seed, nw)):
                for t in range(64): c[64 * j + t] += (b >> t) & 1
        for i in range(bits):
            if 2 * c[i] > n: bitsout |= 1 << i
    elif projection == 'sign':
        P = [0.0] * (64 * nw); W = 0.0
        for f, w in weighted:
            if w == 0.0: continue
            W += w
            for j, b in enumerate(sign_words(f, seed, nw)):
                for t in range(64):
                    if (b >> t) & 1: P[64 * j + t] += w
        for i in range(bits):
            if 0.0 + (2.0 * P[i] - W) > 0.0: bitsout |= 1 << i
    else:
        S = [0.0] * bits
        for f, w in weighted:
            if w == 0.0: continue
            for i in range(bits): S[i] += w * gauss(f, seed, i)
        for i in range(bits):
            if 0.0 + S[i] > 0.0: bitsout |= 1 << i
    return [(bitsout >> (64 * j)) & M for j in range(nw)]

def hexw(ws): return "[" + ", ".join("0x%016x" % w for w in ws) + "]"

TEXT1 = "The quick brown fox jumps over the lazy dog while the cat sleeps in the warm sun by the old mill"
TEXT2 = "Random hyperplanes estimate the angle between two feature vectors and a few bits are enough"
TEXT3 = "to be or not to be that is the question to be or not to be"
for name, text in [("TEXT1", TEXT1), ("TEXT2", TEXT2), ("TEXT3", TEXT3)]:
    feats = word_shingles(text)
    tf = [(f, 1.0) for f in feats]
    seen, binary = set(), []
    for f in feats:
        if f not in seen: seen.add(f); binary.append((f, 1.0))
    print(name, "features", len(feats), "distinct", len(binary))
    print(" sign 64 tf seed 0      ", hexw(simhash(tf, 64, 0, 'sign', True)))
    print(" sign 64 binary seed 0  ", hexw(simhash(binary, 64, 0, 'sign', True)))
    print(" sign 128 tf seed 7     ", hexw(simhash(tf, 128, 7, 'sign', True)))
    print(" sign 100 tf seed 3     ", hexw(simhash(tf, 100, 3, 'sign', True)))
    print(" gauss 64 binary seed 0 ", hexw(simhash(binary, 64, 0, 'gauss', True)))
    print(" gauss 130 tf seed 5    ", hexw(simhash(tf, 130, 5, 'gauss', True)))
# Explicit real weights over feature ids 1..6.
wv = [(1, 2.5), (2, -0.75), (3, 1.0), (4, 0.125), (5, 3.0), (6, -2.0), (1, 0.5)]
print("weighted sign 64 seed 0 ", hexw(simhash(wv, 64, 0, 'sign', False)))
print("weighted sign 192 seed 9", hexw(simhash(wv, 192, 9, 'sign', False)))
print("weighted gauss 64 seed 0", hexw(simhash(wv, 64, 0, 'gauss', False)))
print("gauss values f=1 seed=0 i=0..3", [repr(gauss(1, 0, i)) for i in range(4)])
