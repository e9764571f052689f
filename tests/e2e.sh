#!/bin/sh
# e2e.sh RLADV - end-to-end tests of the binary as a user runs it.  Numbers
# are computed by hand in the comments; python3 (stdlib) reads the JSON.
rladv=${1:-./rladv}
tmp=$(mktemp -d) || exit 3
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0

ok() { pass=$((pass + 1)); }
no() { fail=$((fail + 1)); echo "FAIL $1"; }
# check NAME COMMAND...: the command must succeed.
check() { name=$1; shift; if "$@"; then ok; else no "$name"; fi; }
# field FILE LINE KEY: prints the value of KEY on output line LINE.
field() {
	python3 -c 'import json,sys; r=json.loads(open(sys.argv[1]).read().split("\n")[int(sys.argv[2])-1]); print(json.dumps(r.get(sys.argv[3])))' "$@"
}
near() { python3 -c 'import sys; a,b=float(sys.argv[1]),float(sys.argv[2]); sys.exit(0 if abs(a-b)<=1e-8*max(1,abs(b)) else 1)' "$1" "$2"; }

# GRPO on rewards 1,0,0,0: mean 1/4, population std sqrt(3)/4, so
# A = (3/4)/(sqrt(3)/4 + 1e-6) = 1.7320468 and (-1/4)/(sqrt(3)/4 + 1e-6)
# = -0.5773489
cat > "$tmp/g.jsonl" <<'J'
{"prompt_id": "p", "reward": 1, "logprobs": [-1, -2], "mask": [1, 0], "x": 12345678901234567890}
{"prompt_id": "p", "reward": 0, "logprobs": [-1]}
{"prompt_id": "p", "reward": 0, "logprobs": [-1, -1, -1]}
{"prompt_id": "p", "reward": 0, "logprobs": []}
J
"$rladv" "$tmp/g.jsonl" > "$tmp/o" 2>"$tmp/e"
check "grpo exit 0" [ $? -eq 0 ]
check "grpo A1" near "$(field "$tmp/o" 1 advantage)" 1.73204681
check "grpo A2" near "$(field "$tmp/o" 2 advantage)" -0.577348936
# token mode: N = 1 + 1 + 3 + 0 = 5 trained tokens, c = 1/5; T = 0 gets 0.
check "token weight" near "$(field "$tmp/o" 1 loss_weight)" 0.2
check "T=0 weight 0" [ "$(field "$tmp/o" 4 loss_weight)" = 0 ]
check "masked token 0" [ "$(field "$tmp/o" 1 token_advantages | tr -d ' ')" = "[1.73204681,0]" ]
check "empty arrays" [ "$(field "$tmp/o" 4 token_advantages)" = "[]" ]
check "big int passthrough" grep -q '"x": 12345678901234567890, "advantage"' "$tmp/o"
check "input style kept" grep -q '^{"prompt_id": "p", "reward": 0, "logprobs": \[-1\], "advantage": ' "$tmp/o"
check "no stderr" [ ! -s "$tmp/e" ]

# A second run over the output replaces the fields in place.
"$rladv" -a drgrpo "$tmp/o" > "$tmp/o2"
check "rerun same field count" [ "$(grep -o '"advantage"' "$tmp/o2" | wc -l)" -eq 4 ]
check "rerun drgrpo 0.75" near "$(field "$tmp/o2" 1 advantage)" 0.75
# --no-tokens drops the stale arrays of the first run.
"$rladv" --no-tokens "$tmp/o" > "$tmp/o3"
check "no-tokens drops stale arrays" [ "$(grep -c token_advantages "$tmp/o3")" -eq 0 ]
check "no-tokens still JSON" python3 -c 'import json,sys; [json.loads(l) for l in open(sys.argv[1])]' "$tmp/o3"

# Equal rewards are exactly 0 (never -1e-11), and nothing prints -0.
printf '{"prompt_id":"e","reward":0.1,"logprobs":[-1]}\n%.0s' 1 2 3 > "$tmp/eq.jsonl"
"$rladv" -a stratified --stratum-key prompt_id "$tmp/eq.jsonl" > "$tmp/o"
check "equal rewards exact 0" [ "$(grep -c '"advantage":0,' "$tmp/o")" -eq 3 ]
printf '{"prompt_id":"z","reward":-0.0,"logprobs":[-1]}\n{"prompt_id":"z","reward":0,"logprobs":[-1]}\n' > "$tmp/nz.jsonl"
"$rladv" "$tmp/nz.jsonl" | grep -q -- '-0[,}]' && no "negative zero" || ok

# gzip in and out, stdin, several files as one stream.
gzip -c "$tmp/g.jsonl" > "$tmp/g.gz"
"$rladv" "$tmp/g.jsonl" > "$tmp/plain"
"$rladv" -o "$tmp/out.jsonl.gz" "$tmp/g.gz"
check "gzip in, -o .gz out" cmp -s "$tmp/plain" "$(gzip -dc "$tmp/out.jsonl.gz" > "$tmp/d"; echo "$tmp/d")"
"$rladv" -z < "$tmp/g.jsonl" | gzip -dc > "$tmp/d2"
check "-z and stdin" cmp -s "$tmp/plain" "$tmp/d2"
cat "$tmp/g.gz" "$tmp/g.gz" > "$tmp/multi.gz"
head -2 "$tmp/g.jsonl" > "$tmp/a.jsonl"; tail -2 "$tmp/g.jsonl" > "$tmp/b.jsonl"
"$rladv" "$tmp/a.jsonl" - < "$tmp/b.jsonl" > "$tmp/ab"
check "files + stdin as one stream" cmp -s "$tmp/plain" "$tmp/ab"
"$rladv" --unsorted "$tmp/multi.gz" > "$tmp/m" 2>/dev/null
check "multi-member gzip read whole" [ "$(wc -l < "$tmp/m")" -eq 8 ]

# --digits, --annotate.
"$rladv" --digits 3 "$tmp/g.jsonl" > "$tmp/o"
check "digits 3" [ "$(field "$tmp/o" 1 advantage)" = 1.73 ]
"$rladv" --annotate -a san --stratum-key prompt_id "$tmp/g.jsonl" > "$tmp/o"
check "annotate group_mean" near "$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["rladv"]["group_mean"])' "$tmp/o")" 0.25

# Usage errors: exit 2 with what to type.
"$rladv" -a nosuch "$tmp/g.jsonl" > /dev/null 2>"$tmp/e"
check "unknown estimator exit 2" [ $? -eq 2 ]
check "unknown estimator names choices" grep -q 'grpo, drgrpo' "$tmp/e"
"$rladv" --bogus "$tmp/g.jsonl" > /dev/null 2>&1
check "unknown option exit 2" [ $? -eq 2 ]
"$rladv" -g seq-sum-norm "$tmp/g.jsonl" > /dev/null 2>"$tmp/e"
check "seq-sum-norm needs --max-len" grep -q 'max-len' "$tmp/e"
"$rladv" --device cuda "$tmp/g.jsonl" > /dev/null 2>"$tmp/e"
rc=$?
if "$rladv" --version | grep -q 'cuda: not'; then
	check "--device cuda without CUDA exit 2" [ $rc -eq 2 ]
	check "--device cuda says rebuild" grep -q 'CUDA=1' "$tmp/e"
fi
"$rladv" --device auto "$tmp/g.jsonl" > /dev/null
check "--device auto works" [ $? -eq 0 ]
check "--version" sh -c "'$rladv' --version | grep -q '^rladv '"

# Data errors: exit 1, FILE:LINE, the field; no records written.
printf '{"prompt_id":"a","reward":1,"logprobs":[-1]}\n{"prompt_id":"a","reward":"x","logprobs":[-1]}\n' > "$tmp/bad.jsonl"
"$rladv" "$tmp/bad.jsonl" > "$tmp/o" 2>"$tmp/e"
check "bad reward exit 1" [ $? -eq 1 ]
check "bad reward FILE:LINE field" grep -q "bad.jsonl:2: field \"reward\" is a string" "$tmp/e"
check "no output on failed batch" [ ! -s "$tmp/o" ]
"$rladv" "$tmp/missing.jsonl" > /dev/null 2>"$tmp/e"
check "missing file exit 3" [ $? -eq 3 ]

# --on-error skip: in = out + rejected; rejects verbatim.
"$rladv" --on-error skip --rejects "$tmp/rej" "$tmp/bad.jsonl" > "$tmp/o" 2>"$tmp/e"
check "skip exit 0" [ $? -eq 0 ]
check "skip summary" grep -q '2 records in, 1 out, 1 rejected' "$tmp/e"
check "rejects verbatim" [ "$(cat "$tmp/rej")" = '{"prompt_id":"a","reward":"x","logprobs":[-1]}' ]
# The summary counts in words a person reads: one of each is singular;
# strata are counted (as group, stratum cells) where the estimator reads
# them.
printf '{"prompt_id":"a","reward":1,"tool_calls":1,"logprobs":[-1]}\n' > "$tmp/one.jsonl"
"$rladv" -v "$tmp/one.jsonl" > /dev/null 2>"$tmp/e"
check "summary singular" grep -qx 'rladv: 1 record in, 1 out, 0 rejected; 1 group, 1 batch' "$tmp/e"
"$rladv" -v -a san "$tmp/one.jsonl" > /dev/null 2>"$tmp/e"
check "summary cells" grep -q '1 group, 1 (group, stratum) cell, 1 batch' "$tmp/e"
# --ms-mode auto, every group exact: nothing to say without -v.
"$rladv" -a msgrpo "$tmp/bad.jsonl" --on-error skip > /dev/null 2>&1
printf '{"prompt_id":"a","reward":1,"logprobs":[-1]}\n{"prompt_id":"a","reward":0,"logprobs":[-1]}\n' > "$tmp/two.jsonl"
"$rladv" -a msgrpo "$tmp/two.jsonl" > /dev/null 2>"$tmp/e"
check "msgrpo auto, all exact: no summary" [ ! -s "$tmp/e" ]

# Batches: --batch-key restarts normalization; token weights per batch.
printf '{"prompt_id":"a","s":1,"reward":1,"logprobs":[-1]}\n{"prompt_id":"a","s":1,"reward":0,"logprobs":[-1]}\n{"prompt_id":"a","s":2,"reward":1,"logprobs":[-1,-1,-1]}\n{"prompt_id":"a","s":2,"reward":0,"logprobs":[-1]}\n' > "$tmp/bk.jsonl"
"$rladv" --batch-key s --group-size 2 "$tmp/bk.jsonl" > "$tmp/o"
check "batch-key weight 1/2" near "$(field "$tmp/o" 1 loss_weight)" 0.5
check "batch-key weight 1/4" near "$(field "$tmp/o" 3 loss_weight)" 0.25
# Without --group-size, "a" going on at step 2 would be one group split
# over two batches: an error naming both lines.
"$rladv" --batch-key s "$tmp/bk.jsonl" > /dev/null 2>"$tmp/e"
check "a group across a batch key change is an error" [ $? -eq 1 ]
check "it names both lines" grep -q ':3: group "a" (line 1) goes on here.* at .*:2' "$tmp/e"
"$rladv" "$tmp/bk.jsonl" > /dev/null 2>"$tmp/e"
check "same group in two steps is a reappearance without --batch-key" [ $? -eq 0 ]

# MS-GRPO: the worked example of its issue (1,0,0,0 -> 1.38209, -0.46070).
printf '{"prompt_id":"m","reward":%s,"logprobs":[-1]}\n' 1 0 0 0 > "$tmp/ms.jsonl"
"$rladv" -a msgrpo --ms-mode exact "$tmp/ms.jsonl" > "$tmp/o"
check "msgrpo worked example" python3 -c 'import json,sys; a=[json.loads(l)["advantage"] for l in open(sys.argv[1])]; sys.exit(0 if abs(a[0]-1.38209)<1e-5 and abs(a[1]+0.46070)<1e-5 else 1)' "$tmp/o"

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
