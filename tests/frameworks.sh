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

# slime's agents split rollouts 1, 5 and 9 in two (rollout_id shared):
# slime normalizes the whole batch as one group, and its per-rollout
# mean weighs a sample 1/(R max(M, 1)), R = 12 rollouts, M the trained
# tokens of the sample's whole rollout (cp_utils.py get_sum_of_sample_mean
# with rollout_mask_sums, loss.py's / step_global_batch_size), as
# tests/presets/reference.py's slime_agg writes it.
SL="--reward-key reward.score samples/slime_rollout_data_9.jsonl"
expect=slime-split profile slime --gn-scope batch $SL --digits 17
"$rladv" --from slime --gn-scope batch $SL --digits 17 >"$tmp/out" 2>&1
if python3 - samples/slime_rollout_data_9.jsonl "$tmp/out" <<'PY'
import json, sys, types
sys.path.insert(0, "tests/presets")
from reference import slime_agg
recs = [json.loads(l) for l in open(sys.argv[1])]
out = [json.loads(l) for l in open(sys.argv[2])]
batch = types.SimpleNamespace(recs=[types.SimpleNamespace(
    rollout=r["rollout_id"],
    T=0 if r["remove_sample"] else sum(r["loss_mask"])) for r in recs])
bad = 0
for k, (o, want) in enumerate(zip(out, slime_agg(batch, "seq"))):
    if abs(o["loss_weight"] - want) > 1e-12 * want:
        print("  line %d: loss_weight %r, slime's %r" % (k + 1, o["loss_weight"], want))
        bad = 1
sys.exit(bad)
PY
then pass=$((pass + 1)); else fail=$((fail + 1))
	echo "FAIL slime-split: loss weights are not slime's per-rollout mean"; fi
# Without --gn-scope batch: rladv keeps the prompts' groups, and says
# that slime does not.
"$rladv" --from slime $SL >/dev/null 2>"$tmp/err"
if [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -qF \
    'slime_rollout_data_9.jsonl:3: warning: "rollout_id" "1" has several samples' \
    "$tmp/err" && grep -qF "give --gn-scope batch" "$tmp/err"; then
	pass=$((pass + 1))
else
	fail=$((fail + 1)); echo "FAIL slime-split: no warning: $(head -c 300 "$tmp/err")"
fi
# slime 0.3.0 named rollout_id group_id: such a dump is told, and read
# with --rollout-key group_id it weighs as the 0.3.1 one.
sed 's/"rollout_id": /"group_id": /' samples/slime_rollout_data_9.jsonl >"$tmp/s030.jsonl"
"$rladv" --from slime --reward-key reward.score --gn-scope batch \
    "$tmp/s030.jsonl" >/dev/null 2>"$tmp/err"
if [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -qF 's030.jsonl:2: warning: field "group_id" is there, "rollout_id" is not' \
    "$tmp/err" && grep -qF -- "--rollout-key group_id" "$tmp/err"; then
	pass=$((pass + 1))
else
	fail=$((fail + 1)); echo "FAIL slime 0.3.0: $(head -c 300 "$tmp/err")"
fi
"$rladv" --from slime --reward-key reward.score --gn-scope batch \
    --rollout-key group_id "$tmp/s030.jsonl" 2>"$tmp/err" |
    sed 's/"group_id": /"rollout_id": /' >"$tmp/a"
"$rladv" --from slime --reward-key reward.score --gn-scope batch \
    samples/slime_rollout_data_9.jsonl >"$tmp/b" 2>/dev/null
if [ ! -s "$tmp/err" ] && cmp -s "$tmp/a" "$tmp/b"; then pass=$((pass + 1)); else
	fail=$((fail + 1)); echo "FAIL slime 0.3.0: --rollout-key group_id: $(head -c 300 "$tmp/err")"; fi
# slime's reinforce_plus_plus_baseline on such a step: the batch's mean,
# which the whitening removes, so its numbers are -a rpp's (slime's
# reinforce_plus_plus has no group mean, and rladv says nothing of it).
"$rladv" --from slime -a rpp-baseline $SL >/dev/null 2>"$tmp/err"
if [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
    grep -qF "takes the baseline of the whole batch" "$tmp/err" &&
    grep -qF -- "-a rpp gives its advantages" "$tmp/err"; then
	pass=$((pass + 1))
else
	fail=$((fail + 1)); echo "FAIL slime-split rpp-baseline: $(head -c 300 "$tmp/err")"
fi
"$rladv" --from slime -a rpp $SL --digits 17 >"$tmp/out" 2>"$tmp/err"
if [ ! -s "$tmp/err" ] && python3 - samples/slime_rollout_data_9.jsonl "$tmp/out" <<'PY'
import json, sys, types
sys.path.insert(0, "tests/presets")
from reference import slime_center, slime_whiten
recs = [json.loads(l) for l in open(sys.argv[1])]
out = [json.loads(l)["advantage"] for l in open(sys.argv[2])]
T = [0 if r["remove_sample"] else sum(r["loss_mask"]) for r in recs]
# _post_process_rewards on 15 samples of 12 rollouts (not 4 x 3): one row.
batch = types.SimpleNamespace(groups=[list(range(len(recs)))], recs=[
    types.SimpleNamespace(r=r["reward"]["score"]) for r in recs])
want = slime_whiten(slime_center(batch, False), T)
bad = [k for k, (g, w) in enumerate(zip(out, want)) if abs(g - w) > 1e-9 * max(1, abs(w))]
sys.exit(1 if bad or len(out) != len(want) else 0)
PY
then pass=$((pass + 1)); else fail=$((fail + 1))
	echo "FAIL slime-split: -a rpp is not slime's rpp-baseline on the split step: $(head -c 300 "$tmp/err")"; fi

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
