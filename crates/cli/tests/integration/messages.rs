//! Messages in the user's words (issue 30): a value the library refuses is named by the
//! option the user typed (`--memory-budget`), never by the library's parameter
//! (`memory_budget`).

use crate::common::{fails, ndd, text};

#[test]
fn refused_values_are_named_by_their_option() {
    let dir = tempfile::tempdir().expect("temporary folder");
    // Arguments | the message's start | the internal name it must not show.
    let cases = "\
dedup --work-dir w --memory-budget 10 | invalid --memory-budget: must be at least 1048576 | memory_budget
dedup --num-perm 0 | invalid --num-perm: must lie in 1..=4096, got 0 | num_perm
dedup --bands 20 --rows 20 | invalid --bands × --rows: 20 × 20 = 400 exceeds | parameter
dedup --method simhash --max-hamming 70 | invalid --max-hamming: must be below | max_hamming
dedup --bloom --bloom-capacity 0 | invalid --bloom-capacity: must be at least 1 | `capacity`
dedup --threshold 0.3 --num-perm 2 | invalid --banding recall: no bands × rows ≤ 2 | min_recall
explain --num-perm 0 | invalid --num-perm: must lie in 1..=4096, got 0 | num_perm";
    for case in cases.lines() {
        let f: Vec<&str> = case.split(" | ").collect();
        let (args, message, internal) = (f[0], f[1], f[2]);
        let args: Vec<&str> = args.split(' ').collect();
        let out = ndd(&args, dir.path());
        fails(&out, 2, message);
        assert!(
            !text(&out.stderr).contains(internal),
            "{args:?}: {}",
            text(&out.stderr)
        );
    }
}
