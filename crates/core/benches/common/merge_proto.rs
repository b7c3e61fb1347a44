//! PROTOTYPES (not to be committed): the split merge with K chains and a split size.
#![allow(dead_code, clippy::all, missing_docs)]

const ROUND: usize = 16;

struct M<'s> {
    a: &'s [u64],
    b: &'s [u64],
    i: usize,
    j: usize,
}

impl<'s> M<'s> {
    fn new(a: &'s [u64], b: &'s [u64]) -> Self {
        M { a, b, i: 0, j: 0 }
    }
    #[inline(always)]
    fn rest(&self) -> usize {
        (self.a.len() - self.i).min(self.b.len() - self.j)
    }
    #[inline(always)]
    fn step(&mut self) -> usize {
        let (x0, x1) = (self.a[self.i], self.a[self.i + 1]);
        let (y0, y1) = (self.b[self.j], self.b[self.j + 1]);
        let n = usize::from(x0 == y0)
            + usize::from(x0 == y1)
            + usize::from(x1 == y0)
            + usize::from(x1 == y1);
        self.i += 2 * usize::from(x1 <= y1);
        self.j += 2 * usize::from(y1 <= x1);
        n
    }
    #[inline]
    fn finish(mut self, mut n: usize, need: usize) -> Option<usize> {
        loop {
            let rest = self.rest();
            if n + rest < need {
                return None;
            }
            let steps = (rest / 2).min(ROUND);
            if steps == 0 {
                break;
            }
            for _ in 0..steps {
                n += self.step();
            }
        }
        let (a, b) = (&self.a[self.i..], &self.b[self.j..]);
        let (mut i, mut j) = (0, 0);
        while i < a.len() && j < b.len() {
            let (x, y) = (a[i], b[j]);
            n += usize::from(x == y);
            i += usize::from(x <= y);
            j += usize::from(y <= x);
        }
        (n >= need).then_some(n)
    }
}

pub(crate) fn two(a: &[u64], b: &[u64], need: usize, from: usize) -> Option<usize> {
    if a.len().min(b.len()) < from {
        return M::new(a, b).finish(0, need);
    }
    let (a_low, a_high) = a.split_at(a.len() / 2);
    let (b_low, b_high) = b.split_at(b.partition_point(|&v| v < a_high[0]));
    let (mut low, mut high) = (M::new(a_low, b_low), M::new(a_high, b_high));
    let mut n = 0;
    loop {
        let (r0, r1) = (low.rest(), high.rest());
        if n + r0 + r1 < need {
            return None;
        }
        let steps = (r0 / 2).min(r1 / 2).min(ROUND);
        if steps == 0 {
            break;
        }
        for _ in 0..steps {
            n += low.step() + high.step();
        }
    }
    let n = low.finish(n, need.saturating_sub(high.rest()))?;
    high.finish(n, need)
}

pub(crate) fn four(a: &[u64], b: &[u64], need: usize, from: usize) -> Option<usize> {
    if a.len().min(b.len()) < from {
        return two(a, b, need, 32);
    }
    let q = a.len() / 4;
    let (a0, r) = a.split_at(q);
    let (a1, r) = r.split_at(q);
    let (a2, a3) = r.split_at(q);
    let k1 = b.partition_point(|&v| v < a1[0]);
    let k2 = k1 + b[k1..].partition_point(|&v| v < a2[0]);
    let k3 = k2 + b[k2..].partition_point(|&v| v < a3[0]);
    let mut m = [
        M::new(a0, &b[..k1]),
        M::new(a1, &b[k1..k2]),
        M::new(a2, &b[k2..k3]),
        M::new(a3, &b[k3..]),
    ];
    let mut n = 0;
    loop {
        let r = [m[0].rest(), m[1].rest(), m[2].rest(), m[3].rest()];
        if n + r[0] + r[1] + r[2] + r[3] < need {
            return None;
        }
        let steps = (r[0].min(r[1]).min(r[2]).min(r[3]) / 2).min(ROUND);
        if steps == 0 {
            break;
        }
        for _ in 0..steps {
            n += m[0].step() + m[1].step() + m[2].step() + m[3].step();
        }
    }
    let [m0, m1, m2, m3] = m;
    let (r1, r2, r3) = (m1.rest(), m2.rest(), m3.rest());
    let n = m0.finish(n, need.saturating_sub(r1 + r2 + r3))?;
    let n = m1.finish(n, need.saturating_sub(r2 + r3))?;
    let n = m2.finish(n, need.saturating_sub(r3))?;
    m3.finish(n, need)
}

/// Slices that advance: no index registers, one check per side per step.
struct S<'s> {
    a: &'s [u64],
    b: &'s [u64],
}

impl<'s> S<'s> {
    #[inline(always)]
    fn rest(&self) -> usize {
        self.a.len().min(self.b.len())
    }
    #[inline(always)]
    fn step(&mut self) -> usize {
        if let ([x0, x1, ..], [y0, y1, ..]) = (self.a, self.b) {
            let n = usize::from(x0 == y0)
                + usize::from(x0 == y1)
                + usize::from(x1 == y0)
                + usize::from(x1 == y1);
            self.a = &self.a[2 * usize::from(x1 <= y1)..];
            self.b = &self.b[2 * usize::from(y1 <= x1)..];
            n
        } else {
            0
        }
    }
    #[inline]
    fn finish(mut self, mut n: usize, need: usize) -> Option<usize> {
        loop {
            let rest = self.rest();
            if n + rest < need {
                return None;
            }
            let steps = (rest / 2).min(ROUND);
            if steps == 0 {
                break;
            }
            for _ in 0..steps {
                n += self.step();
            }
        }
        let (a, b) = (self.a, self.b);
        let (mut i, mut j) = (0, 0);
        while i < a.len() && j < b.len() {
            let (x, y) = (a[i], b[j]);
            n += usize::from(x == y);
            i += usize::from(x <= y);
            j += usize::from(y <= x);
        }
        (n >= need).then_some(n)
    }
}

pub(crate) fn one_s(a: &[u64], b: &[u64], need: usize) -> Option<usize> {
    S { a, b }.finish(0, need)
}

pub(crate) fn two_s(a: &[u64], b: &[u64], need: usize, from: usize) -> Option<usize> {
    if a.len().min(b.len()) < from {
        return S { a, b }.finish(0, need);
    }
    let (a_low, a_high) = a.split_at(a.len() / 2);
    let (b_low, b_high) = b.split_at(b.partition_point(|&v| v < a_high[0]));
    let (mut low, mut high) = (
        S { a: a_low, b: b_low },
        S {
            a: a_high,
            b: b_high,
        },
    );
    let mut n = 0;
    loop {
        let (r0, r1) = (low.rest(), high.rest());
        if n + r0 + r1 < need {
            return None;
        }
        let steps = (r0 / 2).min(r1 / 2).min(ROUND);
        if steps == 0 {
            break;
        }
        for _ in 0..steps {
            n += low.step() + high.step();
        }
    }
    let n = low.finish(n, need.saturating_sub(high.rest()))?;
    high.finish(n, need)
}
