#!/bin/sh
# jobs.sh RLADV - -j 2 and -j 8 give the bytes of -j 1.
#
# Threads parse ahead, format the output and run MS-GRPO's groups; the
# records, numbers, messages and rejected lines must come out as one
# thread writes them.  For every conformance case, and for a log of a few
# MB (the sample log copied 16 times over with new prompts and steps,
# so that lines are cut into many chunks and the output into many
# pieces) under every estimator and loss mode, several batches,
# streamed groups, --unsorted, pipes, gzip and several files at once,
# skip mode with its rejects, errors in the middle, stats and diff: the
# standard output, standard error, exit status and rejects file of
# -j 2 and -j 8 must equal those of -j 1 byte for byte.
#
# jobs.sh RLADV quick: only the cases that take each path with threads
# once (make tsan-check, under ThreadSanitizer).
#
# POSIX sh, awk, gzip, cmp.  Last line "N passed, M failed".
rladv=${1:-./rladv}
full=1
[ "$2" = quick ] && full=0
case $rladv in
/*) ;;
*) rladv=$(pwd)/$rladv ;;
esac
top=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rladv-jobs.XXXXXX") || exit 3
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
cd "$tmp" || exit 3
pass=0 fail=0
ok() { pass=$((pass + 1)); }
no() { fail=$((fail + 1)); echo "FAIL $1"; }

# same NAME CMD...: runs CMD (a line for sh -c, where $J is the -j
# option) with -j 1, 2 and 8; their outputs, messages, status and
# rejects (the file rej, when CMD writes it) must be equal.
same() {
	name=$1 cmd=$2
	for j in 1 2 8; do
		rm -f rej
		J="-j $j" sh -c "$cmd" > "out.$j" 2> "err.$j"
		echo $? > "rc.$j"
		if [ -f rej ]; then mv rej "rej.$j"; else : > "rej.$j"; fi
	done
	for j in 2 8; do
		for f in out err rc rej; do
			if ! cmp -s "$f.1" "$f.$j"; then
				no "$name: -j $j: $f differs from -j 1"
				return
			fi
		done
	done
	ok
}

# The conformance cases, as check.py runs them.
conf=$top/tests/conformance
[ $full = 1 ] && while IFS='	' read -r name opts code; do
	case $name in '#'*|'') continue ;; esac
	in=$conf/$name.in.jsonl
	[ -f "$in" ] || in=$in.gz
	same "conformance $name" "\"$rladv\" \$J $opts \"$in\""
done < "$conf/cases.tsv"

# big.jsonl: the sample 16 times, each copy its own prompts and step
# (several batches by --batch-key step), with verl's remax baselines.
awk '{ for (c = 0; c < 16; c++) {
	s = $0
	sub(/"prompt_id": "/, "\"prompt_id\": \"c" c "-", s)
	sub(/"step": [0-9]+/, "\"step\": " c, s)
	sub(/"reward": /, "\"reward_baselines\": 0.25, \"reward\": ", s)
	out[c] = out[c] s "\n"
    } }
    END { for (c = 0; c < 16; c++) printf "%s", out[c] }' \
    "$top/samples/search_agent.jsonl" > big.jsonl
[ "$(wc -c < big.jsonl)" -gt 4000000 ] || no "big.jsonl is too small"

same "grpo" "\"$rladv\" \$J big.jsonl"
[ $full = 1 ] && for a in grpo drgrpo rloo san stratified opo rpp-baseline \
    rpp passk gpg remax loo grpo-whiten; do
	same "-a $a" "\"$rladv\" \$J -a $a big.jsonl"
	same "-a $a -g seq, batches" "\"$rladv\" \$J -a $a -g seq \
	    --batch-key step big.jsonl"
done
[ $full = 1 ] && for g in token seq seq-sum "seq-sum-norm --max-len 512" \
    balanced balanced-gen; do
	same "-g $g" "\"$rladv\" \$J -g $g big.jsonl"
	same "-g $g --scope group" "\"$rladv\" \$J -g $g --scope group \
	    big.jsonl"
done
same "msgrpo" "\"$rladv\" \$J -a msgrpo -v big.jsonl"
same "msgrpo sampled" "\"$rladv\" \$J -a msgrpo --ms-mode sampled \
    --ms-stats token -v big.jsonl"
# A group over budget in the middle: the same group named, the same
# counts before it.
same "msgrpo refused" "\"$rladv\" \$J -a msgrpo --ms-mode exact \
    --ms-budget 2e4 -v big.jsonl"
same "annotate, 17 digits" "\"$rladv\" \$J -a stratified --annotate \
    --digits 17 big.jsonl"
same "no tokens" "\"$rladv\" \$J --no-tokens big.jsonl"
same "batch-groups 3" "\"$rladv\" \$J --batch-groups 3 big.jsonl"
same "batch-groups 1" "\"$rladv\" \$J --batch-groups 1 -g seq big.jsonl"
# Groups scattered: --unsorted, the lines in a fixed random order.
awk 'BEGIN { srand(11) } { print rand() "\t" $0 }' big.jsonl | sort -n |
    cut -f 2- > shuffled.jsonl
same "unsorted" "\"$rladv\" \$J --unsorted shuffled.jsonl"
same "unsorted batch-key" "\"$rladv\" \$J --unsorted --batch-key step \
    -a msgrpo shuffled.jsonl"
# Through a pipe, gzip, and several files of each kind at once.
gzip -c big.jsonl > big.jsonl.gz
head -n 1000 big.jsonl > a.jsonl
sed -n '1001,2000p' big.jsonl | gzip -c > b.jsonl.gz
sed -n '2001,2600p' big.jsonl > c.jsonl
tail -n +2601 big.jsonl > d.jsonl
same "pipe" "cat big.jsonl | \"$rladv\" \$J"
same "gzip" "\"$rladv\" \$J big.jsonl.gz"
same "files of every kind" "\"$rladv\" \$J --batch-key step a.jsonl \
    b.jsonl.gz - c.jsonl < d.jsonl"
same "files, one batch" "\"$rladv\" \$J a.jsonl - b.jsonl.gz c.jsonl \
    < d.jsonl"
same "gzip output" "\"$rladv\" \$J -z -g seq big.jsonl"

# Skip mode: bad lines of several kinds here and there, groups of the
# wrong size, their rejects and messages.
awk 'NR % 97 == 5 { print "{\"prompt_id\": \"x\", \"reward\": " }
    NR % 131 == 7 { print "{\"prompt_id\": \"c1-x\", \"logprobs\": [1]}" }
    NR % 173 == 9 { sub(/"reward": [0-9.]+/, "\"reward\": NaN") }
    NR % 211 == 3 { next }
    { print }' big.jsonl > bad.jsonl
same "skip" "\"$rladv\" \$J --on-error skip --rejects rej bad.jsonl"
same "skip, group size" "\"$rladv\" \$J --on-error skip --rejects rej \
    --group-size 8 --batch-key step bad.jsonl"
same "skip, pipe" "cat bad.jsonl | \"$rladv\" \$J --on-error skip \
    --rejects rej -g seq"
same "error in the middle" "\"$rladv\" \$J bad.jsonl"
same "error after batches" "\"$rladv\" \$J --batch-groups 2 bad.jsonl"
# Bad data after a batch whose output a buffer may still hold: every
# record of the batches before it is written, plain or gzip, whatever -j
# (a piece formatted on another thread used to go out at once, the
# buffer's part of it not), and that is the output of the lines before.
awk 'NR == 330 { print "{\"prompt_id\": \"x\", \"reward\": " } { print }' \
    big.jsonl > stop.jsonl
same "error after a batch" "\"$rladv\" \$J --batch-key step stop.jsonl"
same "error after a batch, gzip" "\"$rladv\" \$J -z --batch-key step \
    stop.jsonl"
head -n 320 big.jsonl | "$rladv" --batch-key step > before.jsonl 2> /dev/null
"$rladv" --batch-key step stop.jsonl > stopped.jsonl 2> /dev/null
if [ $? = 1 ] && [ -s before.jsonl ] && cmp -s before.jsonl stopped.jsonl; then
	ok
else
	no "error after a batch: the output is not the batch before it"
fi
same "too long a line" "\"$rladv\" \$J --max-line 3000 --batch-groups 1 \
    big.jsonl"
same "too long, skip" "\"$rladv\" \$J --max-line 3000 --on-error skip \
    --rejects rej big.jsonl"

# A mapped file's chunks are cut into lines by the threads, which number
# them from the chunk's first: the numbers in messages and rejects, far
# into a file, with blank lines and CRLF ends on the way, in a file after
# others and on standard input read from an offset.
awk 'NR % 89 == 0 { print ""; print " \t\r" }
    NR % 50 == 0 { sub(/$/, "\r") }
    { print }' bad.jsonl > crlf.jsonl
awk 'NR == 4000 { print "{\"prompt_id\": \"late\", \"reward\": 1,}" }
    NR % 89 == 0 { print "" }
    NR % 50 == 0 { sub(/$/, "\r") }
    { print }' big.jsonl > late.jsonl
max=$(LC_ALL=C awk '{ if (length($0) > m) m = length($0) } END { print m }' big.jsonl)
LC_ALL=C awk -v m="$max" 'NR == 4000 { while (length($0) <= m)
	sub(/"response_id"/, "\"pad\": \"0123456789\", &") }
    NR % 89 == 0 { print "" }
    { print }' big.jsonl > long.jsonl
same "skip, blank lines and CRLF" "\"$rladv\" \$J --on-error skip \
    --rejects rej crlf.jsonl"
same "error late in a file" "\"$rladv\" \$J late.jsonl"
same "too long, late in a file" "\"$rladv\" \$J --max-line $max \
    long.jsonl"
same "skip, files of every kind" "\"$rladv\" \$J --on-error skip \
    --rejects rej a.jsonl b.jsonl.gz crlf.jsonl - late.jsonl < bad.jsonl"
same "skip, standard input from an offset" "{ head -n 7 > /dev/null; \
    \"$rladv\" \$J --on-error skip --rejects rej; } < crlf.jsonl"

# The frameworks' dumps (samples/), each 100 times over, through their
# --from profiles: paths, reward forms, masks, a columnar line of many
# records (ROLL), trajectories of several rows (SkyRL).  The copies of a
# keyed dump make its groups come back: --unsorted gathers them.
for p in verl:verl_rollout_dump verl-agent:verl_agent_loop \
    trl:trl_completions_00005 openrlhf:openrlhf_agent \
    nemo-rl:nemo_rl_train_data_step3 slime:slime_rollout_data_4 \
    areal:areal_dump_v12 roll:roll_rollout_dump_data.step_3 \
    skyrl:skyrl_generator_output verifiers:verifiers_results; do
	n=${p%%:*}
	awk '{ l[NR] = $0 } END { for (c = 0; c < 100; c++)
	    for (i = 1; i <= NR; i++) print l[i] }' \
	    "$top/samples/${p#*:}.jsonl" > "$n.jsonl"
	case $n in
	trl) o="--group-size 4 --reward-key math_reward_func,coding_reward_func" ;;
	openrlhf) o="--group-size 4" ;;
	slime) o="--reward-key reward.score --unsorted" ;;
	verl|verifiers) o= ;;
	*) o=--unsorted ;;
	esac
	case $n in
	roll|skyrl) ;;
	*) [ $full = 1 ] || continue ;;
	esac
	same "--from $n" "\"$rladv\" \$J --from $n $o $n.jsonl"
done
same "--columnar" "\"$rladv\" \$J --columnar --group-key id --reward-key \
    scores --no-tokens --unsorted --batch-groups 40 roll.jsonl"
same "--trajectory-key" "\"$rladv\" \$J --group-key \
    trajectory_ids.instance_id --trajectory-key trajectory_ids \
    --trajectory-last-key is_last_step --reward-key rewards --mask-key \
    loss_masks --unsorted -g seq skyrl.jsonl"
[ $full = 1 ] && same "stats --from skyrl" "\"$rladv\" stats \$J \
    --from skyrl --unsorted skyrl.jsonl"
[ $full = 1 ] && same "--from trl, --output-names" "\"$rladv\" \$J \
    --from trl --group-size 4 --reward-key \
    math_reward_func,coding_reward_func --prefix rladv_ trl.jsonl"

# stats and diff read the input the same way.
same "stats" "\"$rladv\" stats \$J big.jsonl"
same "stats --json" "\"$rladv\" stats \$J --json --batch-key step \
    shuffled.jsonl --unsorted"
same "stats, skip" "\"$rladv\" stats \$J --on-error skip bad.jsonl"
same "diff" "\"$rladv\" diff \$J --a '-a grpo' --b '-a msgrpo' big.jsonl"
same "diff --json" "\"$rladv\" diff \$J --json --a '-a san' \
    --b '-a stratified' --batch-key step big.jsonl"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
