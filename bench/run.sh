#!/bin/sh
# run.sh - make bench: builds its inputs, then measures rladv against the
# baselines in one run and prints ratios.  Sizes: BENCH_MB (default 200),
# PY_MB (the Python baseline's input, default 20), TOKENS (default 2000);
# BENCH_REPS (default 5): rounds of the paired rows.  Times are wall
# seconds on this machine, memory the command's own peak (bench/measure.c);
# nothing here asserts a time.
set -e
cd "$(dirname "$0")/.."
MB=${BENCH_MB:-200}
PY_MB=${PY_MB:-20}
TOKENS=${TOKENS:-2000}
REPS=${BENCH_REPS:-5}
D=bench/data
mkdir -p $D
cc -std=c11 -O2 -o bench/gen bench/gen.c -lm
cc -std=c11 -O2 -o bench/measure bench/measure.c
# rladv with each gzip library: zlib alone always, ISA-L where libisal is.
ZBIN=build/zlib/rladv-bench IBIN=build/isal/rladv-bench
make -s ISAL=0 BIN=$ZBIN $ZBIN
if pkg-config --exists libisal; then make -s ISAL=1 BIN=$IBIN $IBIN; else IBIN=; fi
cc -O2 -o bench/cjson_parse bench/cjson_parse.c \
    $(pkg-config --cflags --libs libcjson)
[ -s $D/main-$MB.jsonl ] || bench/gen --bytes ${MB}000000 --tokens $TOKENS \
    --seed 1 > $D/main-$MB.jsonl
[ -s $D/main-$MB.jsonl.gz ] || gzip -1 -c $D/main-$MB.jsonl > $D/main-$MB.jsonl.gz
[ -s $D/py-$PY_MB.jsonl ] || bench/gen --bytes ${PY_MB}000000 --tokens $TOKENS \
    --seed 2 > $D/py-$PY_MB.jsonl
[ -s $D/ms64.jsonl ] || bench/gen --bytes 20000000 --tokens 64 --group 64 \
    --rewards binary --seed 3 > $D/ms64.jsonl
[ -s $D/ms16c.jsonl ] || bench/gen --bytes 4000000 --tokens 64 --group 16 \
    --rewards continuous --seed 4 > $D/ms16c.jsonl
[ -s $D/ms64c.jsonl ] || bench/gen --bytes 4000000 --tokens 64 --group 64 \
    --rewards continuous --seed 5 > $D/ms64c.jsonl

M=$D/main-$MB.jsonl
bytes=$(wc -c < $M)
recs=$(wc -l < $M)
pybytes=$(wc -c < $D/py-$PY_MB.jsonl)
pyrecs=$(wc -l < $D/py-$PY_MB.jsonl)
echo "machine: $(nproc) cores, $(uname -m); input: $bytes bytes, $recs records" \
    "of ~$TOKENS log-probs (one batch)"
printf '%-34s %9s %10s %9s\n' "what" "MB/s" "records/s" "RSS MB"

# row NAME BYTES RECORDS IN CMD...: measures, prints, and leaves the
# seconds in $secs and the peak RSS (KB) in $rss.
row() {
	name=$1 b=$2 n=$3 in=$4
	shift 4
	set -- $(bench/measure "$in" - "$@")
	secs=$1 rss=$2
	[ "$3" -eq 0 ] || { echo "$name: exit $3"; exit 1; }
	awk -v n="$name" -v b="$b" -v r="$n" -v s="$secs" -v m="$rss" \
	    'BEGIN { printf "%-34s %9.1f %10.0f %9.1f\n", n, b/s/1e6, r/s, m/1024 }'
}
row "cat" $bytes $recs $M cat;				t_cat=$secs
row "gzip -dc" $bytes $recs $M.gz gzip -dc;		t_gz=$secs
row "cJSON parse only" $bytes $recs $M bench/cjson_parse; t_cj=$secs
row "python3 json+GRPO (${PY_MB} MB)" $pybytes $pyrecs $D/py-$PY_MB.jsonl \
    python3 bench/baseline.py;				t_py=$secs
row "rladv -a grpo" $bytes $recs - ./rladv $M;	t_r=$secs; rss_r=$rss
row "rladv -a grpo (py input)" $pybytes $pyrecs - ./rladv $D/py-$PY_MB.jsonl; t_rpy=$secs
row "rladv --no-tokens" $bytes $recs - ./rladv --no-tokens $M
row "rladv -a stratified -g balanced" $bytes $recs - ./rladv -a stratified \
    -g balanced $M
row "rladv -a msgrpo" $bytes $recs - ./rladv -a msgrpo $M
row "rladv --scope group" $bytes $recs - ./rladv --scope group $M; rss_g=$rss
row "rladv -z (gzip output)" $bytes $recs - ./rladv -z $M


# paired NAME CMD [NAME CMD]...: runs the commands (each a line for sh -c)
# in turn, REPS rounds, so that each round sees the machine as it is
# then; prints a row for each (its median seconds, its largest peak), and
# leaves every run in $D/paired: round, index (1, 2...), seconds, RSS KB.
paired() {
	: > $D/paired
	: > $D/names
	k=0
	while [ $k -lt $REPS ]; do
		j=0 odd=1
		for a in "$@"; do
			if [ $odd = 1 ]; then
				odd=0
				[ $k -eq 0 ] && echo "$a" >> $D/names
				continue
			fi
			odd=1 j=$((j + 1))
			m=$(bench/measure - - sh -c "$a")
			[ "${m##* }" -eq 0 ] || { echo "$a: exit ${m##* }"; exit 1; }
			echo "$k $j ${m% *}" >> $D/paired
		done
		k=$((k + 1))
	done
	awk -v b=$bytes -v r=$recs 'function median(a, n,  i, k, v) {
		for (i = 2; i <= n; i++) { v = a[i]
		    for (k = i - 1; k >= 1 && a[k] > v; k--) a[k + 1] = a[k]
		    a[k + 1] = v }
		return a[int((n + 1) / 2)] }
	    FNR == NR { name[++nn] = $0; next }
	    { t[$2, ++c[$2]] = $3; if ($4 > x[$2]) x[$2] = $4 }
	    END { for (j = 1; j <= nn; j++) {
		for (i = 1; i <= c[j]; i++) v[i] = t[j, i]
		s = median(v, c[j])
		printf "%-34s %9.1f %10.0f %9.1f\n", name[j], b/s/1e6, r/s,
		    x[j]/1024 } }' $D/names $D/paired
}
# ratio A B: the median over the rounds of paired run A's seconds over
# run B's, so how many times faster B is.
ratio() {
	awk -v a=$1 -v b=$2 '$2 == a { ta[$1] = $3 } $2 == b { tb[$1] = $3 }
	    END { for (k in ta) r[++m] = ta[k] / tb[k]
		for (i = 2; i <= m; i++) { v = r[i]
		    for (k = i - 1; k >= 1 && r[k] > v; k--) r[k + 1] = r[k]
		    r[k + 1] = v }
		print r[int((m + 1) / 2)] }' $D/paired
}

echo
echo "input (paired, median of $REPS rounds):"
paired "rladv, file mapped" "./rladv $M >/dev/null" \
    "rladv, cat file | rladv" "cat $M | ./rladv >/dev/null"
r_pipe=$(ratio 1 2)
if [ -n "$IBIN" ]; then
	paired "gzip -dc" "gzip -dc <$M.gz >/dev/null" \
	    "rladv, gzip input (ISA-L)" "$IBIN $M.gz >/dev/null" \
	    "rladv, gzip input (zlib alone)" "$ZBIN $M.gz >/dev/null"
	r_isal=$(ratio 1 2) r_zlib=$(ratio 1 3)
else
	paired "gzip -dc" "gzip -dc <$M.gz >/dev/null" \
	    "rladv, gzip input (zlib alone)" "$ZBIN $M.gz >/dev/null"
	r_zlib=$(ratio 1 2) r_isal=
fi

echo
echo "ratios (goal in brackets):"
awk -v a=$t_cj -v b=$t_r 'BEGIN { printf "  rladv vs cJSON parse-only:    %5.1fx  [>= 4]\n", a/b }'
awk -v a=$t_py -v b=$t_rpy 'BEGIN { printf "  rladv vs Python script:       %5.1fx  [>= 30]\n", a/b }'
awk -v r=$r_pipe 'BEGIN { printf "  pipe input vs file mapped:    %5.2fx  [>= 0.9]\n", r }'
if [ -n "$r_isal" ]; then
	awk -v r=$r_isal 'BEGIN { printf "  gzip input vs gzip -dc alone, ISA-L: %5.2fx  [>= 2]\n", r }'
else
	echo "  gzip input vs gzip -dc alone, ISA-L: not measured (libisal is not installed: make deps)"
fi
awk -v r=$r_zlib 'BEGIN { printf "  gzip input vs gzip -dc alone, zlib:  %5.2fx  [>= 1.2]\n", r }'
awk -v m=$rss_r -v b=$bytes 'BEGIN { printf "  peak RSS / batch text:        %5.2f   [<= 2]\n", m*1024/b }'
big=$(awk '{ n = length($0) + 1; g[$0 ~ /"prompt_id"/ ? substr($0, 1, 40) : NR] += n }
    END { for (k in g) if (g[k] > m) m = g[k]; print m }' $M)
# The fixed cost of the process (libraries, 4 MB line and 1 MB output
# buffers) is measured on a one-record input and taken off.
head -1 $M > $D/one.jsonl
set -- $(bench/measure - - ./rladv $D/one.jsonl); rss0=$2
awk -v m=$rss_g -v z=$rss0 -v b=$big 'BEGIN { printf "  --scope group (RSS - %.1f MB fixed) / largest group (%.0f KB): %5.2f  [<= 2]\n", z/1024, b/1024, (m-z)*1024/b }'

echo
echo "MS-GRPO (issue 3):"
n64=$(wc -l < $D/ms64.jsonl)
row "rladv -a grpo, binary G=64" $(wc -c < $D/ms64.jsonl) $n64 - ./rladv $D/ms64.jsonl; t_g=$secs
row "rladv -a msgrpo exact, binary G=64" $(wc -c < $D/ms64.jsonl) $n64 - ./rladv \
    -a msgrpo --ms-mode exact $D/ms64.jsonl; t_m=$secs
awk -v a=$t_m -v b=$t_g 'BEGIN { printf "  exact binary G=64 vs grpo:    %5.2fx  [<= 5]\n", a/b }'
g16=$(( $(wc -l < $D/ms16c.jsonl) / 16 ))
row "rladv -a msgrpo exact, cont. G=16" $(wc -c < $D/ms16c.jsonl) $((g16 * 16)) - ./rladv \
    -a msgrpo --ms-mode exact $D/ms16c.jsonl
awk -v s=$secs -v g=$g16 'BEGIN { printf "  exact continuous G=16:        %6.2f ms per group (%d groups, I/O included)\n", s*1000/g, g }'
row "rladv -a msgrpo sampled, cont. G=16" $(wc -c < $D/ms16c.jsonl) $((g16 * 16)) - ./rladv \
    -a msgrpo --ms-mode sampled $D/ms16c.jsonl
awk -v s=$secs -v g=$g16 'BEGIN { printf "  sampled M=4 K=8, G=16:        %6.2f ms per group\n", s*1000/g }'
g64=$(( $(wc -l < $D/ms64c.jsonl) / 64 ))
row "rladv -a msgrpo sampled, cont. G=64" $(wc -c < $D/ms64c.jsonl) $((g64 * 64)) - ./rladv \
    -a msgrpo --ms-mode sampled $D/ms64c.jsonl
awk -v s=$secs -v g=$g64 'BEGIN { printf "  sampled M=4 K=8, G=64:        %6.2f ms per group\n", s*1000/g }'
sh bench/shard.sh
