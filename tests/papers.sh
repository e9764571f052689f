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
# scales and subgroups at each (G = 30 goes sampled; --group-size says
# where one step's group ends and the next one's starts).
awk 'BEGIN { for (s = 1; s <= 2; s++) for (i = 0; i < 30; i++)
	printf "{\"prompt_id\":\"q\",\"step\":%d,\"reward\":%.3f,\"logprobs\":[-1]}\n", s, ((i * 37) % 30) / 30 }' \
    >"$tmp/steps.jsonl"
"$rladv" -a msgrpo --batch-key step --group-size 30 --no-tokens \
    "$tmp/steps.jsonl" >"$tmp/o" 2>"$tmp/e"
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

# ---- rladv stats: the chosen estimator and the papers' diagnostics ---------

# stats -a: lengths split by the chosen estimator's sign.  Strata 0: 1,
# 0.8 and 1: 0, 0.2 (T = 1, 2, 3, 4), group mean 0.5: GRPO's positives are
# the first two (mean length 1.5), SAN's (Definition 1) are 1 and 0.2,
# above their strata's means 0.9 and 0.1 (mean length 2.5).
printf '{"prompt_id":"g","tool_calls":%s,"reward":%s,"logprobs":%s}\n' \
    0 1 '[-1]' 0 0.8 '[-1,-1]' 1 0 '[-1,-1,-1]' 1 0.2 '[-1,-1,-1,-1]' \
    >"$tmp/sg.jsonl"
"$rladv" stats "$tmp/sg.jsonl" >"$tmp/o"
check "stats: GRPO's signs" grep -q '^positive advantage *2 records, mean length 1.5$' "$tmp/o"
"$rladv" stats -a san "$tmp/sg.jsonl" >"$tmp/o"
check "stats -a san: SAN's signs" grep -q '^positive advantage *2 records, mean length 2.5$' "$tmp/o"

# Theorem 2 on s6 (one group of six; strata 1, 0, 1 and 1, 0, 0): Var[A_G]
# = 1/4, Term A = (3 (1/6)^2 + 3 (1/6)^2) / 6 = 1/36, each stratum has
# s_k^2 = 2/9, so Term B = 2/9 (1 - 1/(s_k + eps)^2) and Var[A_SAN] =
# 2/9 / (s_k + eps)^2, and Var[A_G] - Var[A_SAN] = A + B.  Proposition 3:
# alpha_k = (s_k + eps)/(1/2 + eps) = 0.9428, offsets -+(1/6)/(1/2 + eps).
# Theorem 3: each stratum weighs (3/6)/(s_k + eps): shares 1/2.  No cell is
# forced to 0.
"$rladv" stats --json "$tmp/s6.jsonl" >"$tmp/o"
check "stats --json: Theorem 2, Proposition 3, Theorem 3" python3 -c '
import json, math, sys
t = json.load(open(sys.argv[1]))["total"]["stratified"]
e, sk = 1e-6, math.sqrt(2 / 9)
want = {"var_ag": 0.25, "term_a": 1 / 36,
        "term_b": 2 / 9 * (1 - 1 / (sk + e) ** 2),
        "var_san": 2 / 9 / (sk + e) ** 2}
ok = all(abs(t["theorem2"][k] - v) < 1e-9 for k, v in want.items())
ok &= abs(t["theorem2"]["var_ag"] - t["theorem2"]["var_san"] -
          t["theorem2"]["term_a"] - t["theorem2"]["term_b"]) < 1e-12
s0, s1 = t["strata"]
ok &= abs(s0["alpha_mean"] - (sk + e) / (0.5 + e)) < 1e-9
ok &= abs(s0["offset_mean"] - (1 / 6) / (0.5 + e)) < 1e-9
ok &= abs(s1["offset_mean"] + (1 / 6) / (0.5 + e)) < 1e-9
ok &= abs(s0["weight_mean"] - 0.5 / (sk + e)) < 1e-9
ok &= abs(s0["weight_share"] - 0.5) < 1e-12 and t["san_forced"] == 0
sys.exit(0 if ok else 1)' "$tmp/o"

# Balanced Aggregation's on-policy loss (Fig. 2), dz's three groups under
# GRPO: a = +-1/(1 + 2e-6) (T 2 and 3), b = 0 (T 4, 4), c: -sqrt(2),
# 1/sqrt(2), 1/sqrt(2) over 1 + 2e-6 sqrt(2)... each divided as GRPO does;
# token: -sum A T / 17; seq-sum: -sum A T / 7.  -g marks the chosen mode.
"$rladv" stats --json "$tmp/dz.jsonl" >"$tmp/o"
check "stats --json: on-policy losses" python3 -c '
import json, math, sys
l = json.load(open(sys.argv[1]))["total"]["on_policy_loss"]
e = 1e-6
a = [0.5 / (0.5 + e), -0.5 / (0.5 + e)]
sc = math.sqrt(2) / 3
c = [-(2 / 3) / (sc + e), (1 / 3) / (sc + e), (1 / 3) / (sc + e)]
sat = a[0] * 2 + a[1] * 3 + c[0] * 1 + c[1] * 1 + c[2] * 2
ok = abs(l["token"] + sat / 17) < 1e-9 and abs(l["seq-sum"] + sat / 7) < 1e-9
ok &= abs(l["seq"]) < 1e-12 and abs(l["balanced"]) < 1e-12
ok &= "seq-sum-norm" not in l
sys.exit(0 if ok else 1)' "$tmp/o"
"$rladv" stats -g balanced "$tmp/dz.jsonl" >"$tmp/o"
check "stats -g marks the mode" grep -q '^balanced .*(-g)$' "$tmp/o"

# stats --by-batch: a row per batch.  Step 1: group a = 1, 0 (tool calls
# 0 and 2); step 2: b = 1, 1 and c = 0, 1 (tool calls 1, 1, 3, 3).
# Rewards 0.5 and 0.75; mean tool calls 1 and 2; zero-std 0% and 50%;
# Theorem 1 inside groups: step 1's strata are one record each, within 0
# and between 1/4; step 2's c is one stratum, within 2 (1/4) / 4 = 1/8,
# between 0.  Token losses: step 1 -(A+ 1 - A+ 2)/3 = A+/3 with A+ =
# 0.5/(0.5 + 1e-6); step 2 (b gives 0) -(-A+ 1 + A+ 3)/(2 + 2 + 1 + 3) =
# -2 A+/8.
{
	printf '{"prompt_id":"a","step":1,"tool_calls":0,"reward":1,"logprobs":[-1]}\n'
	printf '{"prompt_id":"a","step":1,"tool_calls":2,"reward":0,"logprobs":[-1,-1]}\n'
	printf '{"prompt_id":"b","step":2,"tool_calls":1,"reward":1,"logprobs":[-1,-1]}\n'
	printf '{"prompt_id":"b","step":2,"tool_calls":1,"reward":1,"logprobs":[-1,-1]}\n'
	printf '{"prompt_id":"c","step":2,"tool_calls":3,"reward":0,"logprobs":[-1]}\n'
	printf '{"prompt_id":"c","step":2,"tool_calls":3,"reward":1,"logprobs":[-1,-1,-1]}\n'
} >"$tmp/bb.jsonl"
"$rladv" stats --by-batch --batch-key step "$tmp/bb.jsonl" >"$tmp/o"
check "stats --by-batch: one row per batch" [ "$(wc -l <"$tmp/o")" -eq 3 ]
check "stats --by-batch: step 1" grep -q '^1  *2  *0.5000  *1.000  *0.0%  *0  *0.25  *-1.0  *+0.333333$' "$tmp/o"
check "stats --by-batch: step 2" grep -q '^2  *4  *0.7500  *2.000  *50.0%  *0.125  *0  *+2.0  *-0.250000$' "$tmp/o"
"$rladv" stats --by-batch --json --batch-key step "$tmp/bb.jsonl" >"$tmp/o"
check "stats --by-batch --json: losses" python3 -c '
import json, sys
b = json.load(open(sys.argv[1]))["batches"]
ap = 0.5 / (0.5 + 1e-6)
ok = len(b) == 2 and abs(b[0]["on_policy_loss"]["token"] - ap / 3) < 1e-9
ok &= abs(b[1]["on_policy_loss"]["token"] + 2 * ap / 8) < 1e-9
ok &= b[1]["frac_reward_zero_std"] == 0.5 and b[0]["tool_calls_mean"] == 1
sys.exit(0 if ok else 1)' "$tmp/o"

# stats -a msgrpo: Appendix D's moments of one group 0, 1, 2 (scales 2
# and 3, 1/2 each): E_S[sigma_S] = (2/3 + sqrt(2/3))/2, Var_S(mu_S) =
# 1/12, Var_S(sigma_S) = 7/12 - E_S[sigma_S]^2; Eq. 10's change for r
# against the actual A_MS - A_GRPO, from the definitions.
printf '{"prompt_id":"m","reward":%s,"logprobs":[-1]}\n' 0 1 2 >"$tmp/m3.jsonl"
"$rladv" stats -a msgrpo --json "$tmp/m3.jsonl" >"$tmp/o"
check "stats -a msgrpo: Appendix A/D" python3 -c '
import json, math, sys
m = json.load(open(sys.argv[1]))["total"]["msgrpo"]
e = 1e-6
es = (2 / 3 + math.sqrt(2 / 3)) / 2
vs = 7 / 12 - es ** 2
so = math.sqrt(2 / 3)
def z(rs, i):
    mu = sum(rs) / len(rs)
    s = math.sqrt(sum((x - mu) ** 2 for x in rs) / len(rs))
    return (rs[i] - mu) / (s + e)
ams = [(z([0, 1], 0) + z([0, 2], 0)) / 2, (z([0, 1], 1) + z([1, 2], 0)) / 2,
       (z([0, 2], 1) + z([1, 2], 1)) / 2]
ams = [(a + z([0, 1, 2], i)) / 2 for i, a in enumerate(ams)]
act = [ams[i] - (r - 1) / (so + e) for i, r in enumerate([0, 1, 2])]
app = [(r - 1) * (1 / es - 1 / so) + r * vs / es ** 3 for r in [0, 1, 2]]
rms = lambda v: math.sqrt(sum(x * x for x in v) / len(v))
ok = abs(m["es_sigma"] - es) < 1e-12 and abs(m["var_mu"] - 1 / 12) < 1e-12
ok &= abs(m["var_sigma"] - vs) < 1e-12 and m["groups"] == 1
ok &= abs(m["actual_rms"] - rms(act)) < 1e-9
ok &= abs(m["approx_rms"] - rms(app)) < 1e-9
sys.exit(0 if ok else 1)' "$tmp/o"

# ---- --annotate: the papers' figures of each record ------------------------

# Proposition 3 (Eq. 14): GN = alpha_k SAN + Delta_k in every (group,
# stratum) cell, exactly, with rladv's own GN (-a grpo) and SAN (-a san).
S=samples/search_agent.jsonl
[ -f "$S" ] || S=$(dirname "$0")/../samples/search_agent.jsonl
"$rladv" -a san --annotate --no-tokens --digits 17 "$S" >"$tmp/o"
"$rladv" -a grpo --no-tokens --digits 17 "$S" >"$tmp/o2"
check "annotate: GN = alpha_k SAN + offset_k (Prop. 3)" python3 -c '
import json, sys
san = [json.loads(l) for l in open(sys.argv[1])]
gn = [json.loads(l)["advantage"] for l in open(sys.argv[2])]
ok = len(san) == len(gn) == 320
for s, g in zip(san, gn):
    a = s["rladv"]
    ok &= abs(a["alpha_k"] * s["advantage"] + a["offset_k"] - g) < 1e-9
sys.exit(0 if ok else 1)' "$tmp/o" "$tmp/o2"
# Balanced Aggregation's counts of dz's group a (1, 0; T 2 and 3): Gv 2, k
# 1, m 1, N+ 2, N- 3, M+ = M- = 1/(1 + 2e-6), Z+ = 2 M+, Z- = 3 M-; its
# balanced weights (k/Gv)/N+ (Eq. 20) over the two groups left by
# --drop-zero-std are what -g balanced wrote.
"$rladv" --annotate -g balanced --drop-zero-std --no-tokens "$tmp/dz.jsonl" >"$tmp/o"
check "annotate: balanced counts (BA Eq. 9, 15, App. B)" python3 -c '
import json, sys
r = [json.loads(l) for l in open(sys.argv[1])]
b = r[0]["rladv"]["balanced"]
m = 0.5 / (0.5 + 1e-6)
ok = (b["Gv"], b["k"], b["m"], b["n_pos"], b["n_neg"]) == (2, 1, 1, 2, 3)
ok &= abs(b["m_pos"] - m) < 1e-8 and abs(b["m_neg"] - m) < 1e-8
ok &= abs(b["z_pos"] - 2 * m) < 1e-8 and abs(b["z_neg"] - 3 * m) < 1e-8
ok &= abs(r[0]["loss_weight"] - b["k"] / b["Gv"] / b["n_pos"] / 2) < 1e-9
sys.exit(0 if ok else 1)' "$tmp/o"
# MS-GRPO's sampled path: the scales and comparison subgroups written for
# a record give back its advantage (Eq. 4-6 over them, each scale weighing
# its Dilated Scale Sampling interval: G = 30, M = 4, ceil(29/4) = 8, the
# intervals [2,6], [7,14], [15,22], [23,30], 5, 8, 8 and 8 scales).
awk 'BEGIN { for (i = 0; i < 30; i++) printf "{\"prompt_id\":\"g\",\"reward\":%.3f,\"logprobs\":[-1]}\n", ((i * 7) % 30) / 29 }' \
    >"$tmp/g30.jsonl"
"$rladv" -a msgrpo --annotate --no-tokens --digits 17 "$tmp/g30.jsonl" \
    >"$tmp/o" 2>/dev/null
check "annotate: sampled MS-GRPO's subgroups give its advantage" python3 -c '
import json, math, sys
rec = [json.loads(l) for l in open(sys.argv[1])]
r = [x["reward"] for x in rec]
iv = [(2, 6), (7, 14), (15, 22), (23, 30)]
def z(mem, i):
    mu = sum(r[j] for j in mem) / len(mem)
    s = math.sqrt(sum((r[j] - mu) ** 2 for j in mem) / len(mem))
    return 0 if s == 0 else (r[i] - mu) / (s + 1e-6)
ok = True
for i, x in enumerate(rec):
    m = x["rladv"]["msgrpo"]
    ok &= m["path"] == "sampled" and len(m["scales"]) == 4
    num = den = 0
    for t in m["scales"]:
        subs = [s for s in m["subgroups"] if len(s) == t and i in s]
        w = [e - s + 1 for s, e in iv if s <= t <= e][0]
        if subs:
            num += w * sum(z(s, i) for s in subs) / len(subs)
            den += w
    ok &= abs(num / den - x["advantage"]) < 1e-9
sys.exit(0 if ok else 1)' "$tmp/o"

# rladv diff: each side's on-policy loss, as stats computes it (token-mean
# on dz: -sum A T / 17 of GRPO's advantages; balanced: 0, GRPO's being
# binary within each sign, Balanced Aggregation App. A).
"$rladv" diff --json --a "-a grpo" --b "-a grpo -g balanced" "$tmp/dz.jsonl" >"$tmp/o"
"$rladv" stats --json "$tmp/dz.jsonl" >"$tmp/o2"
check "diff: on-policy loss per side" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
s = json.load(open(sys.argv[2]))["total"]["on_policy_loss"]
ok = abs(d["a"]["on_policy_loss"] - s["token"]) < 1e-12
ok &= abs(d["b"]["on_policy_loss"] - s["balanced"]) < 1e-12
sys.exit(0 if ok else 1)' "$tmp/o" "$tmp/o2"

# ---- GDPO ---------------------------------------------------------------

# TRL's completions log with two reward functions, math for the first and
# third groups, coding for the second (None elsewhere; row 7 all None,
# unscored), under --like trl (deviation n - 1, eps 1e-4).  Math, group 1:
# 1 0 1 1, mean 0.75, std 0.5: 0.25/0.5001 and -0.75/0.5001.  Coding,
# group 2: 1 0 1 without row 7, mean 2/3, std sqrt(1/3): (1/3)/(s +
# 1e-4) and -(2/3)/(s + 1e-4).  Group 3: math equal, 0.  The sums over
# the 11 scored rows have mean 0; their deviation (n - 1) 0.70697 + 1e-4
# divides them.  GRPO on the summed rewards gives 0.4999 ... instead.
T=$(dirname "$0")/../samples/trl_completions_00005.jsonl
[ -f "$T" ] || T=samples/trl_completions_00005.jsonl
G="--from trl --group-size 4 --reward-key math_reward_func,coding_reward_func"
"$rladv" $G -a gdpo "$T" >"$tmp/o"
check "gdpo: TRL's normalize_then_sum on its log" near 0.7069992001 \
    -2.1209976 0.7069992001 0.7069992001 0.8163942278 -1.632788456 0 \
    0.8163942278 0 0 0 0 <<EOF
$(adv "$tmp/o")
EOF
"$rladv" $G -a gdpo -j 1 "$T" >"$tmp/o1"
"$rladv" $G -a gdpo -j 2 <"$T" >"$tmp/o2"
check "gdpo: -j 1 and a pipe at -j 2 write the same bytes" \
    cmp -s "$tmp/o1" "$tmp/o2"
check "gdpo: a record whose fields all add 0 is exactly 0" \
    grep -q '"math_reward_func":1.0,"coding_reward_func":null,"advantage":0}' "$tmp/o"
runs "gdpo: rladv diff against grpo" 0 "" diff --a "-a grpo" --b "-a gdpo" -g seq-sum \
    $G "$T"
runs "gdpo: not under AReaL's transform" 2 "reward transform maps their sum" \
    --like areal -a gdpo --reward-key math_reward_func,coding_reward_func \
    --group-size 4 --null-reward unscored --no-tokens "$T"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
