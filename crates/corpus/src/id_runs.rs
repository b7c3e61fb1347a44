//! [`IdRuns`]: the integer ids of a read that come in ascending order, kept as ranges,
//! so that the duplicate-id check answers them without a hash-set probe (a JSONL file
//! without ids numbers its documents by line: 1, 2, 3, …).
//!
//! A hash set of every id grows with the corpus and each new id probes it at a random
//! place: past the caches that probe is a memory stall per document (issue 31 measured
//! it growing from 0.12 to 0.24 µs per document from 100k to 1M documents in memory,
//! and from 0.25 to 0.77 µs out of core). Ranges take no memory per id and no probe.

/// What [`IdRuns::first_time`] decided about an id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Known {
    /// A run holds it: an earlier document has this id.
    Seen,
    /// First time, and now held by a run.
    New,
    /// Not decided here: the caller's set of the other ids decides it (and records it).
    Ask,
}

/// The integer ids seen so far that came in ascending order, as disjoint ranges. An
/// id counts as an integer when it is written the one way `u64` prints it (`0`, or a
/// digit 1 to 9 followed by digits, within `u64`): then two ids are equal exactly when
/// their integers are. An integer above the current run continues it or opens the next
/// one; every other id, and an integer below the current run that no run holds, goes to
/// the caller's set. So every integer in that set is below the current run (it was when
/// it went there, and runs only move up), and an integer above the run is not in it.
#[derive(Debug, Default)]
pub(crate) struct IdRuns {
    /// Earlier runs, ascending and disjoint, all below `current`.
    closed: Vec<(u64, u64)>,
    /// The run the next integer may continue (first and last id).
    current: Option<(u64, u64)>,
}

impl IdRuns {
    /// Whether `id` was seen, is new (and recorded), or is for the caller's set.
    pub(crate) fn first_time(&mut self, id: &str) -> Known {
        self.first_time_integer(integer(id))
    }

    /// [`first_time`](Self::first_time) for an id whose [`integer`] is `x`, found by the
    /// caller (the batched JSONL reader finds it on the pool, where the id was just
    /// decoded: read on the calling thread, the id's bytes missed the cache).
    pub(crate) fn first_time_integer(&mut self, x: Option<u64>) -> Known {
        let Some(x) = x else {
            return Known::Ask;
        };
        if self.holds(x) {
            return Known::Seen;
        }
        match self.current {
            None => {
                self.current = Some((x, x));
                Known::New
            }
            Some((lo, hi)) if x > hi => {
                if hi.checked_add(1) == Some(x) {
                    self.current = Some((lo, x));
                } else {
                    self.closed.push((lo, hi));
                    self.current = Some((x, x));
                }
                Known::New
            }
            Some(_) => Known::Ask,
        }
    }

    /// Whether a run holds `x`.
    fn holds(&self, x: u64) -> bool {
        match self.current {
            Some((lo, hi)) if lo <= x && x <= hi => true,
            Some((lo, _)) if x < lo => {
                let i = self.closed.partition_point(|&(first, _)| first <= x);
                i > 0 && x <= self.closed[i - 1].1
            }
            _ => false,
        }
    }
}

/// The integer `id` writes, when it writes it the one way `u64` prints it.
pub(crate) fn integer(id: &str) -> Option<u64> {
    let b = id.as_bytes();
    let canonical =
        !b.is_empty() && b.iter().all(u8::is_ascii_digit) && (b[0] != b'0' || b.len() == 1);
    if canonical { id.parse().ok() } else { None }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    /// Drives `IdRuns` with a set for the ids it asks about, as its callers do, and
    /// checks every answer against a set of all the ids by value.
    fn check(ids: &[String]) -> IdRuns {
        let mut runs = IdRuns::default();
        let mut asked = HashSet::new();
        let mut oracle = HashSet::new();
        for id in ids {
            let first = match runs.first_time(id) {
                Known::Seen => false,
                Known::New => true,
                Known::Ask => asked.insert(id.clone()),
            };
            assert_eq!(first, oracle.insert(id.clone()), "id {id:?}");
        }
        runs
    }

    fn strings(ids: &[&str]) -> Vec<String> {
        ids.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn line_numbers_are_one_run_and_need_no_set() {
        let ids: Vec<String> = (1..=1000).map(|i: u64| i.to_string()).collect();
        let mut runs = check(&ids);
        assert_eq!((runs.current, runs.closed.len()), (Some((1, 1000)), 0));
        assert_eq!(runs.first_time("500"), Known::Seen);
        assert_eq!(runs.first_time("1001"), Known::New);
    }

    #[test]
    fn gaps_open_runs_and_a_lower_id_is_looked_up_in_them() {
        let mut runs = check(&strings(&[
            "3", "4", "9", "10", "20", "4", "10", "5", "5", "21",
        ]));
        assert_eq!(runs.closed, vec![(3, 4), (9, 10)]);
        assert_eq!(runs.current, Some((20, 21)));
        // Below the current run: held by a closed run, or the caller's set decides.
        assert_eq!(runs.first_time("9"), Known::Seen);
        assert_eq!(runs.first_time("8"), Known::Ask);
        assert_eq!(runs.first_time("2"), Known::Ask);
    }

    #[test]
    fn other_spellings_are_not_integers() {
        for id in [
            "007",
            "+7",
            "-7",
            "7.0",
            " 7",
            "",
            "x7",
            "18446744073709551616",
        ] {
            assert_eq!(integer(id), None, "{id:?}");
        }
        assert_eq!(integer("0"), Some(0));
        assert_eq!(integer("18446744073709551615"), Some(u64::MAX));
        // "7" and "007" are different ids: only the first is held by a run.
        check(&strings(&["7", "007", "7", "007", "+7", "8"]));
    }

    #[test]
    fn integers_below_the_run_go_to_the_set_and_stay_there() {
        // 5, 3, 4 and 9 are below the run when they come: the set holds them (and
        // finds their repeats); the run goes on above them, and opens again at 30.
        let runs = check(&strings(&[
            "10", "5", "11", "3", "4", "5", "12", "4", "3", "9", "9", "30", "9", "11", "31",
        ]));
        assert_eq!(runs.closed, vec![(10, 12)]);
        assert_eq!(runs.current, Some((30, 31)));
    }

    #[test]
    fn shuffled_and_repeated_integers_and_words_agree_with_a_set() {
        let mut ids = Vec::new();
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        for i in 0..20_000u64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            ids.push(match x % 5 {
                0 => format!("w{}", x % 300),
                1 => (x % 3_000).to_string(),
                2 => format!("0{}", x % 50),
                _ => (i / 2 + x % 3).to_string(),
            });
        }
        ids.push(u64::MAX.to_string());
        ids.push(u64::MAX.to_string());
        check(&ids);
    }
}
