#!/bin/sh
# hostile.sh RLADV - every promise rladv makes, under hostile input.
#
# One section per kind of broken promise: (1) no data loss: an output is
# never an input or another output, and a failed run leaves no partial
# file; (2) skip mode always accounts, in = out + rejected, with every
# rejected line verbatim in --rejects (a seeded random test over every
# grouping mode); (3) no wrong number with exit 0; (4) every byte written
# is valid JSON and every message one line; (7) diff --outputs compares
# what the files hold; (8) stats and diff print finite, bounded figures;
# (9) a closed pipe ends rladv by SIGPIPE, quietly, as the man page says;
# (10) small things; (11) any JSON blanks, in every framework's sample,
# compute the same.  Each case failed on rladv before its fix.
#
# POSIX sh; needs awk, cmp, gzip, head, od, python3 (the random test and
# the JSON checks).  Last line: "N passed, M failed"; exit 1 on any
# failure.
rladv=${1:-./rladv}
man=${2:-man/rladv.1}
case $rladv in
/*) ;;
*) rladv=$(pwd)/$rladv ;;
esac
case $man in
/*) ;;
*) man=$(pwd)/$man ;;
esac
here=$(cd "$(dirname "$0")" && pwd)
if [ ! -x "$rladv" ]; then
	echo "hostile.sh: $rladv: not an executable" >&2
	echo "0 passed, 1 failed"
	exit 1
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rladv-hostile.XXXXXX") || exit 3
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
cd "$tmp" || exit 3
pass=0 fail=0
TO=
command -v timeout >/dev/null 2>&1 && TO="timeout 60"

ok() { pass=$((pass + 1)); }
no() { fail=$((fail + 1)); echo "FAIL $1: $2"; }

# run ARGS...: rladv with stdout in out, stderr in err, status in st.
run() {
	$TO "$rladv" "$@" >out 2>err
	st=$?
}

# status NAME WANT: the last run's status is WANT.
status() {
	if [ "$st" -eq "$2" ]; then ok; else
		no "$1" "exit status $st, expected $2; stderr: $(head -c 300 err)"
	fi
}

# said NAME TEXT: stderr has one line, "rladv: ..." holding TEXT.
said() {
	n=$(wc -l <err | tr -d ' ')
	if [ "$n" -ne 1 ]; then
		no "$1" "$n lines on stderr, expected 1: $(head -c 300 err)"
	elif ! grep -q "^rladv: .*$2" err; then
		no "$1" "no \"rladv: ...$2\" on stderr: $(head -c 300 err)"
	else
		ok
	fi
}

# same NAME A B: files A and B hold the same bytes.
same() {
	if cmp -s "$2" "$3"; then ok; else no "$1" "$2 and $3 differ"; fi
}

# absent NAME FILE...: none of the files is there.
absent() {
	name=$1
	shift
	for f in "$@"; do
		if [ -e "$f" ]; then no "$name" "$f is there"; return; fi
	done
	ok
}

# no_temp NAME: no temporary output file was left in this directory.
no_temp() {
	if ls -a | grep -q '\.rladv-'; then
		no "$1" "temporary files left: $(ls -a | grep '\.rladv-' | tr '\n' ' ')"
	else
		ok
	fi
}

# A verl rollout dump's fields: uid, the score as reward, the response's
# log-probs and mask.
cat >in.jsonl <<'EOF'
{"uid": "q0", "step": 1, "reward": 1.0, "logprobs": [-0.1, -0.2, -0.3], "response_mask": [1, 1, 1]}
{"uid": "q0", "step": 1, "reward": 0.0, "logprobs": [-0.4, -0.5], "response_mask": [1, 0]}
{"uid": "q1", "step": 1, "reward": 0.5, "logprobs": [-0.6], "response_mask": [1]}
{"uid": "q1", "step": 1, "reward": 0.0, "logprobs": [-0.7, -0.8], "response_mask": [1, 1]}
EOF
cp in.jsonl in.keep
printf '%s\n' '{"uid": "q2", "reward": 1.0, "logprobs": [-0.1]}' \
    'not json' >bad.jsonl

# =====================================================================
# (1) No data loss
# =====================================================================
# refused NAME ARGS...: status 2 naming "the same file", and in.jsonl
# untouched.
refused() {
	name=$1
	shift
	run "$@"
	status "$name" 2
	said "$name" "same file"
	same "$name: input kept" in.jsonl in.keep
	cp in.keep in.jsonl
}
refused out_is_input -o in.jsonl in.jsonl
ln in.jsonl hard.jsonl
refused out_is_hard_link -o hard.jsonl in.jsonl
ln -s in.jsonl sym.jsonl
refused out_is_symlink -o sym.jsonl in.jsonl
refused out_is_input_dotdir -o ./in.jsonl in.jsonl
refused rejects_is_input --on-error skip --rejects in.jsonl in.jsonl
refused rejects_is_input_out --on-error skip --rejects in.jsonl -o o.jsonl \
    in.jsonl
refused stats_html_is_input stats --html in.jsonl in.jsonl
refused diff_html_is_input diff --a "-a grpo" --b "-a rloo" --html in.jsonl \
    in.jsonl
refused index_out_is_input index -o in.jsonl in.jsonl
gzip -c in.jsonl >in.jsonl.gz
cp in.jsonl.gz gz.keep
run -o in.jsonl.gz in.jsonl.gz
status out_is_gz_input 2
same "out_is_gz_input: input kept" in.jsonl.gz gz.keep
# Standard output appended to the input, standard input read from it.
$TO "$rladv" in.jsonl >>in.jsonl 2>err
st=$?
status stdout_is_input 2
same "stdout_is_input: input kept" in.jsonl in.keep
$TO "$rladv" <in.jsonl >>in.jsonl 2>err
st=$?
status stdout_is_stdin 2
same "stdout_is_stdin: input kept" in.jsonl in.keep
# Two outputs on one file, there or not yet; two on standard output.
run --on-error skip -o new.jsonl --rejects ./new.jsonl in.jsonl
status out_is_rejects_new 2
absent out_is_rejects_new new.jsonl
: >old.jsonl
run --on-error skip -o old.jsonl --rejects old.jsonl in.jsonl
status out_is_rejects_old 2
run --on-error skip --rejects - in.jsonl
status rejects_and_records_stdout 2
# Devices are not files: two outputs to /dev/null lose nothing.
run --on-error skip -o /dev/null --rejects /dev/null in.jsonl
status devices_shared 0
# A failed run leaves the old file as it was, and no new one.
printf 'old contents\n' >keep.jsonl
cp keep.jsonl keep.keep
chmod 640 keep.jsonl
for args in "-o keep.jsonl" "-z -o keep.jsonl" "-o keep.jsonl.gz" \
    "--on-error skip --rejects keep.jsonl -o /dev/null missing.jsonl" \
    "index -o keep.jsonl"; do
	[ -e keep.jsonl.gz ] || cp keep.keep keep.jsonl.gz
	run $args in.jsonl bad.jsonl
	case $st in 1 | 3) ok ;; *) no "failed_run $args" "status $st" ;; esac
	same "failed_run $args: file kept" keep.jsonl keep.keep
	same "failed_run $args: .gz kept" keep.jsonl.gz keep.keep
	absent "failed_run $args" new.jsonl
	no_temp "failed_run $args"
done
run stats --html keep.jsonl in.jsonl bad.jsonl
status failed_stats_html 1
same "failed_stats_html: page kept" keep.jsonl keep.keep
run stats --html new.html in.jsonl bad.jsonl
absent failed_stats_html_new new.html
no_temp failed_stats_html
run -o new.jsonl in.jsonl bad.jsonl
absent failed_run_new new.jsonl
# A good run replaces the file, keeping its mode.
run -o keep.jsonl in.jsonl
status good_run 0
"$rladv" in.jsonl >direct.jsonl 2>/dev/null
same good_run keep.jsonl direct.jsonl
case $(ls -l keep.jsonl) in
-rw-r-----*) ok ;;
*) no good_run_mode "$(ls -l keep.jsonl)" ;;
esac
no_temp good_run
# A symbolic link stays one; the file it names gets the records.
ln -s keep.jsonl out-link.jsonl
run -o out-link.jsonl in.jsonl
if [ -L out-link.jsonl ]; then ok; else no symlink_kept "not a link any more"; fi
same symlink_target keep.jsonl direct.jsonl
# A run ended by a signal leaves nothing: rladv waits on a pipe that
# never ends, with its temporary file open (a binary that has exited
# already is not waited for).
mkfifo fifo
sleep 30 >fifo &
spid=$!
"$rladv" -o sig.jsonl --on-error skip --rejects sigrej.jsonl <fifo \
    2>/dev/null &
pid=$!
i=0
while [ $i -lt 100 ] && kill -0 $pid 2>/dev/null &&
    ! ls -a | grep -q '^\.sig\.jsonl\.rladv-'; do
	sleep 0.1
	i=$((i + 1))
done
kill -TERM $pid 2>/dev/null
wait $pid 2>/dev/null
st=$?
kill $spid 2>/dev/null
wait $spid 2>/dev/null
status sigterm_status 143
absent sigterm_output sig.jsonl sigrej.jsonl
no_temp sigterm

# =====================================================================
# (2) Skip mode accounts for every record (tests/skip_random.sh mixes
# them all at random)
# =====================================================================
# accounts NAME IN OUT REJ: the last run exited 0, its summary says IN
# records in, OUT out, REJ rejected, stdout has OUT lines and rej.jsonl
# REJ.
accounts() {
	status "$1" 0
	if grep -q "^rladv: $2 records in, $3 out, $4 rejected;" err &&
	    [ "$(wc -l <out | tr -d ' ')" -eq "$3" ] &&
	    [ "$(wc -l <rej.jsonl | tr -d ' ')" -eq "$4" ]; then ok; else
		no "$1" "expected $2 in, $3 out, $4 rejected: $(tail -n 1 err)," \
		    "$(wc -l <out) written, $(wc -l <rej.jsonl 2>/dev/null) rejected"
	fi
}
# A first line without a group key (a header) is one bad record: it does
# not make every keyed record after it "a group key, but earlier records
# had none", with or without --group-size, sorted or not.
{ echo '{"step": 1, "reward": 0.0, "logprobs": [-0.3]}'; cat in.jsonl; } \
    >header.jsonl
for mode in "" "--group-size 2" "--unsorted" "--unsorted --group-size 2" \
    "--batch-groups 1 --group-size 2"; do
	run --on-error skip --rejects rej.jsonl $mode header.jsonl
	accounts "header_first $mode" 5 4 1
	same "header_first $mode: rejects" rej.jsonl - <<'EOF2'
{"step": 1, "reward": 0.0, "logprobs": [-0.3]}
EOF2
done
# Nor does a key on the first line make a key-less (TRL) log keyed: its
# block is short and rejected whole, the blocks after it are whole.
printf '%s\n' '{"uid": "x", "reward": 1.0, "logprobs": [-0.1]}' \
    '{"reward": 1.0, "logprobs": [-0.1]}' \
    '{"reward": 0.0, "logprobs": [-0.2]}' \
    '{"reward": 0.5, "logprobs": [-0.3]}' >trlhead.jsonl
run --on-error skip --rejects rej.jsonl --group-size 2 trlhead.jsonl
accounts header_keyless 4 2 2
# Once a group is whole, the mode holds: a key-less record among keyed
# groups is rejected alone.
{ cat in.jsonl; echo '{"reward": 0.0, "logprobs": [-0.3]}'; } >tail.jsonl
run --on-error skip --rejects rej.jsonl --group-size 2 tail.jsonl
accounts keyless_after_keyed 5 4 1
if grep -q '^rladv: tail.jsonl:5: no group key, but earlier records had one$' err
then ok; else no keyless_after_keyed "$(head -c 300 err)"; fi
# Fail mode still stops at the first record that mixes them.
run --group-size 2 header.jsonl
status header_fail 1
said header_fail 'header.jsonl:2: a group key, but earlier records had none'
# A line longer than --max-line is rejected as it is, from a file, a pipe
# and gzip, in a group or not.
python3 -c 'import json; print(json.dumps({"uid": "q0", "step": 1, "reward": 0.5, "logprobs": [-0.1], "pad": "x" * 3000}))' >longline
{ head -n 2 in.jsonl; cat longline; tail -n 2 in.jsonl; } >long.jsonl
gzip -c long.jsonl >long.jsonl.gz
for src in file pipe gzip; do
	case $src in
	file) run --on-error skip --rejects rej.jsonl --max-line 2K long.jsonl ;;
	pipe) run --on-error skip --rejects rej.jsonl --max-line 2K <long.jsonl ;;
	gzip) run --on-error skip --rejects rej.jsonl --max-line 2K long.jsonl.gz ;;
	esac
	accounts "long_line_$src" 5 4 1
	same "long_line_$src: rejects" rej.jsonl longline
	if grep -q ':3: line longer than --max-line (2048 bytes)$' err; then ok
	else no "long_line_$src" "$(head -c 300 err)"; fi
done
# In a group of --group-size 2 it leaves the group short.
{ head -n 1 in.jsonl; cat longline; tail -n 2 in.jsonl; } >longg.jsonl
run --on-error skip --rejects rej.jsonl --max-line 2K --group-size 2 \
    longg.jsonl
accounts long_line_group 4 2 2
run --max-line 2K long.jsonl
status long_line_fail 1
# A group whose numbers overflow is rejected whole, with why; the others
# are computed without it (as they would be alone).
printf '%s\n' '{"uid": "big", "reward": 1.7e308, "logprobs": [-0.1]}' \
    '{"uid": "big", "reward": -1.7e308, "logprobs": [-0.1]}' \
    '{"uid": "big", "reward": -1.7e308, "logprobs": [-0.1]}' >big.part
cat in.jsonl big.part >ovf.jsonl
"$rladv" -a drgrpo -g token in.jsonl >alone.jsonl 2>/dev/null
for j in 1 2; do
	run -j $j -a drgrpo -g token --on-error skip --rejects rej.jsonl ovf.jsonl
	accounts "overflow_group -j $j" 7 4 3
	same "overflow_group -j $j: rejects" rej.jsonl big.part
	same "overflow_group -j $j: the rest" out alone.jsonl
	if grep -q '^rladv: ovf.jsonl:5: group "big" (line 5): the advantage overflows a double (field "reward" too large); rejected whole$' err
	then ok; else no "overflow_group -j $j" "$(head -c 300 err)"; fi
done
run -a drgrpo ovf.jsonl
status overflow_group_fail 1
# stats and diff leave it out too.
run stats -a drgrpo --on-error skip ovf.jsonl
status overflow_group_stats 0
if grep -q '^rejected  *3 records' out; then ok; else
	no overflow_group_stats "$(head -c 300 out)"; fi
run diff --a "-a drgrpo" --b "-a rloo" --on-error skip ovf.jsonl
status overflow_group_diff 0
# A weight past the largest double, a group of one verl's grpo_passk
# refuses, a fully masked record under verl 0.6.0's seq-mean-token-mean.
run -g seq-sum-norm --max-len 1e-320 --on-error skip --rejects rej.jsonl \
    in.jsonl
accounts weight_overflow_skip 4 0 4
printf '%s\n' '{"uid": "one", "reward": 1.0, "logprobs": [-0.1]}' >one.part
cat in.jsonl one.part >one.jsonl
run -a passk --like verl --on-error skip --rejects rej.jsonl one.jsonl
accounts passk_single_skip 5 4 1
printf '%s\n' '{"uid": "q2", "reward": 1.0, "logprobs": [-0.1], "response_mask": [0]}' \
    '{"uid": "q2", "reward": 0.0, "logprobs": [-0.1], "response_mask": [1]}' \
    >masked.part
cat in.jsonl masked.part >masked.jsonl
run --like verl@0.6.0 -g seq-mean-token-mean --on-error skip \
    --rejects rej.jsonl masked.jsonl
accounts seq_refuse_skip 6 4 2
same "seq_refuse_skip: rejects" rej.jsonl masked.part
# Trajectories (SkyRL's step-wise rows) in skip mode: one that ends
# without its last row, or lost a row to a bad line, is one response
# that cannot be computed, so its group is rejected whole (it used to end
# the run, or to reject every row after it, or to give a trajectory the
# reward of a row before its bad last one).
printf '%s\n' '{"uid": "a", "trajectory_id": 1, "is_last": false, "reward": 0.0, "logprobs": [-0.1]}' \
    '{"uid": "a", "trajectory_id": 2, "is_last": true, "reward": 1.0, "logprobs": [-0.1]}' \
    '{"uid": "b", "trajectory_id": 3, "is_last": true, "reward": 1.0, "logprobs": [-0.1]}' \
    '{"uid": "b", "trajectory_id": 4, "is_last": true, "reward": 0.0, "logprobs": [-0.1]}' \
    >traj_end.jsonl
for j in 1 2; do
	run -j $j --trajectory-key trajectory_id --trajectory-last-key is_last \
	    --on-error skip --rejects rej.jsonl traj_end.jsonl
	accounts "traj_unended -j $j" 4 2 2
	same "traj_unended -j $j: rejects" rej.jsonl - <<'EOF2'
{"uid": "a", "trajectory_id": 1, "is_last": false, "reward": 0.0, "logprobs": [-0.1]}
{"uid": "a", "trajectory_id": 2, "is_last": true, "reward": 1.0, "logprobs": [-0.1]}
EOF2
done
run --trajectory-key trajectory_id --trajectory-last-key is_last \
    traj_end.jsonl
status traj_unended_fail 1
printf '%s\n' '{"uid": "a", "trajectory_id": 1, "reward": 0.0, "logprobs": [-0.1]}' \
    '{"uid": "a", "trajectory_id": 1, "reward": 1e400, "logprobs": [-0.1]}' \
    '{"uid": "a", "trajectory_id": 2, "reward": 1.0, "logprobs": [-0.1]}' \
    '{"uid": "b", "trajectory_id": 3, "reward": 1.0, "logprobs": [-0.1]}' \
    '{"uid": "b", "trajectory_id": 4, "reward": 0.0, "logprobs": [-0.1]}' \
    >traj_row.jsonl
run --trajectory-key trajectory_id --on-error skip --rejects rej.jsonl \
    --no-tokens traj_row.jsonl
accounts traj_lost_row 5 2 3
if grep -q '^rladv: traj_row.jsonl:2: a row of a trajectory of group "a" (line 1) was rejected here' err
then ok; else no traj_lost_row "$(head -c 400 err)"; fi
# Half the groups of a batch failing: each is rejected, none twice.
python3 - <<'EOF2' >many.jsonl
import json
for g in range(600):
    for i in range(4):
        r = (1.7e308 if i == 0 else -1.7e308) if g % 2 == 0 else float(i % 2)
        print(json.dumps({"uid": "q%d" % g, "reward": r, "logprobs": [-0.5]}))
EOF2
run -a drgrpo --on-error skip --rejects rej.jsonl many.jsonl
accounts many_failed_groups 2400 1200 1200

# =====================================================================
# (3) No wrong number with exit 0
# =====================================================================
# A group with rewards near 1e300 makes compute.c scale the batch by a
# power of two; every other group's advantages must come out as they do
# without it: each estimator whose groups are independent, under each
# preset's group-of-one rule (verl's mean 0, deviation 1 was left scaled
# by 2^-997).
python3 - "$rladv" <<'EOF' >prescale.out
import json, subprocess, sys
rladv = sys.argv[1]
base = [("a", 1.0), ("a", 0.0), ("a", 0.25), ("b", 5.0), ("c", -3.0),
        ("d", 2.0), ("d", 2.0)]
big = [("z", 1e300), ("z", -1e300), ("z", 3e299)]
def lines(rows):
    return "".join(json.dumps({"uid": g, "tool_calls": i % 2, "reward": r,
                               "logprobs": [-0.5] * (1 + i % 3)}) + "\n"
                   for i, (g, r) in enumerate(rows))
def adv(args, rows):
    p = subprocess.run([rladv, "--no-tokens"] + args, input=lines(rows),
                       capture_output=True, text=True)
    if p.returncode != 0:
        return None
    return [json.loads(l)["advantage"] for l in p.stdout.splitlines()]
bad = 0
for est in ["grpo", "drgrpo", "rloo", "san", "stratified", "opo", "loo",
            "msgrpo"]:
    for like in ["", "verl", "verl@0.6.0", "trl", "openrlhf", "nemo-rl",
                 "slime", "skyrl"]:
        for extra in [[], ["--eps-inside"], ["--std-scope", "none"]]:
            args = ["-a", est] + (["--like", like] if like else []) + extra
            a = adv(args, base)
            b = adv(args, base + big)
            if a is None or b is None:
                continue
            if a != b[:len(a)]:
                bad += 1
                print("FAIL prescale %s: %s != %s" % (" ".join(args),
                      a, b[:len(a)]))
print("done %d" % bad)
EOF
if grep -q '^done 0$' prescale.out; then ok; else
	no prescale_groups "$(grep FAIL prescale.out | head -5)"
fi
# Loss weights whose sums overflow: balanced-gen on advantages near
# 1e308 weighs as on the same advantages scaled down (it is scale-free),
# never 0.
printf '%s\n' \
    '{"uid":"a","reward":1.7e308,"logprobs":[-1,-1,-1]}' \
    '{"uid":"a","reward":-1.7e308,"logprobs":[-1,-1]}' \
    '{"uid":"a","reward":1e307,"logprobs":[-1,-1]}' >bgen.jsonl
printf '%s\n' \
    '{"uid":"a","reward":1.7,"logprobs":[-1,-1,-1]}' \
    '{"uid":"a","reward":-1.7,"logprobs":[-1,-1]}' \
    '{"uid":"a","reward":0.1,"logprobs":[-1,-1]}' >bgen1.jsonl
w() { python3 -c 'import json,sys; print(" ".join(str(json.loads(l)["loss_weight"]) for l in sys.stdin))'; }
big=$("$rladv" -a drgrpo -g balanced-gen --no-tokens bgen.jsonl | w)
small=$("$rladv" -a drgrpo -g balanced-gen --no-tokens bgen1.jsonl | w)
if [ "$big" = "$small" ] && [ "$big" != "0 0 0" ]; then ok; else
	no balanced_gen_overflow "weights $big, expected $small"
fi
# And on advantages near 1e-314 (drgrpo on rewards near 1e-320): the
# scale 2^1042 of its sums was past a double, so the weight was refused.
printf '%s\n' \
    '{"uid":"a","reward":1.7e-320,"logprobs":[-1,-1,-1]}' \
    '{"uid":"a","reward":-1.7e-320,"logprobs":[-1,-1]}' \
    '{"uid":"a","reward":1e-321,"logprobs":[-1,-1]}' >bgen2.jsonl
tiny=$("$rladv" -a drgrpo -g balanced-gen --no-tokens bgen2.jsonl | w)
# (subnormal rewards carry a dozen bits: the same weights to 1e-4)
if python3 -c 'import sys; a, b = sys.argv[1].split(), sys.argv[2].split(); sys.exit(0 if len(a) == len(b) == 3 and all(abs(float(x) - float(y)) <= 1e-4 * float(y) for x, y in zip(a, b)) else 1)' "$tiny" "$small"
then ok; else
	no balanced_gen_tiny "weights $tiny, expected $small"
fi
# seq-sum-norm with --max-len 1e308: 1/(n L) is 2.5e-309, a double.
run -g seq-sum-norm --max-len 1e308 --no-tokens in.jsonl
status seq_sum_norm_big_L 0
if [ "$(w <out)" = "2.5e-309 2.5e-309 2.5e-309 2.5e-309" ]; then ok; else
	no seq_sum_norm_big_L "weights $(w <out)"
fi
# A weight past the largest double is refused, and the message says why.
run -g seq-sum-norm --max-len 1e-320 --no-tokens in.jsonl
status weight_overflow 1
said weight_overflow 'in.jsonl:1: group "q0" (line 1): the loss weight overflows a double (-g seq-sum-norm)'
# --annotate: a deviation past the largest double is null, never 0.
printf '%s\n' '{"uid":"a","reward":1.7e308,"logprobs":[-1]}' \
    '{"uid":"a","reward":-1.7e308,"logprobs":[-1]}' >ann.jsonl
run --annotate --std sample --no-tokens ann.jsonl
status annotate_inf 0
if python3 -c 'import json,sys; r=json.loads(open(sys.argv[1]).readline())["rladv"]; sys.exit(0 if r["group_std"] is None and r["stratum_std"] is None else 1)' out; then
	ok
else
	no annotate_inf "$(head -c 300 out)"
fi
run --annotate --no-tokens ann.jsonl
if python3 -c 'import json,sys; r=json.loads(open(sys.argv[1]).readline())["rladv"]; sys.exit(0 if r["group_std"] == 1.7e308 else 1)' out; then
	ok
else
	no annotate_big "$(head -c 300 out)"
fi
# --batch-key: a group whose records straddle a change of the batch key
# is an error naming both lines, in every grouping mode.
printf '%s\n' '{"uid":"a","step":1,"reward":1,"logprobs":[-1]}' \
    '{"uid":"a","step":2,"reward":0,"logprobs":[-1]}' \
    '{"uid":"a","step":2,"reward":0.5,"logprobs":[-1]}' >straddle.jsonl
for mode in "" --unsorted; do
	run --batch-key step $mode straddle.jsonl
	status "straddle $mode" 1
	said "straddle $mode" 'straddle.jsonl:2: group "a" (line 1) goes on here.* at straddle.jsonl:1'
done
printf '%s\n' '{"step":1,"reward":1,"logprobs":[-1]}' \
    '{"step":2,"reward":0,"logprobs":[-1]}' >straddle_blocks.jsonl
run --batch-key step --group-size 2 straddle_blocks.jsonl
status straddle_blocks 1
said straddle_blocks 'straddle_blocks.jsonl:2: group block 1 (line 1) goes on here'
# A whole group (--group-size) may come back at the next step.
printf '%s\n' '{"uid":"a","step":1,"reward":1,"logprobs":[-1]}' \
    '{"uid":"a","step":1,"reward":0,"logprobs":[-1]}' \
    '{"uid":"a","step":2,"reward":0,"logprobs":[-1]}' \
    '{"uid":"a","step":2,"reward":1,"logprobs":[-1]}' >again.jsonl
run --batch-key step --group-size 2 again.jsonl
status group_again_next_step 0

# A field named for two roles: a usage error saying what to type (the
# mask read from the log-probs made token arrays of the wrong length).
for args in "--mask-key logprobs" "--logprobs-key response_mask --mask-key response_mask" \
    "--group-key reward" "--reward-key logprobs" "--tokens-key logprobs"; do
	run $args in.jsonl
	status "two_roles $args" 2
	said "two_roles $args" 'a field has one role'
done
# The stratum and the batch key may be another role's field.
run --stratum-key uid -a san --no-tokens in.jsonl
status stratum_is_group 0

# =====================================================================
# (4) Every byte written is valid JSON; every message one line
# =====================================================================
# valid_json NAME FILE: every line of FILE is strict UTF-8 JSON.
valid_json() {
	if python3 -c '
import json, sys
for l in open(sys.argv[1], "rb"):
    json.loads(l.decode("utf-8"))' "$2" 2>/dev/null; then ok; else
		no "$1" "not valid UTF-8 JSON: $(head -c 300 "$2")"
	fi
}
# one_line NAME: stderr is one line without a control character (C0, DEL,
# or the C1 CSI in UTF-8).
one_line() {
	if [ "$(wc -l <err | tr -d ' ')" -eq 1 ] &&
	    ! LC_ALL=C grep -q "$(printf '[\001-\010\013-\037\177]')" err &&
	    ! od -An -tx1 err | grep -q 'c2 9b'; then ok; else
		no "$1" "not one clean line: $(od -c err | head -5)"
	fi
}
printf '%s\n' '{"uid":"a","tool_calls":"\ud800x","reward":1,"logprobs":[-1]}' \
    '{"uid":"a","tool_calls":"\udfff","reward":0,"logprobs":[-1]}' >sur.jsonl
"$rladv" --annotate -a san sur.jsonl >sur.out 2>err
valid_json annotate_surrogate sur.out
run --annotate -a san sur.out
status reads_own_output 0
# valid_doc NAME FILE: FILE is one strict UTF-8 JSON document.
valid_doc() {
	if python3 -c '
import json, sys
json.loads(open(sys.argv[1], "rb").read().decode("utf-8"))' "$2" 2>/dev/null
	then ok; else
		no "$1" "not valid UTF-8 JSON: $(head -c 300 "$2")"
	fi
}
"$rladv" stats --json sur.jsonl >sur.json 2>err
valid_doc stats_json_surrogate sur.json
"$rladv" diff --json --a "-a grpo" --b "-a san" sur.jsonl >sur.json 2>err
valid_doc diff_json_surrogate sur.json
# Keys with a newline, a terminal escape and a C1 CSI in messages.
printf '%s\n' '{"uid":"a\u001b[31m\nb\u009b","reward":1,"logprobs":[-1]}' \
    '{"uid":"c","reward":1,"logprobs":[-1]}' \
    '{"uid":"a\u001b[31m\nb\u009b","reward":1,"logprobs":[-1]}' >esc.jsonl
run esc.jsonl
status key_escape 1
one_line key_escape
said key_escape 'group "a\\u001b\[31m\\nb\\u009b" reappears'
# An option's value, a file name.
run -a msgrpo --ms-weights "$(printf '1,\033[2J\nx')" in.jsonl
status option_echo 2
one_line option_echo
run "$(printf 'no\nsuch\033.jsonl')"
status file_echo 3
one_line file_echo
# stats' and diff's text: no control character of a key.
printf '%s\n' '{"uid":"a","tool_calls":"x\u001b[31m\ny","reward":1,"logprobs":[-1]}' \
    '{"uid":"a","tool_calls":"z","reward":0,"logprobs":[-1]}' >sesc.jsonl
"$rladv" stats sesc.jsonl >stats.txt 2>err
"$rladv" diff --a "-a grpo" --b "-a san" sesc.jsonl >>stats.txt 2>>err
if LC_ALL=C grep -q "$(printf '\033')" stats.txt; then
	no stats_text_escape "an escape in the text report"
elif [ "$(grep -c '^x\\u001b\[31m\\ny ' stats.txt)" -lt 2 ]; then
	no stats_text_escape "the stratum's label: $(grep -a '^x' stats.txt)"
else
	ok
fi

# =====================================================================
# (7) diff --outputs compares what the files hold
# =====================================================================
# outdiff NAME WANT TEXT A B: diff --outputs A B exits WANT (0 equal, 1
# not) and, when TEXT is not empty, says it on one line.
outdiff() {
	name=$1 want=$2 text=$3
	shift 3
	run diff --outputs "$@"
	status "$name" "$want"
	if [ -n "$text" ]; then
		if grep -q -- "$text" out; then ok; else
			no "$name" "no \"$text\": $(head -c 300 out)"
		fi
	fi
}
rec='{"uid": "q0", "reward": 1.0, "logprobs": [-0.1],'
printf '%s "advantage": 1e400, "loss_weight": 1}\n' "$rec" >inf.jsonl
printf '%s "advantage": -1e400, "loss_weight": 1}\n' "$rec" >ninf.jsonl
printf '%s "advantage": 0.5, "loss_weight": 1}\n' "$rec" >fin.jsonl
printf '%s "advantage": 1e999, "loss_weight": 1}\n' "$rec" >inf2.jsonl
outdiff outputs_inf_finite 1 'advantage: 1e400 != 0.5 (a number past a double)' \
    inf.jsonl fin.jsonl
outdiff outputs_finite_inf 1 '' fin.jsonl inf.jsonl
outdiff outputs_inf_ninf 1 '' inf.jsonl ninf.jsonl
outdiff outputs_inf_inf 0 '' inf.jsonl inf2.jsonl
outdiff outputs_inf_key 1 '' --key uid inf.jsonl fin.jsonl
# Strings by their whole decoded value.
printf '%s "tool": "a\\u0000b", "advantage": 0.5}\n' "$rec" >nul1.jsonl
printf '%s "tool": "a\\u0000c", "advantage": 0.5}\n' "$rec" >nul2.jsonl
printf '%s "tool": "\\u00e9", "advantage": 0.5}\n' "$rec" >esc1.jsonl
printf '%s "tool": "\303\251", "advantage": 0.5}\n' "$rec" >esc2.jsonl
outdiff outputs_nul 1 'tool: "a\\u0000b" != "a\\u0000c" (different strings)' \
    nul1.jsonl nul2.jsonl
outdiff outputs_nul_same 0 '' nul1.jsonl nul1.jsonl
outdiff outputs_escaped_same 0 '' esc1.jsonl esc2.jsonl
# A name given twice: by rank, so a file equals itself.
printf '{"uid": "q0", "advantage": 0.5, "advantage": 0.25}\n' >dup1.jsonl
printf '{"uid": "q0", "advantage": 0.5, "advantage": 0.75}\n' >dup2.jsonl
printf '{"uid": "q0", "advantage": 0.5}\n' >dup3.jsonl
outdiff outputs_dup_self 0 '' dup1.jsonl dup1.jsonl
outdiff outputs_dup 1 'advantage: 0.25 != 0.75' dup1.jsonl dup2.jsonl
outdiff outputs_dup_extra 1 'advantage: 0.25 != (absent) (only in A)' \
    dup1.jsonl dup3.jsonl
printf '{"advantage": 0.5, "uid": "q0"}\n' >order.jsonl
outdiff outputs_member_order 0 '' dup3.jsonl order.jsonl
# Numbers whose difference is past a double: finite figures.
printf '%s "advantage": 1e308}\n' "$rec" >big1.jsonl
printf '%s "advantage": -1e308}\n' "$rec" >big2.jsonl
outdiff outputs_big 1 'advantage: 1e+308 != -1e+308 (relative difference 2)' \
    big1.jsonl big2.jsonl
if grep -qi 'inf\|nan' out; then no outputs_big "$(cat out)"; else ok; fi
run diff --json --outputs big1.jsonl big2.jsonl
if python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
sys.exit(0 if r["max_abs_diff"] is None and r["max_rel_diff"] == 2 else 1)' out
then ok; else no outputs_big_json "$(head -c 400 out)"; fi
# A member's name is escaped in the report: one line per difference.
printf '{"a\\u001b[31m\\nb": 1}\n' >ename1.jsonl
printf '{"a\\u001b[31m\\nb": 2}\n' >ename2.jsonl
run diff --outputs ename1.jsonl ename2.jsonl
if [ "$(wc -l <out | tr -d ' ')" -eq 2 ] &&
    ! LC_ALL=C grep -q "$(printf '\033')" out; then ok; else
	no outputs_name_escaped "$(od -c out | head -5)"
fi

# =====================================================================
# (8) stats and diff print finite, bounded figures
# =====================================================================
# A log, and the same log with every reward times 2^1000 and times
# 2^-1060 (exact: the rewards are multiples of 1/4).  Reports on them
# must be text without inf, nan, -0.0 or a figure of 20 digits, strict
# JSON, and the figures that do not depend on the rewards' scale (shares,
# alpha_k, offsets, correlation) those of the log itself: the reports
# take extreme rewards on the scale the estimators do.
python3 - "$rladv" <<'EOF2' >figures.out
import json, re, subprocess, sys
rladv = sys.argv[1]
rows = []
for g in range(6):
    for i in range(5):
        rows.append((g, i % 3, [0.0, 0.25, 1.0, 0.5, 0.75][(g + 2 * i) % 5],
                     1 + (g * i) % 4))
def write(name, scale):
    with open(name, "w") as f:
        for g, tc, r, n in rows:
            f.write(json.dumps({"uid": "q%d" % g, "step": 1 + g // 3,
                                "tool_calls": tc, "reward": r * scale,
                                "logprobs": [-0.5] * n}) + "\n")
write("fig1.jsonl", 1.0)
write("fig2.jsonl", 2.0 ** 1000)
write("fig3.jsonl", 2.0 ** -1060)
bad = 0
def fail(what):
    global bad
    bad += 1
    print("FAIL " + what)
def run(args):
    p = subprocess.run([rladv] + args, capture_output=True, text=True)
    if p.returncode != 0:
        fail("%s: exit %d %s" % (" ".join(args), p.returncode, p.stderr[:200]))
    return p.stdout
def strict(s):
    def no(c):
        raise ValueError(c)
    return json.loads(s, parse_constant=no)
text_bad = re.compile(r"inf|nan|\d{20}|(^|[\s(])[-+]?-0\.0+(?![0-9])", re.I)
reports = [["stats"], ["stats", "-a", "msgrpo"], ["stats", "-a", "drgrpo"],
           ["stats", "--by-batch", "--batch-key", "step", "-a", "drgrpo"],
           ["diff", "--a", "-a drgrpo", "--b", "-a san"],
           ["diff", "--a", "-a grpo", "--b", "-a rloo"]]
for f in ("fig1.jsonl", "fig2.jsonl", "fig3.jsonl"):
    for r in reports:
        out = run(r + [f])
        for line in out.splitlines():
            if text_bad.search(line):
                fail("%s %s: %r" % (" ".join(r), f, line))
        if "--by-batch" not in r:
            try:
                strict(run(r + ["--json", f]))
            except ValueError as e:
                fail("%s --json %s: %s" % (" ".join(r), f, e))
def figs(f):
    t = strict(run(["stats", "-a", "msgrpo", "--json", f]))["total"]
    d = strict(run(["diff", "--json", "--a", "-a grpo", "--b", "-a rloo", f]))
    out = {"between_share": t["reward_variance"]["between_share"],
           "group_share": t["reward_variance"]["mean_group_between_share"],
           "groups_var": t["reward_variance"]["groups_with_variance"],
           "actual_rms": t["msgrpo"]["actual_rms"],
           "approx_rms": t["msgrpo"]["approx_rms"],
           "corr": d["correlation"], "flips": d["sign_flips"]}
    for s in t["stratified"]["strata"]:
        for k in ("alpha_mean", "offset_mean", "offset_rms"):
            out["%s %s" % (k, s["stratum"])] = s[k]
    out["means"] = [s["reward_mean"] for s in t["strata"]]
    return out
base = figs("fig1.jsonl")
for f, scale in (("fig2.jsonl", 2.0 ** 1000), ("fig3.jsonl", 2.0 ** -1060)):
    got = figs(f)
    for k, v in base.items():
        # Near 1e-320 eps outweighs the spread in alpha_k, Delta_k and
        # the estimators' advantages: those are not the log's.
        if scale < 1 and k.startswith(("alpha", "offset", "actual")):
            continue
        # A cell without a spread has alpha_k = eps / (s + eps).
        if k.startswith("alpha") and v is not None and abs(v) < 1e-3:
            continue
        w = got[k]
        if k == "means":
            ok = all(y is not None and abs(y - x * scale) <= 1e-12 * abs(x * scale) + 1e-320
                     for x, y in zip(v, w))
        elif v is None or w is None:
            ok = v is None and w is None
        else:
            # eps does not scale with the rewards: 1e-4 for what it moves
            ok = abs(v - w) <= 1e-4 * max(abs(v), 1e-3)
        if not ok:
            fail("%s: %s is %r, %r on the log itself" % (f, k, w, v))
print("done %d" % bad)
EOF2
if grep -q '^done 0$' figures.out; then ok; else
	no bounded_figures "$(grep FAIL figures.out | head -5)"
fi

# =====================================================================
# (9) A closed pipe: SIGPIPE, status 141, no message
# =====================================================================
python3 - <<'EOF' >big.jsonl
import json
for g in range(4000):
    for i in range(4):
        print(json.dumps({"uid": "q%d" % g, "reward": float(i % 2),
                          "logprobs": [-0.25] * 100}))
EOF
# pipe NAME CMD...: CMD | head -n 1; the status of CMD is 141 and it said
# nothing.
pipe() {
	name=$1
	shift
	rm -f pst
	{ "$@" 2>err; echo $? >pst; } | head -n 1 >/dev/null
	st=$(cat pst)
	status "$name" 141
	if [ "$name" = pipe_rejects ]; then
		said "$name" "bigbad.jsonl:1: invalid JSON"
	elif [ -s err ]; then
		no "$name" "a message: $(head -c 200 err)"
	else
		ok
	fi
}
pipe pipe_plain "$rladv" big.jsonl
pipe pipe_gzip "$rladv" -z big.jsonl
pipe pipe_stats "$rladv" stats --batch-groups 1 big.jsonl
pipe pipe_ignored sh -c 'trap "" PIPE; exec "$1" "$2"' sh "$rladv" big.jsonl
# The rejects file of a run ended by the pipe is not left half written.
{ echo 'not json'; cat big.jsonl; } >bigbad.jsonl
pipe pipe_rejects "$rladv" --on-error skip --rejects pr.jsonl bigbad.jsonl
absent pipe_rejects pr.jsonl
no_temp pipe_rejects
# The man page states the rule.
if grep -q 'SIGPIPE' "$man" && grep -q '^\.It 141' "$man"; then ok; else
	no man_sigpipe "the man page's EXIT STATUS does not give 141 (SIGPIPE)"
fi

# =====================================================================
# (10) Small things
# =====================================================================
# A closed standard descriptor is not handed to the next file opened:
# messages never land in -o's file, records never in --rejects'.
{ head -n 2 in.jsonl; echo 'not json'; } >one_bad.jsonl
rm -f o.jsonl
"$rladv" --on-error skip -o o.jsonl one_bad.jsonl 2>&-
st=$?
status closed_stderr 0
if grep -q '^rladv' o.jsonl; then no closed_stderr "a message in -o's file"; else ok; fi
rm -f r.jsonl
"$rladv" --on-error skip --rejects r.jsonl one_bad.jsonl >&- 2>err
st=$?
status closed_stdout 3
if [ "$(cat r.jsonl)" = "not json" ]; then ok; else
	no closed_stdout "rejects file: $(head -c 200 r.jsonl)"
fi

# --help and --version to a full disk: status 3 and a message.
for opt in --help --version; do
	"$rladv" $opt >/dev/full 2>err
	st=$?
	status "full_disk $opt" 3
	said "full_disk $opt" 'standard output: write error'
done
# An option a command does not use is refused, not ignored.
rm -f never.jsonl
for args in "stats -o never.jsonl" "stats -z" \
    "diff --b=-a_rloo --a=-a_grpo_-o_never.jsonl" \
    "diff --b=-a_rloo --a=-a_grpo_-z"; do
	run $(echo "$args" | tr '_' ' ') in.jsonl
	status "unused_option $args" 2
	said "unused_option $args" 'is an option of rladv compute'
done
absent unused_option never.jsonl
run --group-key "" in.jsonl
status group_key_empty 2
said group_key_empty 'group-key: invalid value ""'
# Subnormal values are values: > 0.
sed 's/"step": 1/"tool_calls": 1/' in.jsonl >tc.jsonl
for opt in "--eps 4.9e-324" "--alpha 1e-310" "--stratum-cap 1e-310"; do
	run $opt -a stratified tc.jsonl
	status "subnormal $opt" 0
done
# (1/(n L) is then past a double: the data's error, not the option's.)
run -g seq-sum-norm --max-len 1e-310 --no-tokens in.jsonl
status "subnormal --max-len" 1
said "subnormal --max-len" 'the loss weight overflows a double'
# A stratum past a double (stats averages the values) is bad data.
printf '%s\n' '{"uid": "q0", "tool_calls": 1e400, "reward": 1.0, "logprobs": [-0.1]}' \
    '{"uid": "q0", "tool_calls": 1, "reward": 0.0, "logprobs": [-0.1]}' >s400.jsonl
run -a san s400.jsonl
status stratum_1e400 1
said stratum_1e400 's400.jsonl:1: field "tool_calls" is 1e400, not a finite number'
run -a san --on-error skip --rejects rej.jsonl s400.jsonl
accounts stratum_1e400_skip 2 1 1

# =====================================================================
# (11) Any JSON blanks compute the same (tests/respell.py)
# =====================================================================
for seed in 1 2 3; do
	python3 "$here/respell.py" "$rladv" "$here/../samples" $seed >respell 2>&1
	n=0
	while read -r verdict name why; do
		n=$((n + 1))
		case $verdict in
		ok) ok ;;
		*) no "respell seed $seed ${name%:}" "$why" ;;
		esac
	done <respell
	[ "$n" -eq 13 ] || no "respell seed $seed" "$n samples, not 13: $(tail -3 respell)"
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
