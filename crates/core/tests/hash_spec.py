# Independent implementation of the ndd hashing specification (docs/decisions.md), used to
# produce golden vectors: XXH3-64 token hashes (python-xxhash wraps the reference C code),
# the k-gram polynomial mod 2^64 with B = 0x9E3779B97F4A7C15, and MurmurHash3's fmix64.
import xxhash
M = (1 << 64) - 1
B = 0x9E3779B97F4A7C15
def fmix64(x):
    x ^= x >> 33; x = (x * 0xff51afd7ed558ccd) & M
    x ^= x >> 33; x = (x * 0xc4ceb9fe1a85ec53) & M
    x ^= x >> 33; return x
def kgram(hs):
    acc = 0
    for h in hs: acc = (acc * B + h) & M
    return fmix64(acc)
def tok(s, seed=0): return xxhash.xxh3_64_intdigest(s.encode(), seed=seed)
words = "jack london traveled to oakland".split()
print("fmix64", [hex(fmix64(x)) for x in [1, 2, 0xdeadbeef, M]])
print("kgram 1,2,3", hex(kgram([1,2,3])))
print("bigrams", [hex(kgram([tok(words[i]), tok(words[i+1])])) for i in range(4)])
print("5gram", hex(kgram([tok(w) for w in words])))
print("seed7 unigram jack", hex(kgram([tok("jack",7)])))
