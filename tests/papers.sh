#!/bin/sh
# papers.sh RLADV - end-to-end tests of the variants and diagnostics that
# the three papers define or compare (Stratified GRPO, MS-GRPO, Balanced
# Aggregation), each expected number worked out by hand from the paper's
# formula in the comment above it, the section and equation cited.
# python3 (stdlib) reads the JSON.  Last line: "N passed, M failed".
rladv=${1:-./rladv}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rladv-papers.XXXXXX") || exit 3
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0

ok() { pass=$((pass + 1)); }
no() { fail=$((fail + 1)); echo "FAIL $1"; }
# check NAME COMMAND...: the command must succeed.
check() { name=$1; shift; if "$@"; then ok; else no "$name"; fi; }
# adv FILE: the advantages of an output file, one per line.
adv() {
	python3 -c 'import json,sys
for l in open(sys.argv[1]): print(repr(json.loads(l)["advantage"]))' "$1"
}
# near WANT... < VALUES: each value read equals the next WANT within 1e-6
# relative (the default nine digits print them).
near() {
	python3 -c 'import sys
got = [float(x) for x in sys.stdin.read().split()]
want = [float(x) for x in sys.argv[1:]]
ok = len(got) == len(want) and all(abs(g - w) <= 1e-6 * max(1, abs(w))
    for g, w in zip(got, want))
if not ok: print("  got %s, want %s" % (got, want))
sys.exit(0 if ok else 1)' "$@"
}
# runs NAME STATUS TEXT ARGS...: rladv ARGS exits STATUS, and when TEXT is
# not empty stderr has a line "rladv: ...TEXT...".
runs() {
	name=$1 want=$2 text=$3
	shift 3
	"$rladv" "$@" >"$tmp/o" 2>"$tmp/e"
	st=$?
	if [ "$st" -ne "$want" ]; then
		no "$name (exit $st, want $want: $(head -c 300 "$tmp/e"))"
	elif [ -n "$text" ] && ! grep -q "^rladv: .*$text" "$tmp/e"; then
		no "$name (no \"$text\" in: $(head -c 300 "$tmp/e"))"
	else
		ok
	fi
}

# ---- MS-GRPO ------------------------------------------------------------

# One group of four, rewards 1, 0, 0, 0; eps 1e-6.  A subgroup's z
# (Eq. 4) for the 1 among k - 1 zeros: mean 1/k, population deviation
# sqrt(k - 1)/k, z = sqrt(k - 1): pairs 1, triples sqrt(2), the group
# sqrt(3) (each divided by std + 1e-6).  For a 0: -1 in its pair with the
# 1, -1/sqrt(2) in a triple with it, -1/sqrt(3) in the group; 0 in a
# subgroup of zeros.
printf '{"prompt_id":"m","reward":%s,"logprobs":[-1]}\n' 1 0 0 0 >"$tmp/m4.jsonl"

# --ms-weights flat (Table 6a's first line, no hierarchical aggregation):
# the mean over the 7 subgroups holding i, pairs 3, triples 3, group 1:
# the 1: (3 z2 + 3 z3 + z4) / 7 = (3 * 0.999998 + 3 * 1.4142106 +
# 1.7320468) / 7 = 1.2820961; a 0 is in one pair and two triples with the
# 1: (-0.999998 - 2 * 0.7071053 - 0.5773489) / 7 = -0.4273654.
"$rladv" -a msgrpo --ms-weights flat --no-tokens "$tmp/m4.jsonl" >"$tmp/o" 2>/dev/null
check "msgrpo flat (Table 6a)" near 1.2820961 -0.4273654 -0.4273654 \
    -0.4273654 <<EOF
$(adv "$tmp/o")
EOF
# --ms-weights 0,0,1 (Eq. 6 with every weight on tau = 4) is GRPO with
# the population deviation: sqrt(3) / (1 + 1e-6 * 4/sqrt(3)) = 1.7320468,
# -1/sqrt(3) likewise -0.5773489.
"$rladv" -a msgrpo --ms-weights 0,0,1 --no-tokens "$tmp/m4.jsonl" >"$tmp/o" 2>/dev/null
check "msgrpo weights 0,0,1 (Eq. 6)" near 1.7320468 -0.5773489 \
    -0.5773489 -0.5773489 <<EOF
$(adv "$tmp/o")
EOF
# The same list in halves, 0,0,2: normalized to sum 1, the same numbers.
"$rladv" -a msgrpo --ms-weights 0,0,2 --no-tokens "$tmp/m4.jsonl" >"$tmp/o2" 2>/dev/null
check "msgrpo weights normalized" cmp -s "$tmp/o" "$tmp/o2"
# Scales 2..4 need three weights; two are refused, naming the group.
runs "msgrpo weights too few" 2 'm4\.jsonl:1: group "m" .*scales 2\.\.4.* gives 2' \
    -a msgrpo --ms-weights 1,1 "$tmp/m4.jsonl"
runs "msgrpo weights not numbers" 2 '--ms-weights: invalid value "1,x"' \
    -a msgrpo --ms-weights 1,x "$tmp/m4.jsonl"
runs "msgrpo weights all 0" 2 '--ms-weights: every weight is 0' \
    -a msgrpo --ms-weights 0,0 "$tmp/m4.jsonl"

# Sampling is seeded by --seed, the group key and the batch key: the same
# prompt with the same rewards at two steps (--batch-key step) draws other
# scales and subgroups at each (G = 30 goes sampled).
awk 'BEGIN { for (s = 1; s <= 2; s++) for (i = 0; i < 30; i++)
	printf "{\"prompt_id\":\"q\",\"step\":%d,\"reward\":%.3f,\"logprobs\":[-1]}\n", s, ((i * 37) % 30) / 30 }' \
    >"$tmp/steps.jsonl"
"$rladv" -a msgrpo --batch-key step --no-tokens "$tmp/steps.jsonl" \
    >"$tmp/o" 2>"$tmp/e"
check "msgrpo sampled per step" python3 -c 'import json,sys
a = [json.loads(l)["advantage"] for l in open(sys.argv[1])]
sys.exit(0 if len(a) == 60 and a[:30] != a[30:] else 1)' "$tmp/o"
check "msgrpo sampled per step: summary" grep -q '0 groups exact, 2 sampled' "$tmp/e"

# ---- Stratified GRPO ------------------------------------------------------

# One group of six, strata (tool_calls) 0, 0, 0, 1, 1, 1 with rewards 1, 0,
# 1 (mean 2/3) and 1, 0, 0 (mean 1/3).
printf '{"prompt_id":"s","tool_calls":%s,"reward":%s,"logprobs":[-1]}\n' \
    0 1 0 0 0 1 1 1 1 0 1 0 >"$tmp/s6.jsonl"
# -a san --std-scope none: the stratum baseline without division, A_S =
# R - mean_k (Sec. 3.2): 1/3, -2/3, 1/3, 2/3, -1/3, -1/3.
"$rladv" -a san --std-scope none --no-tokens "$tmp/s6.jsonl" >"$tmp/o"
check "san --std-scope none (Sec. 3.2 A_S)" near 0.33333333 -0.66666667 \
    0.33333333 0.66666667 -0.33333333 -0.33333333 <<EOF
$(adv "$tmp/o")
EOF
# Two groups 1, 0 and 3, 1: the baseline shared by the whole batch (Sec.
# 3.2, A_G = R - R_global with the batch's mean 5/4): -1/4, -5/4, 7/4, -1/4,
# by -a drgrpo --gn-scope batch and by --gn-scope batch --std-scope none.
printf '{"prompt_id":"%s","reward":%s,"logprobs":[-1]}\n' a 1 a 0 b 3 b 1 \
    >"$tmp/two.jsonl"
"$rladv" -a drgrpo --gn-scope batch --no-tokens "$tmp/two.jsonl" >"$tmp/o"
check "drgrpo --gn-scope batch (Sec. 3.2 A_G)" near -0.25 -1.25 1.75 -0.25 <<EOF
$(adv "$tmp/o")
EOF
"$rladv" --gn-scope batch --std-scope none --no-tokens "$tmp/two.jsonl" >"$tmp/o"
check "--gn-scope batch --std-scope none" near -0.25 -1.25 1.75 -0.25 <<EOF
$(adv "$tmp/o")
EOF
runs "san --gn-scope batch refused" 2 '--gn-scope batch: -a san computes no GN' \
    -a san --gn-scope batch "$tmp/s6.jsonl"

# --random-strata (Table 7's control): rewards 0, 1, 2, 3 in two strata
# of two.  Any two pairs give SAN = -+1/(1 + 2e-6/|a - b|), about -+1 to
# the lower and the higher of each pair: 0 is always about -1 and 3 about
# +1; 1 is +1 only when paired with 0, so over ten seeds it takes both
# signs.  The same seed gives the same labels.
printf '{"prompt_id":"r","tool_calls":%s,"reward":%s,"logprobs":[-1]}\n' \
    0 0 0 1 1 2 1 3 >"$tmp/r4.jsonl"
: >"$tmp/signs"
for seed in 0 1 2 3 4 5 6 7 8 9; do
	"$rladv" -a san --random-strata --seed $seed --no-tokens "$tmp/r4.jsonl" |
	    python3 -c 'import json,sys
a = [json.loads(l)["advantage"] for l in sys.stdin]
ok = abs(a[0] + 1) < 1e-5 and abs(a[3] - 1) < 1e-5 and abs(abs(a[1]) - 1) < 1e-5
print("%+d" % round(a[1]) if ok else "bad")' >>"$tmp/signs"
done
check "random strata: sizes kept, 0 and 3 fixed" sh -c "! grep -q bad '$tmp/signs'"
check "random strata: 1 takes both signs" sh -c "grep -q '+1' '$tmp/signs' && grep -q -- '-1' '$tmp/signs'"
"$rladv" -a san --random-strata --seed 4 "$tmp/r4.jsonl" >"$tmp/o"
"$rladv" -a san --random-strata --seed 4 "$tmp/r4.jsonl" >"$tmp/o2"
check "random strata: seeded" cmp -s "$tmp/o" "$tmp/o2"
runs "random strata needs strata" 2 '--random-strata: -a grpo has no strata' \
    --random-strata "$tmp/r4.jsonl"

# ---- Balanced Aggregation ---------------------------------------------------

# --eps-inside: the deviation sqrt(var + eps) of Eq. 2; with eps 0 binary
# rewards give Eq. 11, sqrt((G - k)/k) = sqrt(3) for the 1 of 1, 0, 0, 0
# and -sqrt(k/(G - k)) = -1/sqrt(3) for the others.
"$rladv" --eps-inside --eps 0 --no-tokens "$tmp/m4.jsonl" >"$tmp/o"
check "eps inside, eps 0 (BA Eq. 2, 11)" near 1.7320508 -0.57735027 \
    -0.57735027 -0.57735027 <<EOF
$(adv "$tmp/o")
EOF
# With eps 1e-6: 0.75 / sqrt(3/16 + 1e-6) = 1.7320462.
"$rladv" --eps-inside --no-tokens "$tmp/m4.jsonl" >"$tmp/o"
check "eps inside (BA Eq. 3)" near 1.7320462 -0.5773487 -0.5773487 \
    -0.5773487 <<EOF
$(adv "$tmp/o")
EOF
runs "eps inside needs a deviation" 2 '--eps-inside: -a rloo divides by no deviation' \
    -a rloo --eps-inside "$tmp/m4.jsonl"

# --drop-zero-std (DAPO's dynamic sampling): groups a = 1, 0 (2 and 3
# trained tokens), b = 1, 1 (4 and 4, equal rewards) and c = 0, 1, 1 (1,
# 1, 2).  b leaves the batch: advantage 0, loss weight 0, and N = 2 + 3 +
# 1 + 1 + 2 = 9, so token-mean weighs 1/9 (1/17 with b).
{
	printf '{"prompt_id":"a","reward":1,"logprobs":[-1,-1]}\n'
	printf '{"prompt_id":"a","reward":0,"logprobs":[-1,-1,-1]}\n'
	printf '{"prompt_id":"b","reward":1,"logprobs":[-1,-1,-1,-1]}\n'
	printf '{"prompt_id":"b","reward":1,"logprobs":[-1,-1,-1,-1]}\n'
	printf '{"prompt_id":"c","reward":0,"logprobs":[-1]}\n'
	printf '{"prompt_id":"c","reward":1,"logprobs":[-1]}\n'
	printf '{"prompt_id":"c","reward":1,"logprobs":[-1,-1]}\n'
} >"$tmp/dz.jsonl"
# lw FILE: the loss weights of an output file, one per line.
lw() {
	python3 -c 'import json,sys
for l in open(sys.argv[1]): print(repr(json.loads(l)["loss_weight"]))' "$1"
}
"$rladv" --drop-zero-std --no-tokens "$tmp/dz.jsonl" >"$tmp/o"
check "drop-zero-std token N" near 0.11111111 0.11111111 0 0 0.11111111 \
    0.11111111 0.11111111 <<EOF
$(lw "$tmp/o")
EOF
# GRPO: a is +-0.5/0.500001; c (mean 2/3, deviation sqrt(2)/3):
# -2/3 / (0.4714045 + 1e-6) = -1.4142106, 1/3 / 0.4714055 = 0.7071053.
check "drop-zero-std advantages" near 0.999998 -0.999998 0 0 -1.4142106 \
    0.7071053 0.7071053 <<EOF
$(adv "$tmp/o")
EOF
"$rladv" --no-tokens "$tmp/dz.jsonl" >"$tmp/o"
check "token N without drop" near 0.058823529 0.058823529 0.058823529 \
    0.058823529 0.058823529 0.058823529 0.058823529 <<EOF
$(lw "$tmp/o")
EOF
# -g balanced (Eq. 18-20): two live groups, not three.  a: k = m = 1,
# Gv = 2, N+ = 2, N- = 3: (1/2)/2 / 2 = 0.125 and (1/2)/3 / 2 = 1/12;
# c: k = 2, m = 1, Gv = 3, N+ = 3, N- = 1: (2/3)/3 / 2 = 1/9 and
# (1/3)/1 / 2 = 1/6.
"$rladv" --drop-zero-std -g balanced --no-tokens "$tmp/dz.jsonl" >"$tmp/o"
check "drop-zero-std balanced group count" near 0.125 0.083333333 0 0 \
    0.16666667 0.11111111 0.11111111 <<EOF
$(lw "$tmp/o")
EOF

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
