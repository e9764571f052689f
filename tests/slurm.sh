#!/bin/sh
# slurm.sh RLADV - contrib/slurm/rladv-array.sh on a real Slurm: a
# one-node cluster on this machine (munged with a key made here,
# slurmctld and slurmd with a configuration in a temporary directory, on
# ports of their own), the three steps over 8 shards, and the output
# compared byte for byte with one rladv over the same shards.  The
# daemons it started are stopped on the way out, failure or not.
#
# Debian's slurm-wlm and munge are installed when missing, as root; where
# that cannot be done, or the daemons do not come up, it prints one SKIP
# line and exits 0, never a pass.  Last line "N passed, M failed".
rladv=${1:-./rladv}
case $rladv in
/*) ;;
*) rladv=$(pwd)/$rladv ;;
esac
top=$(pwd)
skip() { echo "SKIP slurm: $*"; exit 0; }

need() {
	command -v slurmctld && command -v slurmd && command -v munged &&
	    command -v sbatch && command -v mungekey
}
if ! need > /dev/null 2>&1; then
	if [ "$(id -u)" -ne 0 ] || ! command -v apt-get > /dev/null; then
		skip "slurm-wlm and munge are not installed (apt-get install slurm-wlm munge, as root)"
	fi
	echo "slurm.sh: installing slurm-wlm and munge"
	# Other tests of make check may hold dpkg's lock: wait for it.
	apt="apt-get -o DPkg::Lock::Timeout=300"
	DEBIAN_FRONTEND=noninteractive $apt install -y -qq slurm-wlm munge \
	    > /dev/null 2>&1 ||
	    { $apt update -qq > /dev/null 2>&1 &&
	    DEBIAN_FRONTEND=noninteractive $apt install -y -qq slurm-wlm \
	    munge > /dev/null 2>&1; } ||
	    skip "apt-get install slurm-wlm munge failed"
	need > /dev/null 2>&1 || skip "slurm-wlm installed without its daemons"
fi
[ "$(id -u)" -eq 0 ] || skip "the daemons run as root here; not root"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/rladv-slurm.XXXXXX") || exit 3
chmod 755 "$tmp"
stop() {
	for p in slurmd slurmctld munged; do
		[ -s "$tmp/$p.pid" ] && kill "$(cat "$tmp/$p.pid")" 2>/dev/null
	done
	sleep 1
	for p in slurmd slurmctld munged; do
		[ -s "$tmp/$p.pid" ] && kill -9 "$(cat "$tmp/$p.pid")" 2>/dev/null
	done
	rm -rf "$tmp"
}
[ -n "$KEEP" ] || trap stop EXIT
trap 'exit 130' INT TERM

# Ports of this run's own, so that runs beside it do not meet.  The node
# says it has 8 CPUs, whatever it has, so that the 8 tasks of an array
# (a few milliseconds each) run in one round of the scheduler.  Jobs are
# started when they can be, not up to 3 s later (batch_sched_delay), and
# sbatch --wait polls every 2 s rather than at intervals growing to 32 s
# (it does while MinJobAge / 3 is above its interval): the steps take a
# few milliseconds each.
base=$((20000 + ($$ % 2000) * 4))
host=$(hostname -s)
mkdir -p "$tmp/state" "$tmp/spool" "$tmp/munge"
chmod 755 "$tmp/munge"
export SLURM_CONF="$tmp/slurm.conf"
cat > "$SLURM_CONF" <<EOF
ClusterName=rladvtest
SlurmctldHost=$host
SlurmctldPort=$base
SlurmdPort=$((base + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$tmp/munge/socket
CredType=cred/munge
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=none
SchedulerType=sched/builtin
SchedulerParameters=batch_sched_delay=0
MinJobAge=6
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MailProg=/bin/true
MaxArraySize=1001
SlurmdParameters=config_overrides
NodeName=$host CPUs=8 State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF

mungekey --create --keyfile="$tmp/munge/key" > /dev/null 2>&1 ||
    dd if=/dev/urandom of="$tmp/munge/key" bs=1024 count=1 2>/dev/null
chmod 400 "$tmp/munge/key"
munged --force --socket="$tmp/munge/socket" --key-file="$tmp/munge/key" \
    --pid-file="$tmp/munged.pid" --log-file="$tmp/munged.log" \
    --seed-file="$tmp/munge/seed" > "$tmp/munged.out" 2>&1 ||
    skip "munged does not start: $(tail -1 "$tmp/munged.log" 2>/dev/null)"
slurmctld > "$tmp/slurmctld.out" 2>&1 ||
    skip "slurmctld does not start: $(tail -1 "$tmp/slurmctld.log")"
slurmd > "$tmp/slurmd.out" 2>&1 ||
    skip "slurmd does not start: $(tail -1 "$tmp/slurmd.log")"
# alive NAME: the daemon we started is running.
alive() { [ -s "$tmp/$1.pid" ] && kill -0 "$(cat "$tmp/$1.pid")" 2>/dev/null; }
i=0
until timeout 5 sinfo -h -o %t 2>/dev/null | grep -q idle; do
	i=$((i + 1))
	for p in slurmctld slurmd; do
		alive $p || skip "$p stopped: $(grep -E 'fatal|error' \
		    "$tmp/$p.log" | tail -1)"
	done
	[ $i -lt 60 ] || skip "the node did not come up in 30 s: $(tail -1 "$tmp/slurmd.log")"
	sleep 0.5
done

pass=0 fail=0
ok() { pass=$((pass + 1)); }
no() { fail=$((fail + 1)); echo "FAIL $1"; }

# 8 shards of the sample log cut at lines that split groups, half of
# them gzipped, named in a list; one process over them is the reference.
cd "$tmp" || exit 3
mkdir shards
awk -v tmp="$tmp" '{ f = sprintf("%s/shards/part-%d.jsonl", tmp,
    int((NR - 1) * 8 / 320)); print > f }' "$top/samples/search_agent.jsonl"
for i in 1 3 5 7; do gzip "shards/part-$i.jsonl"; done
for i in 0 1 2 3 4 5 6 7; do ls "$tmp"/shards/part-$i.jsonl*; done > list
opts="-a stratified -g balanced --batch-key step"
# A failing map step (a shard that is not there) runs beside the good
# run, since sbatch -W polls at growing intervals: the dependent jobs
# must be cancelled and -W exit non-0.
echo "$tmp/shards/none.jsonl" > bad-list
PATH=$(dirname "$rladv"):$PATH sh "$top/contrib/slurm/rladv-array.sh" -W \
    bad-list bad $opts > /dev/null 2>&1 &
badpid=$!
# shellcheck disable=SC2086
"$rladv" $opts $(cat list) > single
PATH=$(dirname "$rladv"):$PATH RLADV_OUTPUT="--digits 12" \
    sh "$top/contrib/slurm/rladv-array.sh" -W list run $opts > jobs 2> err
rc=$?
if [ $rc -ne 0 ]; then
	no "rladv-array.sh exits $rc: $(cat err) $(cat run/log/*.log 2>/dev/null | head -5)"
else
	for f in run/out/*; do
		case $f in *.gz) gzip -dc "$f" ;; *) cat "$f" ;; esac
	done > sharded
	# shellcheck disable=SC2086
	"$rladv" $opts --digits 12 $(cat list) > single12
	if [ "$(ls run/out | wc -l)" -eq 8 ] && [ -s single12 ] &&
	    cmp -s sharded single12; then
		ok
		echo "slurm: 8 shards, jobs $(tr '\n' ' ' < jobs)(index array," \
		    "merge, compute array): the output equals one rladv's" \
		    "($(wc -l < sharded) records)"
	else
		no "the Slurm run's output differs from one rladv's"
	fi
	[ "$(gzip -dc run/out/000002.part-1.jsonl.gz | wc -l)" -eq 40 ] &&
	    ok || no "the output of a gzipped shard is not gzip"
	[ "$(wc -l < jobs)" -eq 1 ] && [ "$(wc -w < jobs)" -eq 3 ] &&
	    ok || no "not the three job ids on one line: $(cat jobs)"
	# A second run into the same DIR would merge the first's indexes:
	# refused before any job goes in.
	PATH=$(dirname "$rladv"):$PATH sh "$top/contrib/slurm/rladv-array.sh" \
	    list run $opts > jobs2 2> err2
	rc=$?
	[ $rc -eq 2 ] && grep -q "earlier run" err2 && [ ! -s jobs2 ] &&
	    ok || no "a rerun into the same DIR: exit $rc: $(cat err2)"
fi
wait $badpid && no "a failed index passes" || ok
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
