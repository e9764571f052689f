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

# The expected files are what reference.py computes from the samples.
if python3 tests/frameworks/reference.py --check; then
	pass=$((pass + 1))
else
	fail=$((fail + 1))
	echo "FAIL reference.py --check: an expected file is not what it computes"
fi
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
