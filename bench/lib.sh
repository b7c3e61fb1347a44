# Shared by peers.sh and run.sh (sourced, not run): the load watch, one measured run, medians.
#
# A measured command prints `peer=<name> docs=<n> mb=<MB of text> secs=<timed span> [k=v ...]`
# lines; `measure` runs it in a fresh process under `/usr/bin/time -v`, appends every such
# line to "$RAW/all" with rss_kb=, cpu_pct=, wall_s= (the whole process, wall clock) and
# others_cpu= (the mean number of CPUs the rest of the machine used meanwhile), and retries
# a run during which others_cpu >= 0.15.
# Sets PY (the venv's python), RP (rust-peers' binaries), CORPUS (data/corpus.jsonl unless set).
# env: ONLY (extended regex; only commands matching it run), RETRIES (2), QUIET_WAIT (60 s)

CORPUS="${CORPUS:-data/corpus.jsonl}"
PY=.venv/bin/python
RP=rust-peers/target/release
ONLY="${ONLY:-.}"
RETRIES="${RETRIES:-2}"
QUIET_WAIT="${QUIET_WAIT:-60}"

# need_inputs: the venv ($PY) and the corpus ($CORPUS) exist, else say how to make them
need_inputs() {
  [ -x "$PY" ] || { echo "missing bench/.venv: run bench/setup.sh (bench/README.md)" >&2; exit 1; }
  [ -f "$CORPUS" ] || {
    echo "missing $CORPUS (relative to bench/): build it with python3 bench/make_corpus.py (bench/README.md)" >&2
    exit 1
  }
}

# raw_dir <name>: RAW = a scratch folder under data/, removed on exit; T0 = now
raw_dir() {
  mkdir -p data
  RAW="$(mktemp -d "data/.$1-raw.XXXXXX")"
  trap 'rm -rf "$RAW"' EXIT
  : >"$RAW/all"
  T0=$(date +%s)
}

# CPU ticks (USER_HZ) spent by the whole machine so far, all processes
busy_ticks() { awk '/^cpu /{print $2+$3+$4+$7+$8+$9; exit}' /proc/stat; }

# warns when other processes use CPU (a 2 s window)
load_check() {
  local b0 b1
  b0=$(busy_ticks); sleep 2; b1=$(busy_ticks)
  if awk -v d=$((b1 - b0)) 'BEGIN{exit !(d / 100 / 2 >= 0.15)}'; then
    echo "# WARNING: other processes are using CPU: runs will be retried or read low (see others_cpu)"
  fi
}

# wait (at most QUIET_WAIT s) until other processes use < 0.15 CPU over a 2 s window
wait_quiet() {
  local waited=0 b0 b1
  while [ "$waited" -lt "$QUIET_WAIT" ]; do
    b0=$(busy_ticks); sleep 2; b1=$(busy_ticks)
    awk -v d=$((b1 - b0)) 'BEGIN{exit !(d / 100 / 2 < 0.15)}' && return 0
    waited=$((waited + 2))
  done
}

# measure <runs> <suffix> <cmd...>: each run in a fresh process (see the top of this file)
measure() {
  local n="$1" sfx="$2"
  shift 2
  grep -qE -- "$ONLY" <<<"$*" || return 0
  local r try rss cpu b0 b1 t0 t1 own others
  for r in $(seq "$n"); do
    for try in $(seq 0 "$RETRIES"); do
      b0=$(busy_ticks); t0=$(date +%s.%N)
      if ! /usr/bin/time -v -o "$RAW/time" "$@" >"$RAW/out" 2>"$RAW/err"; then
        echo "peer=FAILED cmd=\"$*\" error=\"$(tail -n 1 "$RAW/err")\""
        return 0
      fi
      b1=$(busy_ticks); t1=$(date +%s.%N)
      own=$(awk -F': ' '/User time \(seconds\)|System time \(seconds\)/{s+=$2} END{print s}' "$RAW/time")
      others=$(awk -v d=$((b1 - b0)) -v o="$own" -v w="$(awk -v a="$t0" -v b="$t1" 'BEGIN{print b-a}')" \
        'BEGIN{x=(d/100 - o)/w; if (x < 0) x = 0; printf "%.2f", x}')
      awk -v x="$others" 'BEGIN{exit !(x >= 0.15)}' || break
      [ "$try" -lt "$RETRIES" ] && wait_quiet
    done
    rss=$(awk -F': ' '/Maximum resident set size/{print $2}' "$RAW/time")
    cpu=$(awk -F': ' '/Percent of CPU this job got/{gsub("%","",$2); print $2}' "$RAW/time")
    # the whole process, wall clock (h:mm:ss or m:ss)
    wall=$(awk -F': ' '/Elapsed \(wall clock\)/{n=split($2,p,":"); s=0; for(i=1;i<=n;i++) s=s*60+p[i]; print s}' "$RAW/time")
    grep '^peer=' "$RAW/out" |
      sed -E "s/^peer=([^ ]+)/peer=\\1${sfx}/; s/\$/ rss_kb=${rss} cpu_pct=${cpu} wall_s=${wall} others_cpu=${others}/" >>"$RAW/all"
  done
}

# medians <raw file>: one line per peer, the median run by its own timed span
medians() {
  "$PY" "$(dirname "${BASH_SOURCE[0]}")/medians.py" "$1"
}
