#!/bin/sh
# shard.sh RLADV - a run cut into shards gives the bytes of one process.
#
# Each case cuts an input into 2 to 8 shards at random lines (some empty,
# some gzipped, groups and batches spanning them), then runs the three
# steps: rladv index on every shard, the indexes concatenated (cat) or
# merged (rladv index --merge), and rladv compute --index on every shard.
# The shards' outputs, concatenated, must equal byte for byte what one
# rladv writes over all the shards; in skip mode the rejected lines and
# the messages about them too (as sets: each shard reports its own).
# Then the refusals: other options, a changed shard, a cut index, a shard
# not indexed or indexed twice, a group that comes back in a later shard.
#
# POSIX sh, awk, gzip, cmp, sort.  Last line "N passed, M failed".
rladv=${1:-./rladv}
case $rladv in
/*) ;;
*) rladv=$(pwd)/$rladv ;;
esac
top=$(pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rladv-shard.XXXXXX") || exit 3
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
pass=0 fail=0 seed=0
ok() { pass=$((pass + 1)); }
no() { fail=$((fail + 1)); echo "FAIL $1"; }

# cut_shards FILE K GZ: FILE's lines into part-00.jsonl ... in the
# current directory, cut at K-1 random lines (equal cuts make empty
# shards); with GZ=gz about half are gzipped (part-NN.jsonl.gz).  Prints
# the names in order.
cut_shards() {
	seed=$((seed + 1))
	rm -f part-* ./*.idx out.* rej.* err.*
	awk -v k="$2" -v seed=$seed '
	{ line[NR] = $0 }
	END {
		srand(seed)
		c[0] = 0; c[k] = NR
		for (i = 1; i < k; i++) c[i] = int(rand() * (NR + 1))
		for (i = 2; i < k; i++)
			for (j = i; j > 1 && c[j] < c[j - 1]; j--) {
				t = c[j]; c[j] = c[j - 1]; c[j - 1] = t
			}
		for (i = 0; i < k; i++) {
			f = sprintf("part-%02d.jsonl", i)
			printf "" > f
			for (n = c[i] + 1; n <= c[i + 1]; n++) print line[n] > f
			close(f)
			print f
		}
	}' "$1" > names
	if [ "$3" = gz ]; then
		i=0
		while read -r f; do
			if [ $(( (seed + i) % 2 )) -eq 0 ]; then
				gzip "$f"
				f=$f.gz
			fi
			echo "$f"
			i=$((i + 1))
		done < names > names.gz
		mv names.gz names
	fi
	cat names
}

# sharded NAME INPUT "NUMBER OPTIONS" "OUTPUT OPTIONS" [GZ]: the three
# steps against one process.  The number options go to every step, the
# output options to compute alone.
sharded() {
	name=$1 in=$2 opts=$3 outopts=$4
	k=$(( 2 + (seed * 5) % 7 ))
	shards=$(cut_shards "$in" $k "$5")
	skip=
	case " $opts " in *" --on-error skip "*) skip=1 ;; esac
	for f in $shards; do
		# shellcheck disable=SC2086
		"$rladv" index $opts "$f" > "$f.idx" 2> err.index ||
			{ no "$name: rladv index $f: $(cat err.index)"; return; }
	done
	if [ $((seed % 2)) -eq 0 ]; then
		for f in $shards; do cat "$f.idx"; done > all.idx
	else
		# shellcheck disable=SC2086
		"$rladv" index --merge $opts $(for f in $shards; do
		    echo "$f.idx"; done) > all.idx 2> err.merge ||
			{ no "$name: index --merge: $(cat err.merge)"; return; }
	fi
	i=0
	for f in $shards; do
		# shellcheck disable=SC2086
		"$rladv" compute --index all.idx $opts $outopts \
		    ${skip:+--rejects rej.$i} "$f" > out.$i 2> err.$i ||
			{ no "$name: compute --index $f: $(cat err.$i)"; return; }
		i=$((i + 1))
	done
	# shellcheck disable=SC2086
	"$rladv" $opts $outopts ${skip:+--rejects rej.single} $shards \
	    > single 2> err.single ||
		{ no "$name: one process: $(cat err.single)"; return; }
	i=0
	for f in $shards; do cat out.$i; i=$((i + 1)); done > sharded
	if ! cmp -s sharded single; then
		no "$name: $k shards differ from one process ($opts $outopts)"
		return
	fi
	if [ -n "$skip" ]; then
		cat rej.[0-9]* | sort > r1; sort rej.single > r2
		# (The warnings on the input are the one process's and
		# rladv index's, not compute --index's.)
		grep -hv 'records in\|: warning: ' err.[0-9]* | sort > e1
		grep -v 'records in\|: warning: ' err.single | sort > e2
		if ! cmp -s r1 r2 || ! cmp -s e1 e2 || [ ! -s r2 ]; then
			no "$name: rejects or their messages differ"
			return
		fi
	fi
	ok
}

cd "$tmp" || exit 3
S=$top/samples

# Inputs in the shapes the frameworks dump.  search: 40 prompts x 8 in
# two steps, tool calls, masks, binary rewards.  cont: the same with
# continuous rewards (MS-GRPO's sampled path, strata of distinct
# rewards).  shuffled: each step's records in random order (--unsorted).
# keyless: no prompt id (TRL's blocks).  bad: bad records and a short
# group among them (skip mode).
# A greedy response's reward beside each prompt's (verl's
# reward_baselines, remax's baseline), the same in a group.
awk '{ g = $0; sub(/.*"prompt_id": "hotpot-/, "", g); g = substr(g, 1, 5) + 0
    sub(/"step": /, "\"reward_baselines\": " (g % 3) / 2 ", \"step\": "); print }' \
    "$S/search_agent.jsonl" > search.jsonl
awk '{ r = sprintf("%.17g", (NR * 7919 % 1000) / 997); if (NR % 5 == 0) r = "0.5"
    sub(/"reward": [0-9.]*/, "\"reward\": " r); print }' search.jsonl > cont.jsonl
awk 'BEGIN { srand(7) } { print rand() "\t" $0 }' search.jsonl |
    sort -s -t '	' -k 1,1 | cut -f 2- |
    awk '/"step": 3/ { print; next } { four[++n] = $0 } END { for (i = 1; i <= n; i++) print four[i] }' > shuffled.jsonl
sed 's/"prompt_id": "[^"]*", //' search.jsonl > keyless.jsonl
awk 'NR == 5 { print "{\"prompt_id\": \"hotpot-00526\", \"reward\": \"1.0\", \"logprobs\": [-0.5]}" }
    NR == 40 { print "{\"prompt_id\": \"x\", \"reward\": 1.0, \"logprobs\": [-0.5, -1e999]}" }
    NR == 90 { print "not json" }
    NR == 121 { next }
    { print }' search.jsonl > bad.jsonl
sed 's/"prompt_id": "[^"]*", //' bad.jsonl > keyless-bad.jsonl

# Every estimator, loss mode and scope; the batch scope in turns over one
# batch and over batches of 7 groups that cut the steps, the group scope
# over a batch per step.
for a in grpo drgrpo rloo san stratified msgrpo opo rpp-baseline \
    "remax --baseline-key reward_baselines"; do
	for g in token seq seq-sum "seq-sum-norm --max-len 512" balanced \
	    balanced-gen; do
		if [ $((seed % 4)) -lt 2 ]; then
			sharded "$a/$g/batch" search.jsonl "-a $a -g $g" ""
		else
			sharded "$a/$g/batch-groups" search.jsonl \
			    "-a $a -g $g --batch-key step --batch-groups 7" "" gz
		fi
		sharded "$a/$g/group" search.jsonl \
		    "-a $a -g $g --scope group --batch-key step" ""
	done
done
# Scopes of the normalization, presets, MS-GRPO's paths.
for o in "--like verl" "--like verl@0.6.0" "--like trl" "--like openrlhf" \
    "--like nemo-rl" "--like areal" "--like slime" "--like skyrl -g seq" \
    "--like verl -a remax --baseline-key reward_baselines" \
    "--std-scope batch" "--std-scope none" "--gn-scope batch" \
    "--std sample --eps 1e-4" "--like verl -g seq" "--like trl" \
    "--like openrlhf --scope group" "-a stratified --gn-scope batch" \
    "-a stratified --alpha 0.25 --std-scope batch" \
    "-a san --stratum-cap 2" "-a san --stratum-key tool_calls,step" \
    "-a msgrpo --ms-mode exact --ms-weights global" \
    "-a msgrpo --ms-mode sampled --seed 3" \
    "-a msgrpo --ms-mode sampled --ms-stats token --tau-min 3" \
    "-a rpp-baseline --batch-key step" "-a opo -g balanced-gen" \
    "-g prompt" "--like skyrl -g prompt_mean --batch-key step"; do
	sharded "cont $o" cont.jsonl "$o" "" gz
done
# Output options are compute's own.
sharded "annotate" cont.jsonl "-a stratified --batch-key step" "--annotate"
sharded "no-tokens" search.jsonl "-g seq" "--no-tokens --digits 17"
sharded "digits 3" cont.jsonl "-a rloo" "--digits 3 -v"
# Groups anywhere in their batch; blocks without keys; bad records.
sharded "unsorted" shuffled.jsonl "--unsorted --batch-key step" ""
sharded "unsorted msgrpo" shuffled.jsonl \
    "--unsorted --batch-key step -a msgrpo --ms-mode sampled" "" gz
sharded "unsorted one batch" shuffled.jsonl "--unsorted -a rloo" ""
sharded "group-size" search.jsonl "--group-size 8 -g balanced" ""
sharded "keyless blocks" keyless.jsonl "--group-size 8 -a stratified" "" gz
sharded "keyless batches" keyless.jsonl "--group-size 4 --batch-groups 3" ""
sharded "skip" bad.jsonl "--on-error skip --group-size 8" "" gz
sharded "skip unsorted" bad.jsonl "--on-error skip --unsorted -a msgrpo" ""
sharded "skip keyless" keyless-bad.jsonl "--on-error skip --group-size 8" ""
sharded "skip keyless 7" keyless-bad.jsonl "--on-error skip --group-size 7" "" gz
# Other frameworks' dumps: verl's agent loop, TRL's blocks.
sharded "verl agent loop" "$S/verl_agent_loop.jsonl" \
    "--reward-key reward_score --logprobs-key response_logprobs" ""
sharded "trl blocks" "$S/trl_layout.jsonl" "--like trl --group-size 4" ""
# The profiles of dumps without lengths and with rewards left unscored
# (TRL's None: the index says "null"), a nested group key and wrapped
# values (NeMo-RL), spans of trained tokens (OpenRLHF), the dump's copies
# as groups that come back (--unsorted).
for c in 1 2 3 4 5 6; do cat "$S/trl_completions_00005.jsonl"; done > trl.jsonl
sharded "--from trl" trl.jsonl "--from trl --group-size 4 --reward-key \
    math_reward_func,coding_reward_func" ""
sharded "--from trl, weights" trl.jsonl "--from trl --group-size 4 \
    --reward-key math_reward_func,coding_reward_func -g seq-sum" "" gz
# gdpo: each reward field goes through the index ("parts"; null where
# None), the unscored rows too.
sharded "--from trl -a gdpo" trl.jsonl "--from trl --group-size 4 \
    --reward-key math_reward_func,coding_reward_func -a gdpo \
    --reward-weights 1,0.5" "" gz
sharded "--from verl" "$S/verl_rollout_dump.jsonl" "--from verl" ""
sharded "--from nemo-rl" "$S/nemo_rl_train_data_step3.jsonl" \
    "--from nemo-rl" ""
sharded "--from openrlhf" "$S/openrlhf_agent.jsonl" \
    "--from openrlhf --group-size 4" "--prefix rladv_"
# NeMo-RL's sample mask 0 (line 10 of its sample) leaves the seq modes'
# B: the index marks the record, whichever shard holds it.
sharded "--from nemo-rl -g seq" "$S/nemo_rl_train_data_step3.jsonl" \
    "--from nemo-rl -g seq" ""
sharded "--from nemo-rl -g seq-sum --scope group" \
    "$S/nemo_rl_train_data_step3.jsonl" "--from nemo-rl -g seq-sum \
    --scope group" "" gz
# slime's split rollouts: a rollout's samples in several shards are one
# sequence of the seq modes (the index's "rollout" column), over the
# batch and per group.
for c in 1 2 3; do
	sed "s/^{\"group_index\": \([0-9]\)/{\"group_index\": $c\1/" \
	    "$S/slime_rollout_data_9.jsonl"
done > slime.jsonl
sharded "--from slime rollouts" slime.jsonl "--from slime --reward-key \
    reward.score --gn-scope batch --batch-groups 3" "" gz
sharded "--from slime rollouts, seq-sum by group" slime.jsonl "--from slime \
    --reward-key reward.score -g seq-sum --scope group --batch-groups 3" ""
# A group of the wrong size cut by the shards' boundary: reported once.
head -n 126 bad.jsonl > part-a.jsonl
tail -n +127 bad.jsonl > part-b.jsonl
o="--on-error skip --group-size 8"
for f in part-a.jsonl part-b.jsonl; do "$rladv" index $o "$f" > "$f.idx"; done
cat part-a.jsonl.idx part-b.jsonl.idx > ab.idx
for f in part-a.jsonl part-b.jsonl; do
	"$rladv" compute --index ab.idx $o "$f" 2>&1 > /dev/null |
	    grep -v 'records in\|: warning: '
done | sort > e1
"$rladv" $o part-a.jsonl part-b.jsonl 2>&1 > /dev/null |
    grep -v 'records in\|: warning: ' | sort > e2
if cmp -s e1 e2 && grep -q 'rejected whole' e2; then ok; else
	no "a short group across two shards is not reported once"; fi
echo "exactness: $pass cases"

# --- Refusals -----------------------------------------------------------
# check NAME STATUS PATTERN COMMAND...: exits STATUS, says PATTERN.
check() {
	name=$1 want=$2 pat=$3
	shift 3
	"$@" > out 2> err
	rc=$?
	if [ $rc -ne "$want" ]; then
		no "$name: exit $rc, expected $want ($(cat err))"
	elif ! grep -q -e "$pat" err; then
		no "$name: message \"$(cat err)\" lacks \"$pat\""
	elif [ "$(grep -vc ': warning: ' err)" -ne 1 ]; then
		no "$name: more than one line on stderr"
	else
		ok
	fi
}
cut_shards search.jsonl 3 "" > /dev/null
for f in part-00.jsonl part-01.jsonl part-02.jsonl; do
	"$rladv" index -a stratified "$f" > "$f.idx"
done
cat part-0[0-2].jsonl.idx > all.idx
check "other estimator" 2 '^rladv: all.idx:2: --advantage differs: the index was made with "stratified", rladv compute has "grpo"' \
    "$rladv" compute --index all.idx part-01.jsonl
check "other eps" 2 '--eps differs' \
    "$rladv" compute --index all.idx -a stratified --eps 1e-5 part-01.jsonl
check "merge with other options" 2 '--group-key differs' \
    "$rladv" index --merge -a stratified --group-key uid all.idx
# What an index cannot hold: a line of several records, a record of
# several rows.
check "index --columnar" 2 'rladv index cannot take --columnar' \
    "$rladv" index --from roll "$S/roll_rollout_dump_data.step_3.jsonl"
check "index --trajectory-key" 2 'cannot take --trajectory-key' \
    "$rladv" index --from skyrl "$S/skyrl_generator_output.jsonl"
check "compute --index --columnar" 2 '^rladv: --index cannot take --columnar' \
    "$rladv" compute --index all.idx --columnar part-01.jsonl
check "compute --index --trajectory-key" 2 'run rladv over the shards at once' \
    "$rladv" compute --index all.idx --trajectory-key t part-01.jsonl
check "two shards" 2 'one shard' \
    "$rladv" compute --index all.idx -a stratified part-00.jsonl part-01.jsonl
# The sample mask through the index: NeMo-RL's sample, lines 1-8 in one
# shard, 9-12 (line 10's sample_loss_mask [0.0]) in the other.  The
# index writes format 2 and "masked" for line 10's tokens; the first
# shard's -g seq weights are 1/((B + 1e-8)(T_i + 1e-8)) with B = 11, not
# 12: line 1 (T 5) 1/(11.00000001 * 5.00000001) = 0.0181818181 (B 12:
# 0.0166666666), line 2 (T 7) 0.012987013, line 5 (T 9) 0.0101010101.
head -n 8 "$S/nemo_rl_train_data_step3.jsonl" > nemo-a.jsonl
tail -n +9 "$S/nemo_rl_train_data_step3.jsonl" > nemo-b.jsonl
o="--from nemo-rl -g seq"
for f in nemo-a.jsonl nemo-b.jsonl; do
	# shellcheck disable=SC2086
	"$rladv" index $o "$f" > "$f.idx"
done
cat nemo-a.jsonl.idx nemo-b.jsonl.idx > nemo.idx
# shellcheck disable=SC2086
"$rladv" compute --index nemo.idx $o nemo-a.jsonl > nemo-a.out
w=$(python3 -c 'import json, sys
for n in (1, 2, 5):
    print(json.loads(open(sys.argv[1]).readlines()[n - 1])["loss_weight"])' \
    nemo-a.out | tr '\n' ' ')
if [ "$w" = "0.0181818181 0.012987013 0.0101010101 " ]; then ok; else
	no "sample mask through the index: weights $w"; fi
if head -n 1 nemo.idx | grep -q '^rladv-index 2 ' &&
    grep -q "^2	0	masked	" nemo-b.jsonl.idx; then ok; else
	no "sample mask through the index: not format 2 or not masked"; fi
# An index of a run without a sample mask stays format 1, as it was.
if "$rladv" index -a stratified part-00.jsonl 2> /dev/null | head -n 1 |
    grep -q '^rladv-index 1 '; then ok; else
	no "an index without a sample mask is not format 1"; fi
# One of format 1 cannot say which records the sample mask left out.
sed 's/^rladv-index 2 /rladv-index 1 /' nemo.idx > nemo1.idx
check "format 1 with a sample mask" 1 'nemo1.idx:1: the index is of format 1, this rladv reads format 2' \
    "$rladv" compute --index nemo1.idx $o nemo-a.jsonl
check "not indexed" 2 'search.jsonl: not in the index, whose 3 shards are' \
    "$rladv" compute --index all.idx -a stratified search.jsonl
check "indexed twice" 1 'shard "part-01.jsonl" is indexed twice' \
    "$rladv" index --merge -a stratified all.idx part-01.jsonl.idx
# (cut inside the section, 10 lines past its shard line)
head -n $(( $(grep -n '^shard ' part-01.jsonl.idx | cut -d: -f1) + 10 )) \
    part-01.jsonl.idx > cut.idx
cat part-00.jsonl.idx cut.idx part-02.jsonl.idx > cut-all.idx
check "cut index" 1 'part-01.jsonl" is cut short' \
    "$rladv" compute --index cut-all.idx -a stratified part-00.jsonl
check "cut index, merge" 1 'cut short' \
    "$rladv" index --merge -a stratified part-00.jsonl.idx cut.idx
# (cut inside a record line: the last line is half a record)
head -c $(( $(wc -c < cut.idx) - 5 )) cut.idx > cutmid.idx
check "index cut mid-line" 1 'part-01.jsonl" is cut short' \
    "$rladv" compute --index cutmid.idx -a stratified part-01.jsonl
check "not an index" 1 'not an index' \
    "$rladv" compute --index part-00.jsonl -a stratified part-00.jsonl
sed 's/^rladv-index 1 .*/rladv-index 1 0.0.1/' all.idx > old.idx
check "other rladv" 1 'old.idx:1: the index was written by rladv 0.0.1, this is rladv' \
    "$rladv" compute --index old.idx -a stratified part-00.jsonl
awk -F '\t' 'NF > 1 && !done { $2 = $2 + 1; done = 1 } { print }' OFS='\t' \
    all.idx > edited.idx
check "edited index" 1 "record's reward is not the one indexed" \
    "$rladv" compute --index edited.idx -a stratified part-00.jsonl
cp part-01.jsonl keep.jsonl
sed '3s/"tool_calls": [0-9]*/"tool_calls": 9/' keep.jsonl > part-01.jsonl
check "changed shard" 1 "part-01.jsonl:3: the record's stratum is not the one indexed" \
    "$rladv" compute --index all.idx -a stratified part-01.jsonl
head -n 5 keep.jsonl > part-01.jsonl
check "shorter shard" 1 'ends before line 6' \
    "$rladv" compute --index all.idx -a stratified part-01.jsonl
cp keep.jsonl part-01.jsonl
echo '{"prompt_id": "z", "reward": 1, "logprobs": []}' >> part-01.jsonl
check "longer shard" 1 'a record the index does not have' \
    "$rladv" compute --index all.idx -a stratified part-01.jsonl
cp keep.jsonl part-01.jsonl
# A group that comes back in a later shard is the error one process
# reports, in the merge and in every shard's compute.
head -n 3 search.jsonl > back-0.jsonl
sed -n 9,12p search.jsonl > back-1.jsonl
head -n 2 search.jsonl > back-2.jsonl
for f in back-0.jsonl back-1.jsonl back-2.jsonl; do
	"$rladv" index "$f" > "$f.idx"
done
"$rladv" back-0.jsonl back-1.jsonl back-2.jsonl > /dev/null 2> want
check "reappearing group, merge" 1 "$(sed 's/^rladv: //' want)" \
    "$rladv" index --merge back-0.jsonl.idx back-1.jsonl.idx back-2.jsonl.idx
cat back-0.jsonl.idx back-1.jsonl.idx back-2.jsonl.idx > back.idx
check "reappearing group, compute" 1 "$(sed 's/^rladv: //' want)" \
    "$rladv" compute --index back.idx back-1.jsonl
# In fail mode the index refuses a bad record, as one process would.
check "bad record" 1 'bad.jsonl:5: field "reward" is a string' \
    "$rladv" index bad.jsonl
check "index takes no --digits" 2 'digits is an option of rladv compute' \
    "$rladv" index --digits 3 search.jsonl
# The shard from standard input is "<stdin>" in both steps.
"$rladv" index - < part-00.jsonl > stdin.idx
"$rladv" compute --index stdin.idx - < part-00.jsonl > out.stdin
"$rladv" part-00.jsonl > out.file
if cmp -s out.stdin out.file && grep -q '^shard <stdin>$' stdin.idx; then
	ok
else
	no "standard input as a shard"
fi

# The man page's GNU parallel recipe, as written there.  GNU parallel
# (Debian's parallel) is installed when missing, as root; otherwise SKIP.
# Other tests of make check may hold dpkg's lock meanwhile: wait for it.
if ! command -v parallel > /dev/null 2>&1 && [ "$(id -u)" -eq 0 ] &&
    command -v apt-get > /dev/null 2>&1; then
	echo "shard.sh: installing parallel"
	apt="apt-get -o DPkg::Lock::Timeout=300 install -y -qq parallel"
	DEBIAN_FRONTEND=noninteractive $apt > /dev/null 2>&1 ||
	    { apt-get -o DPkg::Lock::Timeout=300 update -qq > /dev/null 2>&1 &&
	    DEBIAN_FRONTEND=noninteractive $apt > /dev/null 2>&1; }
fi
if command -v parallel > /dev/null 2>&1; then
	mkdir -p recipe/shards recipe/out
	(cd recipe/shards && cut_shards ../../search.jsonl 6 "" > /dev/null &&
	    gzip part-*)
	awk '/three steps with GNU parallel/ { on = 1 } on && /^\.Ed/ { exit }
	    on && /^\$ / { sub(/^\$ /, ""); print }' "$top/man/rladv.1" \
	    > recipe/lines
	(cd recipe && PATH=$(dirname "$rladv"):$PATH &&
	    while read -r l; do sh -c "$l" < /dev/null || exit 1; done < lines &&
	    for f in out/*; do gzip -dc "$f"; done > sharded &&
	    "$rladv" -g seq shards/*.jsonl.gz > single) 2> recipe/err
	if [ "$(wc -l < recipe/lines)" -eq 3 ] && [ -s recipe/single ] &&
	    cmp -s recipe/sharded recipe/single; then
		ok
	else
		no "the man page's GNU parallel recipe: $(head -3 recipe/err)"
	fi
else
	echo "SKIP GNU parallel recipe: parallel is not installed (as root: apt-get install parallel)"
fi

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
