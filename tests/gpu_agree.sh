#!/bin/sh
# tests/gpu_agree.sh [--emulated] ./rladv - the CUDA backend against the
# CPU (SPEC §8).
#
# Runs every exit-0 conformance case (tests/conformance, options from
# cases.tsv) and random batches from bench/gen
# (binary, continuous and pass-rate rewards; groups of 1 to 25; MS-GRPO
# exact with all-distinct rewards) under --device cpu and --device cuda
# with --digits 17, and compares the two outputs record by record: every
# number within 1e-12 relative (numbers near 0, where a relative bound
# means nothing, within 1e-14 of the largest magnitude of that field in
# the file), everything else byte-equal, and the same exit status.
# Prints one line per case, then "N passed, M failed"; exit 1 on failure.
#
# Without a GPU (nvidia-smi -L lists none) or with an rladv built without
# CUDA it prints "SKIP: no GPU (why)" and exits 0, so make check passes on
# machines without one.  CONFORMANCE=DIR overrides the cases' directory.
#
# --emulated: the binary is make emu-check's, its CUDA runtime the CPU
# emulation of tests/cuda_emu; no GPU is needed, the inputs are smaller,
# and the device's failures are tried too: no device (RLADV_EMU_NODEV)
# and too little device memory (RLADV_EMU_MEMLIMIT).

emulated=0
if [ "$1" = --emulated ]; then
	emulated=1
	shift
fi
bin=${1:-./rladv}
root=$(cd "$(dirname "$0")/.." && pwd)
conf=${CONFORMANCE:-$root/tests/conformance}

skip() {
	echo "SKIP: no GPU ($1)"
	exit 0
}

if [ $emulated = 0 ]; then
	command -v nvidia-smi >/dev/null 2>&1 || skip "nvidia-smi not found"
	nvidia-smi -L 2>/dev/null | grep -q '^GPU' ||
		skip "nvidia-smi -L lists none"
	"$bin" --version 2>/dev/null | grep -q 'cuda: compiled in' ||
		skip "$bin is built without CUDA; build with make CUDA=1"
	command -v python3 >/dev/null 2>&1 ||
		skip "python3, which compares, not found"
else
	echo "gpu_agree: the CUDA backend on the CPU emulation of its runtime"
	"$bin" --version 2>/dev/null | grep -q 'cuda: compiled in' || {
		echo "FAIL: $bin is not built with the CUDA backend"
		echo "0 passed, 1 failed"; exit 1; }
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpu_agree.XXXXXX") || exit 3
trap 'rm -rf "$tmp"' EXIT
trap 'exit 3' INT TERM HUP

# nvidia-smi sees a GPU, so rladv must be able to use it.
echo '{"prompt_id": "p", "reward": 1, "logprobs": [-1]}' >"$tmp/one.jsonl"
if ! "$bin" --device cuda "$tmp/one.jsonl" >/dev/null 2>"$tmp/err"; then
	echo "FAIL: nvidia-smi lists a GPU, but: $(cat "$tmp/err")"
	echo "0 passed, 1 failed"
	exit 1
fi

# The random batches: bench/gen, then a few files made here.
${CC:-cc} -std=c11 -O2 -o "$tmp/gen" "$root/bench/gen.c" -lm || {
	echo "gpu_agree: cannot build bench/gen"; echo "0 passed, 1 failed"; exit 1; }
gen() {
	"$tmp/gen" --tokens 16 "$@"
}
# The emulation runs each GPU thread on the CPU: a tenth of the records.
if [ $emulated = 1 ]; then k=k; else k=0k; fi
gen --bytes 100$k --group 8 --rewards binary --seed 11 >"$tmp/binary8.jsonl"
gen --bytes 100$k --group 16 --rewards continuous --seed 12 >"$tmp/cont16.jsonl"
gen --bytes 60$k --group 12 --rewards passrate --seed 13 >"$tmp/pass12.jsonl"
gen --bytes 10$k --group 1 --rewards continuous --seed 14 >"$tmp/single.jsonl"
gen --bytes 20$k --group 20 --rewards continuous --seed 15 >"$tmp/g20.jsonl"
gen --bytes 2$k --group 25 --rewards continuous --seed 16 >"$tmp/g25.jsonl"

# The device's failures, which only the emulation can bring about.
if [ $emulated = 1 ]; then
	one="$tmp/binary8.jsonl"
	RLADV_EMU_NODEV=1 "$bin" --device cuda "$one" >/dev/null 2>"$tmp/err"
	rc=$?
	if [ $rc != 2 ] || ! grep -q 'no usable GPU (no CUDA device found)' \
	    "$tmp/err"; then
		echo "FAIL no device: --device cuda exits $rc: $(cat "$tmp/err")"
		exit 1
	fi
	RLADV_EMU_NODEV=1 "$bin" --device auto "$one" >"$tmp/auto.out" &&
	    "$bin" --device cpu "$one" | cmp -s - "$tmp/auto.out" || {
		echo "FAIL no device: --device auto is not the CPU's output"
		exit 1; }
	RLADV_EMU_MEMLIMIT=4096 "$bin" --device cuda "$one" >/dev/null \
	    2>"$tmp/err"
	rc=$?
	if [ $rc != 3 ] || ! grep -q 'CUDA: cannot allocate' "$tmp/err"; then
		echo "FAIL out of device memory: exit $rc: $(cat "$tmp/err")"
		exit 1
	fi
	echo "ok   no device (exit 2), --device auto on the CPU, out of device memory (exit 3)"
fi

exec python3 - "$bin" "$conf" "$tmp" "$root" <<'EOF'
import json, math, os, random, re, shlex, subprocess, sys

binary, conf, tmp, root = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
REL, FLOOR = 1e-12, 1e-14
REWARD = re.compile(r'"reward": [-0-9.eE+]+')


def rewrite(src, dst, f):
    """dst: src with every reward replaced by f(line number, reward)."""
    with open(src) as i, open(dst, "w") as o:
        for n, line in enumerate(i):
            o.write(REWARD.sub(lambda m: '"reward": ' + repr(
                f(n, float(m.group(0).split(":")[1]))), line, count=1))
    return dst


# All-distinct rewards (every MS-GRPO group enumerable on the GPU), and
# huge ones (the power-of-two rescaling of compute.c and msgrpo_canon.c).
rng = random.Random(7)
distinct20 = rewrite(os.path.join(tmp, "g20.jsonl"),
                     os.path.join(tmp, "distinct20.jsonl"),
                     lambda n, r: rng.random())
distinct25 = rewrite(os.path.join(tmp, "g25.jsonl"),
                     os.path.join(tmp, "distinct25.jsonl"),
                     lambda n, r: rng.random())
huge = rewrite(os.path.join(tmp, "pass12.jsonl"),
               os.path.join(tmp, "huge12.jsonl"),
               lambda n, r: (r + rng.random()) * 1e200)

cases = []
if os.path.exists(os.path.join(conf, "cases.tsv")):
    for row in open(os.path.join(conf, "cases.tsv")):
        if row.startswith("#") or not row.strip():
            continue
        cols = row.rstrip("\n").split("\t")
        if len(cols) < 3 or cols[2] != "0":
            continue
        inp = os.path.join(conf, cols[0] + ".in.jsonl")
        if not os.path.exists(inp):
            inp += ".gz"
        cases.append(("conformance/" + cols[0], cols[1], inp))
else:
    print(f"FAIL conformance: no {conf}/cases.tsv")
    cases.append(None)

f = lambda name: os.path.join(tmp, name + ".jsonl")
common = ["", "--std sample", "--std-scope batch", "--std-scope none",
          "--gn-scope batch", "-a drgrpo", "-a rloo", "-a san",
          "-a stratified", "-a stratified --alpha 0.3 --gn-scope batch",
          "-a stratified --std sample --std-scope batch",
          "-a san --stratum-cap 2 -g balanced", "-a opo -g seq",
          "-a rpp-baseline", "--like verl -g seq", "--like verl -a rloo",
          "--like trl --std-scope batch", "-g balanced",
          "-a rloo -g balanced-gen", "--batch-groups 3 --std-scope batch",
          "--batch-key step -a rpp-baseline", "--unsorted -a stratified",
          "-g seq-sum", "-g seq-sum-norm --max-len 64", "--scope group",
          "--scope group -g seq", "--scope group -g balanced-gen",
          "--like trl -g seq-sum-norm --max-len 32",
          "--like openrlhf -a rpp-baseline", "--like skyrl -a rloo",
          "-a passk", "-a passk --std-scope none",
          "--like verl -a gpg", "--like nemo-rl -g seq", "--like areal",
          "--like slime -g token", "-a rpp", "-a loo --std sample",
          "-a grpo-whiten --std-scope batch",
          "-a san --std-scope none", "-a san --std-scope batch",
          "--eps-inside", "-a stratified --eps-inside --std sample",
          "-a drgrpo --gn-scope batch", "--gn-scope batch --std-scope none",
          "--drop-zero-std -g balanced", "-a san --random-strata --seed 3",
          "-a gdpo -g balanced", "-g prompt", "--scope group -g prompt",
          "--like skyrl -g prompt_mean"]
for name in ("binary8", "cont16", "pass12", "single"):
    for opts in common:
        cases.append((f"{name}/{opts or 'grpo'}", opts, f(name)))
ms = ["-a msgrpo", "-a msgrpo --ms-mode exact",
      "-a msgrpo --ms-mode exact --ms-stats token",
      "-a msgrpo --ms-mode exact --tau-min 3 --ms-weights local -g balanced",
      "-a msgrpo --ms-weights global --batch-groups 5",
      "-a msgrpo --ms-mode exact --std sample", "-a msgrpo --eps-inside",
      "-a msgrpo --ms-weights flat",
      "-a msgrpo --ms-weights " + ",".join(str(i) for i in range(1, 64))]
for name in ("binary8", "cont16", "pass12", "distinct20"):
    for opts in ms:
        cases.append((f"{name}/{opts}", opts, f(name)))
for opts in ("-a msgrpo --ms-mode exact", "", "-a drgrpo", "-a rpp-baseline",
             "-a stratified --std-scope batch"):
    cases.append((f"huge12/{opts or 'grpo'}", opts, huge))
cases.append(("distinct25/-a msgrpo --ms-budget 1e10",
              "-a msgrpo --ms-budget 1e10", distinct25))
cases.append(("distinct20/-a msgrpo --ms-mode sampled",
              "-a msgrpo --ms-mode sampled", distinct20))
# NeMo-RL's sample, whose line 10 has sample_loss_mask [0.0]: the kernel
# sums a group's scope (--scope group) without it.
nemo = os.path.join(root, "samples", "nemo_rl_train_data_step3.jsonl")
for opts in ("--from nemo-rl -g seq", "--from nemo-rl -g seq --scope group",
             "--from nemo-rl -g seq-sum --scope group",
             "--from nemo-rl --like slime -g token --scope group"):
    cases.append((f"nemo-rl/{opts}", opts, nemo))
# slime's split rollouts (--rollout-key): the CPU weighs them, the GPU the
# advantages.
slime = os.path.join(root, "samples", "slime_rollout_data_9.jsonl")
for opts in ("--gn-scope batch", "-g seq-sum --scope group", "-g token"):
    opts = "--from slime --reward-key reward.score " + opts
    cases.append((f"slime/{opts}", opts, slime))


def run(opts, inp, device):
    cmd = [binary] + shlex.split(opts) + ["--device", device, "--digits",
                                          "17", inp]
    try:
        r = subprocess.run(cmd, capture_output=True, timeout=900)
    except subprocess.TimeoutExpired:
        return None, b"", b"timed out"
    return r.returncode, r.stdout, r.stderr


def numbers(x, key, out):
    """Every number under x as (key, value), key the top-level field."""
    if isinstance(x, bool) or x is None or isinstance(x, str):
        return
    if isinstance(x, (int, float)):
        out.append((key, float(x)))
    elif isinstance(x, list):
        for y in x:
            numbers(y, key, out)
    elif isinstance(x, dict):
        for k, y in x.items():
            numbers(y, key if key is not None else k, out)


def shape(x):
    """x with every number replaced by 0: what must be equal."""
    if isinstance(x, bool) or x is None or isinstance(x, str):
        return x
    if isinstance(x, (int, float)):
        return 0
    if isinstance(x, list):
        return [shape(y) for y in x]
    return {k: shape(y) for k, y in x.items()}


def compare(a, b):
    # The same bytes agree (with -fmad=false, most outputs are the
    # CPU's bits): only outputs that differ are read as numbers.
    if a == b:
        return []
    la, lb = a.decode().splitlines(), b.decode().splitlines()
    if len(la) != len(lb):
        return [f"{len(lb)} records on cuda, {len(la)} on cpu"]
    recs = []
    scale = {}
    for n, (x, y) in enumerate(zip(la, lb), 1):
        try:
            ox, oy = json.loads(x), json.loads(y)
        except ValueError as e:
            return [f"record {n}: not JSON: {e}"]
        if shape(ox) != shape(oy):
            return [f"record {n}: fields differ"]
        nx, ny = [], []
        numbers(ox, None, nx)
        numbers(oy, None, ny)
        for k, v in nx:
            scale[k] = max(scale.get(k, 0.0), abs(v))
        recs.append((n, nx, ny))
    bad = []
    for n, nx, ny in recs:
        for (k, u), (_, v) in zip(nx, ny):
            if not abs(u - v) <= REL * max(abs(u), abs(v)) + FLOOR * scale[k]:
                bad.append(f"record {n}: {k} cpu {u!r} cuda {v!r}")
                if len(bad) == 5:
                    return bad
    return bad


passed = failed = 0
for c in cases:
    if c is None:
        failed += 1
        continue
    name, opts, inp = c
    ca, oa, ea = run(opts, inp, "cpu")
    cb, ob, eb = run(opts, inp, "cuda")
    problems = []
    if ca != 0:
        problems.append(f"cpu run exits {ca}: {ea.decode().strip()[:200]}")
    elif cb != ca:
        problems.append(f"cuda run exits {cb}, cpu {ca}: "
                        f"{eb.decode().strip()[:200]}")
    else:
        problems = compare(oa, ob)
    if problems:
        failed += 1
        for p in problems:
            print(f"FAIL {name}: {p}")
    else:
        passed += 1
        print(f"ok   {name}")
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
EOF
