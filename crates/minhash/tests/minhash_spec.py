# Independent implementation of ndd-minhash's value-defining algorithms (docs/decisions.md),
# written from the specification, not from the Rust code, to produce golden vectors for
# tests/integration/minhash.rs and tests/integration/weighted.rs. Run: python3 crates/minhash/tests/minhash_spec.py
M = (1 << 64) - 1
P = (1 << 61) - 1
GOLDEN = 0x9E3779B97F4A7C15
EMPTY = M

def fmix64(x):
    x ^= x >> 33; x = (x * 0xff51afd7ed558ccd) & M
    x ^= x >> 33; x = (x * 0xc4ceb9fe1a85ec53) & M
    x ^= x >> 33; return x

def bin_of(h, k): return (h * k) >> 64

# Classic: a_i, b_i from a SplitMix64-style sequence; h_i(x) = (a_i * (x mod p) + b_i) mod p.
def classic(features, k, seed):
    state, ab = seed, []
    for _ in range(k):
        state = (state + GOLDEN) & M; a = fmix64(state) % (P - 1) + 1
        state = (state + GOLDEN) & M; b = fmix64(state) % P
        ab.append((a, b))
    return [min(((a * (x % P) + b) % P) for x in features) if features else EMPTY for (a, b) in ab]

# One-permutation hashing with optimal densification (Shrivastava, ICML 2017, Algorithm 2),
# attempt t using the universal hash h_t(i) = (i + m_t) mod k, m_t = bin(fmix64(dkey ^ t)).
def oph(features, k, seed):
    dkey = fmix64(seed ^ 0x64656E7369667921)          # "densify!"
    key = fmix64(dkey ^ 0x6F706862696E7321)           # "ophbins!"
    mins = [EMPTY] * k
    for f in features:
        h = fmix64(f ^ key); b = bin_of(h, k); mins[b] = min(mins[b], h)
    if all(v == EMPTY for v in mins) or all(v != EMPTY for v in mins):
        return mins
    out = []
    for i in range(k):
        if mins[i] != EMPTY: out.append(mins[i]); continue
        t = 0
        while True:  # the attempts are the same for every document
            j = (i + bin_of(fmix64(dkey ^ t), k)) % k
            if mins[j] != EMPTY: out.append(mins[j]); break
            t += 1
    return out

for name, fn in [("classic", classic), ("oph", oph)]:
    print(name, "k=8 seed=42 features=1..20:", [hex(v) for v in fn(list(range(1, 21)), 8, 42)])
    print(name, "k=16 seed=0 features=[3,1000,2**63]:", [hex(v) for v in fn([3, 1000, 2**63], 16, 0)])
v = oph(list(range(1, 11)), 100, 3)   # k not a multiple of 64: 10 features, about 90 bins densified
print("oph k=100 seed=3 features=1..10, slots 0,37,63,64,99:", [hex(v[i]) for i in (0, 37, 63, 64, 99)])
v = oph(list(range(1, 11)), 200, 3)
print("oph k=200 seed=3 features=1..10, slots 0,100,127,128,199:", [hex(v[i]) for i in (0, 100, 127, 128, 199)])
# k = 64 and 128 (the sizes with a dedicated densification path): few features, most bins
# densified; slots at word edges, and the wrapping sum of all slots.
for k in (64, 128):
    v = oph(list(range(1, 13)), k, 5)
    print(f"oph k={k} seed=5 features=1..12, slots 0,1,63,k-1 and sum:",
          [hex(v[i]) for i in (0, 1, 63, k - 1)], hex(sum(v) & M))

# ---------------------------------------------------------------------------------------
# Weighted MinHash (docs/decisions.md, "Weighted MinHash values"), golden vectors for
# tests/integration/weighted.rs. Python floats are IEEE doubles whose + - * / are correctly rounded,
# so the documented sequence of operations gives the same bits as any conforming target.
import math, struct

def to_bits(x): return struct.unpack('<Q', struct.pack('<d', x))[0]

LN2 = float.fromhex('0x1.62e42fefa39efp-1')      # the double nearest ln 2
SQRT2 = float.fromhex('0x1.6a09e667f3bcdp+0')    # the double nearest sqrt 2 (below it)
MIN_NORMAL = float.fromhex('0x1p-1022')

# ndd_core::math::stable_ln as its rustdoc states it: x = m 2^e with m in [sqrt(1/2),
# sqrt 2), s = (m - 1)/(m + 1), ln m = 2 s (1 + s^2/3 + ... + s^22/23) by Horner's rule
# from the highest term, ln x = e ln 2 + ln m. No math.log.
def stable_ln(x):
    assert x >= MIN_NORMAL and x != math.inf
    m, e = math.frexp(x)                      # exact: x = m 2^e, m in [0.5, 1)
    m, e = 2.0 * m, e - 1                     # m in [1, 2)
    if m > SQRT2:                             # no double lies between SQRT2 and sqrt 2
        m, e = 0.5 * m, e + 1
    s = (m - 1.0) / (m + 1.0)
    s2 = s * s
    acc = 1.0 / 23.0
    for n in (21, 19, 17, 15, 13, 11, 9, 7, 5, 3):
        acc = acc * s2 + 1.0 / n
    return float(e) * LN2 + 2.0 * s * (acc * s2 + 1.0)

def ln_weight(w):   # subnormal weights: scaled by 2^64 (exactly) first
    return stable_ln(w * 2.0**64) - 64.0 * LN2 if w < MIN_NORMAL else stable_ln(w)

def open_unit(z): return ((z >> 12) + 0.5) * 2.0**-52

def merge(entries):  # repeated features are summed, then visited in increasing order
    acc = {}
    for f, w in entries: acc[f] = acc.get(f, 0.0) + w
    return sorted(acc.items())

# ICWS (Ioffe, ICDM 2010): r, c ~ Gamma(2, 1), beta ~ U(0, 1); t = floor(ln S / r + beta),
# ln a = ln c - r (t - beta + 1); per slot the smallest ln a, value = hash of (f, t).
def icws(entries, k, seed):
    base = fmix64(seed ^ 0x696377732D6B6579)                      # "icws-key"
    keys = [fmix64((base + i * GOLDEN) & M) for i in range(1, k + 1)]
    fkey = fmix64(seed ^ 0x696377732D666561)                      # "icws-fea"
    vkey = fmix64(seed ^ 0x696377732D76616C)                      # "icws-val"
    best, out = [math.inf] * k, [EMPTY] * k
    for f, w in merge(entries):
        if not (0.0 < w < math.inf): continue
        ln_s = ln_weight(w)
        for i in range(k):
            x = fmix64(fmix64(f ^ fkey) ^ keys[i])
            u = [None] + [open_unit(fmix64((x + j * GOLDEN) & M)) for j in range(1, 6)]
            r = -stable_ln(u[1] * u[2])
            c = -stable_ln(u[3] * u[4])
            beta = u[5]
            t = float(math.floor(ln_s / r + beta))
            ln_a = stable_ln(c) - r * (t - beta + 1.0)
            if ln_a < best[i]:
                best[i] = ln_a
                v = fmix64((fmix64(f ^ vkey) + fmix64(to_bits(t + 0.0)) * GOLDEN) & M)
                out[i] = EMPTY - 1 if v == EMPTY else v
    return out

# Bucketization (paper 000 section 3.2): n = round(scale w), half away from zero, copies
# (f, 1..n) hashed to sub-features, then set MinHash (OPH by default, or classic).
def round_half_away(x):  # x >= 0; x - floor(x) is exact
    fl = math.floor(x)
    return fl + 1 if x - fl >= 0.5 else fl

def bucketized(entries, k, seed, scale, sketch=oph):
    bkey = fmix64(seed ^ 0x6275636B65742D6B)                      # "bucket-k"
    subs = []
    for f, w in merge(entries):
        if w <= 0.0: continue
        n = round_half_away(w * scale)
        subs += [fmix64((fmix64(f ^ bkey) + j * GOLDEN) & M) for j in range(1, n + 1)]
    return sketch(subs, k, seed)

def hexes(v): return "[" + ", ".join(hex(x) for x in v) + "]"
V1 = [(1, 1.0), (2, 2.5), (3, 0.25), (0xdeadbeef, 10.0), (2**63 + 5, 0.001)]
print("icws k=16 seed=42 V1:", hexes(icws(V1, 16, 42)))
print("icws k=16 seed=7 V1:", hexes(icws(V1, 16, 7)))
# One feature: every slot holds it, and its t (hence its value) depends on ln S.
for w in [1.0, 1e300, float.fromhex('0x1.fffffffffffffp+1023'), 1e-300, MIN_NORMAL,
          3e-310, 5e-324]:
    print(f"icws k=8 seed=1 [(5, {w!r})]:", hexes(icws([(5, w)], 8, 1)))
# A weight at which ln S / r + beta of slot 1 lies within a few ulps of 3: stable_ln gives
# t = 2 there, a correctly rounded ln (math.log, glibc) t = 3, so this vector tells them apart.
print("icws k=8 seed=1 [(5, 5.82711136650451)] (t boundary in slot 1):",
      hexes(icws([(5, 5.82711136650451)], 8, 1)))
# 64 features with weights 0.001 .. 100 (from a counter, no libm): argmin across features.
V2 = [(fmix64(i), (fmix64(i + 1000) % 100000 + 1) / 1000.0) for i in range(64)]
v = icws(V2, 16, 3)
print("icws k=16 seed=3 V2 (64 features):", hexes(v), "sum", hex(sum(v) & M))
# Tiny, huge and ordinary weights together (the huge ones win most slots).
V3 = [(10, 1e-300), (11, 5e-324), (12, 1.0), (13, 1e300), (14, 3.5e300)]
print("icws k=8 seed=0 V3:", hexes(icws(V3, 8, 0)))
B1 = [(1, 0.26), (2, 1.0), (3, 0.04), (0xdeadbeef, 2.35)]   # 2.6 -> 3, 0.4 -> 0, 23.5 -> 24
print("bucketized k=16 seed=42 scale=10 oph B1:", hexes(bucketized(B1, 16, 42, 10.0)))
print("bucketized k=8 seed=42 scale=10 classic B1:", hexes(bucketized(B1, 8, 42, 10.0, classic)))
print("bucketized k=8 seed=5 scale=1 oph [(7, 3.0), (8, 1.0)]:",
      hexes(bucketized([(7, 3.0), (8, 1.0)], 8, 5, 1.0)))
