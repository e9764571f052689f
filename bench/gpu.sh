#!/bin/sh
# bench/gpu.sh [./rladv] - wall time of --device cpu against --device cuda.
#
#  1. A large shard: >= 1 M small records (bench/gen --tokens 16, groups of
#     16, binary rewards), run through grpo, stratified and rpp-baseline
#     with --no-tokens -o /dev/null.  End to end, so reading and writing
#     JSON are in both columns: the advantages are a small part of it.
#  2. MS-GRPO exact with continuous, all-distinct rewards (2^G subgroups
#     per group) at G = 16, 20 (the default --ms-budget takes G <= 21 exact)
#     and 24 (--ms-budget raised), where the GPU does the work.
#
# Prints a table; each time is the best of BENCH_RUNS runs (default 2).
# Skips (exit 0) without a GPU or with an rladv built without CUDA.
# BENCH_TMP=DIR keeps the generated inputs there (default: a temporary
# directory, removed at the end).

bin=${1:-./rladv}
root=$(cd "$(dirname "$0")/.." && pwd)
runs=${BENCH_RUNS:-2}

skip() {
	echo "SKIP: no GPU ($1)"
	exit 0
}

command -v nvidia-smi >/dev/null 2>&1 || skip "nvidia-smi not found"
nvidia-smi -L 2>/dev/null | grep -q '^GPU' || skip "nvidia-smi -L lists none"
"$bin" --version 2>/dev/null | grep -q 'cuda: compiled in' ||
	skip "$bin is built without CUDA; build with make CUDA=1"

if [ -n "$BENCH_TMP" ]; then
	tmp=$BENCH_TMP
	mkdir -p "$tmp" || exit 3
else
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpu_bench.XXXXXX") || exit 3
	trap 'rm -rf "$tmp"' EXIT
fi
trap 'exit 3' INT TERM HUP

echo '{"prompt_id": "p", "reward": 1, "logprobs": [-1]}' >"$tmp/one.jsonl"
if ! "$bin" --device cuda "$tmp/one.jsonl" >/dev/null 2>"$tmp/err"; then
	echo "gpu.sh: nvidia-smi lists a GPU, but: $(cat "$tmp/err")" >&2
	exit 1
fi

${CC:-cc} -std=c11 -O2 -o "$tmp/gen" "$root/bench/gen.c" -lm || exit 3

# Rewards made distinct (uniform in [0, 1)), so every group enumerates.
distinct() {
	awk -v seed="$1" 'BEGIN { srand(seed) }
	{ sub(/"reward": [-0-9.eE+]+/, sprintf("\"reward\": %.15g", rand()));
	  print }'
}

[ -s "$tmp/shard.jsonl" ] ||
	"$tmp/gen" --bytes 460M --tokens 16 --group 16 --seed 3 >"$tmp/shard.jsonl"
for G in 16 20 24; do
	case $G in
	16) bytes=1800k ;;	# ~256 groups
	20) bytes=550k ;;	# ~64 groups
	24) bytes=40k ;;	# ~4 groups
	esac
	[ -s "$tmp/ms$G.jsonl" ] ||
		"$tmp/gen" --bytes "$bytes" --tokens 16 --group "$G" \
		    --rewards continuous --seed $G | distinct $G >"$tmp/ms$G.jsonl"
done

now() {
	date +%s.%N
}

# best FILE OPTIONS...: the best wall time of $runs runs, in seconds.
best() {
	f=$1
	shift
	b=
	i=0
	while [ $i -lt "$runs" ]; do
		t0=$(now)
		if ! "$bin" "$@" --no-tokens -o /dev/null "$f" 2>"$tmp/err"; then
			echo "gpu.sh: $bin $* $f: $(cat "$tmp/err")" >&2
			exit 1
		fi
		t1=$(now)
		b=$(awk -v a="$t0" -v z="$t1" -v b="$b" \
		    'BEGIN { t = z - a; if (b != "" && b < t) t = b; print t }')
		i=$((i + 1))
	done
	echo "$b"
}

row() {
	label=$1
	f=$2
	shift 2
	n=$(wc -l <"$f" | tr -d ' ')
	c=$(best "$f" --device cpu "$@")
	g=$(best "$f" --device cuda "$@")
	awk -v l="$label" -v n="$n" -v c="$c" -v g="$g" 'BEGIN {
	    printf "%-34s %9d %10.3f %10.3f %8.1fx\n", l, n, c, g, c / g }'
}

echo "device: $(nvidia-smi -L | head -n 1)"
printf '%-34s %9s %10s %10s %9s\n' workload records "cpu s" "cuda s" speedup
row "grpo, G=16 binary" "$tmp/shard.jsonl" -a grpo
row "stratified, G=16 binary" "$tmp/shard.jsonl" -a stratified
row "rpp-baseline, G=16 binary" "$tmp/shard.jsonl" -a rpp-baseline
row "msgrpo exact, G=16 continuous" "$tmp/ms16.jsonl" -a msgrpo \
    --ms-mode exact
row "msgrpo exact, G=20 continuous" "$tmp/ms20.jsonl" -a msgrpo \
    --ms-mode exact
row "msgrpo exact, G=24 continuous" "$tmp/ms24.jsonl" -a msgrpo \
    --ms-mode exact --ms-budget 1e10
