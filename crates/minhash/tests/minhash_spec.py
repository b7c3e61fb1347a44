# Independent implementation of ndd-minhash's value-defining algorithms (docs/decisions.md),
# written from the specification, not from the Rust code, to produce golden vectors for
# tests/minhash.rs. Run: python3 crates/minhash/tests/minhash_spec.py
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
