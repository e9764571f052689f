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

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
