#!/bin/sh
# realdata.sh RLADV - end-to-end tests of reading the shapes frameworks
# really write: field paths, log-probs optional, rewards and masks in
# their forms, trajectories of several rows, columnar lines, one-element
# wrappers, --from profiles, the warnings and errors that keep a wrong
# number from passing in silence, and the names of the fields written.
# Numbers are computed by hand in the comments; python3 (stdlib) reads the
# JSON.  Last line: "N passed, M failed"; exit 1 on any failure.
rladv=${1:-./rladv}
case $rladv in
/*) ;;
*) rladv=$(pwd)/$rladv ;;
esac
S=$(pwd)/samples
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rladv-realdata.XXXXXX") || exit 3
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 3
pass=0 fail=0

ok() { pass=$((pass + 1)); }
no() { fail=$((fail + 1)); echo "FAIL $1"; }
# check NAME COMMAND...: the command must succeed.
check() { name=$1; shift; if "$@"; then ok; else no "$name"; fi; }
# run ARGS...: rladv, stdout in o, stderr in e, status in st.
run() { "$rladv" "$@" >o 2>e; st=$?; }
# get LINE KEY: the JSON value of KEY on output line LINE (of file o).
get() {
	python3 -c 'import json,sys; r=json.loads(open("o").read().split("\n")[int(sys.argv[1])-1]); print(json.dumps(r.get(sys.argv[2]), separators=(",", ":")))' "$@"
}
# near A B: |A - B| <= 1e-8 max(1, |B|).
near() { python3 -c 'import sys; a,b=float(sys.argv[1]),float(sys.argv[2]); sys.exit(0 if abs(a-b)<=1e-8*max(1,abs(b)) else 1)' "$1" "$2"; }
# good NAME: the run succeeded with nothing on stderr.
good() {
	if [ "$st" -eq 0 ] && [ ! -s e ]; then ok; else
		no "$1: exit $st: $(head -c 300 e)"; fi
}
# bad NAME STATUS TEXT...: the run failed with STATUS, one line on stderr
# holding every TEXT, nothing on stdout.
bad() {
	name=$1 want=$2
	shift 2
	if [ "$st" -ne "$want" ]; then
		no "$name: exit $st, expected $want: $(head -c 300 e)"
		return
	fi
	if [ "$(wc -l <e)" -ne 1 ] || [ -s o ]; then
		no "$name: $(wc -l <e) lines on stderr, $(wc -c <o) bytes out"
		return
	fi
	for t in "$@"; do
		if ! grep -qF -- "$t" e; then
			no "$name: no \"$t\" in: $(cat e)"
			return
		fi
	done
	ok
}
# warned NAME TEXT...: the run succeeded and warned, holding every TEXT.
warned() {
	name=$1
	shift
	if [ "$st" -ne 0 ] || ! grep -q "warning: " e; then
		no "$name: exit $st, no warning: $(head -c 300 e)"
		return
	fi
	for t in "$@"; do
		grep -qF -- "$t" e || { no "$name: no \"$t\" in: $(cat e)"; return; }
	done
	ok
}

# GRPO on 1,0,0,0, population deviation sqrt(3)/4, eps 1e-6:
# 1.73204681 and -0.577348936.  Sample deviation 1/2: 1.499997 and
# -0.499999.
A1=1.7320468143 A0=-0.5773489381

# --- 1. Field paths ------------------------------------------------------
cat >paths.jsonl <<'J'
{"trajectory_ids": {"instance_id": "7", "repetition_id": 0}, "reward": {"score": 1.0, "acc": true}, "metrics": {"tool_calls": 2}, "logprobs": [-1]}
{"trajectory_ids": {"instance_id": "7", "repetition_id": 1}, "reward": {"score": 0.0, "acc": false}, "metrics": {"tool_calls": 2}, "logprobs": [-1]}
{"trajectory_ids": {"instance_id": "7", "repetition_id": 2}, "reward": {"score": 0.0, "acc": false}, "metrics": {"tool_calls": 0}, "logprobs": [-1]}
{"trajectory_ids": {"instance_id": "7", "repetition_id": 3}, "reward": {"score": 0.0, "acc": false}, "metrics": {"tool_calls": 0}, "logprobs": [-1]}
J
run --group-key trajectory_ids.instance_id --reward-key reward.score paths.jsonl
good paths_group_reward
check "a.b: the group of four, rewards 1,0,0,0" near "$(get 1 advantage)" $A1
# SAN by metrics.tool_calls: strata {1,0} (mean 1/2, std 1/2) and {0,0}:
# (1 - 1/2)/(1/2 + 1e-6) = 0.999998, and 0 for the equal stratum.
run -a san --group-key .trajectory_ids.instance_id --reward-key reward.score \
    --stratum-key metrics.tool_calls paths.jsonl
good paths_stratum
check "a.b as the stratum" near "$(get 1 advantage)" 0.999998
check "equal stratum 0" [ "$(get 3 advantage)" = 0 ]
# An index, a member of an element, a quoted name.
cat >idx.jsonl <<'J'
{"content": [["q1", "a"]], "r": [{"v": 1}, {"v": 0.5, "w": 3}], "x.y": {"z": 1}, "logprobs": []}
{"content": [["q1", "b"]], "r": [{"v": 0}, {"v": 0.5, "w": 3}], "x.y": {"z": 0}, "logprobs": []}
J
run --group-key 'content[0][0]' --reward-key 'r[0].v' -g seq-sum idx.jsonl
good paths_index
# rewards 1, 0: mean 1/2, population std 1/2: 0.999998, -0.999998
check "a[0][0] groups, a[0].b rewards" near "$(get 2 advantage)" -0.999998
run --group-key 'content[0][0]' --reward-key '["x.y"].z' -g seq-sum idx.jsonl
check "[\"x.y\"] names a dotted member" near "$(get 1 advantage)" 0.999998
run --group-key 'content[0][0]' --reward-key 'r[1].v' -g seq-sum idx.jsonl
check "equal rewards by path give 0" [ "$(get 1 advantage)" = 0 ]
# What is not there, and why.
run --group-key 'content[0][0]' --reward-key 'r[2].v' idx.jsonl
bad path_past_end 1 'field "r[2].v" is missing' '"r" has no element 2'
run --group-key 'content[0][0]' --reward-key 'r.v' idx.jsonl
bad path_not_object 1 '"r" is an array, not an object'
run --reward-key 'r[x]' idx.jsonl
bad path_syntax 2 '--reward-key' 'not a field path'
run --group-key '[0]' idx.jsonl
bad path_starts_with_index 2 'name a field first'

# --- 2. Log-probs optional ----------------------------------------------
cat >nolp.jsonl <<'J'
{"uid": "u", "reward": 1}
{"uid": "u", "reward": 0}
{"uid": "u", "reward": 0}
{"uid": "u", "reward": 0}
J
run nolp.jsonl
bad no_length_token_mode 1 'nolp.jsonl:1:' 'no response length' '-g token' \
    '--logprobs-key' '--tokens-key' '--length-key' '-g seq-sum' '--no-tokens'
run -a opo -g seq-sum nolp.jsonl
bad no_length_opo 1 '-a opo needs token counts'
# msgrpo needs them only for --ms-stats token: the message says so.
run -a msgrpo --ms-stats token -g seq-sum nolp.jsonl
bad no_length_msgrpo_token 1 'nolp.jsonl:1:' \
    '-a msgrpo --ms-stats token needs token counts'
run -a msgrpo -g seq-sum nolp.jsonl
good no_length_msgrpo_seq
run -g seq-sum nolp.jsonl
good no_length_seq_sum
# seq-sum: 1/n, n = 4 records; no token arrays without a length.
check "seq-sum weight 1/4" near "$(get 1 loss_weight)" 0.25
check "no token arrays" [ "$(get 1 token_advantages)" = null ]
check "advantage computed" near "$(get 1 advantage)" $A1
run --no-tokens nolp.jsonl
good no_length_no_tokens
check "--no-tokens: the advantage alone" [ "$(get 2 loss_weight)" = null ]
check "--no-tokens: advantage" near "$(get 2 advantage)" $A0
# The length from a mask, token ids, or a length field.
cat >lens.jsonl <<'J'
{"uid": "u", "reward": 1, "response_mask": [1, 1, 0]}
{"uid": "u", "reward": 0, "response_ids": [5, 6]}
{"uid": "u", "reward": 0, "n": 4}
J
run --length-key n lens.jsonl
bad length_key_named_absent 1 'field "n" is missing'
printf '%s\n' '{"uid": "u", "reward": 1, "response_mask": [1, 1, 0]}' \
    '{"uid": "u", "reward": 0, "response_ids": [5, 6]}' \
    '{"uid": "u", "reward": 0, "completion_ids": [7]}' >lens.jsonl
run lens.jsonl
good length_from_mask_and_ids
# T = 2, 2, 1: N = 5, token-mean 1/5.
check "mask gives L 3" [ "$(get 1 token_loss_weights)" = "[0.2,0.2,0]" ]
check "token ids give L 2" [ "$(get 2 token_loss_weights)" = "[0.2,0.2]" ]
printf '%s\n' '{"uid": "u", "reward": 1, "n": 3}' \
    '{"uid": "u", "reward": 0, "n": 1}' >lenkey.jsonl
run --length-key n lenkey.jsonl
good length_key
check "--length-key 3 and 1: token-mean 1/4" near "$(get 1 loss_weight)" 0.25
check "--length-key: arrays of that length" [ "$(get 2 token_loss_weights)" = "[0.25]" ]
printf '%s\n' '{"uid": "u", "reward": 1, "logprobs": [-1, -1], "ids": [1]}' >dis.jsonl
run --tokens-key ids dis.jsonl
bad named_sources_disagree 1 'field "ids" has 1 element, but "logprobs" has 2'
# stats and diff without log-probs.
run stats nolp.jsonl
good stats_without_logprobs
check "stats: length unknown" grep -q 'response length T *unknown' o
run diff --a "-g seq-sum" --b "-a drgrpo -g seq-sum" nolp.jsonl
good diff_without_logprobs

# --- 3. Rewards ------------------------------------------------------------
cat >rew.jsonl <<'J'
{"uid": "u", "acc": true, "ok": 1, "scores": [0, 0, 1], "f": 1, "g": null, "logprobs": [-1]}
{"uid": "u", "acc": false, "ok": 0, "scores": [0, 1, 0], "f": 0, "g": 1, "logprobs": [-1]}
{"uid": "u", "acc": false, "ok": 0, "scores": [0, 0, 0], "f": null, "g": null, "logprobs": [-1]}
{"uid": "u", "acc": false, "ok": 0, "scores": [1, -1, 0], "f": 0, "g": 0, "logprobs": [-1]}
J
run --reward-key acc rew.jsonl
good reward_boolean
check "true, false, false, false: 1, 0, 0, 0" near "$(get 1 advantage)" $A1
printf '%s\n' '{"uid": "u", "reward": true, "logprobs": [-1]}' >boolalias.jsonl
run boolalias.jsonl
bad reward_boolean_alias 1 'field "reward" is a boolean' '--reward-key'
# scores summed: 1, 1, 0, 0: mean 1/2, std 1/2: +-0.999998.
run --reward-key scores rew.jsonl
good reward_array_sum
check "array summed" near "$(get 2 advantage)" 0.999998
# last element: 1, 0, 0, 0.
run --reward-key scores --reward-reduce last rew.jsonl
check "--reward-reduce last" near "$(get 1 advantage)" $A1
# ok + 0.5 acc... weighted: 2*ok + 0.5*acc = 2.5, 0, 0, 0.
run --reward-key ok,acc --reward-weights 2,0.5 rew.jsonl
good reward_weights
# 2.5, 0, 0, 0: 1.875 / (2.5 sqrt(3)/4 + 1e-6).
check "weighted sum" near "$(get 1 advantage)" 1.7320492076
run --reward-key ok,acc --reward-weights 2,0.5 -a drgrpo rew.jsonl
# Dr. GRPO keeps the scale: 2.5 - 2.5/4 = 1.875.
check "weights scale the reward" near "$(get 1 advantage)" 1.875
run --reward-key ok,acc --reward-weights 2 rew.jsonl
bad reward_weights_count 2 '--reward-weights gives 1 weight for 2 reward fields'
run --reward-key f,g rew.jsonl
bad reward_null 1 'rew.jsonl:1:' 'field "g" is null' '--null-reward unscored' '(it stays in the loss)' 'a null beside a number counts 0'
# TRL's rule from 1.6.0: f,g with nulls: 1, 1, (both null: unscored), 0
# -> scored 1, 1, 0: Dr. GRPO's mean 2/3 leaves the unscored record out,
# which gets advantage 0 but stays in the loss (TRL keeps it in its
# completion mask and num_items_in_batch): N = 4 tokens, 1/4 each.
run --reward-key f,g --null-reward unscored -a drgrpo rew.jsonl
good reward_unscored
check "null counts 0 beside a number (drgrpo: 1 - 2/3)" near "$(get 1 advantage)" 0.333333333
check "all null: unscored, advantage 0" [ "$(get 3 advantage)" = 0 ]
check "unscored: trains, weight 1/4" near "$(get 3 loss_weight)" 0.25
check "unscored: out of the baseline (0 - 2/3)" near "$(get 4 advantage)" -0.666666667
check "unscored: in the token count (1/4)" near "$(get 1 loss_weight)" 0.25
# TRL before 1.6.0 (nansum over the functions): a null reads as 0 and an
# all-null record scores 0 and counts: rewards 1, 1, 0, 0, mean 1/2 (Dr.
# GRPO: +-0.5), N = 4 tokens.  After --from trl (unscored) it wins.
run --reward-key f,g --null-reward zero -a drgrpo rew.jsonl
good reward_null_zero
check "zero: null counts 0 beside a number (1 - 1/2)" near "$(get 1 advantage)" 0.5
check "zero: all null scores 0, in the baseline (0 - 1/2)" near "$(get 3 advantage)" -0.5
check "zero: all null trains (1/4)" near "$(get 3 loss_weight)" 0.25
check "zero: in the token count (1/4)" near "$(get 1 loss_weight)" 0.25
run --reward-key f,g --null-reward zero rew.jsonl
# grpo: population std 1/2: 0.5 / (0.5 + 1e-6) = 0.999998
check "zero under grpo" near "$(get 3 advantage)" -0.999998000004
sed 's/^{/{"step": 1, /' rew.jsonl >rewstep.jsonl
run --from trl --group-size 4 --reward-key f,g --null-reward zero -a drgrpo rewstep.jsonl
good reward_null_zero_after_from
check "zero after --from trl" near "$(get 3 advantage)" -0.5
run --from trl --group-size 4 --reward-key f,g -a drgrpo rewstep.jsonl
check "--from trl alone: unscored" [ "$(get 3 advantage)" = 0 ]
run --reward-key g --null-reward zero -a drgrpo rew.jsonl
# one field: null, 1, null, 0 read as 0, 1, 0, 0: mean 1/4
check "zero: one field" near "$(get 1 advantage)" -0.25
# A group whose every reward is null has no baseline, first or last: the
# other group's advantages are its own (rewards 1, 0: +-0.999998), and
# every record stays in the loss: N = 5 tokens, 1/5 each.
printf '%s\n' '{"uid": "a", "reward": null, "logprobs": [-1]}' \
    '{"uid": "a", "reward": null, "logprobs": [-1]}' \
    '{"uid": "b", "reward": 1, "logprobs": [-1]}' \
    '{"uid": "b", "reward": 0, "logprobs": [-1]}' \
    '{"uid": "c", "reward": null, "logprobs": [-1]}' >nulls.jsonl
run --null-reward unscored nulls.jsonl
good reward_unscored_groups
check "a group all null: advantage 0" [ "$(get 1 advantage)" = 0 ]
check "a group all null: trains (1/5)" near "$(get 1 loss_weight)" 0.2
check "a last group all null: trains (1/5)" near "$(get 5 loss_weight)" 0.2
check "the scored group alone" near "$(get 3 advantage)" 0.999998
check "every record's tokens (1/5)" near "$(get 4 loss_weight)" 0.2
# A trajectory whose reward (its last row's) is null: out of the baseline
# (Dr. GRPO over 1, 0: +-0.5), advantage 0, and its rows' tokens in the
# loss: N = 3 + 2 + 3 = 8, 1/8 each; -g seq: B = 3, its T 2: 1/6.
printf '%s\n' '{"uid": "a", "tid": 1, "logprobs": [-1]}' \
    '{"uid": "a", "tid": 1, "reward": 1, "logprobs": [-1, -1]}' \
    '{"uid": "a", "tid": 2, "logprobs": [-1]}' \
    '{"uid": "a", "tid": 2, "reward": null, "logprobs": [-1]}' \
    '{"uid": "a", "tid": 3, "reward": 0, "logprobs": [-1, -1, -1]}' >trajnull.jsonl
run --null-reward unscored --trajectory-key tid -a drgrpo trajnull.jsonl
good reward_unscored_traj
check "unscored trajectory: advantage 0" [ "$(get 3 advantage)" = 0 ]
check "unscored trajectory: scored ones alone (+0.5)" near "$(get 1 advantage)" 0.5
check "unscored trajectory: trains (1/8)" near "$(get 3 loss_weight)" 0.125
check "unscored trajectory: its last row (1/8)" near "$(get 4 loss_weight)" 0.125
run --null-reward unscored --trajectory-key tid -a drgrpo -g seq trajnull.jsonl
check "unscored trajectory: in B (1/(3 * 2))" near "$(get 4 loss_weight)" 0.166666667
check "unscored trajectory: B 3 (1/(3 * 3))" near "$(get 5 loss_weight)" 0.111111111
# TRL's completions log (samples/trl_completions_00005.jsonl: 3 prompts
# of 4, line 7 unscorable) with line 12's math reward null too (both
# null) and lengths 2 3 1 2 | 4 2 3 1 | 1 1 1 2.  Advantages as TRL
# logged them: group 2 from its scored 1, 0, 1 alone (mean 2/3, sample
# std sqrt(1/3): (1/3)/(0.5773503 + 1e-4) = 0.5772503), lines 7 and 12
# advantage 0.  Loss weights, TRL's dapo: N = num_items_in_batch, every
# completion's tokens: 23, so 1/23 = 0.0434782609 each, lines 7 and 12
# too (before: N 18 without them, 1/18, and 0 for them).  TRL's grpo
# (-g seq): B = 12, line 7 1/(12 * 3), line 12 1/(12 * 2) (before: B 10,
# 0).  --drop-zero-std: group 3 is equal on its scored 1, 1, 1 and
# leaves whole, line 12 with it: N = 8 + 10, 1/18 for groups 1 and 2,
# line 7 too (before: 1/15, line 7 0).
python3 -c '
import json, sys
L = [2, 3, 1, 2, 4, 2, 3, 1, 1, 1, 1, 2]
for i, l in enumerate(open(sys.argv[1])):
    r = json.loads(l)
    if i == 11:
        r["math_reward_func"] = None
    r["completion_length"] = L[i]
    print(json.dumps(r))' "$S/trl_completions_00005.jsonl" >trlnull.jsonl
trlnull="--from trl --group-size 4 --length-key completion_length --reward-key math_reward_func,coding_reward_func"
run $trlnull trlnull.jsonl
good trl_unscored_dapo
check "trl unscored: TRL's advantage" near "$(get 6 advantage)" -1.15450057
check "trl unscored: advantage 0" [ "$(get 7 advantage)" = 0 ]
check "trl unscored: in N (1/23)" near "$(get 1 loss_weight)" 0.0434782609
check "trl unscored: trains (1/23)" near "$(get 7 loss_weight)" 0.0434782609
check "trl unscored: a group's last trains (1/23)" near "$(get 12 loss_weight)" 0.0434782609
run $trlnull -g seq trlnull.jsonl
good trl_unscored_grpo
check "trl unscored grpo: in B (1/(12 * 3))" near "$(get 7 loss_weight)" 0.0277777778
check "trl unscored grpo: 1/(12 * 2)" near "$(get 12 loss_weight)" 0.0416666667
check "trl unscored grpo: B 12 (1/(12 * 2))" near "$(get 1 loss_weight)" 0.0416666667
run $trlnull --drop-zero-std trlnull.jsonl
good trl_unscored_drop
check "trl unscored drop: kept group's unscored trains (1/18)" near "$(get 7 loss_weight)" 0.0555555556
check "trl unscored drop: N 18" near "$(get 1 loss_weight)" 0.0555555556
check "trl unscored drop: equal on its scored, dropped whole" [ "$(get 12 loss_weight)" = 0 ]
check "trl unscored drop: dropped group" [ "$(get 9 loss_weight)" = 0 ]

# --- 4. Masks ------------------------------------------------------------
cat >masks.jsonl <<'J'
{"uid": "u", "reward": 1, "logprobs": [-1, -1, -1], "env_mask": [1.0, 0.0, 1.0]}
{"uid": "u", "reward": 0, "logprobs": [-1, -1], "action_mask": [true, false]}
J
run masks.jsonl
good mask_floats_booleans
# T = 2 and 1: N = 3.
check "1.0/0.0 mask" [ "$(get 1 token_loss_weights)" = "[0.333333333,0,0.333333333]" ]
check "boolean mask" [ "$(get 2 token_loss_weights)" = "[0.333333333,0]" ]
cat >spans.jsonl <<'J'
{"reward": 1, "observation_tokens": [9, 9, 9, 9, 9, 9, 9], "action_ranges": [[1, 3], [5, 6]]}
{"reward": 0, "observation_tokens": [9, 9, 9], "action_ranges": [[2, 3]]}
J
run --group-size 2 --tokens-key observation_tokens --mask-spans action_ranges spans.jsonl
good mask_spans
# T = 3 and 1: N = 4.
check "spans [1,3) [5,6)" [ "$(get 1 token_loss_weights)" = "[0,0.25,0.25,0,0,0.25,0]" ]
check "span [2,3)" [ "$(get 2 token_loss_weights)" = "[0,0,0.25]" ]
printf '%s\n' '{"reward": 1, "observation_tokens": [9, 9], "action_ranges": [[1, 3]]}' >span_bad.jsonl
run --group-size 1 --tokens-key observation_tokens --mask-spans action_ranges span_bad.jsonl
bad mask_spans_past_end 1 'field "action_ranges" (spans over 2 tokens): span 0: it ends past the last token'
# Spans that touch make one run; the others are refused, each by its place.
for sp in '[[0, 1], [1, 3]]:0.25,0.25,0.25,0' '[[0, 2], [1, 3]]:span 1: it starts before the span before it ends; spans must be sorted and apart' \
    '[[2, 1]]:span 0: its end is before its start' '[[0, 1, 2]]:span 0: not a pair [start, end]' \
    '[[0, 1], 2]:span 1: not a pair [start, end]'; do
	printf '{"reward": 1, "observation_tokens": [9, 9, 9, 9], "action_ranges": %s}\n' \
	    "${sp%%:*}" >span_more.jsonl
	run --group-size 1 --tokens-key observation_tokens --mask-spans \
	    action_ranges -g seq-sum-norm --max-len 4 span_more.jsonl
	case ${sp#*:} in
	span*) bad "mask_spans ${sp%%:*}" 1 "field \"action_ranges\" (spans over 4 tokens): ${sp#*:}" ;;
	*) good "mask_spans ${sp%%:*}"
	   check "spans ${sp%%:*}: weights" [ "$(get 1 token_loss_weights)" = "[${sp#*:}]" ] ;;
	esac
done
run --group-size 1 --mask-key m --mask-spans action_ranges span_bad.jsonl
bad mask_spans_and_key 2 '--mask-spans and --mask-key'
cat >prompt.jsonl <<'J'
{"uid": "u", "reward": 1, "seqlen": 5, "prompt_len": 3}
{"uid": "u", "reward": 0, "seqlen": 4, "prompt_len": 3}
J
run --length-key seqlen --prompt-len-key prompt_len prompt.jsonl
good prompt_len
# T = 2 and 1: N = 3.
check "the prompt untrained" [ "$(get 1 token_loss_weights)" = "[0,0,0,0.333333333,0.333333333]" ]
cat >sample.jsonl <<'J'
{"uid": "u", "reward": 1, "logprobs": [-1, -1], "sample_loss_mask": 1.0}
{"uid": "u", "reward": 0, "logprobs": [-1, -1], "sample_loss_mask": 0.0}
J
run --sample-mask-key sample_loss_mask sample.jsonl
good sample_mask
# The second trains nothing (weight 0, N = 2) but stays in the baseline.
check "sample mask 0: weight 0" [ "$(get 2 loss_weight)" = 0 ]
check "sample mask 0: token weights 0" [ "$(get 2 token_loss_weights)" = "[0,0]" ]
check "sample mask 0: in the baseline" near "$(get 2 advantage)" -0.999998
check "sample mask 1: N = 2" near "$(get 1 loss_weight)" 0.5
# NeMo-RL's seq loss divides by global_valid_seqs, the sum of
# sample_loss_mask: line 2 (sample mask 0) is no sample of it, line 3
# (sample mask 1, every token masked) is.  B = 5 of the 6 records, and
# -g seq weighs 1/((B + 1e-8)(T_i + 1e-8)): T 2: 1/(5.00000001 *
# 2.00000001) = 0.0999999993, T 1: 0.199999998, T 4: 0.0499999998 (with
# B = 6 they were 0.0833333328, 0.166666665, 0.0416666665).  Both stay
# in their group's leave-one-out baseline: lines 2 and 3 have the same
# others (1, 0), (0 - 0.5) / (0.70710678 + 1e-6) = -0.707105781.
cat >nemo_smask.jsonl <<'J'
{"content": [["P", "a"]], "rewards": [1.0], "token_ids": [[7, 8, 9]], "token_loss_mask": [[0, 1, 1]], "sample_loss_mask": [1.0], "generation_logprobs": [[0.0, -0.5, -0.5]], "idx": 0}
{"content": [["P", "b"]], "rewards": [0.0], "token_ids": [[7, 8, 9, 10]], "token_loss_mask": [[0, 1, 1, 1]], "sample_loss_mask": [0.0], "generation_logprobs": [[0.0, -0.5, -0.5, -0.5]], "idx": 1}
{"content": [["P", "c"]], "rewards": [0.0], "token_ids": [[7, 8, 9]], "token_loss_mask": [[0, 0, 0]], "sample_loss_mask": [1.0], "generation_logprobs": [[0.0, 0.0, 0.0]], "idx": 2}
{"content": [["Q", "d"]], "rewards": [1.0], "token_ids": [[5, 6]], "token_loss_mask": [[0, 1]], "sample_loss_mask": [1.0], "generation_logprobs": [[0.0, -0.5]], "idx": 3}
{"content": [["Q", "e"]], "rewards": [0.0], "token_ids": [[5, 6, 6, 6, 6]], "token_loss_mask": [[0, 1, 1, 1, 1]], "sample_loss_mask": [1.0], "generation_logprobs": [[0.0, -0.5, -0.5, -0.5, -0.5]], "idx": 4}
{"content": [["Q", "f"]], "rewards": [1.0], "token_ids": [[5, 6, 6, 7]], "token_loss_mask": [[0, 0, 1, 1]], "sample_loss_mask": [1.0], "generation_logprobs": [[0.0, 0.0, -0.5, -0.5]], "idx": 5}
J
run --from nemo-rl -g seq nemo_smask.jsonl
good nemo_rl_seq_sample_mask
check "nemo-rl seq: B leaves out sample mask 0" [ "$(for n in 1 2 3 4 5 6; do get $n loss_weight; done | tr '\n' ' ')" = "0.0999999993 0 0 0.199999998 0.0499999998 0.0999999993 " ]
check "nemo-rl seq: sample mask 0 trains nothing" [ "$(get 2 token_loss_weights)" = "[0,0,0,0]" ]
check "nemo-rl seq: sample mask 0 in the baseline" near "$(get 2 advantage)" -0.707105781
check "nemo-rl seq: ... as the sample without tokens" [ "$(get 2 advantage)" = "$(get 3 advantage)" ]
# --scope group: P has 2 samples (lines 1, 3), Q 3: 1/(2.00000001 *
# 2.00000001) = 0.2499999975, 1/(3.00000001 * 1.00000001) = 0.3333333289.
run --from nemo-rl -g seq --scope group nemo_smask.jsonl
check "nemo-rl seq per group: B leaves out sample mask 0" [ "$(get 1 loss_weight) $(get 4 loss_weight)" = "0.249999998 0.333333329" ]
# The other presets that count every record in B take the same rule (a
# sample masked out is no sample of the loss): TRL 1/(5 T_i), and slime's
# per-token loss leaves it out of sum max(T_i, 1) = 2 + 1 + 1 + 4 + 2 = 10
# (11 when it counted as one token).
run --like trl --sample-mask-key sample_loss_mask -g seq --unwrap --group-key content[0] --reward-key rewards --mask-key token_loss_mask nemo_smask.jsonl
check "trl seq: B leaves out sample mask 0" [ "$(get 1 loss_weight) $(get 4 loss_weight)" = "0.1 0.2" ]
run --like slime --sample-mask-key sample_loss_mask -g token --unwrap --group-key content[0] --reward-key rewards --mask-key token_loss_mask nemo_smask.jsonl
check "slime token: N leaves out sample mask 0" [ "$(get 1 loss_weight)" = "0.1" ]
# slime's remove_sample (--from slime: --remove-key remove_sample): slime
# zeroes the sample's loss mask after the dump, and it stays a sample:
# -g seq (slime's default) 1/(B max(T_i, 1)) with B = 3: line 1 (T 2)
# 1/6, line 2 (removed) 0, line 3 (T 1) 1/3; without the flag line 1 got
# the same 1/6 but line 2 was trained at 1/(3*3).  The removed record
# stays in the group's baseline (its reward 0 in the mean 1/3, and the
# sample deviation of 1, 0, 0: (1 - 1/3)/(0.57735027 + 1e-6)).
cat >slime_rm.jsonl <<'J'
{"group_index": 0, "index": 0, "rollout_id": null, "tokens": [11, 12, 13, 14], "response_length": 2, "reward": 1.0, "loss_mask": [1, 1], "rollout_log_probs": [-0.5, -0.5], "remove_sample": false, "status": "completed"}
{"group_index": 0, "index": 1, "rollout_id": null, "tokens": [11, 12, 15, 16, 17], "response_length": 3, "reward": 0.0, "loss_mask": [1, 1, 1], "rollout_log_probs": [-0.5, -0.5, -0.5], "remove_sample": true, "status": "truncated"}
{"group_index": 0, "index": 2, "rollout_id": null, "tokens": [11, 12, 18], "response_length": 1, "reward": 0.0, "loss_mask": [1], "rollout_log_probs": [-0.5], "remove_sample": false, "status": "completed"}
J
run --from slime slime_rm.jsonl
good slime_remove_sample
check "slime remove_sample: trains nothing" [ "$(get 2 loss_weight) $(get 2 token_loss_weights)" = "0 [0,0,0]" ]
check "slime remove_sample: still one of B" [ "$(get 1 loss_weight) $(get 3 loss_weight)" = "0.166666667 0.333333333" ]
check "slime remove_sample: in the baseline" near "$(get 1 advantage)" 1.15469854
run --from slime --remove-key no_such slime_rm.jsonl
check "--remove-key: a named field must be there" [ "$st" -eq 1 ]
# slime before 0.2.0.post1 wrote no remove_sample: --from slime reads
# such a dump as not removed (line 2 then trains: 1/(3*3)); named by
# hand, the field must be there.
sed 's/, "remove_sample": [a-z]*//' slime_rm.jsonl >slime_old.jsonl
run --from slime slime_old.jsonl
good slime_without_remove_sample
check "--from slime: no remove_sample, not removed" [ "$(get 2 loss_weight)" = "0.111111111" ]
run --from slime --remove-key remove_sample slime_old.jsonl
check "--remove-key named by hand: must be there" grep -q 'field "remove_sample" is missing' e
sed 's/"remove_sample": true/"remove_sample": "yes"/' slime_rm.jsonl >slime_rm2.jsonl
run --from slime slime_rm2.jsonl
check "--remove-key: a string is refused" grep -q 'field "remove_sample" is a string, expected 0 or 1' e
# Aliases from the frameworks.
for a in example_id task_id traj_group_id; do
	printf '{"%s": 1, "reward": 1, "logprobs": [-1]}\n{"%s": 1, "reward": 0, "logprobs": [-1]}\n' $a $a >al.jsonl
	run al.jsonl
	check "group alias $a" near "$(get 1 advantage)" 0.999998
done
for a in scores reward_score rewards; do
	printf '{"uid": 1, "%s": 1, "logprobs": [-1]}\n{"uid": 1, "%s": 0, "logprobs": [-1]}\n' $a $a >al.jsonl
	run al.jsonl
	check "reward alias $a" near "$(get 1 advantage)" 0.999998
done
for a in response_logprobs rollout_logprobs completion_logprobs action_log_probs; do
	printf '{"uid": 1, "reward": 1, "%s": [-1, -1]}\n{"uid": 1, "reward": 0, "%s": [-1, -1]}\n' $a $a >al.jsonl
	run al.jsonl
	check "log-probs alias $a" [ "$(get 1 token_loss_weights)" = "[0.25,0.25]" ]
done
for a in env_mask action_mask completion_mask loss_masks tool_mask; do
	printf '{"uid": 1, "reward": 1, "logprobs": [-1, -1], "%s": [0, 1]}\n' $a >al.jsonl
	run al.jsonl
	check "mask alias $a" [ "$(get 1 token_loss_weights)" = "[0,1]" ]
done
for a in num_turns tool_call_count; do
	printf '{"uid": 1, "reward": 1, "logprobs": [-1], "%s": 2}\n{"uid": 1, "reward": 0, "logprobs": [-1], "%s": 3}\n' $a $a >al.jsonl
	run -a san al.jsonl
	check "stratum alias $a: two strata of one" [ "$(get 1 advantage)" = 0 ]
done
# An array under the stratum name counts its elements: [a, b] and [c, d]
# are both 2, one stratum; rewards 1, 0: +-0.999998 under SAN.
cat >arr.jsonl <<'J'
{"uid": 1, "reward": 1, "logprobs": [-1], "tool_calls": ["a", "b"]}
{"uid": 1, "reward": 0, "logprobs": [-1], "tool_calls": ["c", "d"]}
{"uid": 1, "reward": 1, "logprobs": [-1], "tool_calls": []}
J
run -a san arr.jsonl
good stratum_array
check "arrays of two: one stratum" near "$(get 1 advantage)" 0.999998
check "empty array: a stratum of its own" [ "$(get 3 advantage)" = 0 ]

# --- 5. Trajectories ---------------------------------------------------
cat >traj.jsonl <<'J'
{"gid": "a", "tid": 1, "last": false, "reward": -5, "logprobs": [-1, -1]}
{"gid": "a", "tid": 1, "last": true, "reward": 1, "logprobs": [-1]}
{"gid": "a", "tid": 2, "last": true, "reward": 0, "logprobs": [-1]}
{"gid": "a", "tid": 3, "last": false, "logprobs": [-1, -1, -1]}
{"gid": "a", "tid": 3, "last": true, "reward": 0, "logprobs": [-1]}
{"gid": "a", "tid": 4, "last": true, "reward": 0, "logprobs": []}
J
run --group-key gid --trajectory-key tid --trajectory-last-key last traj.jsonl
good trajectories
# Four responses, rewards 1, 0, 0, 0 (the last rows'; -5 is ignored).
check "every row of a trajectory: its advantage" [ "$(get 1 advantage)" = "$(get 2 advantage)" ]
check "the last row's reward" near "$(get 1 advantage)" $A1
check "rows 4 and 5 one response" near "$(get 4 advantage)" $A0
# T = 3, 1, 4, 0: N = 8, token-mean 1/8 on each row's own tokens.
check "each row's tokens weighted" [ "$(get 4 token_loss_weights)" = "[0.125,0.125,0.125]" ]
run -v --group-key gid --trajectory-key tid --trajectory-last-key last traj.jsonl
check "rows in = rows out" grep -q '6 records in, 6 out' e
printf '%s\n' '{"gid": "a", "tid": 1, "last": false, "reward": 1, "logprobs": [-1]}' \
    '{"gid": "a", "tid": 2, "last": true, "reward": 0, "logprobs": [-1]}' >traj_open.jsonl
run --group-key gid --trajectory-key tid --trajectory-last-key last traj_open.jsonl
bad trajectory_unended 1 'traj_open.jsonl:1:' 'last-row field'
printf '%s\n' '{"gid": "a", "tid": 1, "reward": 1, "logprobs": [-1]}' \
    '{"gid": "b", "tid": 1, "reward": 0, "logprobs": [-1]}' >traj_groups.jsonl
run --group-key gid --trajectory-key tid traj_groups.jsonl
bad trajectory_two_groups 1 'traj_groups.jsonl:2:' 'group key differs'
# A trajectory is one sample of the loss: sample-masked where all its
# rows are (1), a sample where one row is not (2, T 3), as is 4 with no
# trained token.  Under --like trl -g seq B = 3: 2 gets 1/(3 * 3), 3 1/3.
cat >traj_smask.jsonl <<'J'
{"gid": "u", "tid": 1, "reward": 0, "logprobs": [-1, -1], "sm": 0}
{"gid": "u", "tid": 1, "reward": 1, "logprobs": [-1], "sm": 0}
{"gid": "u", "tid": 2, "reward": 0, "logprobs": [-1, -1], "sm": 0}
{"gid": "u", "tid": 2, "reward": 0, "logprobs": [-1, -1, -1], "sm": 1}
{"gid": "u", "tid": 3, "reward": 1, "logprobs": [-1], "sm": 1}
{"gid": "u", "tid": 4, "reward": 0, "logprobs": [-1], "mask": [0], "sm": 1}
J
run --like trl --group-key gid --trajectory-key tid --sample-mask-key sm -g seq traj_smask.jsonl
good trajectory_sample_mask
check "a trajectory's sample mask: all its rows" [ "$(for n in 1 2 3 4 5 6; do get $n loss_weight; done | tr '\n' ' ')" = "0 0 0.111111111 0.111111111 0.333333333 0 " ]

# --- 6. Columnar lines -------------------------------------------------
cat >cols.jsonl <<'J'
{"id": ["p", "p", "p", "p", "q", "q", "q", "q"], "scores": [1.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0], "global_step": [3, 3, 3, 3, 3, 3, 3, 3]}
J
run --columnar --group-key id --reward-key scores --no-tokens cols.jsonl
good columnar
check "one line out" [ "$(wc -l <o)" -eq 1 ]
check "advantage is a column" python3 -c '
import json, sys
r = json.loads(open("o").read())
a = r["advantage"]
assert len(a) == 8 and r["id"][0] == "p", r
assert abs(a[0] - 1.7320468143) < 1e-8 and abs(a[1] + 0.5773489381) < 1e-8
assert a[4] == 0 and a[7] == 0 and "loss_weight" not in r'
check "the line's bytes kept" grep -q '^{"id": \["p", "p", "p", "p", "q", "q", "q", "q"\], "scores"' o
printf '%s\n' '{"id": ["p", "p"], "scores": [1.0], "logprobs": [[-1], [-1, -1]]}' >cols_bad.jsonl
run --columnar --group-key id --reward-key scores cols_bad.jsonl
bad columnar_lengths 1 'column "scores" has 1 element, but "id" has 2'
# A name from the data is escaped in the message: one line on stderr.
printf '%s\n' '{"id": ["p", "p"], "scores": [1, 0], "m\nx": 5}' \
    '{"id": ["p", "p"], "scores": [1, 0], "m\ny": [1]}' >cols_name.jsonl
run --columnar --group-key id --reward-key scores --no-tokens cols_name.jsonl
bad columnar_name_escaped 1 'field "m\nx" is a number, expected a column'
printf '%s\n' '{"a\tb": ["p", "p"], "scores": [1], "id": ["p", "p"]}' \
    >cols_name2.jsonl
run --columnar --group-key id --reward-key scores --no-tokens cols_name2.jsonl
bad columnar_name_escaped2 1 'column "scores" has 1 element, but "a\tb" has 2'
printf '%s\n' '{"id": ["p", "p"], "scores": [1, 0], "logprobs": [[-1], [-1, -1]]}' >cols_tok.jsonl
run --columnar --group-key id --reward-key scores cols_tok.jsonl
good columnar_tokens
check "token arrays as a column of arrays" [ "$(get 1 token_loss_weights)" = "[[0.333333333],[0.333333333,0.333333333]]" ]
run --columnar --on-error skip cols.jsonl
bad columnar_skip 2 '--columnar' '--on-error skip'

# --- 7. One-element wrappers ---------------------------------------------
cat >wrap.jsonl <<'J'
{"uid": ["u"], "rewards": [1.0], "token_loss_mask": [[0, 1, 1]], "generation_logprobs": [[0.0, -1, -1]], "sample_loss_mask": [1.0]}
{"uid": ["u"], "rewards": [0.0], "token_loss_mask": [[0, 1, 0]], "generation_logprobs": [[0.0, -1, 0.0]], "sample_loss_mask": [0.0]}
J
run --unwrap --sample-mask-key sample_loss_mask wrap.jsonl
good unwrap
check "[x] is x, [[...]] is [...]" [ "$(get 1 token_loss_weights)" = "[0,0.5,0.5]" ]
check "unwrapped sample mask 0" [ "$(get 2 loss_weight)" = 0 ]
run --sample-mask-key sample_loss_mask --group-key uid wrap.jsonl
bad unwrap_needed 1 'an array of one element' '--unwrap'

# --- 8. Profiles -------------------------------------------------------
run --from verl-agent --digits 17 "$S"/verl_agent_loop.jsonl
good profile_verl_agent
base=$(get 1 advantage)
run --from verl-agent --reward-key num_turns "$S"/verl_agent_loop.jsonl
check "options after --from override it" [ "$(get 1 advantage)" != "$base" ]
run stats --from skyrl "$S"/skyrl_generator_output.jsonl
check "stats names the profile" grep -q 'profile *--from skyrl' o
run stats "$S"/verl_agent_loop.jsonl
check "stats says whose fields it found" grep -q 'looks like *--from verl-agent' o
run --from nosuch "$S"/verl_agent_loop.jsonl
bad profile_unknown 2 '--from' 'verl-agent' 'verifiers'
run "$S"/verl_rollout_dump.jsonl
bad profile_hint 1 'try --from verl'

# --- 9. No silent wrong numbers -----------------------------------------
printf '%s\n' '{"uid": "u", "reward": 1, "logprobs": [-1]}' \
    '{"uid": "u", "reward": 0, "logprobs": [-1]}' >two.jsonl
run --group-key prompt --group-size 2 two.jsonl
bad named_field_absent 1 'field "prompt" is missing' '--group-key' '"uid", "reward", "logprobs"'
run --mask-key m two.jsonl
bad named_mask_absent 1 'field "m" is missing'
printf '%s\n' '{"uid": "u", "reward": 1, "logprobs": [-1, -1], "loss_mask": [1, 0], "response_mask": [0, 1]}' >masks2.jsonl
run masks2.jsonl
warned unused_mask_alias 'masks2.jsonl:1:' '"loss_mask" looks like a mask' 'the mask read is "response_mask"'
run --mask-key loss_mask masks2.jsonl
warned unused_mask_named '"response_mask" looks like a mask' '--mask-key'
{ for s in 1 1 2 2; do printf '{"uid": "u%s", "step": %s, "reward": 1, "logprobs": [-1]}\n' $s $s; done; } >steps.jsonl
run steps.jsonl
warned step_changes 'steps.jsonl:3:' '"step" changes from 1 to 2' '--batch-key step'
run --batch-key step steps.jsonl
good step_with_batch_key
# A step written otherwise (escaped) is the same step; another is not.
{ for u in u1 u2; do
	printf '{"uid": "%s", "step": "s1", "reward": 1, "logprobs": [-1]}\n' $u
	printf '{"uid": "%s", "step": "\\u0073\\u0031", "reward": 0, "logprobs": [-1]}\n' $u
  done; } >steps2.jsonl
run steps2.jsonl
good step_escaped_same
printf '%s\n' '{"uid": "u", "step": "s1", "reward": 1, "logprobs": [-1]}' \
    '{"uid": "u", "step": "s\u0032", "reward": 0, "logprobs": [-1]}' >steps3.jsonl
run steps3.jsonl
warned step_escaped_changes 'steps3.jsonl:2:' '"step" changes from s1 to s2'
# verl writes global_step in some dumps, step in others.  A log of both:
# each value is compared with its own field's first (here 1, 1, then 2 at
# line 4), a new field's first with the other's; the warning names both,
# and no --batch-key of one name, which the other's records would lack.
mixstep() { printf '{"uid": "u%s", "%s": %s, "reward": %s, "logprobs": [-1]}\n' "$@"; }
{ mixstep 1 step 1 1; mixstep 1 step 1 0
  mixstep 2 global_step 2 1; mixstep 2 global_step 2 0; } >mixstep.jsonl
run mixstep.jsonl
warned step_mixed_follows 'mixstep.jsonl:3:' \
    '"global_step" 2 follows "step" 1 (mixstep.jsonl:1)' \
    'under two names' 'write the step under one name'
check "step_mixed_follows: no --batch-key of one name" \
    sh -c '! grep -q "give --batch-key global_step" e'
{ mixstep 1 global_step 1 1; mixstep 1 step 1 0
  mixstep 2 global_step 1 1; mixstep 2 step 2 0; } >mixstep2.jsonl
run mixstep2.jsonl
warned step_mixed_changes 'mixstep2.jsonl:4:' '"step" changes from 1 to 2' \
    '("global_step" at mixstep2.jsonl:1)' 'write the step under one name'
check "step_mixed_changes: said once" [ "$(grep -c warning e)" -eq 1 ]
# The same step under either name, escaped or not: one batch, rightly;
# no warning.
{ mixstep 1 global_step '"s1"' 1; mixstep 1 step '"\u0073\u0031"' 0
  mixstep 2 step '"s1"' 1; mixstep 2 global_step '"\u0073\u0031"' 0; } \
    >mixstep3.jsonl
run mixstep3.jsonl
good step_mixed_same
{ for i in 1 2 3 4 5 6 7 8; do printf '{"uid": "a", "reward": %s, "logprobs": [-1]}\n' $((i % 2)); done
  for g in b c d; do for i in 1 2 3 4; do printf '{"uid": "%s", "reward": %s, "logprobs": [-1]}\n' $g $((i % 2)); done; done; } >big.jsonl
run big.jsonl
warned group_twice 'big.jsonl:1:' 'group "a" has 8 records' 'the usual 4'
run --group-size 4 big.jsonl
bad group_twice_size 1 '--group-size 4'
# 2 and 2.0 are one stratum: rewards 1, 0 in it give +-0.999998.
printf '%s\n' '{"uid": 1, "reward": 1, "logprobs": [-1], "n": 2}' \
    '{"uid": 1, "reward": 0, "logprobs": [-1], "n": 2.0}' >strat.jsonl
run -a san --stratum-key n strat.jsonl
good strata_by_value
check "2 and 2.0 one stratum" near "$(get 1 advantage)" 0.999998
printf '%s\n' '{"uid": 1, "reward": 1, "logprobs": [-1], "tool_calls": {"n": 1}}' \
    '{"uid": 1, "reward": 0, "logprobs": [-1], "tool_calls": {"n": 1}}' >objstrat.jsonl
run objstrat.jsonl
good stratum_unread_by_grpo
run -a san objstrat.jsonl
bad stratum_read_by_san 1 'field "tool_calls" is an object'
printf '%s\n' '{"uid": 1, "reward": 1, "logprobs": [-1], "tool_calls": 0.25}' >frac.jsonl
run -a san frac.jsonl
warned stratum_not_count 'the stratum is 0.25, not a count'
printf '{"uid": "a\\nb", "re\\"w": 1, "logprobs": [-1]}\n' >esc.jsonl
run esc.jsonl
bad keys_escaped 1 '"re\"w"'
printf '{"uid": "a\\nb", "reward": 1, "logprobs": [-1]}\n{"uid": "c", "reward": 1, "logprobs": [-1]}\n{"uid": "a\\nb", "reward": 1, "logprobs": [-1]}\n' >esc2.jsonl
run esc2.jsonl
bad group_key_escaped 1 'group "a\nb" reappears'

# --- 10. Messages ------------------------------------------------------
# Each says what is wrong in a sentence, naming the option or field.
# --ms-weights 0,0,1,1 weighs scales 4 and 5 only: group c (2 records, so
# scale 2 alone) and group d (scales 2..3) get no weight.
awk 'BEGIN { for (i = 0; i < 4; i++) printf "{\"uid\": \"a\", \"reward\": %d}\n", i
	print "{\"uid\": \"c\", \"reward\": 1}"; print "{\"uid\": \"c\", \"reward\": 0}" }' >msw.jsonl
run -a msgrpo --ms-weights 0,0,1,1 --no-tokens msw.jsonl
bad ms_weights_none 2 'msw.jsonl:5: group "c"' \
    '--ms-weights gives no weight above 0 to its only scale, 2'
awk 'BEGIN { for (i = 0; i < 3; i++) printf "{\"uid\": \"d\", \"reward\": %d}\n", i }' >msw3.jsonl
run -a msgrpo --ms-weights 0,0,1,1 --no-tokens msw3.jsonl
bad ms_weights_none_scales 2 \
    '--ms-weights gives no weight above 0 to its scales 2..3'
# The warning of a group twice the usual size: not on a small input (no
# usual size of 2 or more that three groups share), and under a batch key
# (given, or set by --from verl) it does not ask for one.
printf '%s\n' '{"uid": "a", "reward": 1}' '{"uid": "a", "reward": 0}' \
    '{"uid": "z", "reward": 2}' >small.jsonl
run --no-tokens small.jsonl
good group_twice_small
sed 's/{/{"step": 1, /' big.jsonl >bigs.jsonl
run --batch-key step bigs.jsonl
warned group_twice_batch_key 'bigs.jsonl:1:' 'group "a" has 8 records' \
    'sampled twice at one "step"' '--group-size 4 refuses'
check "group_twice_batch_key: no --batch-key advice" \
    sh -c '! grep -q "give --batch-key" e'
sed 's/"uid"/"input"/; s/"reward"/"score"/' bigs.jsonl >bigv.jsonl
run --from verl bigv.jsonl
warned group_twice_from_verl 'sampled twice at one "step"'
awk '{ sub(/"uid"/, "\"t\": " n++ ", \"uid\""); print; print }' \
    big.jsonl >bigt.jsonl
run --trajectory-key t bigt.jsonl
warned group_twice_trajectories 'group "a" has 8 trajectories'
# --reward-weights without --reward-key: the default names are aliases
# (one is read), not fields to weigh.
run --reward-weights 1,2 rew.jsonl
bad reward_weights_no_key 2 '--reward-weights needs --reward-key'
# A field named twice would count twice (a reward summed twice).
run --reward-key ok,ok rew.jsonl
bad reward_key_twice 2 '--reward-key names "ok" twice'
run --stratum-cap -1 -a san rew.jsonl
bad stratum_cap_negative 2 '--stratum-cap: invalid value "-1"; expected a number >= 0'
# A bad field path is named bare (it may hold quotes) and what is wrong
# with it said in words.
run --group-key '["uid' idx.jsonl
bad path_unclosed_quote 2 \
    '--group-key ["uid: not a field path: the [" that quotes a name has no closing "]'
run --reward-key 'r[1' idx.jsonl
bad path_unclosed_index 2 'r[1: not a field path: the [ of an index has no closing ]'
run --reward-key 'r]' idx.jsonl
bad path_lone_bracket 2 'r]: not a field path: a ] with no [ before it'
run --reward-key 'r[1]v' idx.jsonl
bad path_no_dot 2 'a name after ] needs a . before it'
# A null mask under a mask name says every token is trained: naming it
# would change nothing, so no warning (on line 1, nor when a later line's
# mask is read); --mask-spans with a mask there: the mask is not read.
printf '%s\n' '{"uid": "u", "reward": 1, "logprobs": [-1, -1], "mask": null}' \
    '{"uid": "u", "reward": 0, "logprobs": [-1, -1]}' >masknull.jsonl
run masknull.jsonl
good mask_null_default
printf '%s\n' '{"uid": "u", "reward": 1, "logprobs": [-1, -1], "loss_mask": null}' \
    '{"uid": "u", "reward": 0, "logprobs": [-1, -1], "loss_mask": [1, 0]}' >masknull2.jsonl
run masknull2.jsonl
good mask_null_then_read
printf '%s\n' '{"uid": "u", "reward": 1, "logprobs": [-1, -1], "mask": null, "m": [1, 0]}' \
    '{"uid": "u", "reward": 0, "logprobs": [-1, -1], "mask": null, "m": [1, 1]}' >masknull3.jsonl
run --mask-key m masknull3.jsonl
good mask_null_other_named
printf '%s\n' '{"uid": "u", "reward": 1, "logprobs": [-1, -1, -1, -1, -1], "sp": [[0, 2]], "mask": [1, 1, 1, 1, 1]}' \
    '{"uid": "u", "reward": 0, "logprobs": [-1, -1, -1, -1, -1], "sp": [[1, 2]], "mask": [1, 1, 1, 1, 1]}' >maskspans.jsonl
run --mask-spans sp maskspans.jsonl
warned mask_with_spans 'maskspans.jsonl:1:' '"mask" looks like a mask' \
    'the trained tokens are --mask-spans "sp"' '--mask-key in place of --mask-spans'

# --- 11. Output names --------------------------------------------------
printf '%s\n' '{"uid": 1, "reward": 1, "logprobs": [-1], "advantage": 0.5}' \
    '{"uid": 1, "reward": 0, "logprobs": [-1], "advantage": -0.5}' >own.jsonl
run --output-names adv,tadv,w,tw own.jsonl
good output_names
check "the input's own advantage kept" [ "$(get 1 advantage)" = 0.5 ]
check "written as adv" near "$(get 1 adv)" 0.999998
check "tw written" [ "$(get 2 tw)" = "[0.5]" ]
run --prefix rladv_ own.jsonl
good output_prefix
check "--prefix rladv_" near "$(get 2 rladv_advantage)" -0.999998
check "--prefix keeps advantage" [ "$(get 2 advantage)" = -0.5 ]
run own.jsonl
check "by default the input's advantage is replaced" near "$(get 1 advantage)" 0.999998
run --output-names a,b,c own.jsonl
bad output_names_count 2 'give 4 names'
# --prefix goes before --output-names' names, in either order.
run --output-names a,b,c,d --prefix p_ own.jsonl
good output_names_prefix
check "prefix and output-names" [ "$(get 1 p_a)" != null ]
run --prefix p_ --output-names a,b,c,d own.jsonl
check "output-names and prefix" [ "$(get 1 p_a)" != null ]
# A name rladv writes over a field it reads (the group key) is refused.
run --output-names a,b,c,prompt_id own.jsonl
bad output_names_clash 2 'over a field it reads (the group: prompt_id)'

# --from areal leaves the token arrays out (--no-tokens); --tokens after it
# writes them, seqlen long, the prompt_len prompt tokens 0.
printf '%s\n' '{"task_id": 1, "seqlen": 5, "prompt_len": 3, "reward": 1.0}' \
    '{"task_id": 1, "seqlen": 4, "prompt_len": 3, "reward": 0.0}' >areal.jsonl
run --from areal areal.jsonl
good areal_no_tokens
check "areal: no token arrays" [ "$(get 1 token_advantages)" = null ]
run --from areal --tokens areal.jsonl
good areal_tokens
check "areal --tokens: seqlen long, prompt 0" python3 -c '
import json
r = [json.loads(l) for l in open("o")]
t = r[0]["token_advantages"]
a = r[0]["advantage"]
assert len(t) == 5 and t[:3] == [0, 0, 0] and t[3:] == [a, a], t
assert len(r[1]["token_loss_weights"]) == 4'

# AReaL's dump leaves out a sample whose last token is not trained, which
# AReaL still counts in its group: --group-size n_samples, as the man page
# advises, refuses the short group (sample_idx 1 is missing) rather than
# normalizing it over fewer; without it the group is computed.
printf '%s\n' \
    '{"task_id": 1, "sample_idx": 0, "seqlen": 5, "prompt_len": 3, "reward": 1.0}' \
    '{"task_id": 1, "sample_idx": 2, "seqlen": 4, "prompt_len": 3, "reward": 0.0}' \
    '{"task_id": 2, "sample_idx": 0, "seqlen": 5, "prompt_len": 3, "reward": 1.0}' \
    '{"task_id": 2, "sample_idx": 1, "seqlen": 6, "prompt_len": 3, "reward": 0.0}' \
    '{"task_id": 2, "sample_idx": 2, "seqlen": 4, "prompt_len": 3, "reward": 0.0}' \
    >areal_short.jsonl
run --from areal --group-size 3 areal_short.jsonl
bad areal_short_group 1 'areal_short.jsonl:1:' \
    'group "1" has 2 records, expected --group-size 3'
run --from areal areal_short.jsonl
good areal_short_group_unchecked

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
