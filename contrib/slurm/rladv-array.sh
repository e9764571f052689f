#!/bin/sh
# rladv-array.sh - one rladv run over many shards on a Slurm cluster, with
# the bytes one process over all of them would write.
#
#   rladv-array.sh [-W] LIST DIR [rladv options]
#
# LIST names the shards, one path a line, in the order one process would
# read them (a group or a batch may span shards).  Three jobs go in, each
# waiting for the one before it (--dependency=afterok):
#   1. an array, a task per shard:  rladv index OPTIONS SHARD -o DIR/idx/N.idx
#   2. one job:  rladv index --merge OPTIONS DIR/idx/*.idx -o DIR/all.idx
#   3. an array, a task per shard:
#        rladv compute --index DIR/all.idx OPTIONS SHARD -o DIR/out/N.NAME
# N is the shard's line in LIST, six digits, so that DIR/out/* in the
# shell's order is LIST's order: cat DIR/out/* is the whole output (zcat
# where the shards are gzipped: an output ends in .gz, and is gzipped,
# when its shard's name does).  Logs go to DIR/log/.
#
# The options are the same in every step (the index records them, and a
# step given others refuses to run).  Set in the environment:
#   RLADV          the rladv to run (default: rladv on the PATH)
#   RLADV_OUTPUT   options of step 3 alone: --digits, --annotate, --no-tokens
#   SBATCH_ARGS    more sbatch options for every job: -p PARTITION, -t TIME...
#   RLADV_ARRAY_MAX  at most this many tasks of an array at once (%N)
# -W waits for the last job (sbatch --wait) and exits 0 only when every
# shard was written (DIR/done/N for each).  Prints the three job ids on
# one line.  DIR must not hold an earlier run's idx/ or out/ files, and
# LIST at most MaxArraySize - 1 shards (1000 by default).
set -e
wait=
if [ "$1" = -W ]; then
	wait=--wait
	shift
fi
if [ $# -lt 2 ]; then
	echo "usage: rladv-array.sh [-W] LIST DIR [rladv options]" >&2
	exit 2
fi
list=$1 dir=$2
shift 2
[ -r "$list" ] || { echo "rladv-array.sh: $list: cannot read" >&2; exit 2; }
n=$(grep -c . "$list" || true)
[ "$n" -gt 0 ] || { echo "rladv-array.sh: $list: no shards" >&2; exit 2; }
if grep -q '^$' "$list"; then
	echo "rladv-array.sh: $list: an empty line; one shard a line" >&2
	exit 2
fi
# An earlier run's indexes and outputs would be merged and read with
# this one's: refused, not removed.
for d in idx out; do
	if [ -n "$(ls -A "$dir/$d" 2>/dev/null)" ]; then
		echo "rladv-array.sh: $dir/$d holds an earlier run's files;" \
		    "remove them or give another DIR" >&2
		exit 2
	fi
done
# A job array has at most MaxArraySize - 1 tasks (1000 by default).
amax=$(scontrol show config 2>/dev/null |
    sed -n 's/^MaxArraySize *= *\([0-9]*\).*/\1/p')
if [ -n "$amax" ] && [ "$n" -ge "$amax" ]; then
	echo "rladv-array.sh: $n shards, but this cluster's job arrays take" \
	    "at most $((amax - 1)) tasks (MaxArraySize $amax): join shards" >&2
	exit 2
fi
mkdir -p "$dir/idx" "$dir/out" "$dir/log" "$dir/jobs" "$dir/done"
rm -f "$dir"/done/* "$dir/all.idx"
dir=$(cd "$dir" && pwd)
case $list in /*) ;; *) list=$(pwd)/$list ;; esac

# Each word quoted for sh, so that the job scripts hold the options as
# given.
quote() {
	for w in "$@"; do
		printf " '%s'" "$(printf '%s' "$w" | sed "s/'/'\\\\''/g")"
	done
}
opts=$(quote "$@")
# shellcheck disable=SC2086
outopts=$(eval "quote $RLADV_OUTPUT")
rladv=$(quote "${RLADV:-rladv}")
max=${RLADV_ARRAY_MAX:+%$RLADV_ARRAY_MAX}

# The job scripts: the shard of this task is line SLURM_ARRAY_TASK_ID of
# LIST (sed -n Np), its number six digits.
task='f=$(sed -n "${SLURM_ARRAY_TASK_ID}p" '"$(quote "$list")"')
n=$(printf %06d "$SLURM_ARRAY_TASK_ID")'
cat > "$dir/jobs/index.sh" <<JOB
#!/bin/sh
$task
exec$rladv index$opts -o "$dir/idx/\$n.idx" "\$f"
JOB
cat > "$dir/jobs/merge.sh" <<JOB
#!/bin/sh
exec$rladv index --merge$opts -o "$dir/all.idx" "$dir"/idx/*.idx
JOB
cat > "$dir/jobs/compute.sh" <<JOB
#!/bin/sh
$task
$rladv compute --index "$dir/all.idx"$opts$outopts \\
    -o "$dir/out/\$n.\${f##*/}" "\$f" || exit
: > "$dir/done/\$n"
JOB

# shellcheck disable=SC2086
map=$(sbatch --parsable $SBATCH_ARGS --job-name=rladv-index \
    --array=1-$n$max --output="$dir/log/index-%a.log" "$dir/jobs/index.sh")
map=${map%%;*}
# shellcheck disable=SC2086
red=$(sbatch --parsable $SBATCH_ARGS --job-name=rladv-merge \
    --dependency=afterok:$map --kill-on-invalid-dep=yes --output="$dir/log/merge.log" \
    "$dir/jobs/merge.sh")
red=${red%%;*}
# With -W, sbatch exits with the array's status once it has ended: the
# shards written say what became of it, below.  Without, a status other
# than 0 is a submission that failed.
st=0
# shellcheck disable=SC2086
app=$(sbatch --parsable $wait $SBATCH_ARGS --job-name=rladv-compute \
    --dependency=afterok:$red --kill-on-invalid-dep=yes --array=1-$n$max \
    --output="$dir/log/compute-%a.log" "$dir/jobs/compute.sh") || st=$?
app=${app%%;*}
echo "$map $red $app"
if [ -z "$wait" ] && [ "$st" -ne 0 ]; then
	echo "rladv-array.sh: sbatch of the compute array failed" >&2
	exit 1
fi
# -W: every shard written (a job cancelled for a failed step before it
# leaves no mark in DIR/done).
if [ -n "$wait" ]; then
	d=$(find "$dir/done" -type f | wc -l)
	if [ "$d" -ne "$n" ]; then
		echo "rladv-array.sh: $d of $n shards written; see $dir/log" >&2
		exit 1
	fi
fi
