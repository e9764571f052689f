#!/bin/sh
# faults.sh RLADV - fault tests (SPEC section 6): full disk, a reader that
# closes the pipe, unreadable and missing files, truncated and corrupt
# gzip, out of memory, and --max-line as a bound on a line.
#
# Status 3 is an I/O or system error, 1 invalid data; a closed pipe ends
# rladv by SIGPIPE (status 141 in the shell), without a message, whatever
# its parent set for the signal.
# Out-of-memory tests run under "ulimit -v" in a subshell; they are skipped
# (and say so) when rladv cannot start under such a limit at all (an
# AddressSanitizer build reserves terabytes of address space).
#
# POSIX sh; needs awk, gzip, head, tr, and 0.5 GB of space in $TMPDIR.
# Last line: "N passed, M failed"; exit 1 on any failure.
rladv=${1:-./rladv}
case $rladv in
/*) ;;
*) rladv=$(pwd)/$rladv ;;
esac
if [ ! -x "$rladv" ]; then
	echo "faults.sh: $rladv: not an executable" >&2
	echo "0 passed, 1 failed"
	exit 1
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rladv-faults.XXXXXX") || exit 3
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
cd "$tmp" || exit 3
pass=0 fail=0 skipped=0
TO=
command -v timeout >/dev/null 2>&1 && TO="timeout 120"

ok() { pass=$((pass + 1)); }
no() { fail=$((fail + 1)); echo "FAIL $1: $2"; }
skip() { skipped=$((skipped + 1)); echo "skip $1: $2"; }

# run ARGS...: rladv with stdout to out, stderr to err, status in st.
run() {
	$TO "$rladv" "$@" >out 2>err
	st=$?
}

# expect NAME STATUS TEXT: after a run, the status is STATUS and stderr
# has a line "rladv: ..." that contains TEXT.
expect() {
	if [ "$st" -eq 124 ]; then
		no "$1" "hung (killed by timeout)"
	elif [ "$st" -ne "$2" ]; then
		no "$1" "exit status $st, expected $2; stderr: $(head -c 300 err)"
	elif ! grep -q "^rladv: .*$3" err; then
		no "$1" "no message \"rladv: ...$3...\" on stderr: $(head -c 300 err)"
	else
		ok
	fi
}

G='{"prompt_id":"a","reward":1,"logprobs":[-0.5,-0.25]}'
printf '%s\n%s\n' "$G" '{"prompt_id":"a","reward":0,"logprobs":[-0.5]}' >good.jsonl

# A big input: 40000 records of about 1 KB (40 MB of output with the token
# arrays), more than any pipe buffer holds.
awk 'BEGIN {
	lp = "-0.5"; for (i = 1; i < 120; i++) lp = lp ",-0." i
	for (i = 0; i < 40000; i++)
		printf "{\"prompt_id\":\"p%d\",\"reward\":%d,\"logprobs\":[%s]}\n", i / 8, i % 3 == 0, lp
}' >big.jsonl

# --- A full disk ----------------------------------------------------------
run good.jsonl
st_good=$st
if [ "$st_good" -ne 0 ]; then
	no sanity "rladv fails on good input: $(head -c 300 err)"
fi
"$rladv" good.jsonl >/dev/full 2>err
st=$?
expect full_stdout_small 3 'No space left on device'
# Standard output is called so by every command (compute said <stdout>).
expect full_stdout_named 3 'standard output: write error: No space left on device'
"$rladv" stats good.jsonl >/dev/full 2>err
st=$?
expect full_stdout_stats 3 'standard output: write error: No space left on device'
"$rladv" index good.jsonl >/dev/full 2>err
st=$?
expect full_stdout_index 3 'standard output: write error: No space left on device'
"$rladv" --no-tokens good.jsonl >/dev/full 2>err
st=$?
expect full_stdout_no_tokens 3 'No space left on device'
"$rladv" big.jsonl >/dev/full 2>err
st=$?
expect full_stdout_big 3 'No space left on device'
"$rladv" -z big.jsonl >/dev/full 2>err
st=$?
expect full_stdout_gzip 3 'No space left on device'
"$rladv" --scope group big.jsonl >/dev/full 2>err
st=$?
expect full_stdout_streaming 3 'No space left on device'
run -o /dev/full good.jsonl
expect full_output_file 3 '/dev/full'
{ cat good.jsonl; printf 'not json\n'; } >withbad.jsonl
run --on-error skip --rejects /dev/full withbad.jsonl
expect full_rejects_file 3 '/dev/full'

# --- A reader that closes the pipe ----------------------------------------
# pipe_status NAME CMD...: runs CMD | head -c 10; the status of CMD must be
# 141 (SIGPIPE), with nothing on stderr.
pipe_status() {
	name=$1
	shift
	rm -f pst
	{ "$@" 2>err; echo $? >pst; } | head -c 10 >/dev/null
	st=$(cat pst)
	case $st in
	141)
		if [ -s err ]; then
			no "$name" "a message: $(head -c 200 err)"
		else
			ok
		fi
		;;
	*) no "$name" "status $st after the reader closed the pipe (expected 141)" ;;
	esac
}
pipe_status pipe_file "$rladv" big.jsonl
pipe_status pipe_no_tokens "$rladv" --no-tokens big.jsonl
pipe_status pipe_gzip_out "$rladv" -z big.jsonl
pipe_status pipe_streaming "$rladv" --scope group big.jsonl
pipe_status pipe_batches "$rladv" --batch-groups 10 big.jsonl
pipe_status pipe_stdin sh -c '"$1" <"$2"' sh "$rladv" big.jsonl
pipe_status pipe_stdin_pipe sh -c 'cat "$2" | "$1"' sh "$rladv" big.jsonl
# With SIGPIPE ignored by the parent: still SIGPIPE.
pipe_status pipe_sigpipe_ignored sh -c 'trap "" PIPE; exec "$1" "$2"' sh "$rladv" big.jsonl
# head -n 1 instead of head -c.
rm -f pst
{ "$rladv" big.jsonl 2>err; echo $? >pst; } | head -n 1 >/dev/null
st=$(cat pst)
case $st in 141) ok ;; *) no pipe_head_n1 "status $st" ;; esac
# A reader that is gone before rladv writes anything.
rm -f pst
{ "$rladv" big.jsonl 2>err; echo $? >pst; } | true
st=$(cat pst)
case $st in 141) ok ;; *) no pipe_reader_gone "status $st" ;; esac

# --- Unreadable, missing and odd files --------------------------------------
run nosuch.jsonl
expect missing_file 3 'nosuch\.jsonl'
run good.jsonl nosuch.jsonl
if [ -s out ]; then
	no missing_second_file "records written, then status $st"
else
	expect missing_second_file 3 'nosuch\.jsonl'
fi
mkdir adir
run adir
expect directory_as_file 3 'adir'
run - <adir
expect directory_as_stdin 3 'stdin'
cp good.jsonl unreadable.jsonl
chmod 000 unreadable.jsonl
if cat unreadable.jsonl >/dev/null 2>&1; then
	skip unreadable_file "running as root: chmod 000 does not stop reads"
else
	run unreadable.jsonl
	expect unreadable_file 3 'unreadable\.jsonl'
fi
run -o nodir/out.jsonl good.jsonl
expect output_missing_dir 3 'nodir/out\.jsonl'
run -o adir good.jsonl
expect output_is_directory 3 'adir'
run --on-error skip --rejects nodir/rej.txt good.jsonl
expect rejects_missing_dir 3 'nodir/rej\.txt'
"$rladv" <&- >out 2>err
st=$?
expect stdin_closed 3 'stdin'
"$rladv" good.jsonl >&- 2>err
st=$?
expect stdout_closed 3 'standard output'

# An input file cut short while rladv reads it (logrotate's copytruncate
# does this to a live log): an error status or complete output, never a
# death by signal (a mapped file that shrinks raises SIGBUS).  The reader
# takes one byte, so rladv has read its whole batch, then empties the file.
cp big.jsonl shrinking.jsonl
rm -f pst first rest
{ "$rladv" shrinking.jsonl 2>err; echo $? >pst; } |
    { dd bs=1 count=1 of=first 2>/dev/null; : >shrinking.jsonl; cat >rest; }
st=$(cat pst)
case $st in
0)
	if [ "$(cat first rest | wc -l | tr -d ' ')" -eq 40000 ]; then ok; else
		no input_shrinks "status 0 with incomplete output"; fi
	;;
1 | 3)
	if grep -q '^rladv: .*shrinking\.jsonl' err; then ok; else
		no input_shrinks "status $st without a message naming the file: $(head -c 200 err)"; fi
	;;
*) no input_shrinks "status $st (killed by signal $((st - 128)))" ;;
esac
rm -f first rest shrinking.jsonl

# --- Truncated and corrupt gzip: invalid data, status 1 -------------------
gzip -c big.jsonl >big.gz
sz=$(wc -c <big.gz | tr -d ' ')
head -c $((sz / 3)) big.gz >trunc.gz
run trunc.gz
if [ -s out ]; then
	no truncated_gzip "records written, then status $st"
else
	expect truncated_gzip 1 'trunc\.gz.*gzip'
fi
"$rladv" <trunc.gz >out 2>err
st=$?
expect truncated_gzip_stdin 1 'gzip'
run --scope group trunc.gz
expect truncated_gzip_streaming 1 'gzip'
{ head -c $((sz / 2)) big.gz; head -c 64 /dev/zero | tr '\0' 'Z'; tail -c $((sz / 2 - 64)) big.gz; } >corrupt.gz
run corrupt.gz
if [ "$st" -eq 1 ] && grep -q '^rladv: corrupt\.gz' err; then ok; else
	no corrupt_gzip "status $st: $(head -c 200 err)"; fi
{ cat big.gz; printf 'garbage after the data'; } >trailing.gz
run trailing.gz
expect gzip_trailing_garbage 1 'trailing\.gz.*gzip'

# --- Out of memory: status 3 and a message, never a crash -----------------
# A line of 300 MB: the line buffer cannot grow to hold it under 200 MB.
{ printf '{"prompt_id":"a","reward":1,"logprobs":[1'; head -c 300000000 /dev/zero | tr '\0' 0
  printf ']}\n'; } >giant.jsonl
gzip -1 -c giant.jsonl >giant.gz
oom() {
	name=$1 limit=$2
	shift 2
	(ulimit -v "$limit" && exec $TO "$rladv" "$@") >out 2>err
	st=$?
	if [ "$st" -gt 128 ] && [ "$st" -ne 124 ]; then
		no "$name" "killed by signal $((st - 128)): $(head -c 200 err)"
	else
		expect "$name" 3 'out of memory'
	fi
}
if (ulimit -v 200000 && "$rladv" good.jsonl) >/dev/null 2>&1; then
	oom oom_giant_line_file 200000 giant.jsonl
	oom oom_giant_line_stdin 200000 - <giant.jsonl
	oom oom_giant_line_gzip 200000 giant.gz
	oom oom_giant_line_file_small_limit 60000 giant.jsonl
	# Many records held at once (--unsorted keeps the whole batch).
	oom oom_many_records 60000 --unsorted big.jsonl big.jsonl big.jsonl big.jsonl
	cat big.jsonl big.jsonl big.jsonl >big3.jsonl
	oom oom_many_records_stdin 60000 --unsorted - <big3.jsonl
	rm -f big3.jsonl
	oom oom_msgrpo 60000 -a msgrpo --unsorted big.jsonl big.jsonl big.jsonl
	# A number too long for the stack buffer its value is read from
	# (a reward of 120 MB): out of memory, not bad data.
	{ printf '{"prompt_id":"a","reward":0.'; head -c 120000000 /dev/zero | tr '\0' 0
	  printf '1,"logprobs":[-1]}\n'; } >longnum.jsonl
	oom oom_long_number 200000 longnum.jsonl
	rm -f longnum.jsonl
else
	skip oom "rladv does not start under ulimit -v 200000 (a sanitizer build?)"
fi

# --- Bounded cost: sampled MS-GRPO -----------------------------------------
# One group of 65535 records with distinct rewards: the exact path would
# cost 2^65535, the sampled one (4 scales, 8 subgroups each) up to 5.5e8
# units, past the default --ms-budget 1e8: refused before any work,
# status 2 with FILE:LINE.  It was "out of memory" with no place: the
# sampled path held two tables of (G - 1) * G doubles (68 GB).  With the
# budget raised it runs, its memory linear in G (under 300 MB of address
# space where it can be limited).  K = 100000 subgroups per scale on a
# group of 64 (minutes of greedy selection) is refused at once too.
awk 'BEGIN { for (i = 0; i < 65535; i++)
	printf "{\"prompt_id\":\"big\",\"reward\":%d,\"logprobs\":[-1]}\n", (i * 7919) % 65521 }' >g65535.jsonl
(ulimit -t 60; exec $TO "$rladv" -a msgrpo --no-tokens g65535.jsonl) >out 2>err
st=$?
expect msgrpo_big_group_budget 2 'g65535\.jsonl:1: group "big" .*sampled MS-GRPO would cost up to .* > --ms-budget'
if (ulimit -v 300000 && "$rladv" good.jsonl) >/dev/null 2>&1; then
	lim="ulimit -v 300000;"
else
	lim=""
fi
(eval "$lim"; ulimit -t 120; exec $TO "$rladv" -a msgrpo --ms-budget 1e9 \
    --no-tokens g65535.jsonl) >out 2>err
st=$?
if [ "$st" -eq 0 ] && [ "$(wc -l <out)" -eq 65535 ] &&
    grep -q '0 groups exact, 1 sampled' err; then ok; else
	no msgrpo_big_group_runs "status $st, $(wc -l <out) lines: $(head -c 300 err)"; fi
head -n 64 g65535.jsonl >g64.jsonl
(ulimit -t 10; exec $TO "$rladv" -a msgrpo --ms-groups 100000 g64.jsonl) >out 2>err
st=$?
expect msgrpo_many_subgroups 2 'g64\.jsonl:1: group "big" .*lower --ms-groups'
rm -f g65535.jsonl g64.jsonl

# --- --max-line bounds a line ---------------------------------------------
# With --max-line 1M the giant line is refused as data (status 1, FILE:LINE)
# without reading it whole: it works in 100 MB of address space.
maxline() {
	name=$1 file=$2
	shift 2
	(ulimit -v 100000 2>/dev/null; exec $TO "$rladv" --max-line 1M "$@") >out 2>err
	st=$?
	expect "$name" 1 "$file:1: .*max-line"
}
if (ulimit -v 100000 && "$rladv" good.jsonl) >/dev/null 2>&1; then
	maxline max_line_file giant.jsonl giant.jsonl
	maxline max_line_stdin '<stdin>' - <giant.jsonl
	maxline max_line_gzip giant.gz giant.gz
else
	skip max_line_memory "rladv does not start under ulimit -v 100000"
	run --max-line 1M giant.jsonl
	expect max_line_file 1 'giant\.jsonl:1: .*max-line'
fi
# The bound is exact: a line of N bytes passes --max-line N, N + 1 fails.
printf '%s\n%s\n' "$G" "$G" >exact.jsonl
n=$(printf '%s' "$G" | wc -c | tr -d ' ')
run --max-line "$n" exact.jsonl
if [ "$st" -eq 0 ] && [ "$(wc -l <out)" -eq 2 ]; then ok; else
	no max_line_exact "a line of $n bytes refused by --max-line $n: $(head -c 200 err)"; fi
run --max-line $((n - 1)) exact.jsonl
expect max_line_one_over 1 'exact\.jsonl:1: .*max-line'
"$rladv" --max-line $((n - 1)) <exact.jsonl >out 2>err
st=$?
expect max_line_one_over_stdin 1 '<stdin>:1: .*max-line'
# Only the long line matters: it is line 3 here.
{ cat exact.jsonl; printf '{"prompt_id":"a","reward":1,"logprobs":[%s-0.5]}\n' "$(awk 'BEGIN { for (i = 0; i < 50; i++) printf "-0.5," }')"; } >third.jsonl
run --max-line 200 third.jsonl
expect max_line_third 1 'third\.jsonl:3: .*max-line'

rm -f giant.jsonl giant.gz
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
