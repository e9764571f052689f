#!/bin/sh
# frameworks.sh RLADV MANPAGE - each --from profile on its framework's
# sample (samples/), with the command that framework's user types (the man
# page's FRAMEWORKS section, run as written), gives that framework's own
# GRPO advantages: those of tests/frameworks/PROFILE.expected.jsonl, which
# reference.py computes from the framework's rules without rladv.  Advantages are compared in output
# order (a columnar line's column in index order), to 1e-9 relative.
# Last line: "N passed, M failed"; exit 1 on any failure.
rladv=${1:-./rladv}
man=${2:-man/rladv.1}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rladv-frameworks.XXXXXX") || exit 3
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0

# profile NAME ARGS...: rladv --from NAME ARGS (options and the sample),
# against tests/frameworks/$expect.expected.jsonl (expect: NAME if unset).
profile() {
	name=$1
	want=${expect:-$name}
	shift
	"$rladv" --from "$name" "$@" >"$tmp/out" 2>"$tmp/err"
	st=$?
	if [ $st -ne 0 ] || [ -s "$tmp/err" ]; then
		fail=$((fail + 1))
		echo "FAIL $name: exit $st: $(head -c 300 "$tmp/err")"
		return
	fi
	if python3 - "tests/frameworks/$want.expected.jsonl" "$tmp/out" <<'PY'
import json, sys
want = [json.loads(l) for l in open(sys.argv[1])]
got = []
for l in open(sys.argv[2]):
    a = json.loads(l)["advantage"]
    got += a if isinstance(a, list) else [a]
if len(got) != len(want):
    print("  %d advantages, expected %d" % (len(got), len(want)))
    sys.exit(1)
bad = 0
for w, g in zip(want, got):
    e = w["advantage"]
    if not isinstance(g, (int, float)) or abs(g - e) > 1e-9 * max(1, abs(e)):
        print("  line %d%s: %r, expected %r" % (w["line"],
              " index %d" % w["index"] if "index" in w else "", g, e))
        bad += 1
sys.exit(1 if bad else 0)
PY
	then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL $want: advantages differ from the framework's"
	fi
}

# The commands of the man page's FRAMEWORKS section, as written there
# (full digits added: the comparison is to 1e-9).
awk '/^\.Sh FRAMEWORKS/{on=1;next} /^\.Sh /{on=0} on && /^\$ rladv --from /{sub(/^\$ rladv /,"");print}' \
    "$man" >"$tmp/commands"
n=0
while read -r line; do
	set -- $line
	name=$2
	shift 2
	n=$((n + 1))
	[ -f "tests/frameworks/$name.expected.jsonl" ] ||
	    { fail=$((fail + 1)); echo "FAIL $name: no expected file"; continue; }
	profile "$name" "$@" --digits 17
done <"$tmp/commands"
[ $n -eq 10 ] || { fail=$((fail + 1)); echo "FAIL: $n commands in FRAMEWORKS, expected one per profile (10)"; }

# NeMo-RL under use_dynamic_sampling: its dump's rewards are rows of the
# unfiltered batches, the trained ones are filtered_rewards.
expect=nemo-rl-dynamic profile nemo-rl \
    samples/nemo_rl_dynamic_train_data_step5.jsonl --digits 17

# --expect-key (set by --from trl and nemo-rl): silent above, where the
# options are the run's; a log made with other settings is told, at its
# first record that differs and at the end with the count, and the
# output is the same bytes.  TRL's sample with groups of 6 (it has 4):
# line 1 gets 0.645372249 where TRL logged 0.4999000132.
# expect_warn NAME FIRST LAST ARGS...: stderr is the two lines.
expect_warn() {
	name=$1 first=$2 last=$3
	shift 3
	"$rladv" "$@" >"$tmp/out" 2>"$tmp/err"
	st=$?
	if [ $st -ne 0 ] || [ "$(wc -l <"$tmp/err")" -ne 2 ] ||
	    ! head -1 "$tmp/err" | grep -qF "$first" ||
	    ! tail -1 "$tmp/err" | grep -qF "$last"; then
		fail=$((fail + 1))
		echo "FAIL expect-key: $name: exit $st: $(head -c 400 "$tmp/err")"
	else
		pass=$((pass + 1))
	fi
}
T="--from trl --reward-key math_reward_func,coding_reward_func samples/trl_completions_00005.jsonl"
expect_warn "TRL, groups of 6" \
    "trl_completions_00005.jsonl:1: warning: rladv's advantage is 0.645372249, the record's \"advantage\" 0.499900013" \
    'rladv: warning: 7 of 12 advantages differ from the records'"'"' "advantage"' \
    --group-size 6 $T
"$rladv" --group-size 6 $T --expect-key x 2>/dev/null >"$tmp/plain"
if cmp -s "$tmp/out" "$tmp/plain"; then pass=$((pass + 1)); else
	fail=$((fail + 1)); echo "FAIL expect-key: the output changed"; fi
expect_warn "TRL, gdpo on a sum_then_normalize log" \
    "rladv's advantage is 0.7069992, the record's \"advantage\" 0.499900013" \
    "7 of 12 advantages differ" --group-size 4 -a gdpo $T
# NeMo-RL's advantages, one per token in a batch of one: GRPO's
# deviation of all four is not its leave-one-out one.
expect_warn "NeMo-RL, -a grpo" "warning: rladv's advantage is" \
    "advantages differ from the records' \"advantages\"" --from nemo-rl \
    -a grpo samples/nemo_rl_train_data_step3.jsonl
# --no-expect: nothing said, whatever --from set.
"$rladv" --group-size 6 $T --no-expect >/dev/null 2>"$tmp/err"
if [ -s "$tmp/err" ]; then fail=$((fail + 1))
	echo "FAIL expect-key: --no-expect said $(head -c 200 "$tmp/err")"
else pass=$((pass + 1)); fi
# stats does not read it.
"$rladv" stats --group-size 6 $T >/dev/null 2>"$tmp/err"
if [ -s "$tmp/err" ]; then fail=$((fail + 1))
	echo "FAIL expect-key: stats said $(head -c 200 "$tmp/err")"
else pass=$((pass + 1)); fi

# The expected files are what reference.py computes from the samples.
if python3 tests/frameworks/reference.py --check; then
	pass=$((pass + 1))
else
	fail=$((fail + 1))
	echo "FAIL reference.py --check: an expected file is not what it computes"
fi
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
