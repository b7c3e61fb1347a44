"""Groups from pairs by union-find, written independently of near_dup: the oracle of
the tests and the one grouping every peer without its own gets in the benchmark."""


def components(n, pairs):
    """The connected components of two or more of `n` points joined by `pairs`, each
    sorted, in order of their smallest member."""
    parent = list(range(n))

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b in pairs:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    groups = {}
    for i in range(n):
        groups.setdefault(find(i), []).append(i)
    return sorted(g for g in groups.values() if len(g) > 1)
