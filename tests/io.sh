#!/bin/sh
# io.sh RLADV [OTHER] - end-to-end tests of input and gzip output.
#
# Standard input is read from its offset and left at its end, and a
# second "-" is the same stream, already read; a pipe, a regular file on
# standard input, gzip and several files give the same bytes out as the
# file named; the line named after gzip trailing garbage is the one after
# the last good line; a run that fails early does not wait for a writer
# that stays silent.  OTHER is rladv built with the other gzip library
# (make check builds it: ISA-L against zlib): both must read and write
# gzip to the same bytes, and gzip -t accepts what each writes.
rladv=${1:-./rladv}
other=$2
tmp=$(mktemp -d) || exit 3
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0

ok() { pass=$((pass + 1)); }
no() { fail=$((fail + 1)); echo "FAIL $1${2:+: $2}"; }
# same NAME A B: files A and B have the same bytes, and A is not empty.
same() {
	if [ -s "$2" ] && cmp -s "$2" "$3"; then ok; else
		no "$1" "$(cmp "$2" "$3" 2>&1 | head -1)"; fi
}

# A search agent's rollouts (samples/), its prompts renamed into 24
# copies, with a rollout of 150,000 tokens (a 1.9 MB line, longer than
# the reader's first block) among them.
S=$(dirname "$0")/../samples/search_agent.jsonl
awk '{ line[NR] = $0 }
END { for (c = 0; c < 24; c++) {
	for (i = 1; i <= NR; i++) { s = line[i]
		sub(/"hotpot-/, "\"c" c "-hotpot-", s); print s }
	if (c != 11) continue
	printf "{\"prompt_id\": \"long-1\", \"response_id\": 0, \"reward\": 1.0, \"logprobs\": [-0.125"
	for (i = 1; i < 150000; i++) printf ", -0.%d", i % 997
	print "]}"
	print "{\"prompt_id\": \"long-1\", \"response_id\": 1, \"reward\": 0.0, \"logprobs\": [-0.5]}" } }' \
    "$S" >"$tmp/big.jsonl"
head -n 6 "$S" >"$tmp/six.jsonl"
gzip -c "$tmp/big.jsonl" >"$tmp/big.gz"
"$rladv" "$tmp/big.jsonl" >"$tmp/want" || no "rladv FILE" "status $?"
"$rladv" "$tmp/six.jsonl" >"$tmp/want6" || no "rladv FILE" "status $?"
[ "$(wc -l <"$tmp/want")" -eq "$(wc -l <"$tmp/big.jsonl")" ] ||
    no "rladv FILE" "$(wc -l <"$tmp/want") lines out"

# --- Standard input ----------------------------------------------------
# Read from its offset: what head -n1 left is lines 2-6 (where head
# leaves the offset after the line it read, as GNU and BSD head do).
tail -n +2 "$tmp/six.jsonl" >"$tmp/five.jsonl"
"$rladv" "$tmp/five.jsonl" >"$tmp/want5" 2>>"$tmp/log"
{ head -n1 >/dev/null; cat; } <"$tmp/six.jsonl" >"$tmp/o"
if cmp -s "$tmp/o" "$tmp/five.jsonl"; then
	{ head -n1 >/dev/null; "$rladv"; } <"$tmp/six.jsonl" >"$tmp/o" 2>>"$tmp/log"
	same stdin_from_offset "$tmp/o" "$tmp/want5"
else
	echo "SKIP stdin_from_offset: this head leaves no offset after line 1"
fi
# ... and left at its end: what comes after rladv reads nothing more.
{ "$rladv" >/dev/null; cat; } <"$tmp/six.jsonl" >"$tmp/o" 2>>"$tmp/log"
[ -s "$tmp/o" ] && no stdin_left_at_end "$(wc -c <"$tmp/o") bytes left" || ok
# A second "-" is the same stream, already ended: the file once.
"$rladv" - - <"$tmp/big.jsonl" >"$tmp/o" 2>>"$tmp/log"
same stdin_twice_file "$tmp/o" "$tmp/want"
cat "$tmp/big.jsonl" | "$rladv" - - >"$tmp/o" 2>>"$tmp/log"
same stdin_twice_pipe "$tmp/o" "$tmp/want"
sed -n 1,320p "$tmp/big.jsonl" >"$tmp/a.jsonl"
sed -n 321,640p "$tmp/big.jsonl" >"$tmp/b.jsonl"
sed -n 641,960p "$tmp/big.jsonl" >"$tmp/c.jsonl"
"$rladv" "$tmp/a.jsonl" - "$tmp/c.jsonl" - <"$tmp/b.jsonl" >"$tmp/o" \
    2>>"$tmp/log"
"$rladv" "$tmp/a.jsonl" "$tmp/b.jsonl" "$tmp/c.jsonl" >"$tmp/o2" \
    2>>"$tmp/log"
same stdin_among_files "$tmp/o" "$tmp/o2"

# --- Pipes, gzip, blocks -----------------------------------------------
cat "$tmp/big.jsonl" | "$rladv" >"$tmp/o" 2>>"$tmp/log"
same pipe "$tmp/o" "$tmp/want"
"$rladv" <"$tmp/big.jsonl" >"$tmp/o" 2>>"$tmp/log"
same stdin_file "$tmp/o" "$tmp/want"
"$rladv" --scope group "$tmp/big.jsonl" >"$tmp/o2" 2>>"$tmp/log"
cat "$tmp/big.jsonl" | "$rladv" --scope group >"$tmp/o" 2>>"$tmp/log"
same pipe_streaming "$tmp/o" "$tmp/o2"
"$rladv" "$tmp/big.gz" >"$tmp/o" 2>>"$tmp/log"
same gzip_file "$tmp/o" "$tmp/want"
cat "$tmp/big.gz" | "$rladv" --scope group >"$tmp/o" 2>>"$tmp/log"
same gzip_pipe_streaming "$tmp/o" "$tmp/o2"
# Members cut at an arbitrary byte (inside a line), and an empty one.
head -c 1000003 "$tmp/big.jsonl" | gzip -1 >"$tmp/multi.gz"
printf '' | gzip >>"$tmp/multi.gz"
tail -c +1000004 "$tmp/big.jsonl" | gzip -9 >>"$tmp/multi.gz"
"$rladv" - <"$tmp/multi.gz" >"$tmp/o" 2>>"$tmp/log"
same gzip_members "$tmp/o" "$tmp/want"

# --- gzip errors name the right line -------------------------------------
# Three good lines, then bytes that are not gzip: all three are read,
# and the error is in line 4 (it named line 1).
head -n 3 "$S" | gzip >"$tmp/tg.gz"
printf 'junk\n' >>"$tmp/tg.gz"
"$rladv" --scope group "$tmp/tg.gz" >"$tmp/o" 2>"$tmp/e"
st=$?
if [ $st -eq 1 ] && [ "$(wc -l <"$tmp/e")" -eq 1 ] &&
    grep -q "^rladv: $tmp/tg.gz:4: trailing garbage after gzip data$" \
    "$tmp/e"; then ok; else
	no gzip_trailing_garbage_line "status $st: $(cat "$tmp/e")"; fi
# Cut inside line 3: the error is in line 3, after two lines.
head -n 3 "$S" | gzip >"$tmp/t.gz"
head -c $(($(wc -c <"$tmp/t.gz") - 12)) "$tmp/t.gz" >"$tmp/cut.gz"
cat "$tmp/cut.gz" | "$rladv" >"$tmp/o" 2>"$tmp/e"
st=$?
if [ $st -eq 1 ] && grep -q '^rladv: <stdin>:3: truncated gzip' "$tmp/e"
then ok; else no gzip_truncated_line "status $st: $(cat "$tmp/e")"; fi

# --- A run that fails early does not wait for its input ------------------
# The writer sends a bad line, plain or gzip, then stays open and silent
# for a minute; timeout only stops a run that would wait for ever.
mkfifo "$tmp/fifo"
printf 'not json\n' >"$tmp/bad"
gzip -c "$tmp/bad" >"$tmp/bad.gz"
for f in bad bad.gz; do
	{ cat "$tmp/$f"; exec sleep 60; } >"$tmp/fifo" &
	wpid=$!
	timeout 20 "$rladv" <"$tmp/fifo" >"$tmp/o" 2>"$tmp/e"
	st=$?
	kill $wpid 2>/dev/null
	wait $wpid 2>/dev/null
	if [ $st -eq 1 ] && grep -q '^rladv: <stdin>:1: ' "$tmp/e"; then ok
	else no "early_failure_silent_writer ($f)" \
	    "status $st (124: it waited)"; fi
done

# --- The other gzip library ----------------------------------------------
gzlib() { "$1" --version | sed -n 's/.*gzip: \([A-Za-z-]*\).*/\1/p'; }
if [ -z "$other" ] || [ ! -x "$other" ]; then
	echo "SKIP gzip_libraries: no ISA-L build to compare with (libisal" \
	    "is not installed; make deps installs it as root)"
elif [ "$(gzlib "$rladv")" = "$(gzlib "$other")" ] ||
    [ -z "$(gzlib "$other")" ]; then
	no gzip_libraries "both binaries use ${other:+$(gzlib "$other")}"
else
	for b in "$rladv" "$other"; do
		l=$(gzlib "$b")
		"$b" "$tmp/big.gz" >"$tmp/o" 2>>"$tmp/log"
		same "gunzip_$l" "$tmp/o" "$tmp/want"
		cat "$tmp/multi.gz" | "$b" >"$tmp/o" 2>>"$tmp/log"
		same "gunzip_members_$l" "$tmp/o" "$tmp/want"
		"$b" -z "$tmp/big.jsonl" >"$tmp/z.$l.gz" 2>>"$tmp/log"
		gzip -t "$tmp/z.$l.gz" && ok || no "gzip_t_$l"
		gzip -dc "$tmp/z.$l.gz" >"$tmp/o"
		same "gzip_out_$l" "$tmp/o" "$tmp/want"
		"$b" -o "$tmp/o.$l.gz" "$tmp/big.gz" 2>>"$tmp/log"
		gzip -dc "$tmp/o.$l.gz" >"$tmp/o"
		same "gzip_in_out_$l" "$tmp/o" "$tmp/want"
		"$b" "$tmp/tg.gz" >/dev/null 2>"$tmp/e.$l"
		"$b" "$tmp/cut.gz" >/dev/null 2>>"$tmp/e.$l"
	done
	same gzip_errors_same_lines "$tmp/e.$(gzlib "$rladv")" \
	    "$tmp/e.$(gzlib "$other")"
fi

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
