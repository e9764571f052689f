#!/bin/sh
# shard.sh [FILE] - make bench's sharded row: FILE (default the bench
# input, bench/data/main-$BENCH_MB-t$TOKENS.jsonl) cut into SHARDS pieces
# (8) at line boundaries that split groups; the three steps (rladv index per
# shard, rladv index --merge, rladv compute --index per shard) against one
# rladv over the whole file, on the same input, with the index's size as a
# share of the input.  The steps run one after another here: "sum" is their
# total time, "longest" the one that a cluster running them side by side
# waits for.  The outputs must be the same bytes.  Wall seconds on this
# machine; nothing here asserts a time.
set -e
cd "$(dirname "$0")/.."
M=${1:-bench/data/main-${BENCH_MB:-200}-t${TOKENS:-2000}.jsonl}
K=${SHARDS:-8}
cc -std=c11 -O2 -o bench/measure bench/measure.c
[ -s "$M" ] || { echo "shard.sh: $M: missing (make bench makes it)" >&2; exit 1; }
D=bench/data/shards
rm -rf $D
mkdir -p $D
split -n l/$K -d -a 2 --additional-suffix=.jsonl "$M" $D/part-
# t CMD...: its seconds.  Every step writes its output to a file, as a
# cluster's would; its warnings are shown only if it fails.
t() {
	set -- $(bench/measure - - "$@" 2>$D/err)
	[ "$4" -eq 0 ] || { cat $D/err >&2; exit 1; }
	echo $1
}
single=$(t ./rladv -o $D/single.out "$M")
map=0 mapmax=0 apply=0 applymax=0
for f in $D/part-*.jsonl; do
	s=$(t ./rladv index -o $f.idx $f)
	map=$(awk -v a=$map -v b=$s 'BEGIN { print a + b }')
	mapmax=$(awk -v a=$mapmax -v b=$s 'BEGIN { print (b > a ? b : a) }')
done
reduce=$(t ./rladv index --merge -o $D/all.idx $D/part-*.jsonl.idx)
for f in $D/part-*.jsonl; do
	s=$(t ./rladv compute --index $D/all.idx -o $f.out $f)
	apply=$(awk -v a=$apply -v b=$s 'BEGIN { print a + b }')
	applymax=$(awk -v a=$applymax -v b=$s 'BEGIN { print (b > a ? b : a) }')
done
for f in $D/part-*.jsonl; do cat $f.out; done | cmp -s - $D/single.out &&
    same=yes || same=NO
in=$(wc -c < "$M")
idx=$(wc -c < $D/all.idx)
echo
echo "sharded run ($K shards of $in bytes, rladv -a grpo over one batch; output the same bytes: $same):"
printf '  %-30s %8.2f s\n' "one rladv" $single
printf '  %-30s %8.2f s sum, %6.2f s longest\n' "map: rladv index" $map $mapmax
printf '  %-30s %8.2f s\n' "reduce: rladv index --merge" $reduce
printf '  %-30s %8.2f s sum, %6.2f s longest\n' "apply: rladv compute --index" $apply $applymax
awk -v i=$idx -v n=$in 'BEGIN { printf "  index: %d bytes, %.2f%% of the input\n", i, 100 * i / n }'
awk -v s=$single -v m=$mapmax -v r=$reduce -v a=$applymax 'BEGIN {
    printf "  on %s machines side by side: %.2f s (longest map + reduce + longest apply), %.1fx one rladv\n", "'$K'", m + r + a, s / (m + r + a) }'
rm -rf $D
[ $same = yes ]
