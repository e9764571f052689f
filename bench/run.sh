#!/bin/sh
# run.sh - make bench: builds its inputs, checks that the Python baselines
# compute rladv's numbers, times rladv against itself and its baselines,
# and prints each goal of the performance work with its ratio, all from
# this one run.  Nothing here asserts a time: a goal not met is printed
# "NOT MET" and the run still succeeds.
#
# How it measures: the commands that a ratio compares run in the same
# rounds, one after another, the order reversed every other round, so that
# each round sees the machine as it is then (it is shared).  A row is the
# median of its rounds' wall seconds; a ratio, the median of the rounds'
# ratios.  Peak RSS is the command's own (wait4 of the child,
# bench/measure.c), the largest of its rounds; CPU the median user + system
# seconds, so CPU over wall says how many cores a run kept busy.  Output
# goes to /dev/null.
#
# Sizes: BENCH_MB (default 200; records of TOKENS log-probs, default
# 2000), SMALL_MB (the 20- and 1000-token inputs, default 100), PY_MB (the
# Python baselines' inputs, default 20); BENCH_REPS rounds (default 7).
# As root it installs Debian's python3-ujson and python3-numpy for
# /usr/bin/python3 when missing; without them those rows say SKIP, as the
# orjson rows do where no python3 has orjson and numpy.
set -e
cd "$(dirname "$0")/.."
MB=${BENCH_MB:-200}
PY_MB=${PY_MB:-20}
TOKENS=${TOKENS:-2000}
REPS=${BENCH_REPS:-7}
SMALL_MB=${SMALL_MB:-100}
N=$(nproc)
D=bench/data
mkdir -p $D
cc -std=c11 -O2 -o bench/gen bench/gen.c -lm
cc -std=c11 -O2 -o bench/measure bench/measure.c
cc -std=c11 -O2 -pthread -o bench/spin bench/spin.c
cc -std=c11 -O2 -o bench/hold bench/hold.c
cc -O2 -o bench/cjson_parse bench/cjson_parse.c \
    $(pkg-config --cflags --libs libcjson)
# rladv with each gzip library: zlib alone always, ISA-L where libisal is.
ZBIN=build/zlib/rladv-bench IBIN=build/isal/rladv-bench
make -s ISAL=0 BIN=$ZBIN $ZBIN
if pkg-config --exists libisal; then make -s ISAL=1 BIN=$IBIN $IBIN; else IBIN=; fi

# gen NAME ARGS...: $D/NAME.jsonl, made once (the name says the sizes).
gen() {
	f=$D/$1.jsonl
	shift
	[ -s $f ] || { bench/gen "$@" > $f.tmp && mv $f.tmp $f; }
}
M=$D/main-$MB-t$TOKENS.jsonl
gen main-$MB-t$TOKENS --bytes ${MB}000000 --tokens $TOKENS --seed 1
[ -s $M.gz ] || { gzip -1 -c $M > $M.tmp && mv $M.tmp $M.gz; }
T20=$D/t20-$SMALL_MB.jsonl T1K=$D/t1000-$SMALL_MB.jsonl
gen t20-$SMALL_MB --bytes ${SMALL_MB}000000 --tokens 20 --seed 6
gen t1000-$SMALL_MB --bytes ${SMALL_MB}000000 --tokens 1000 --seed 7
PY=$D/py-$PY_MB-t$TOKENS.jsonl PYS=$D/pys-$PY_MB.jsonl
gen py-$PY_MB-t$TOKENS --bytes ${PY_MB}000000 --tokens $TOKENS --seed 2
gen pys-$PY_MB --bytes ${PY_MB}000000 --tokens 20 --seed 8
# The agreement check's inputs: the first MB of the Python inputs (the
# same seed makes the same records) and rewards of every kind.
gen agree-t$TOKENS --bytes 1000000 --tokens $TOKENS --seed 2
gen agree-2 --bytes 300000 --tokens 20 --seed 8
gen agree-3 --bytes 300000 --tokens 50 --rewards continuous --seed 9
gen agree-4 --bytes 300000 --tokens 50 --rewards passrate --group 5 --seed 10
# --scope group's memory: groups of 16 and of 512 records (~15 MB each).
gen g16-t$TOKENS --bytes 100000000 --tokens $TOKENS --group 16 --seed 15
gen g512-t$TOKENS --bytes 100000000 --tokens $TOKENS --group 512 --seed 14
G16=$D/g16-t$TOKENS.jsonl G512=$D/g512-t$TOKENS.jsonl
gen ms64 --bytes 20000000 --tokens 64 --group 64 --rewards binary --seed 3
gen ms16c --bytes 4000000 --tokens 64 --group 16 --rewards continuous --seed 4
gen ms64c --bytes 4000000 --tokens 64 --group 64 --rewards continuous --seed 5

# The strongest Python a user would write: ujson and numpy, Debian's, for
# /usr/bin/python3; orjson where an interpreter has it beside numpy.
if ! /usr/bin/python3 -c 'import ujson, numpy' 2>/dev/null &&
    [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
	echo "bench: installing python3-ujson python3-numpy" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get install -y -q python3-ujson python3-numpy >/dev/null 2>&1 ||
	    { apt-get update -q >/dev/null 2>&1 &&
	    apt-get install -y -q python3-ujson python3-numpy >/dev/null 2>&1; } ||
	    echo "bench: could not install python3-ujson python3-numpy" >&2
fi
PYNP= PYOR=
/usr/bin/python3 -c 'import ujson, numpy' 2>/dev/null && PYNP=/usr/bin/python3
for p in /usr/bin/python3 python3; do
	if $p -c 'import orjson, numpy' 2>/dev/null; then PYOR=$p; break; fi
done

echo "machine: $N cores, $(uname -m), $(uptime | sed 's/.*load/load/')"
echo "main input: $(wc -c < $M) bytes, $(wc -l < $M) records of ~$TOKENS" \
    "log-probs, one batch; output to /dev/null"
echo "how: the commands of a block run in turn in $REPS rounds, the order" \
    "reversed every other round; a row is the median of its rounds, a" \
    "ratio the median of the rounds' ratios; RSS the command's own peak" \
    "(wait4), the largest of its rounds; CPU user + system seconds"

# agree NAME CMD...: CMD, reading a record per line on standard input,
# writes rladv's numbers on every check input (rladv diff --outputs with
# --tol 1e-12 --atol 1e-12 against rladv --digits 17), or the bench stops.
agree() {
	name=$1
	shift
	recs=0
	for f in $D/agree-t$TOKENS.jsonl $D/agree-2.jsonl $D/agree-3.jsonl \
	    $D/agree-4.jsonl; do
		./rladv --digits 17 $f > $D/agree-r.out 2>$D/err ||
		    { cat $D/err; exit 1; }
		"$@" < $f > $D/agree-p.out
		if ! ./rladv diff --outputs --tol 1e-12 --atol 1e-12 $D/agree-r.out \
		    $D/agree-p.out > $D/agree.txt 2>&1; then
			echo "bench: $name does not compute rladv's numbers on $f:"
			head -5 $D/agree.txt
			exit 1
		fi
		recs=$((recs + $(wc -l < $f)))
	done
	echo "  $name: rladv's numbers on $recs records (4 inputs; rladv diff" \
	    "--outputs --tol 1e-12 --atol 1e-12 against rladv --digits 17)"
}
echo
echo "the baselines compute what rladv -a grpo -g token does:"
agree "python3 json" python3 bench/baseline.py
if [ -n "$PYNP" ]; then
	agree "python3 ujson+numpy" $PYNP bench/baseline_np.py
else
	echo "  SKIP python3 ujson+numpy: /usr/bin/python3 lacks ujson or numpy" \
	    "(make bench as root installs python3-ujson, python3-numpy)"
fi
if [ -n "$PYOR" ]; then
	agree "python3 orjson+numpy" $PYOR bench/baseline_np.py --orjson
else
	echo "  SKIP python3 orjson+numpy: no python3 here has orjson and numpy"
fi

MEDIAN='function median(a, n,  i, k, v) {
	for (i = 2; i <= n; i++) { v = a[i]
	    for (k = i - 1; k >= 1 && a[k] > v; k--) a[k + 1] = a[k]
	    a[k + 1] = v }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }'

# paired TITLE NAME FILE CMD [NAME FILE CMD]...: runs the commands (each a
# line for sh -c, its standard error shown only if it fails) in the same
# REPS rounds; prints TITLE and a row for each: median seconds, MB/s and
# records/s of FILE ("-": no rate), largest peak RSS, median CPU seconds.
# Every run stays in $D/runs (round, index, seconds, RSS KB, CPU seconds)
# for ratio and field.
paired() {
	echo
	echo "$1"
	shift
	: > $D/runs
	: > $D/names
	n=0
	while [ $# -gt 0 ]; do
		n=$((n + 1))
		if [ "$2" = - ]; then
			echo "0 0 $1" >> $D/names
		else
			echo "$(wc -c < $2) $(wc -l < $2) $1" >> $D/names
		fi
		eval "cmd_$n=\$3"
		shift 3
	done
	k=0
	while [ $k -lt $REPS ]; do
		i=1
		while [ $i -le $n ]; do
			j=$i
			[ $((k % 2)) -eq 1 ] && j=$((n + 1 - i))
			eval "c=\$cmd_$j"
			set -- $(bench/measure - - sh -c "$c" 2>$D/err)
			[ "$4" -eq 0 ] || { echo "bench: $c: exit $4"
			    cat $D/err; exit 1; }
			echo "$k $j $1 $2 $3" >> $D/runs
			i=$((i + 1))
		done
		k=$((k + 1))
	done
	awk "$MEDIAN"'
	    FILENAME ~ /names$/ { b[++nn] = $1; r[nn] = $2
		sub(/^[^ ]* [^ ]* /, ""); name[nn] = $0; next }
	    { t[$2, ++c[$2]] = $3; u[$2, c[$2]] = $5
		if ($4 > x[$2]) x[$2] = $4 }
	    END { for (j = 1; j <= nn; j++) {
		for (i = 1; i <= c[j]; i++) { v[i] = t[j, i]; w[i] = u[j, i] }
		s = median(v, c[j])
		printf "  %-38s %7.3f %8s %9s %8.1f %6.2f\n", name[j], s,
		    b[j] ? sprintf("%.1f", b[j] / s / 1e6) : "-",
		    b[j] ? sprintf("%.0f", r[j] / s) : "-", x[j] / 1024,
		    median(w, c[j]) } }' $D/names $D/runs
}
# ratio A B: the median over the rounds of row B's speed over row A's (in
# MB/s where both have a FILE, else in runs per second).
ratio() {
	awk "$MEDIAN"' FILENAME ~ /names$/ { b[++nn] = $1 ? $1 : 1; next }
	    $2 == A { ta[$1] = $3 } $2 == B { tb[$1] = $3 }
	    END { for (k in ta) q[++m] = (b[B] / tb[k]) / (b[A] / ta[k])
		print median(q, m) }' A=$1 B=$2 $D/names $D/runs
}
# field ROW COLUMN: row ROW's largest (2: RSS KB) or median (3: CPU
# seconds, 1: wall seconds) over the rounds.
field() {
	awk "$MEDIAN"' $2 == R { if (C == 2) { if ($4 > x) x = $4 }
		else v[++m] = C == 1 ? $3 : $5 }
	    END { print C == 2 ? x : median(v, m) }' R=$1 C=$2 $D/runs
}
# cpu A B: row A's median CPU seconds over row B's, the ratio that others'
# load on the machine moves least.
cpu() { awk -v a=$(field $1 3) -v b=$(field $2 3) 'BEGIN { print a / b }'; }
echo
printf '  %-38s %7s %8s %9s %8s %6s\n' "what" "s" "MB/s" "records/s" \
    "RSS MB" "CPU s"

paired "threads: -j 1 against -j $N (every core) on the main input; bench/spin: what $N threads of plain arithmetic got in the same rounds" \
    "rladv -j 1" $M "./rladv -j 1 $M" \
    "rladv -j $N" $M "./rladv -j $N $M" \
    "bench/spin 1 (one thread)" - "bench/spin 1" \
    "bench/spin $N ($N threads, same work)" - "bench/spin $N"
r_jobs=$(ratio 1 2) r_spin=$(ratio 3 4)
c_jobs=$(cpu 2 1)
busy_jobs=$(awk -v a=$(field 2 3) -v b=$(field 2 1) 'BEGIN { print a / b }')
rss_main=$(field 2 2)

paired "MS-GRPO exact (continuous rewards, groups of 16, $(wc -l < $D/ms16c.jsonl) records): -j 1 against -j $N" \
    "rladv -a msgrpo --ms-mode exact -j 1" $D/ms16c.jsonl \
    "./rladv -a msgrpo --ms-mode exact -j 1 $D/ms16c.jsonl" \
    "rladv -a msgrpo --ms-mode exact -j $N" $D/ms16c.jsonl \
    "./rladv -a msgrpo --ms-mode exact -j $N $D/ms16c.jsonl" \
    "bench/spin 1" - "bench/spin 1" \
    "bench/spin $N" - "bench/spin $N"
r_ms=$(ratio 1 2) r_msspin=$(ratio 3 4)
busy_ms=$(awk -v a=$(field 2 3) -v b=$(field 2 1) 'BEGIN { print a / b }')
g16=$(( $(wc -l < $D/ms16c.jsonl) / 16 ))
ms_group=$(awk -v s=$(field 2 1) -v g=$g16 'BEGIN { print s * 1000 / g }')

paired "record size: $SMALL_MB MB of 1000-token and of 20-token records, each one batch:" \
    "rladv, 1000-token records" $T1K "./rladv $T1K" \
    "rladv, 20-token records" $T20 "./rladv $T20" \
    "rladv -j 1, 1000-token records" $T1K "./rladv -j 1 $T1K" \
    "rladv -j 1, 20-token records" $T20 "./rladv -j 1 $T20"
r_small=$(ratio 1 2) r_small1=$(ratio 3 4)
rss_1k=$(field 1 2) rss_20=$(field 2 2)

set -- "rladv, file mapped" $M "./rladv $M" \
    "cat file | rladv" $M "cat $M | ./rladv" \
    "rladv -j 1, file mapped" $M "./rladv -j 1 $M" \
    "cat file | rladv -j 1" $M "cat $M | ./rladv -j 1" \
    "gzip -dc" $M "gzip -dc < $M.gz" \
    "rladv, gzip input (zlib alone)" $M "$ZBIN $M.gz" \
    "cat file | bench/hold (reading only)" $M "cat $M | bench/hold 2>/dev/null" \
    "cat file | cat (nothing kept)" $M "cat $M | cat"
[ -n "$IBIN" ] && set -- "$@" "rladv, gzip input (ISA-L)" $M "$IBIN $M.gz"
paired "input: the main input mapped, piped, and gzip'd (MB/s of the text):" "$@"
r_pipe=$(ratio 1 2) r_pipe1=$(ratio 3 4) r_zlib=$(ratio 5 6) r_isal=
r_hold=$(ratio 1 7) r_hold1=$(ratio 3 7)
cpu_map=$(field 1 3) cpu_pipe=$(field 2 3) cpu_hold=$(field 7 3)
cpu_cat=$(field 8 3) wall_map=$(field 1 1)
[ -n "$IBIN" ] && r_isal=$(ratio 5 9)

paired "parsing: a cJSON tree per line (parse only, nothing written) on the main input:" \
    "cat" $M "cat $M" \
    "cJSON parse only" $M "bench/cjson_parse < $M" \
    "rladv -a grpo" $M "./rladv $M"
r_cjson=$(ratio 2 3)
c_cjson=$(cpu 2 3)

# The Python rows: each script, then rladv, on the same input in the same
# rounds, typical records and then 20-token ones; SKIP where no interpreter
# has the modules.  i_KIND_SIZE: the row of KIND (np, or, r) on SIZE.
# pylib KIND: sets py, lib and opt for baseline_np.py with ujson or orjson.
pylib() {
	if [ $1 = np ]; then py=$PYNP lib=ujson opt=
	else py=$PYOR lib=orjson opt=--orjson; fi
}
set -- "python3 json (stdlib), typical" $PY "python3 bench/baseline.py < $PY"
for size in typical 20; do
	f=$PY label=typical
	[ $size = 20 ] && f=$PYS label="20 tokens"
	for k in np or; do
		pylib $k
		eval "i_${k}_$size="
		[ -n "$py" ] || continue
		set -- "$@" "python3 $lib+numpy, $label" $f \
		    "$py bench/baseline_np.py $opt < $f"
		eval "i_${k}_$size=$(( $# / 3 ))"
	done
	set -- "$@" "rladv, $label" $f "./rladv $f"
	eval "i_r_$size=$(( $# / 3 ))"
done
paired "Python: $PY_MB MB of typical ($TOKENS-token) records and of 20-token records:" "$@"
r_py=$(ratio 1 $i_r_typical)
for k in np or; do
	for size in typical 20; do
		eval "i=\$i_${k}_$size j=\$i_r_$size r_${k}_$size= c_${k}_$size="
		[ -n "$i" ] && eval "r_${k}_$size=$(ratio $i $j)" \
		    "c_${k}_$size=$(cpu $i $j)"
	done
done

head -1 $M > $D/one.jsonl
paired "other modes, the main input:" \
    "rladv --no-tokens" $M "./rladv --no-tokens $M" \
    "rladv -a stratified -g balanced" $M "./rladv -a stratified -g balanced $M" \
    "rladv -a msgrpo" $M "./rladv -a msgrpo $M" \
    "rladv --scope group" $M "./rladv --scope group $M" \
    "rladv -z (gzip output)" $M "./rladv -z $M" \
    "rladv, one record (the fixed cost)" - "./rladv $D/one.jsonl" \
    "rladv --scope group, 20-token records" $T20 "./rladv --scope group $T20" \
    "rladv --scope group, groups of 16" $G16 "./rladv --scope group $G16" \
    "rladv --scope group, groups of 512" $G512 "./rladv --scope group $G512"
rss_g=$(field 4 2) rss0=$(field 6 2) rss_g20=$(field 7 2)
rss_g16=$(field 8 2) rss_g512=$(field 9 2)
# The largest group of an input (its records are in groups), in bytes.
largest() {
	awk -F'"prompt_id": "' '{ split($2, k, "\""); g[k[1]] += length($0) + 1 }
	    END { for (i in g) if (g[i] > m) m = g[i]; print m }' $1
}
big=$(largest $M) big16=$(largest $G16) big512=$(largest $G512)

paired "MS-GRPO (issue 3), groups of 64 and 16:" \
    "rladv -a grpo, binary G=64" $D/ms64.jsonl "./rladv $D/ms64.jsonl" \
    "rladv -a msgrpo exact, binary G=64" $D/ms64.jsonl \
    "./rladv -a msgrpo --ms-mode exact $D/ms64.jsonl" \
    "rladv -a msgrpo sampled, cont. G=16" $D/ms16c.jsonl \
    "./rladv -a msgrpo --ms-mode sampled $D/ms16c.jsonl" \
    "rladv -a msgrpo sampled, cont. G=64" $D/ms64c.jsonl \
    "./rladv -a msgrpo --ms-mode sampled $D/ms64c.jsonl"
r_ms64=$(ratio 2 1)
g64=$(( $(wc -l < $D/ms64c.jsonl) / 64 ))
ms_s16=$(awk -v s=$(field 3 1) -v g=$g16 'BEGIN { print s * 1000 / g }')
ms_s64=$(awk -v s=$(field 4 1) -v g=$g64 'BEGIN { print s * 1000 / g }')

# goal WHAT VALUE OP BOUND [NOTE]: a line of the summary.
goal() {
	awk -v w="$1" -v v="$2" -v op="$3" -v b="$4" -v note="$5" 'BEGIN {
	    ok = op == ">=" ? v >= b : v <= b
	    printf "  %-44s %6.2f  [%s %-4s] %-7s %s\n", w, v, op, b,
		ok ? "met" : "NOT MET", note }'
}
skip() {
	printf "  %-44s %6s  [%s %-4s] %s\n" "$1" - "$2" "$3" "SKIP ($4)"
}
# x A B: A / B, for the notes.
x() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
echo
echo "goals (ratios from the rounds above; goal in brackets):"
goal "-j $N vs -j 1, plain file (speed)" $r_jobs ">=" 1.7 \
    "$N threads of arithmetic got $(x $r_spin 1)x (-j $N: $(x $r_jobs $r_spin) of that); -j $N kept $(x $busy_jobs 1) cores busy, used $(x $c_jobs 1)x the CPU of -j 1"
awk -v r=$r_ms -v s=$r_msspin -v b=$busy_ms -v m=$ms_group -v n=$N 'BEGIN {
    printf "  %-44s %6.2f  (no bound: groups in parallel; arithmetic got %.2fx; %.2f cores busy; %.2f ms a group)\n",
    "MS-GRPO exact G=16, -j " n " vs -j 1", r, s, b, m }'
goal "20- vs 1000-token records, MB/s" $r_small ">=" 0.6 \
    "-j 1: $(x $r_small1 1)x"
goal "peak RSS / text, $TOKENS-token records" $(x $rss_main $(($(wc -c < $M) / 1024))) "<=" 1.5
goal "peak RSS / text, 1000-token records" $(x $rss_1k $(($(wc -c < $T1K) / 1024))) "<=" 1.5
goal "peak RSS / text, 20-token records" $(x $rss_20 $(($(wc -c < $T20) / 1024))) "<=" 1.5
goal "rladv vs cJSON parse only" $r_cjson ">=" 4 \
    "in CPU seconds: $(x $c_cjson 1)x"
goal "rladv vs python3 json (stdlib)" $r_py ">=" 30
for k in np or; do
	pylib $k
	for size in typical 20; do
		label=typical bound=20
		[ $size = 20 ] && label="20 tokens" bound=10
		eval "r=\$r_${k}_$size c=\$c_${k}_$size"
		if [ -n "$r" ]; then
			goal "rladv vs python3 $lib+numpy, $label" $r ">=" $bound \
			    "in CPU seconds: $(x $c 1)x"
		else
			skip "rladv vs python3 $lib+numpy, $label" ">=" $bound \
			    "no python3 here has $lib and numpy"
		fi
	done
done
goal "pipe input vs file mapped" $r_pipe ">=" 0.9 \
    "-j 1: $(x $r_pipe1 1)x; CPU (cat's too) $(x $cpu_pipe 1) s against $(x $cpu_map 1) s"
echo "    floor: cat file | bench/hold, which only reads the pipe into memory" \
    "as a held batch must be, ran at $(x $r_hold 1)x of rladv on the mapped" \
    "file ($(x $r_hold1 1)x of rladv -j 1; CPU $(x $cpu_hold 1) s)"
# Reading the pipe (cat's CPU and the copy into memory) and rladv's own
# work share the N cores: no pipe can finish before their CPU over N.
awk -v w=$wall_map -v m=$cpu_map -v h=$cpu_hold -v n=$N 'BEGIN {
    printf "    bound: the CPU of rladv on the mapped file and of the" \
	" reading (%.2f + %.2f s) over %d cores is %.3f s: at best %.2fx" \
	" of the mapped file\n", m, h, n, (m + h) / n, w / ((m + h) / n) }'
# cat | cat keeps nothing: its CPU is the pipe's own cost (cat's reading
# and writing, the other side's copy out), which any reader of a pipe pays
# however it holds the batch.
awk -v w=$wall_map -v m=$cpu_map -v c=$cpu_cat -v n=$N 'BEGIN {
    printf "    bound with nothing kept: cat file | cat alone used %.2f" \
	" CPU s; with rladv'"'"'s %.2f s over %d cores, at best %.2fx of the" \
	" mapped file\n", c, m, n, w / ((m + c) / n) }'
if [ -n "$r_isal" ]; then
	goal "gzip input vs gzip -dc alone, ISA-L" $r_isal ">=" 2
else
	skip "gzip input vs gzip -dc alone, ISA-L" ">=" 2 "libisal is not installed: make deps"
fi
goal "gzip input vs gzip -dc alone, zlib" $r_zlib ">=" 1.2
# Peak RSS against the largest group where the group is large enough to
# be seen beside the fixed memory (threads, chunks read ahead, output
# pieces; a few MB whatever the group), and what each byte of group adds:
# the change from groups of 16 to groups of 512.
goal "--scope group: peak RSS / largest group" \
    $(awk -v m=$rss_g512 -v b=$big512 'BEGIN { print m * 1024 / b }') "<=" 2 \
    "groups of 512: $(x $rss_g512 1024) MB, largest group $(x $big512 1048576) MB"
echo "    each byte of group adds $(awk -v a=$rss_g512 -v b=$rss_g16 \
    -v p=$big512 -v q=$big16 'BEGIN { printf "%.2f", (a - b) * 1024 / (p - q) }')" \
    "bytes (groups of 16: $(x $rss_g16 1024) MB, largest $(x $big16 1024) KB);" \
    "the main input: $(x $rss_g 1024) MB, largest group $(x $big 1024) KB;" \
    "$(x $rss_g20 1024) MB with 20-token records; one record's run $(x $rss0 1024) MB"
goal "MS-GRPO exact binary G=64 vs grpo (time)" $r_ms64 "<=" 5
echo "  MS-GRPO sampled M=4 K=8: $(x $ms_s16 1) ms a group at G=16," \
    "$(x $ms_s64 1) ms at G=64 (I/O included)"
sh bench/shard.sh "$M"
