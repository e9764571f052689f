#!/bin/sh
# tests/stats_diff.sh - end-to-end tests of rladv stats and rladv diff.
#
# usage: sh tests/stats_diff.sh ./rladv
#
# The figures are checked against numbers worked out by hand for small
# logs written here (the derivations are in the comments) and against an
# independent reference written in Python (stdlib only) over the same
# logs.  The last line says "N passed, M failed"; the status is 1 when
# any test failed.

RLADV=${1:-./rladv}
case $RLADV in
/*) ;;
*) RLADV=$(pwd)/$RLADV ;;
esac
if [ ! -x "$RLADV" ]; then
	echo "stats_diff.sh: $RLADV is not an executable" >&2
	exit 2
fi
SAMPLES=$(cd "$(dirname "$0")/.." && pwd)/samples
T=$(mktemp -d "${TMPDIR:-/tmp}/rladv-sd.XXXXXX") || exit 2
trap 'rm -rf "$T"' EXIT
trap 'exit 2' INT TERM HUP
cd "$T" || exit 2

pass=0
fail=0

ok() {
	pass=$((pass + 1))
}

bad() {
	fail=$((fail + 1))
	echo "FAIL: $*"
}

# expect_rc STATUS NAME COMMAND...: the command exits with STATUS; its
# output is kept in out and err for the checks that follow.
expect_rc() {
	want=$1
	name=$2
	shift 2
	"$@" >out 2>err
	got=$?
	if [ "$got" -eq "$want" ]; then
		ok
	else
		bad "$name: exit $got, expected $want ($(head -c 300 err))"
	fi
}

# has NAME FILE TEXT: FILE holds the fixed string TEXT.
has() {
	if grep -F -e "$3" "$2" >/dev/null 2>&1; then
		ok
	else
		bad "$1: no \"$3\" in $2: $(head -c 400 "$2")"
	fi
}

# hasnt NAME FILE TEXT: FILE does not hold TEXT.
hasnt() {
	if grep -F -e "$3" "$2" >/dev/null 2>&1; then
		bad "$1: unexpected \"$3\" in $2"
	else
		ok
	fi
}

# py NAME FILE CODE: runs CODE (assert statements, flush left) with d the
# JSON document in FILE, and the helpers of ref.py.
py() {
	if python3 -c "
import json, math, sys
sys.path.insert(0, '.')
from ref import *
d = json.load(open(sys.argv[1]))
$3
" "$2" >pyout 2>&1; then
		ok
	else
		bad "$1: $(tail -n 3 pyout)"
	fi
}

if ! command -v python3 >/dev/null 2>&1; then
	echo "stats_diff.sh: python3 is needed for the reference figures" >&2
	echo "0 passed, 1 failed"
	exit 1
fi

# ---------------------------------------------------------------------
# The reference: rewards, strata and advantages computed from the logs
# with no code of rladv's.
cat >ref.py <<'EOF'
import json, math


def close(a, b, tol=1e-9):
    return a is not None and abs(a - b) <= tol * max(1.0, abs(b))


def load(path):
    recs = []
    for n, line in enumerate(open(path), 1):
        if not line.strip():
            continue
        r = json.loads(line)
        r['_line'] = n
        r['_group'] = next(r[k] for k in ('prompt_id', 'uid')
                           if k in r)
        r['_reward'] = next(r[k] for k in ('reward', 'score') if k in r)
        mask = next((r[k] for k in ('mask', 'loss_mask') if k in r),
                    None)
        r['_T'] = sum(mask) if mask is not None else len(r['logprobs'])
        r['_s'] = str(r['tool_calls']) if 'tool_calls' in r else '(none)'
        recs.append(r)
    return recs


def groups(recs):
    g = {}
    for r in recs:
        g.setdefault(r['_group'], []).append(r)
    return list(g.values())


def pmean(x):
    return sum(x) / len(x)


def pvar(x):
    m = pmean(x)
    return sum((v - m) ** 2 for v in x) / len(x)


def gn(grp, eps):
    rs = [r['_reward'] for r in grp]
    if len(set(rs)) == 1:
        return [0.0] * len(rs)
    m, s = pmean(rs), math.sqrt(pvar(rs))
    return [(v - m) / (s + eps) for v in rs]


def san(grp, eps):
    out = [0.0] * len(grp)
    for k in set(r['_s'] for r in grp):
        ix = [i for i, r in enumerate(grp) if r['_s'] == k]
        for i, a in zip(ix, gn([grp[i] for i in ix], eps)):
            out[i] = a
    return out


def stats_ref(recs):
    """What rladv stats reports, computed directly.  A record whose
    reward is null (--null-reward unscored) is in the counts, lengths
    and signs (advantage 0) but in no reward figure, as TRL's logged
    reward metrics leave it out; a group of such records alone is in
    none."""
    gs = groups(recs)
    n = len(recs)
    ns = sum(1 for r in recs if r['_reward'] is not None)
    tot = wit = bet = 0.0
    shares = []
    pos, neg, zero = [], [], 0
    zero_std = sgroups = 0
    for g in gs:
        zero += sum(1 for r in g if r['_reward'] is None)
        g = [r for r in g if r['_reward'] is not None]
        if not g:
            continue
        sgroups += 1
        rs = [r['_reward'] for r in g]
        zero_std += len(set(rs)) == 1
        m = pmean(rs)
        t = sum((v - m) ** 2 for v in rs)
        w = 0.0
        b = 0.0
        for k in set(r['_s'] for r in g):
            sr = [r['_reward'] for r in g if r['_s'] == k]
            w += sum((v - pmean(sr)) ** 2 for v in sr)
            b += len(sr) * (pmean(sr) - m) ** 2
        tot, wit, bet = tot + t, wit + w, bet + b
        if t > 0:
            shares.append(b / t)
        for r in g:
            if len(set(rs)) == 1 or r['_reward'] == m:
                zero += 1
            elif r['_reward'] > m:
                pos.append(r['_T'])
            else:
                neg.append(r['_T'])
    Ts = [r['_T'] for r in recs]
    strata = {}
    for r in recs:
        strata.setdefault(r['_s'], []).append(r['_reward'])
    strata = {k: [x for x in v if x is not None] + [len(v)]
              for k, v in strata.items()}
    return {
        'records': n, 'groups': len(gs), 'scored': ns,
        'scored_groups': sgroups, 'zero_std': zero_std,
        'total': tot / ns, 'within': wit / ns, 'between': bet / ns,
        'share': bet / tot if tot else None,
        'mean_share': sum(shares) / len(shares) if shares else None,
        'len_mean': pmean(Ts), 'len_cv': math.sqrt(pvar(Ts)) / pmean(Ts),
        'pos': pos, 'neg': neg, 'zero': zero,
        'strata': {k: (v[-1], pmean(v[:-1]) if v[:-1] else None,
                       math.sqrt(pvar(v[:-1])) if v[:-1] else None)
                   for k, v in strata.items()},
    }


def diff_ref(recs, fa, fb):
    """Per stratum mean/var/cell var/mass share of two advantages (token
    aggregation: c = 1/N over the whole input), flips, correlation."""
    A, B = {}, {}
    for g in groups(recs):
        for r, a, b in zip(g, fa(g), fb(g)):
            A[r['_line']], B[r['_line']] = a, b
    N = sum(r['_T'] for r in recs)
    out = {'strata': {}}
    for side, V in (('a', A), ('b', B)):
        mass = {}
        for r in recs:
            mass[r['_s']] = mass.get(r['_s'], 0) + abs(V[r['_line']]) * \
                r['_T'] / N
        tm = sum(mass.values())
        for k in set(r['_s'] for r in recs):
            v = [V[r['_line']] for r in recs if r['_s'] == k]
            # Cells: (group, stratum) with a reward spread.
            ss = cn = 0.0
            for g in groups(recs):
                c = [r for r in g if r['_s'] == k]
                if len(set(r['_reward'] for r in c)) < 2:
                    continue
                cv = [V[r['_line']] for r in c]
                ss += sum((x - pmean(cv)) ** 2 for x in cv)
                cn += len(cv)
            out['strata'].setdefault(k, {})[side] = {
                'mean': pmean(v), 'var': pvar(v),
                'cell_var': ss / cn if cn else None,
                'mass_share': mass[k] / tm}
    lines = [r['_line'] for r in recs]
    a = [A[i] for i in lines]
    b = [B[i] for i in lines]
    ma, mb = pmean(a), pmean(b)
    cab = sum((x - ma) * (y - mb) for x, y in zip(a, b))
    out['correlation'] = cab / math.sqrt(
        sum((x - ma) ** 2 for x in a) * sum((y - mb) ** 2 for y in b))
    out['flips'] = sum(1 for x, y in zip(a, b) if x * y < 0)
    out['order'] = sorted(lines, key=lambda i: (-abs(B[i] - A[i]), i))
    out['A'], out['B'] = A, B
    return out
EOF

# ---------------------------------------------------------------------
# h1.jsonl: four groups, two steps, field aliases, a mask, a record
# group without the stratum key.
#
#   line group tool_calls reward T  GRPO sign
#   1-2  g1   0          0      6  -        (mu = 0.5)
#   3    g1   1          1      2  +
#   4    g1   1          1      2  +        (loss_mask 1,0,0,1: T = 2 of 4)
#   5    g2   0          0      6  -        (mu = 0.5)
#   6    g2   0          1      2  +
#   7    g2   1          0      6  -
#   8    g2   1          1      2  +
#   9-10 g3   0          1      4  0        (all equal: zero variance)
#   11   g4   -          0      6  -        (uid, score: aliases)
#   12   g4   -          1      2  +
#
# Theorem 1, sums of squares per group:
#   g1: total 4 * 0.25 = 1; strata {0,0} {1,1}: within 0, between 1
#   g2: total 1; strata {0,1} {0,1} both mean 0.5: within 1, between 0
#   g3: 0;  g4: total 0.5 = within 0.5 (one stratum "(none)")
# pooled over 12 records: total 2.5/12, within 1.5/12, between 1/12;
# between share 1/2.5 = 0.4; mean share over g1, g2, g4 = 1/3.
# Strata: "0": 6 records 0,0,0,1,1,1 (mean .5, std .5); "1": 4 records
# 1,1,0,1 (mean .75, std sqrt(3)/4); "(none)": 2 records (mean .5 std .5).
# Lengths: 5 positive T = 2, 5 negative T = 6, 2 zero T = 4: mean 4,
# std sqrt(40/12), CV 0.456435; gap 2 - 6 = -4, -1 of the mean: the gap
# exceeds the CV, so seq-mean is favoured.
# Batches by step: 1 = g1, g2 (share 1/2 = 0.5; lengths 6,6,2,2,6,2,6,2:
# CV 2/4 = 0.5); 2 = g3, g4 (share 0; lengths 4,4,6,2: CV sqrt2/4 = 0.354).
L6='[-1,-1,-1,-1,-1,-1]'
L4='[-1,-1,-1,-1]'
L2='[-1,-1]'
cat >h1.jsonl <<EOF
{"prompt_id":"g1","step":1,"tool_calls":0,"reward":0,"logprobs":$L6}
{"prompt_id":"g1","step":1,"tool_calls":0,"reward":0,"logprobs":$L6}
{"prompt_id":"g1","step":1,"tool_calls":1,"reward":1,"logprobs":$L2}
{"prompt_id":"g1","step":1,"tool_calls":1,"reward":1,"logprobs":$L4,"loss_mask":[1,0,0,1]}
{"prompt_id":"g2","step":1,"tool_calls":0,"reward":0,"logprobs":$L6}
{"prompt_id":"g2","step":1,"tool_calls":0,"reward":1,"logprobs":$L2}
{"prompt_id":"g2","step":1,"tool_calls":1,"reward":0,"logprobs":$L6}
{"prompt_id":"g2","step":1,"tool_calls":1,"reward":1,"logprobs":$L2}
{"prompt_id":"g3","step":2,"tool_calls":0,"reward":1,"logprobs":$L4}
{"prompt_id":"g3","step":2,"tool_calls":0,"reward":1,"logprobs":$L4}
{"uid":"g4","step":2,"score":0,"logprobs":$L6}
{"uid":"g4","step":2,"score":1,"logprobs":$L2}
EOF

# --- stats, JSON ------------------------------------------------------
expect_rc 0 "stats --json h1" "$RLADV" stats --json h1.jsonl
cp out h1.json
py "stats h1: hand-computed totals" h1.json '
t = d["total"]
assert t["records"] == 12 and t["groups"] == 4, t
assert t["group_sizes"] == [{"size": 2, "groups": 2},
    {"size": 4, "groups": 2}], t["group_sizes"]
assert t["zero_std_groups"] == 1 and close(t["frac_reward_zero_std"], .25)
v = t["reward_variance"]
assert close(v["total"], 2.5 / 12), v
assert close(v["within"], 1.5 / 12), v
assert close(v["between"], 1 / 12), v
assert close(v["between_share"], 0.4), v
assert close(v["mean_group_between_share"], 1 / 3), v
assert v["groups_with_variance"] == 3, v
'
py "stats h1: Theorem 1 total = within + between" h1.json '
for b in d["batches"] + [d["total"]]:
    v = b["reward_variance"]
    assert close(v["total"], v["within"] + v["between"], 1e-12), v
'
py "stats h1: strata" h1.json '
s = {x["stratum"]: x for x in d["total"]["strata"]}
assert [x["stratum"] for x in d["total"]["strata"]] == ["0", "1",
    "(none)"], d["total"]["strata"]
assert s["0"]["records"] == 6 and close(s["0"]["reward_mean"], .5)
assert close(s["0"]["reward_std"], .5)
assert s["1"]["records"] == 4 and close(s["1"]["reward_mean"], .75)
assert close(s["1"]["reward_std"], math.sqrt(3) / 4), s["1"]
assert close(s["1"]["share"], 4 / 12)
assert s["(none)"]["records"] == 2 and close(s["(none)"]["reward_std"], .5)
'
py "stats h1: lengths and the sign gap" h1.json '
t = d["total"]
assert close(t["length"]["mean"], 4), t["length"]
assert close(t["length"]["cv"], math.sqrt(40 / 12) / 4), t["length"]
s = t["sign"]
assert s["positive"]["records"] == 5 and close(s["positive"]["mean_length"], 2)
assert s["negative"]["records"] == 5 and close(s["negative"]["mean_length"], 6)
assert s["zero"]["records"] == 2
assert close(s["length_gap"], -4) and close(s["relative_gap"], -1), s
assert s["favours"] == "seq", s
'
py "stats h1: field names used" h1.json '
f = d["total"]["fields"]
assert f["group"] == {"prompt_id": 10, "uid": 2}, f
assert f["reward"] == {"reward": 10, "score": 2}, f
assert f["logprobs"] == {"logprobs": 12}, f
assert f["mask"] == {"loss_mask": 1, "(absent)": 11}, f
assert f["stratum"] == {"tool_calls": 10, "(none)": 2}, f
'
py "stats h1: matches the reference" h1.json '
r = stats_ref(load("h1.jsonl"))
t = d["total"]
v = t["reward_variance"]
assert close(v["total"], r["total"]) and close(v["within"], r["within"])
assert close(v["between_share"], r["share"])
assert close(v["mean_group_between_share"], r["mean_share"])
assert close(t["length"]["cv"], r["len_cv"])
for x in t["strata"]:
    n, m, s = r["strata"][x["stratum"]]
    assert x["records"] == n and close(x["reward_mean"], m)
    assert close(x["reward_std"], s), (x, s)
'
py "stats h1: one batch without --batch-key" h1.json '
assert len(d["batches"]) == 1 and d["batch_key"] is None
assert d["batches"][0]["records"] == 12
assert d["batches"][0]["first_line"] == "h1.jsonl:1", d["batches"][0]
'

expect_rc 0 "stats --batch-key step" "$RLADV" stats --json --batch-key step \
    h1.jsonl
cp out h1b.json
py "stats by step: two batches" h1b.json '
b = d["batches"]
assert [x["batch"] for x in b] == ["1", "2"], b
assert [x["records"] for x in b] == [8, 4]
assert b[1]["first_line"] == "h1.jsonl:9", b[1]["first_line"]
assert close(b[0]["reward_variance"]["between_share"], .5)
assert close(b[1]["reward_variance"]["between_share"], 0)
assert close(b[0]["frac_reward_zero_std"], 0)
assert close(b[1]["frac_reward_zero_std"], .5)
assert close(d["total"]["reward_variance"]["between_share"], .4)
'
py "stats by step: batches add up to the total" h1b.json '
b, t = d["batches"], d["total"]
assert sum(x["records"] for x in b) == t["records"]
n = t["records"]
for k in ("total", "within", "between"):
    s = sum(x["reward_variance"][k] * x["records"] for x in b) / n
    assert close(s, t["reward_variance"][k], 1e-12), k
'
expect_rc 0 "stats --batch-groups 1" "$RLADV" stats --json --batch-groups 1 \
    h1.jsonl
py "stats --batch-groups 1: a batch per group" out '
assert [x["groups"] for x in d["batches"]] == [1, 1, 1, 1], d["batches"]
assert [x["batch"] for x in d["batches"]] == ["1", "2", "3", "4"]
'

# --unsorted gathers groups instead of streaming them: same figures.
expect_rc 0 "stats --unsorted" "$RLADV" stats --json --unsorted h1.jsonl
py "stats --unsorted equals streaming" out '
a = json.load(open("h1.json"))
assert d["total"] == a["total"], (d["total"], a["total"])
'

# --stratum-cap 1: tool_calls 1 and above share the stratum ">=1".
expect_rc 0 "stats --stratum-cap" "$RLADV" stats --json --stratum-cap 1 \
    h1.jsonl
py "stats --stratum-cap 1" out '
s = [(x["stratum"], x["records"]) for x in d["total"]["strata"]]
assert s == [("0", 6), (">=1", 4), ("(none)", 2)], s
'

# --stratum-key step: by step, the two strata are whole groups, so no
# group has two strata and the between part is 0.
expect_rc 0 "stats --stratum-key step" "$RLADV" stats --json \
    --stratum-key step h1.jsonl
py "stats --stratum-key step: between 0" out '
v = d["total"]["reward_variance"]
assert close(v["between"], 0) and close(v["within"], 2.5 / 12), v
assert d["stratum_key"] == ["step"]
'

# Plain, gzip and standard input give the same document.
gzip -c h1.jsonl >h1.jsonl.gz
expect_rc 0 "stats gzip" "$RLADV" stats --json h1.jsonl.gz
py "stats gzip = plain" out '
assert d["total"] == json.load(open("h1.json"))["total"]
'
"$RLADV" stats --json <h1.jsonl >out 2>err
py "stats stdin = plain" out '
assert d["total"] == json.load(open("h1.json"))["total"]
assert d["files"] == ["-"]
'

# --- stats, human -----------------------------------------------------
LC_ALL=C expect_rc 0 "stats human h1" "$RLADV" stats h1.jsonl
cp out h1.txt
has "stats human: records" h1.txt "records                12"
has "stats human: groups" h1.txt "groups                 4"
has "stats human: zero variance" h1.txt \
    "zero reward variance   1 of 4 groups (25.0%)"
has "stats human: between share" h1.txt "between-stratum share  40.0%"
has "stats human: Theorem 1 line" h1.txt \
    "total                  0.208333 = within 0.125 + between 0.0833333"
has "stats human: lengths" h1.txt "mean 4.0 tokens, CV 0.456"
has "stats human: gap" h1.txt "-4.0 tokens (-1.000 of the mean)"
has "stats human: reading" h1.txt "seq-mean favoured over token-mean"
has "stats human: aliases" h1.txt "prompt_id 10, uid 2"
has "stats human: mask alias" h1.txt "loss_mask 1, (absent: all tokens"
# Bars scale to the largest count (30 cells): 6 -> 30, 4 -> 20, 2 -> 10;
# in the C locale they are '#'.
B30='##############################'
B20='####################'
B10='##########'
has "stats human: stratum 0 bar" h1.txt \
    "0                 6   50.0%       0.5000      0.5000  $B30"
has "stats human: stratum 1 bar" h1.txt \
    "1                 4   33.3%       0.7500      0.4330  $B20"
if grep -F "(none)            2   16.7%       0.5000      0.5000  $B10" \
    h1.txt | grep -v "$B10#" >/dev/null; then
	ok
else
	bad "stats human: (none) bar of 10 cells"
fi
has "stats human: group size bar" h1.txt \
    "         2        2   50.0%  $B30"
hasnt "stats human: no per-batch table for one batch" h1.txt "per batch"
LC_ALL=C.UTF-8 expect_rc 0 "stats human UTF-8" "$RLADV" stats h1.jsonl
has "stats human: UTF-8 blocks" out "█████"
LC_ALL=C expect_rc 0 "stats human by step" "$RLADV" stats --batch-key step \
    h1.jsonl
has "stats human: per-batch row 1" out \
    "1                 8       2      0.0%       4.0   0.500      -4.0     50.0%"
has "stats human: per-batch row 2" out \
    "2                 4       2     50.0%       4.0   0.354      -4.0      0.0%"

# h2.jsonl: one group, no stratum key; positives T = 1 and 9, negatives
# T = 1 and 9: gap 0, lengths mean 5, std 4, CV 0.8: token-mean favoured.
cat >h2.jsonl <<EOF
{"prompt_id":7,"reward":1,"logprobs":[-1]}
{"prompt_id":7,"reward":1,"logprobs":[-1,-1,-1,-1,-1,-1,-1,-1,-1]}
{"prompt_id":7,"reward":0,"logprobs":[-1]}
{"prompt_id":7,"reward":0,"logprobs":[-1,-1,-1,-1,-1,-1,-1,-1,-1]}
EOF
expect_rc 0 "stats h2" "$RLADV" stats --json h2.jsonl
py "stats h2: token-mean favoured, one stratum" out '
t = d["total"]
assert t["sign"]["favours"] == "token", t["sign"]
assert close(t["length"]["cv"], .8) and close(t["sign"]["length_gap"], 0)
assert [x["stratum"] for x in t["strata"]] == ["(none)"]
v = t["reward_variance"]
assert close(v["between"], 0) and close(v["total"], .25), v
'
LC_ALL=C expect_rc 0 "stats h2 human" "$RLADV" stats h2.jsonl
has "stats h2 human: reading" out "token-mean favoured over seq-mean"

# All rewards equal: no sign, shares undefined (null), never NaN text.
printf '{"prompt_id":1,"reward":1,"logprobs":[-1]}\n{"prompt_id":1,"reward":1,"logprobs":[-1]}\n' >h3.jsonl
expect_rc 0 "stats h3" "$RLADV" stats --json h3.jsonl
py "stats h3: undefined figures are null" out '
t = d["total"]
assert t["reward_variance"]["between_share"] is None
assert t["sign"]["favours"] is None and t["sign"]["length_gap"] is None
assert t["frac_reward_zero_std"] == 1
'
hasnt "stats h3: no nan" out "nan"

# Both signs, but no response trains a token (verl's response_mask all 0):
# the gap is 0 tokens, the relative gap and the reading undefined, and the
# reason is the lengths, not the signs.
printf '{"prompt_id":1,"reward":1,"logprobs":[-1],"mask":[0]}\n{"prompt_id":1,"reward":0,"logprobs":[-1,-2],"mask":[0,0]}\n' >h4.jsonl
expect_rc 0 "stats h4" "$RLADV" stats --json h4.jsonl
py "stats h4: no trained token" out '
s = d["total"]["sign"]
assert s["positive"]["records"] == 1 and s["negative"]["records"] == 1, s
assert s["length_gap"] == 0 and s["relative_gap"] is None, s
assert s["favours"] is None, s
assert "no response has a trained token" in s["reading"], s
'
LC_ALL=C expect_rc 0 "stats h4 human" "$RLADV" stats h4.jsonl
has "stats h4 human: gap" out "length gap pos - neg   +0.0 tokens"
hasnt "stats h4 human: not the signs" out "no group has both"

# The sample: the reference over 320 records.
expect_rc 0 "stats sample" "$RLADV" stats --json "$SAMPLES/search_agent.jsonl"
py "stats sample: matches the reference" out "
r = stats_ref(load('$SAMPLES/search_agent.jsonl'))
t = d['total']
assert t['records'] == 320 and t['groups'] == 40
assert t['zero_std_groups'] == r['zero_std']
v = t['reward_variance']
assert close(v['total'], r['total']) and close(v['within'], r['within'])
assert close(v['between'], r['between'])
assert close(v['between_share'], r['share'])
assert close(t['length']['mean'], r['len_mean'])
assert close(t['length']['cv'], r['len_cv'])
s = t['sign']
assert s['positive']['records'] == len(r['pos'])
assert close(s['positive']['mean_length'], sum(r['pos']) / len(r['pos']))
assert close(s['negative']['mean_length'], sum(r['neg']) / len(r['neg']))
"

# --- stats: the table of fields used, each --from profile's -----------
# fields NAME EXPECTED ARGS...: stats' table of fields used (from its
# first line to the blank line after it) is EXPECTED, a role read beside
# the six listed ones in its place and no other role's line.
fields() {
	name=$1
	printf '%s\n' "$2" >want
	shift 2
	LC_ALL=C expect_rc 0 "$name" "$RLADV" stats "$@"
	sed -n '/^fields used/,/^$/p' out | sed '$d' >got
	if cmp -s want got; then
		ok
	else
		bad "$name: table: $(cat got)"
	fi
}
S=$SAMPLES
I=$(printf '%23s' '')
fields "fields: verl, none of the others" "fields used            group     input 12
${I}reward    score 12
${I}logprobs  (none) 12
${I}mask      (absent: all tokens trained) 12
${I}tokens    (none) 12
${I}stratum   (none) 12" --from verl "$S/verl_rollout_dump.jsonl"
# OpenRLHF's action spans decide the trained tokens: the mask is absent,
# but not "all tokens trained".
fields "fields: openrlhf's spans" "fields used            group     (none: --group-size blocks) 12
${I}reward    reward 12
${I}logprobs  rollout_log_probs 12
${I}mask      (absent) 12
${I}spans     action_ranges 12
${I}tokens    observation_tokens 12
${I}stratum   extra_logs.num_tool_calls 12" \
    --from openrlhf --group-size 4 "$S/openrlhf_agent.jsonl"
# The column widens to the longest role's name.
fields "fields: nemo-rl's sample mask" "fields used            group        content[0] 12
${I}reward       rewards 12
${I}logprobs     generation_logprobs 12
${I}mask         token_loss_mask 12
${I}sample_mask  sample_loss_mask 12
${I}tokens       token_ids 12
${I}stratum      (none) 12" --from nemo-rl "$S/nemo_rl_train_data_step3.jsonl"
fields "fields: slime's length and removal" "fields used            group     group_index 12
${I}rollout   (null or absent: one each) 12
${I}reward    reward.score 12
${I}logprobs  rollout_log_probs 12
${I}mask      loss_mask 12
${I}remove    remove_sample 12
${I}tokens    (none) 12
${I}length    response_length 12
${I}stratum   tool_call_count 12" \
    --from slime --reward-key reward.score "$S/slime_rollout_data_4.jsonl"
# slime's split rollouts: 6 samples share an id (3 rollouts of 2), 9 have
# null (one each).
fields "fields: slime's rollouts" "fields used            group     group_index 15
${I}rollout   rollout_id 6, (null or absent: one each) 9
${I}reward    reward.score 15
${I}logprobs  rollout_log_probs 15
${I}mask      loss_mask 15
${I}remove    remove_sample 15
${I}tokens    (none) 15
${I}length    response_length 15
${I}stratum   tool_call_count 15" \
    --from slime --reward-key reward.score --gn-scope batch \
    "$S/slime_rollout_data_9.jsonl"
fields "fields: areal's length and prompt" "fields used            group       task_id 12
${I}reward      reward 12
${I}logprobs    (none) 12
${I}mask        (absent) 12
${I}prompt_len  prompt_len 12
${I}tokens      (none) 12
${I}length      seqlen 12
${I}stratum     (none) 12" --from areal "$S/areal_dump_v12.jsonl"
# 16 rows, 8 trajectories: the records.
fields "fields: skyrl's trajectories" "fields used            group       trajectory_ids.instance_id 8
${I}trajectory  trajectory_ids 8
${I}traj_last   is_last_step 8
${I}reward      rewards 8
${I}logprobs    rollout_logprobs 8
${I}mask        loss_masks 8
${I}tokens      response_ids 8
${I}stratum     (none) 8" --from skyrl "$S/skyrl_generator_output.jsonl"
# The baseline has its line where remax reads it, not otherwise.
printf '{"uid":"a","reward":1,"reward_baselines":0.5,"n":3}\n{"uid":"a","reward":0,"reward_baselines":0.5,"n":2}\n' >rm.jsonl
fields "fields: remax's baseline" "fields used            group     uid 2
${I}reward    reward 2
${I}baseline  reward_baselines 2
${I}logprobs  (none) 2
${I}mask      (absent: all tokens trained) 2
${I}tokens    (none) 2
${I}length    n 2
${I}stratum   (none) 2" -a remax --length-key n rm.jsonl
fields "fields: no baseline without remax" "fields used            group     uid 2
${I}reward    reward 2
${I}logprobs  (none) 2
${I}mask      (absent: all tokens trained) 2
${I}tokens    (none) 2
${I}stratum   (none) 2" rm.jsonl
# fjson NAME CHECK ARGS...: stats --json ARGS; CHECK (Python) on f, the
# table of its total.
fjson() {
	name=$1
	check=$2
	shift 2
	expect_rc 0 "$name" "$RLADV" stats --json "$@"
	py "$name" out "f = d['total']['fields']
$check"
}
fjson "fields json: openrlhf's spans" '
assert list(f) == ["group", "reward", "logprobs", "mask", "spans", "tokens",
    "stratum"], list(f)
assert f["mask"] == {"(absent)": 12} and f["spans"] == {"action_ranges": 12}, f
assert d["batches"][0]["fields"] == f, d["batches"][0]["fields"]' \
    --from openrlhf --group-size 4 "$S/openrlhf_agent.jsonl"
fjson "fields json: areal's length and prompt" '
assert f["length"] == {"seqlen": 12}, f
assert f["prompt_len"] == {"prompt_len": 12}, f
assert "spans" not in f and "sample_mask" not in f and "baseline" not in f, f
' --from areal "$S/areal_dump_v12.jsonl"
fjson "fields json: nemo-rl's sample mask" '
assert f["sample_mask"] == {"sample_loss_mask": 12}, f
assert "length" not in f and "prompt_len" not in f, f
' --from nemo-rl "$S/nemo_rl_train_data_step3.jsonl"
fjson "fields json: skyrl's trajectories" '
assert f["trajectory"] == {"trajectory_ids": 8}, f
assert f["traj_last"] == {"is_last_step": 8}, f
' --from skyrl "$S/skyrl_generator_output.jsonl"
fjson "fields json: remax's baseline" '
assert f["baseline"] == {"reward_baselines": 2}, f
' -a remax rm.jsonl

# slime before 0.2.0.post1 wrote no remove_sample, which --from slime
# then reads as not removed: the line counts the records that have the
# field and those without it, as the mask's line does.
python3 -c '
import json, sys
some, none = open("slime_some.jsonl", "w"), open("slime_none.jsonl", "w")
for i, l in enumerate(open(sys.argv[1])):
    r = json.loads(l)
    del r["remove_sample"]
    print(json.dumps(r), file=none)
    print(json.dumps(r) if i % 3 == 0 else l.rstrip("\n"), file=some)
' "$S/slime_rollout_data_4.jsonl"
fields "fields: slime's removal, absent from some" "fields used            group     group_index 12
${I}rollout   (null or absent: one each) 12
${I}reward    reward.score 12
${I}logprobs  rollout_log_probs 12
${I}mask      loss_mask 12
${I}remove    remove_sample 8, (absent: not removed) 4
${I}tokens    (none) 12
${I}length    response_length 12
${I}stratum   tool_call_count 12" \
    --from slime --reward-key reward.score slime_some.jsonl
fields "fields: slime's removal, absent from all" "fields used            group     group_index 12
${I}rollout   (null or absent: one each) 12
${I}reward    reward.score 12
${I}logprobs  rollout_log_probs 12
${I}mask      loss_mask 12
${I}remove    (absent: not removed) 12
${I}tokens    (none) 12
${I}length    response_length 12
${I}stratum   tool_call_count 12" \
    --from slime --reward-key reward.score slime_none.jsonl
fjson "fields json: slime's removal, absent from some" '
assert f["remove"] == {"remove_sample": 8, "(absent)": 4}, f
assert d["batches"][0]["fields"]["remove"] == f["remove"], d["batches"]
' --from slime --reward-key reward.score slime_some.jsonl
fjson "fields json: slime's rollouts" '
assert f["rollout"] == {"rollout_id": 6, "(none)": 9}, f
' --from slime --reward-key reward.score --gn-scope batch "$S/slime_rollout_data_9.jsonl"
fjson "fields json: slime's removal, absent from all" '
assert f["remove"] == {"(absent)": 12}, f
' --from slime --reward-key reward.score slime_none.jsonl

# --- stats, unscored records (--null-reward unscored) -------------------
# A record whose every reward is null is out of every reward figure, as
# TRL's logged reward metrics leave it out (torch.nanmean over the
# rewards, grpo_trainer.py v1.9.0), and in the counts, lengths, signs
# (advantage 0) and losses, whose tokens it still trains.
#
# TRL's sample, math,coding rewards, lines 7 (both null in the sample),
# 11 and 12 (math set null) unscored, lengths 2 3 1 2 | 4 2 3 1 | 1 1 1 2:
#   g1: 1 0 1 1;  g2: 1 0 - 1;  g3: 1 1 - -
# Reward mean over the 9 scored: 7/9 (TRL's nanmean; counting the three
# as 0 gave 7/12 = 0.5833); population std sqrt(7/9 * 2/9) = sqrt14/9.
# Zero variance: g3 (1, 1): 1 of 3 groups (TRL's frac_reward_zero_std:
# 4 of 12 rows, the same third).  Theorem 1 (no strata, within = total):
# g1 mean 3/4, sum of squares 3/4; g2 mean 2/3, 2/3; g3 0: (17/12)/9 =
# 17/108, over the 2 groups with variance.  SAN forced: g3's cell of two
# equal rewards, 2 of 9.  Signs: 5 positive (lengths 2 1 2 4 1: 2.0),
# 2 negative (3 2: 2.5), 5 zero (the 3 unscored, g3's two); lengths of
# all 12: 23/12.
python3 -c '
import json, sys
L = [2, 3, 1, 2, 4, 2, 3, 1, 1, 1, 1, 2]
for i, l in enumerate(open(sys.argv[1])):
    r = json.loads(l)
    if i in (10, 11):
        r["math_reward_func"] = None
    r["completion_length"] = L[i]
    print(json.dumps(r))' "$S/trl_completions_00005.jsonl" >trl3.jsonl
TRL3="--from trl --group-size 4 --length-key completion_length"
TRL3="$TRL3 --reward-key math_reward_func,coding_reward_func"
expect_rc 0 "stats unscored: TRL's sample" "$RLADV" stats --json $TRL3 \
    trl3.jsonl
cp out trl3.json
py "stats unscored: TRL's nanmean and the reward figures" trl3.json '
t = d["total"]
assert t["records"] == 12 and t["groups"] == 3 and t["unscored"] == 3, t
(s,) = t["strata"]
assert s["records"] == 12 and close(s["share"], 1), s
assert close(s["reward_mean"], 7 / 9), s
assert close(s["reward_std"], math.sqrt(14) / 9), s
assert t["zero_std_groups"] == 1, t
assert close(t["frac_reward_zero_std"], 1 / 3), t
v = t["reward_variance"]
assert close(v["total"], 17 / 108) and close(v["within"], 17 / 108), v
assert v["between"] == 0 and v["groups_with_variance"] == 2, v
x = t["stratified"]
assert x["san_forced"] == 2 and close(x["san_forced_share"], 2 / 9), x
assert close(x["theorem2"]["var_ag"], 17 / 108), x
'
py "stats unscored: counts, lengths and signs keep every record" trl3.json '
t = d["total"]
assert close(t["length"]["mean"], 23 / 12), t["length"]
s = t["sign"]
assert s["positive"]["records"] == 5 and close(s["positive"]["mean_length"], 2)
assert s["negative"]["records"] == 2 and close(s["negative"]["mean_length"],
    2.5)
assert s["zero"]["records"] == 5, s
assert t["group_sizes"] == [{"size": 4, "groups": 3}], t
'
expect_rc 0 "stats unscored: by batch" "$RLADV" stats --by-batch --json \
    $TRL3 trl3.jsonl
py "stats unscored: by batch, TRL's reward" out '
(b,) = d["batches"]
assert b["records"] == 12 and close(b["reward_mean"], 7 / 9), b
assert close(b["frac_reward_zero_std"], 1 / 3), b
assert close(b["within"], 17 / 108) and b["between"] == 0, b
'
LC_ALL=C expect_rc 0 "stats unscored: text" "$RLADV" stats $TRL3 trl3.jsonl
has "stats unscored text: the count" out \
    "unscored               3 records of null reward: out of the reward figures,"
has "stats unscored text: the stratum" out \
    "(none)           12  100.0%       0.7778      0.4157"
has "stats unscored text: zero variance" out \
    "zero reward variance   1 of 3 groups (33.3%)"
has "stats unscored text: SAN forced" out \
    "SAN forced to 0        2 of 9 scored records (22.2%)"
has "stats unscored text: Theorem 1" out \
    "total                  0.157407 = within 0.157407 + between 0"
LC_ALL=C expect_rc 0 "stats unscored: by batch text" "$RLADV" stats \
    --by-batch $TRL3 trl3.jsonl
has "stats unscored by batch text: reward" out \
    "5                12   0.7778          -    33.3%   0.15741"
# The losses keep the unscored records, as compute does: under
# --drop-zero-std g3 (1, 1 on its scored records) leaves the loss whole,
# its unscored records with it, so the token loss is -sum w A T of
# compute's weights (N = 18; counting g3 gave N = 23).
expect_rc 0 "stats unscored: drop-zero-std" "$RLADV" stats --json \
    --drop-zero-std $TRL3 trl3.jsonl
cp out trl3d.json
"$RLADV" compute --drop-zero-std $TRL3 trl3.jsonl >trl3d.out 2>err
py "stats unscored: the loss of compute's weights" trl3d.json '
L = 0.0
for l in open("trl3d.out"):
    r = json.loads(l)
    L -= r["loss_weight"] * r["advantage"] * r["completion_length"]
    assert r["loss_weight"] in (0, 0.0555555556), r
assert close(d["total"]["on_policy_loss"]["token"], L, 1e-8), (
    d["total"]["on_policy_loss"], L)
'
# A record whose reward is there is read alike under unscored.
LC_ALL=C "$RLADV" stats h1.jsonl >h1.plain 2>/dev/null
LC_ALL=C expect_rc 0 "stats unscored: none null" "$RLADV" stats \
    --null-reward unscored h1.jsonl
if cmp -s out h1.plain; then ok; else bad "stats unscored: none null differs"; fi

# u1.jsonl: strata, and g2 of unscored records alone.
#
#   line group tc reward T
#   1    g1    0  0      1
#   2    g1    0  null   3
#   3-4  g1    1  1      2
#   5    g2    0  null   1
#   6    g2    1  null   2
#   7    g3    0  1      2
#   8    g3    1  0      4
#   9    g3    1  1      1
#   10   g3    0  null   3
#
# Scored: g1 0 | 1 1 (mean 2/3), g3 1 | 0 1 (mean 2/3).  Theorem 1: g1
# total 2/3, within 0, between 2/3; g3 total 2/3, within 1/2, between
# 1/6; pooled over the 6 scored: total 2/9, within 1/12, between 5/36;
# share 5/8; per group 1 and 1/4: 5/8.  Strata: "0" 5 records, scored
# 0, 1 (mean .5, std .5); "1" 5 records, scored 1, 1, 0, 1 (mean .75,
# std sqrt3/4).  Zero variance: 0 of the 2 groups with a reward.  SAN
# forced: g1's cells (one record; two equal) and g3's "0": 4 of 6.
# Signs (GRPO): positive 4 (T 2 2 2 1), negative 2 (T 1 4), zero the 4
# unscored; the lengths of all 10: 21/10.
cat >u1.jsonl <<JSONL
{"prompt_id":"g1","tool_calls":0,"reward":0,"logprobs":[-1]}
{"prompt_id":"g1","tool_calls":0,"reward":null,"logprobs":[-1,-1,-1]}
{"prompt_id":"g1","tool_calls":1,"reward":1,"logprobs":[-1,-1]}
{"prompt_id":"g1","tool_calls":1,"reward":1,"logprobs":[-1,-1]}
{"prompt_id":"g2","tool_calls":0,"reward":null,"logprobs":[-1]}
{"prompt_id":"g2","tool_calls":1,"reward":null,"logprobs":[-1,-1]}
{"prompt_id":"g3","tool_calls":0,"reward":1,"logprobs":[-1,-1]}
{"prompt_id":"g3","tool_calls":1,"reward":0,"logprobs":[-1,-1,-1,-1]}
{"prompt_id":"g3","tool_calls":1,"reward":1,"logprobs":[-1]}
{"prompt_id":"g3","tool_calls":0,"reward":null,"logprobs":[-1,-1,-1]}
JSONL
grep -v null u1.jsonl >u1s.jsonl
expect_rc 0 "stats unscored u1" "$RLADV" stats --json --null-reward unscored \
    u1.jsonl
cp out u1.json
py "stats unscored u1: hand-computed" u1.json '
t = d["total"]
assert t["records"] == 10 and t["groups"] == 3 and t["unscored"] == 4, t
assert t["zero_std_groups"] == 0 and t["frac_reward_zero_std"] == 0, t
v = t["reward_variance"]
assert close(v["total"], 2 / 9) and close(v["within"], 1 / 12), v
assert close(v["between"], 5 / 36) and close(v["between_share"], 5 / 8), v
assert close(v["mean_group_between_share"], 5 / 8), v
assert v["groups_with_variance"] == 2, v
s = {x["stratum"]: x for x in t["strata"]}
assert s["0"]["records"] == 5 and close(s["0"]["reward_mean"], .5), s
assert close(s["0"]["reward_std"], .5), s
assert s["1"]["records"] == 5 and close(s["1"]["reward_mean"], .75), s
assert close(s["1"]["reward_std"], math.sqrt(3) / 4), s
x = t["stratified"]
assert x["san_forced"] == 4 and close(x["san_forced_share"], 4 / 6), x
g = t["sign"]
assert g["positive"]["records"] == 4 and close(g["positive"]["mean_length"],
    1.75)
assert g["negative"]["records"] == 2 and close(g["negative"]["mean_length"],
    2.5)
assert g["zero"]["records"] == 4 and close(t["length"]["mean"], 2.1), t
'
py "stats unscored u1: matches the reference" u1.json '
r = stats_ref(load("u1.jsonl"))
t = d["total"]
assert t["records"] == r["records"] and t["unscored"] == 10 - r["scored"]
assert t["zero_std_groups"] == r["zero_std"]
assert close(t["frac_reward_zero_std"], r["zero_std"] / r["scored_groups"])
v = t["reward_variance"]
assert close(v["total"], r["total"]) and close(v["within"], r["within"])
assert close(v["between"], r["between"]) and close(v["between_share"],
    r["share"])
assert close(v["mean_group_between_share"], r["mean_share"])
assert close(t["length"]["cv"], r["len_cv"])
s = t["sign"]
assert s["positive"]["records"] == len(r["pos"]), (s, r["pos"])
assert s["negative"]["records"] == len(r["neg"]), (s, r["neg"])
assert s["zero"]["records"] == r["zero"], (s, r["zero"])
for x in t["strata"]:
    n, m, sd = r["strata"][x["stratum"]]
    assert x["records"] == n and close(x["reward_mean"], m), (x, m)
    assert close(x["reward_std"], sd), (x, sd)
'
# rladv diff: an unscored record's advantage is 0 by rule, on both sides,
# so it is out of the figures of the advantages (each side's mean,
# deviation and offsets, the strata's, Theorem 4's cells, the sign
# flips, the correlation, the largest differences): they are those of
# the log without it.  The masses and losses keep its tokens (TRL trains
# them), as compute's weights do; the header counts it.
"$RLADV" diff --json --a "-a grpo" --b "-a san" u1s.jsonl >d_u1s.json 2>err
expect_rc 0 "diff unscored u1" "$RLADV" diff --json --a "-a grpo" \
    --b "-a san" --null-reward unscored u1.jsonl
py "diff unscored u1: the figures of the log without them" out '
o = json.load(open("d_u1s.json"))
assert d["records"] == 10 and d["unscored"] == 4 and "unscored" not in o, d
for k in ("correlation", "sign_flips"):
    assert close(d[k], o[k]), (k, d[k], o[k])
for s in "ab":
    for k in ("mean", "var", "offset_rms", "offset_range"):
        assert close(d[s][k], o[s][k]), (s, k, d[s][k], o[s][k])
assert len(d["strata"]) == len(o["strata"])
for x, y in zip(d["strata"], o["strata"]):
    assert (x["stratum"], x["records"], x["cell_records"]) == \
        (y["stratum"], y["records"], y["cell_records"]), (x, y)
    for s in "ab":
        for k in ("mean", "var", "cell_var"):
            assert (x[s][k] is None) == (y[s][k] is None), (x, y)
            assert x[s][k] is None or close(x[s][k], y[s][k]), (s, k, x, y)
assert [(t["a"], t["b"]) for t in d["largest"]] == \
    [(t["a"], t["b"]) for t in o["largest"]], (d["largest"], o["largest"])
'
LC_ALL=C expect_rc 0 "diff unscored u1: text" "$RLADV" diff --a "-a grpo" \
    --b "-a san" --null-reward unscored u1.jsonl
has "diff unscored text: the count" out \
    "10 records, 3 groups; 4 unscored (every reward null), out of the figures"

# Every reward figure is that of the log without the unscored records,
# under each estimator (MS-GRPO's subgroups too).
for est in grpo san msgrpo; do
	"$RLADV" stats --json -a $est u1s.jsonl >u1s.json 2>err
	expect_rc 0 "stats unscored u1 -a $est" "$RLADV" stats --json \
	    --null-reward unscored -a $est u1.jsonl
	py "stats unscored u1 -a $est: the reward figures without them" out '
o = json.load(open("u1s.json"))["total"]
t = d["total"]
for k in ("zero_std_groups", "frac_reward_zero_std", "reward_variance",
          "stratified", "msgrpo"):
    assert t.get(k) == o.get(k), (k, t.get(k), o.get(k))
for a, b in zip(t["strata"], o["strata"]):
    assert a["reward_mean"] == b["reward_mean"], (a, b)
    assert a["reward_std"] == b["reward_std"], (a, b)
'
done
# A stratum, a group or a whole log of unscored records alone has no
# reward figure: undefined, not 0.
printf '%s\n' '{"prompt_id":"a","tool_calls":2,"reward":null,"logprobs":[-1]}' \
    '{"prompt_id":"a","tool_calls":1,"reward":1,"logprobs":[-1]}' \
    '{"prompt_id":"b","tool_calls":1,"reward":null,"logprobs":[-1]}' >u2.jsonl
expect_rc 0 "stats unscored u2" "$RLADV" stats --json --null-reward unscored \
    u2.jsonl
py "stats unscored u2: a stratum and a group of them alone" out '
t = d["total"]
s = {x["stratum"]: x for x in t["strata"]}
assert s["2"]["records"] == 1 and s["2"]["reward_mean"] is None, s
assert s["1"]["records"] == 2 and s["1"]["reward_mean"] == 1, s
assert t["zero_std_groups"] == 1 and t["frac_reward_zero_std"] == 1, t
'
LC_ALL=C expect_rc 0 "stats unscored u2 text" "$RLADV" stats \
    --null-reward unscored u2.jsonl
has "stats unscored u2 text: a group with a reward" out \
    "zero reward variance   1 of 1 groups with a reward (100.0%)"
has "stats unscored u2 text: no reward" out \
    "2                 1   33.3%            -           -"
grep -v '"reward":1' u2.jsonl >u3.jsonl
expect_rc 0 "stats unscored u3" "$RLADV" stats --json --null-reward unscored \
    u3.jsonl
py "stats unscored u3: no record scored" out '
t = d["total"]
assert t["records"] == 2 and t["unscored"] == 2, t
assert t["frac_reward_zero_std"] is None, t
assert all(x["reward_mean"] is None for x in t["strata"]), t["strata"]
assert t["stratified"]["san_forced_share"] is None, t
'

# --- stats, errors ----------------------------------------------------
printf '{"prompt_id":1,"reward":1,"logprobs":[-1]}\n{"prompt_id":1,"reward":"x","logprobs":[-1]}\n' >bad.jsonl
expect_rc 1 "stats bad record" "$RLADV" stats bad.jsonl
has "stats bad record: FILE:LINE" err "rladv: bad.jsonl:2: "
expect_rc 0 "stats --on-error skip" "$RLADV" stats --json --on-error skip \
    bad.jsonl
py "stats skip: rejected counted" out '
assert d["rejected"] == 1 and d["total"]["records"] == 1
'
expect_rc 2 "stats bad option" "$RLADV" stats --frobnicate h1.jsonl
has "stats bad option: says what to type" err "rladv --help"
expect_rc 3 "stats missing file" "$RLADV" stats no-such-file.jsonl
has "stats missing file: message" err "no-such-file.jsonl"

# ---------------------------------------------------------------------
# d1.jsonl for diff, with --eps 0 given outside --a/--b (both sides take
# it from there):
#
#   line group tc reward T   GN = (r - mu)/sigma     SAN (per stratum)
#   1    g1    0  0      1   -sqrt2   = -1.414214    -1
#   2    g1    0  2      1    0                       1
#   3    g1    1  2      1    0                      -1
#   4    g1    1  4      1    sqrt2                   1
#   5    g2    0  0      2   -2/sqrt2.5 = -1.264911  -1
#   6    g2    0  1      1   -1/sqrt2.5 = -0.632456   1
#   7    g2    1  3      1    0.632456               -1
#   8    g2    1  4      2    1.264911                1
#
# g1: mu 2, sigma sqrt2; g2: mu 2, sigma sqrt2.5.  SAN strata: mean 0,
# deviation 1 in every (group, stratum) cell.
# Stratum 0, GN: mean (-sqrt2 - 3/sqrt2.5)/4 = -0.827895; variance
#   (2 + 4/2.5 + 1/2.5)/4 - 0.827895^2 = 0.314590;
#   cell variances (Theorem 4: sigma_k^2/sigma^2): g1 1/2, g2 .25/2.5 =
#   0.1, pooled (2 * .5 + 2 * .1)/4 = 0.3.  SAN: mean 0, cell var 1.
# Stratum 1, GN: mean +0.827895: offset range 1.655790; offset rms over
#   cells sqrt((4 * 0.5 + 4 * 0.9)/8) = sqrt(0.7) = 0.836660.
# Sign flips: lines 6 and 7 (GN -0.632 vs SAN 1, GN 0.632 vs SAN -1).
# Largest |SAN - GN|: lines 6, 7 (1.632456), then 2 and 3 (1): line 2.
cat >d1.jsonl <<EOF
{"prompt_id":"g1","tool_calls":0,"reward":0,"logprobs":[-1]}
{"prompt_id":"g1","tool_calls":0,"reward":2,"logprobs":[-1]}
{"prompt_id":"g1","tool_calls":1,"reward":2,"logprobs":[-1]}
{"prompt_id":"g1","tool_calls":1,"reward":4,"logprobs":[-1]}
{"prompt_id":"g2","tool_calls":0,"reward":0,"logprobs":[-1,-1]}
{"prompt_id":"g2","tool_calls":0,"reward":1,"logprobs":[-1]}
{"prompt_id":"g2","tool_calls":1,"reward":3,"logprobs":[-1]}
{"prompt_id":"g2","tool_calls":1,"reward":4,"logprobs":[-1,-1]}
EOF
expect_rc 0 "diff --json d1" "$RLADV" diff --json --eps 0 --top 3 \
    --a "-a grpo" --b "-a san" d1.jsonl
cp out d1.json
py "diff d1: hand-computed figures" d1.json '
s = {x["stratum"]: x for x in d["strata"]}
assert list(s) == ["0", "1"], list(s)
a0, b0 = s["0"]["a"], s["0"]["b"]
m0 = (-math.sqrt(2) - 3 / math.sqrt(2.5)) / 4
assert close(a0["mean"], m0), a0
assert close(a0["var"], (2 + 4 / 2.5 + 1 / 2.5) / 4 - m0 * m0), a0
assert close(a0["cell_var"], 0.3), a0
assert close(b0["mean"], 0) and close(b0["cell_var"], 1, 1e-12), b0
assert close(s["1"]["a"]["mean"], -m0)
assert close(s["1"]["b"]["cell_var"], 1, 1e-12)
assert close(d["a"]["offset_range"], -2 * m0), d["a"]
assert close(d["a"]["offset_rms"], math.sqrt(.7)), d["a"]
assert close(d["b"]["offset_rms"], 0) and close(d["b"]["offset_range"], 0)
assert d["sign_flips"] == 2, d["sign_flips"]
assert [x["line"] for x in d["largest"]] == [6, 7, 2], d["largest"]
assert close(d["largest"][0]["diff"], 1 + 1 / math.sqrt(2.5))
assert d["largest"][0]["file"] == "d1.jsonl"
assert d["largest"][0]["stratum"] == "0"
assert d["records"] == 8 and d["groups"] == 2
assert d["a"]["advantage"] == "grpo" and d["b"]["options"] == "-a san"
'
py "diff d1: matches the reference" d1.json '
r = diff_ref(load("d1.jsonl"), lambda g: gn(g, 0), lambda g: san(g, 0))
for x in d["strata"]:
    for side in "ab":
        e, g = r["strata"][x["stratum"]][side], x[side]
        for k in ("mean", "var", "cell_var", "mass_share"):
            assert close(g[k], e[k]), (x["stratum"], side, k, g[k], e[k])
assert close(d["correlation"], r["correlation"]), r["correlation"]
assert d["sign_flips"] == r["flips"]
'
py "diff d1: mass shares sum to 1" d1.json '
for side in "ab":
    assert close(sum(x[side]["mass_share"] for x in d["strata"]), 1)
'

# The outer --eps reaches both sides: without it SAN's cell variance is
# 1/(1 + 1e-6)^2 = 0.999998 in g1, not 1 within 1e-9.
expect_rc 0 "diff default eps" "$RLADV" diff --json --a "-a grpo" \
    --b "-a san" d1.jsonl
py "diff: outer options reach both sides" out '
v = {x["stratum"]: x["b"]["cell_var"] for x in d["strata"]}
assert not close(v["0"], 1, 1e-9) and close(v["0"], 1, 1e-5), v
'

# Stratified with alpha 0.6 is 0.6 SAN + 0.4 GN: its stratum means are
# 0.4 of GN's (SAN's are 0): -0.331158 for stratum 0.
expect_rc 0 "diff stratified" "$RLADV" diff --json --eps 0 --a "-a grpo" \
    --b "-a stratified --alpha 0.6" d1.jsonl
py "diff stratified: the blend" out '
r = diff_ref(load("d1.jsonl"), lambda g: gn(g, 0),
    lambda g: [.6 * s + .4 * a for s, a in zip(san(g, 0), gn(g, 0))])
for x in d["strata"]:
    e = r["strata"][x["stratum"]]["b"]
    assert close(x["b"]["mean"], e["mean"]) and close(x["b"]["var"], e["var"])
assert close({x["stratum"]: x for x in d["strata"]}["0"]["b"]["mean"],
    0.4 * (-math.sqrt(2) - 3 / math.sqrt(2.5)) / 4)
assert close(d["correlation"], r["correlation"])
'

# Group scope streams group by group: the same advantages.
expect_rc 0 "diff streaming" "$RLADV" diff --json --eps 0 \
    --a "-a grpo --scope group" --b "-a san --scope group" d1.jsonl
py "diff streaming = batch" out '
e = json.load(open("d1.json"))
for x, y in zip(d["strata"], e["strata"]):
    for side in "ab":
        assert close(x[side]["mean"], y[side]["mean"], 1e-12)
        assert close(x[side]["cell_var"], y[side]["cell_var"], 1e-12)
assert d["sign_flips"] == e["sign_flips"]
'

LC_ALL=C expect_rc 0 "diff human d1" "$RLADV" diff --eps 0 --top 3 \
    --a "-a grpo" --b "-a san" d1.jsonl
cp out d1.txt
has "diff human: options" d1.txt "B  -a san"
has "diff human: stratum 0" d1.txt \
    "0                4 |  -0.8279  0.3146  0.3000"
has "diff human: SAN cell var" d1.txt "+0.0000  1.0000  1.0000"
has "diff human: flips" d1.txt "sign flips            2 of 8 records (25.0%)"
has "diff human: offset" d1.txt "A: rms 0.8367, range 1.6558   B: rms 0.0000, range 0.0000"
has "diff human: top line" d1.txt "d1.jsonl:6"
if [ "$(grep -c '^d1.jsonl:' d1.txt)" -eq 3 ]; then ok; else
	bad "diff human: --top 3 lists 3 lines"; fi
hasnt "diff human: no negative zero" d1.txt "-0.0000"

# No group with two strata: no cross-stratum offset to measure, so its rms
# is undefined ("-", null), not 0 as if the estimator removed it.
printf '{"prompt_id":1,"reward":1,"tool_calls":0,"logprobs":[-1]}\n{"prompt_id":1,"reward":0,"tool_calls":0,"logprobs":[-1]}\n{"prompt_id":2,"reward":1,"tool_calls":1,"logprobs":[-1]}\n{"prompt_id":2,"reward":0,"tool_calls":1,"logprobs":[-1]}\n' >d2.jsonl
LC_ALL=C expect_rc 0 "diff d2 human" "$RLADV" diff --a "-a grpo" --b "-a san" d2.jsonl
has "diff d2 human: rms undefined" out "A: rms -, range 0.0000   B: rms -, range 0.0000"
expect_rc 0 "diff d2" "$RLADV" diff --json --a "-a grpo" --b "-a san" d2.jsonl
py "diff d2: rms null" out '
assert d["a"]["offset_rms"] is None and d["b"]["offset_rms"] is None, d["a"]
assert d["a"]["offset_range"] == 0, d["a"]
'

# The sample, GN against SAN: the reference.
expect_rc 0 "diff sample" "$RLADV" diff --json --eps 0 --a "-a grpo" \
    --b "-a san" "$SAMPLES/search_agent.jsonl"
py "diff sample: matches the reference" out "
r = diff_ref(load('$SAMPLES/search_agent.jsonl'), lambda g: gn(g, 0),
    lambda g: san(g, 0))
for x in d['strata']:
    for side in 'ab':
        e, g = r['strata'][x['stratum']][side], x[side]
        for k in ('mean', 'var', 'cell_var', 'mass_share'):
            assert close(g[k], e[k], 1e-8), (x['stratum'], side, k)
assert close(d['correlation'], r['correlation'])
assert d['sign_flips'] == r['flips']
top = [x['line'] for x in d['largest']]
assert top == r['order'][:5], (top, r['order'][:5])
"

# --- diff, usage --------------------------------------------------------
expect_rc 2 "diff without configurations" "$RLADV" diff d1.jsonl
has "diff usage: says what to type" err 'rladv diff --a "-a grpo"'
expect_rc 2 "diff bad estimator" "$RLADV" diff --a "-a nope" --b "" d1.jsonl
has "diff bad estimator: names --a" err '--a "-a nope": unknown advantage'
expect_rc 2 "diff input option inside --b" "$RLADV" diff --a "" \
    --b "--stratum-key x" d1.jsonl
has "diff input option: put it outside" err "put them outside"
expect_rc 2 "diff --a without value" "$RLADV" diff --a
expect_rc 2 "diff unterminated quote" "$RLADV" diff --a "-a 'grpo" d1.jsonl
expect_rc 1 "diff san without the stratum key" "$RLADV" diff --a "" \
    --b "-a san" h2.jsonl
has "diff missing stratum: FILE:LINE" err "h2.jsonl:1:"
expect_rc 3 "diff missing file" "$RLADV" diff --a "" --b "-a san" nosuch

# ---------------------------------------------------------------------
# diff --outputs: A is rladv's output; the variants are written by the
# Python below (a trainer's dump, say), each with a known change.
"$RLADV" --eps 0 d1.jsonl >A.jsonl 2>/dev/null
python3 - <<'EOF'
import json
recs = [json.loads(l) for l in open("A.jsonl")]

def dump(name, rs):
    with open(name, "w") as f:
        for r in rs:
            f.write(json.dumps(r) + "\n")

dump("same.jsonl", recs)
# Member order changed: compared by name, still equal.
dump("reordered.jsonl", [dict(reversed(list(r.items()))) for r in recs])
x = [dict(r) for r in recs]
x[0]["advantage"] *= 1 + 1e-6          # beyond 1e-9
dump("far.jsonl", x)
x = [dict(r) for r in recs]
x[0]["advantage"] *= 1 + 1.5e-9        # just beyond 1e-9, within 2e-9
dump("edge.jsonl", x)
x = [dict(r) for r in recs]
x[0]["advantage"] *= 1 + 1e-12         # within 1e-9, beyond 1e-13
dump("near.jsonl", x)
x = [dict(r) for r in recs]
x[4]["token_advantages"] = list(x[4]["token_advantages"])
x[4]["token_advantages"][1] += 0.5     # a number inside an array
dump("inarray.jsonl", x)
x = [dict(r) for r in recs]
x[1]["advantage"] = 1e-12              # line 2's advantage is 0
dump("tiny.jsonl", x)
dump("shuffled.jsonl", recs[::-1])
dump("short.jsonl", recs[:-1])
x = [dict(r) for r in recs]
del x[3]["loss_weight"]
dump("missing.jsonl", x)
x = [dict(r) for r in recs]
x[0]["prompt_id"] = "zz"
dump("renamed.jsonl", x)
dump("dupkey.jsonl", recs[:1] + recs[:1])
x = [dict(r) for r in recs]
x[2]["advantage"] = str(x[2]["advantage"])
dump("typed.jsonl", x)
EOF
gzip -c same.jsonl >same.jsonl.gz
printf '{"a":1}\n{"a":\n' >broken.jsonl

expect_rc 0 "outputs equal" "$RLADV" diff --outputs A.jsonl same.jsonl
has "outputs equal: says so" out "8 records equal within --tol 1e-09"
expect_rc 0 "outputs member order" "$RLADV" diff --outputs A.jsonl \
    reordered.jsonl
expect_rc 0 "outputs gzip" "$RLADV" diff --outputs A.jsonl same.jsonl.gz
expect_rc 1 "outputs beyond tol" "$RLADV" diff --outputs A.jsonl far.jsonl
has "outputs beyond tol: line and field" out \
    "A.jsonl:1 far.jsonl:1: advantage: "
has "outputs beyond tol: summary" out "1 of 8 records differs: 1 number beyond"
expect_rc 0 "outputs within tol" "$RLADV" diff --outputs A.jsonl near.jsonl
expect_rc 1 "outputs at the edge of --tol" "$RLADV" diff --outputs A.jsonl \
    edge.jsonl
expect_rc 0 "outputs --tol 2e-9" "$RLADV" diff --outputs --tol 2e-9 \
    A.jsonl edge.jsonl
expect_rc 1 "outputs --tol 1e-13" "$RLADV" diff --outputs --tol 1e-13 \
    A.jsonl near.jsonl
expect_rc 0 "outputs --tol 1e-5" "$RLADV" diff --outputs --tol 1e-5 \
    A.jsonl far.jsonl
expect_rc 1 "outputs number in an array" "$RLADV" diff --outputs A.jsonl \
    inarray.jsonl
has "outputs array: the element" out "inarray.jsonl:5: token_advantages[1]: "
# 0 against 1e-12: relative difference 1, whatever --tol; --atol forgives.
expect_rc 1 "outputs zero vs tiny" "$RLADV" diff --outputs A.jsonl tiny.jsonl
expect_rc 0 "outputs --atol" "$RLADV" diff --outputs --atol 1e-10 \
    A.jsonl tiny.jsonl
has "outputs --atol: says so" out "8 records equal within --tol 1e-09 or --atol 1e-10"
expect_rc 1 "outputs by line, shuffled" "$RLADV" diff --outputs A.jsonl \
    shuffled.jsonl
# prompt_id, tool_calls and reward together identify d1's records.
expect_rc 0 "outputs --key, shuffled" "$RLADV" diff --outputs --key \
    prompt_id,tool_calls,reward A.jsonl shuffled.jsonl
expect_rc 1 "outputs --key, unmatched" "$RLADV" diff --outputs --key \
    prompt_id,tool_calls,reward A.jsonl renamed.jsonl
has "outputs --key: names the key" out 'A.jsonl:1: no record with key "g1,0,0" in B'
has "outputs --key: and the other side" out 'renamed.jsonl:1: no record with key "zz,0,0" in A'
expect_rc 1 "outputs --key duplicate" "$RLADV" diff --outputs --key prompt_id \
    A.jsonl dupkey.jsonl
has "outputs --key duplicate: message" err "dupkey.jsonl:2: key \"g1\" is also on line 1"
expect_rc 1 "outputs --key missing field" "$RLADV" diff --outputs --key nope \
    A.jsonl same.jsonl
has "outputs --key missing: message" err 'field "nope" is missing'
expect_rc 1 "outputs fewer records" "$RLADV" diff --outputs A.jsonl short.jsonl
has "outputs fewer: the line" out "A.jsonl:8: B has no record"
expect_rc 2 "outputs both standard input" "$RLADV" diff --outputs - - \
    <A.jsonl
has "outputs both standard input: says so" err "only one of the two files"
# The other way round: B's extra record, a member only B has, a number
# that B holds as a string.
expect_rc 1 "outputs more records" "$RLADV" diff --outputs short.jsonl A.jsonl
has "outputs more: the line" out "A.jsonl:8: A has no record at this position"
expect_rc 1 "outputs more records --json" "$RLADV" diff --outputs --json \
    short.jsonl A.jsonl
py "outputs more records --json" out '
assert d["only_b"] == 1 and d["records_b"] == 8 and d["records_a"] == 7, d
x = d["differences"][0]
assert x["a_line"] is None and x["b_line"] == 8, x
'
expect_rc 1 "outputs member only in B" "$RLADV" diff --outputs missing.jsonl \
    A.jsonl
has "outputs only in B: path" out "loss_weight: (absent) != "
has "outputs only in B: says so" out "(only in B)"
expect_rc 1 "outputs different types" "$RLADV" diff --outputs A.jsonl \
    typed.jsonl
has "outputs different types: says so" out "advantage: "
has "outputs different types: why" out "(different types)"
expect_rc 1 "outputs missing field" "$RLADV" diff --outputs A.jsonl \
    missing.jsonl
has "outputs missing field: path" out "loss_weight: "
expect_rc 1 "outputs invalid JSON" "$RLADV" diff --outputs broken.jsonl \
    broken.jsonl
has "outputs invalid JSON: FILE:LINE" err "rladv: broken.jsonl:2: invalid JSON"
expect_rc 3 "outputs missing file" "$RLADV" diff --outputs A.jsonl nosuch
expect_rc 2 "outputs one file" "$RLADV" diff --outputs A.jsonl
expect_rc 2 "outputs bad --tol" "$RLADV" diff --outputs --tol x A.jsonl A.jsonl
expect_rc 2 "outputs with --a" "$RLADV" diff --outputs --a "" A.jsonl A.jsonl
expect_rc 1 "outputs --json" "$RLADV" diff --outputs --json A.jsonl far.jsonl
py "outputs --json: the difference" out '
assert d["equal"] is False and d["records_differ"] == 1, d
assert d["numbers_differ"] == 1 and d["matched"] == 8
assert close(d["max_rel_diff"], 1e-6, 1e-3), d["max_rel_diff"]
x = d["differences"][0]
assert x["a_line"] == 1 and x["b_line"] == 1 and x["path"] == "advantage"
'
expect_rc 0 "outputs --json equal" "$RLADV" diff --outputs --json A.jsonl \
    same.jsonl
py "outputs --json equal" out '
assert d["equal"] is True and d["differences"] == [] and d["matched"] == 8
'
# --top bounds what is shown, not what is counted.
expect_rc 1 "outputs --top 1" "$RLADV" diff --outputs --top 1 A.jsonl \
    shuffled.jsonl
if [ "$(grep -c '^A.jsonl:' out)" -eq 1 ]; then ok; else
	bad "outputs --top 1 shows one difference"; fi
has "outputs --top 1: the rest counted" out "more"

# --- Strata in numeric order past 9 -----------------------------------------
# Tool-call counts 0 to 11 (six prompts of four responses, verl's field
# names), and two responses without the field: the strata read 0, 1, 2,
# ..., 9, 10, 11, then (none), never 0, 1, 10, 11, 2 as bytes sort.
for g in 0 1 2 3 4 5; do
	for j in 0 1 2 3; do
		tc=$(( (g * 4 + j) % 12 ))
		printf '{"uid":"p%d","tool_calls":%d,"reward":%d,"response_mask":[1,1],"rollout_log_probs":[-0.5,-0.25]}\n' \
		    "$g" "$tc" $(( j % 2 ))
	done
done >tc12.jsonl
printf '{"uid":"p6","reward":1,"response_mask":[1],"rollout_log_probs":[-0.5]}\n{"uid":"p6","reward":0,"response_mask":[1],"rollout_log_probs":[-0.5]}\n' >>tc12.jsonl
# The header says what each side ran, diff's own options included: -a rloo
# given to diff, --a empty.
expect_rc 0 "diff header: diff's own -a" "$RLADV" diff -a rloo --a "" \
    --b "-a grpo" tc12.jsonl
has "diff header: side A" out "A  (no options)  (-a rloo -g token)"
has "diff header: side B" out "B  -a grpo  (-a grpo -g token)"
order="0 1 2 3 4 5 6 7 8 9 10 11 (none)"
expect_rc 0 "strata order: stats" "$RLADV" stats tc12.jsonl
got=$(sed -n '/^stratum (tool_calls)/,/^$/p' out | sed '1,2d;/^$/d' | awk '{ printf "%s%s", (NR > 1 ? " " : ""), $1 }')
if [ "$got" = "$order" ]; then ok; else
	bad "strata order: stats prints \"$got\", expected \"$order\""; fi
expect_rc 0 "strata order: stats --json" "$RLADV" stats --json tc12.jsonl
py "strata order: stats --json" out '
got = [s["stratum"] for s in d["total"]["strata"]]
assert got == "'"$order"'".split(" "), got
'
expect_rc 0 "strata order: diff" "$RLADV" diff --a "-a grpo" --b "-a rloo" \
    tc12.jsonl
got=$(sed -n '/^stratum  *records/,/^all /p' out | sed '1d;$d' | awk '{ printf "%s%s", (NR > 1 ? " " : ""), $1 }')
if [ "$got" = "$order" ]; then ok; else
	bad "strata order: diff prints \"$got\", expected \"$order\""; fi
expect_rc 0 "strata order: diff --json" "$RLADV" diff --json --a "-a grpo" \
    --b "-a rloo" tc12.jsonl
py "strata order: diff --json" out '
got = [s["stratum"] for s in d["strata"]]
assert got == "'"$order"'".split(" "), got
'

# A composite key (tool calls, then whether the response was truncated):
# part by part, numbers by value, false before true, so 10 follows 2 and
# each count's strata stay together.
for g in 0 1 2; do
	for tc in 10 0 2 1; do
		for tr in true false; do
			printf '{"uid":"p%d","tool_calls":%d,"truncated":%s,"reward":%d,"response_mask":[1,1],"rollout_log_probs":[-0.5,-0.25]}\n' \
			    "$g" "$tc" "$tr" $(( (g + tc) % 2 ))
		done
	done
done >tc2.jsonl
order2="0,false 0,true 1,false 1,true 2,false 2,true 10,false 10,true"
expect_rc 0 "composite strata order: stats --json" "$RLADV" stats --json \
    --stratum-key tool_calls,truncated tc2.jsonl
py "composite strata order: stats --json" out '
got = [s["stratum"] for s in d["total"]["strata"]]
assert got == "'"$order2"'".split(" "), got
'

# No record has a stratum field: the headers name the fields looked for
# (TRL's layout, blocks of 4), and where every group's rewards are equal
# the undefined length gap is "-".
printf '{"reward":%s,"completion_mask":[1,1]}\n' 1 0 1 1 1 1 1 1 >nostrat.jsonl
expect_rc 0 "no stratum field: stats" "$RLADV" stats --group-size 4 \
    nostrat.jsonl
has "no stratum field: stats header" out \
    "stratum (none of tool_calls, num_turns, tool_call_count)"
expect_rc 0 "no stratum field: diff" "$RLADV" diff --group-size 4 \
    --a "-a grpo" --b "-a rloo" nostrat.jsonl
has "no stratum field: diff header" out \
    "advantage per stratum (none of tool_calls, num_turns, tool_call_count)"
for i in 1 2 3 4; do printf '{"reward":1,"completion_mask":[1,1]}\n'; done >eq.jsonl
expect_rc 0 "all equal: stats" "$RLADV" stats --group-size 4 eq.jsonl
has "all equal: the gap is -" out "length gap pos - neg   -"

# --- Batches of --batch-groups under skip mode ----------------------------
# Groups a (2 records), b (1: the wrong size, rejected whole), c and d:
# --batch-groups 2 counts b, as compute does, so the batches are {a} and
# {c, d} whether stats streams the groups or gathers them (--unsorted).
for k in a:1 a:0 b:1 c:1 c:0 d:1 d:1; do
	printf '{"prompt_id":"%s","reward":%s,"logprobs":[-0.5]}\n' \
	    "${k%%:*}" "${k#*:}"
done >bg.jsonl
expect_rc 0 "batch-groups skip: streaming" "$RLADV" stats --json \
    --group-size 2 --batch-groups 2 --on-error skip bg.jsonl
mv out bg-stream.json
expect_rc 0 "batch-groups skip: --unsorted" "$RLADV" stats --json \
    --group-size 2 --batch-groups 2 --on-error skip --unsorted bg.jsonl
py "batch-groups skip: same batches" bg-stream.json '
u = json.load(open("out"))
got = [(b["records"], b["groups"]) for b in d["batches"]]
assert got == [(2, 1), (4, 2)], got
assert got == [(b["records"], b["groups"]) for b in u["batches"]], u
assert d["rejected"] == 1, d["rejected"]
'

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
