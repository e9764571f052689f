#!/bin/sh
# skip_random.sh RLADV - skip mode's accounting on random logs.
#
# Seeded random rollout logs (verl's uid layout, TRL's key-less blocks)
# with bad lines of every kind mixed in: invalid JSON, a line that is not
# an object, NaN, a missing or mistyped reward, 1e400, a mask of the wrong
# length or values, an empty key, a group that reappears, a record without
# a key among keyed ones and the other way round (a header line first), a
# line longer than --max-line, a group whose advantage overflows a double,
# a group a framework refuses (verl's grpo_passk on one response, a fully
# masked record under verl 0.6.0's seq-mean-token-mean or slime's rpp), a
# group of the wrong size, a record across a change of the batch key,
# invalid UTF-8 and a NUL byte, a trajectory that ends without its last
# row (SkyRL's step-wise rows); blank lines and CRLF endings between.
# Each log runs in one grouping mode (keys, --group-size, key-less
# blocks, --unsorted, --batch-key, --batch-groups, trajectories) from a
# file, a pipe or gzip, with -j 1 and -j 2.  Every run must exit 0 with
# in = out + rejected, the input's records exactly the records written
# plus the lines in --rejects (verbatim), and -j 2 byte for byte -j 1.
#
# SEED=n picks another seed (default 13), TRIALS=n the number of logs.
# Last line: "N passed, M failed"; exit 1 on any failure.
rladv=${1:-./rladv}
case $rladv in
/*) ;;
*) rladv=$(pwd)/$rladv ;;
esac
if [ ! -x "$rladv" ]; then
	echo "skip_random.sh: $rladv: not an executable" >&2
	echo "0 passed, 1 failed"
	exit 1
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rladv-skiprand.XXXXXX") || exit 3
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

python3 - "$rladv" "$tmp" "${SEED:-13}" "${TRIALS:-48}" <<'EOF'
import gzip, json, os, random, re, subprocess, sys

rladv, tmp, seed, trials = sys.argv[1], sys.argv[2], int(sys.argv[3]), \
    int(sys.argv[4])
rng = random.Random(seed)
passed = failed = 0
MAXLINE = 2048

def rec(key, step, reward, n, masked=False, keyless=False, extra=None):
    d = {} if keyless else {"uid": key}
    d["step"] = step
    d["reward"] = reward
    d["logprobs"] = [round(-rng.random(), 4) for _ in range(n)]
    d["response_mask"] = [0] * n if masked else \
        [1] + [rng.randint(0, 1) for _ in range(n - 1)]
    if extra:
        d.update(extra)
    return json.dumps(d).encode()

# A bad line of some kind, for a keyed (or key-less) log at this step.
def bad_line(key, step, keyless):
    k = rng.randrange(13)
    kk = {} if keyless else {"uid": key}
    if k == 0:
        return b'{"uid": "' + key.encode() + b'", "reward": 1.0, "logprobs": [-0.1'
    if k == 1:
        return b'[1, 2, 3]'
    if k == 2:
        return json.dumps(dict(kk, step=step)).encode()[:-1] + \
            b', "reward": NaN, "logprobs": [-0.2]}'
    if k == 3:
        return json.dumps(dict(kk, step=step, logprobs=[-0.3])).encode()
    if k == 4:
        return json.dumps(dict(kk, step=step, reward="high",
                               logprobs=[-0.3])).encode()
    if k == 5:
        return json.dumps(dict(kk, step=step)).encode()[:-1] + \
            b', "reward": 1e400, "logprobs": [-0.2]}'
    if k == 6:
        return json.dumps(dict(kk, step=step, reward=1.0,
                               logprobs=[-0.1, -0.2, -0.3],
                               response_mask=[1, 1])).encode()
    if k == 7:
        return json.dumps(dict(kk, step=step, reward=1.0, logprobs=[-0.1],
                               response_mask=[2])).encode()
    if k == 8:
        return json.dumps({"uid": "", "step": step, "reward": 0.5,
                           "logprobs": [-0.1]}).encode()
    if k == 9:
        return b'{"uid": "\xff\xfe", "step": %d, "reward": 1.0, ' \
            b'"logprobs": [-0.1]}' % step
    if k == 10:
        return b'{"uid": "a", "reward": 1\x00, "logprobs": [-0.1]}'
    if k == 11:
        return rec(key, step, 1.0, 2, keyless=keyless,
                   extra={"pad": "x" * (MAXLINE + rng.randrange(4000))})
    # A record of the other kind: without a key among keyed ones.
    return rec("zz%d" % rng.randrange(1000), step, 0.0, 1,
               keyless=not keyless)

ESTS = [["-a", "grpo"], ["-a", "drgrpo"], ["-a", "rloo"], ["-a", "rpp"],
        ["-a", "passk", "--like", "verl"],
        ["--like", "verl@0.6.0", "-g", "seq-mean-token-mean"],
        ["--like", "slime", "-a", "rpp"], ["-a", "grpo", "--scope", "group"],
        ["-a", "drgrpo", "--scope", "group"]]
MODES = ["key", "key-size", "keyless", "unsorted", "unsorted-size",
         "batch-key", "batch-groups", "traj"]

def make_log(mode):
    G = rng.randint(2, 4)
    sized = mode in ("key-size", "keyless", "unsorted-size")
    keyless = mode == "keyless"
    lines, ended = [], []
    step = 1
    for g in range(rng.randint(6, 24)):
        key = "q%d" % g
        if mode == "batch-key" and rng.random() < 0.3:
            step += 1
        n = G if sized else rng.randint(1, 5)
        big = rng.random() < 0.12
        group = []
        for i in range(n):
            if big:
                r = 1.7e308 if i == 0 else -1.7e308
            else:
                r = rng.choice([0.0, 1.0, 0.5, 0.25, -1.0])
            if mode == "traj":
                # A response as steps: rows of one trajectory_id, the
                # last one's reward and is_last true (now and then not).
                rows = rng.randint(1, 3)
                for j in range(rows):
                    last = j == rows - 1
                    group.append(rec(key, step, r if last else 0.0,
                                     rng.randint(1, 3), extra={
                                         "trajectory_id": "%s-%d" % (key, i),
                                         "is_last": last or
                                         rng.random() < 0.03}))
                if rng.random() < 0.05:
                    group[-1] = group[-1].replace(b'"is_last": true',
                                                  b'"is_last": false')
                continue
            group.append(rec(key, step, r, rng.randint(1, 4),
                             masked=rng.random() < 0.05, keyless=keyless))
        # Wrong sizes, bad lines inside groups, a key that comes back,
        # a record across a change of the batch key.
        if sized and rng.random() < 0.15:
            group.pop(rng.randrange(len(group)))
        if rng.random() < 0.25:
            group.insert(rng.randrange(len(group) + 1),
                         bad_line(key, step, keyless))
        if mode == "batch-key" and rng.random() < 0.1:
            group.append(rec(key, step + 1, 1.0, 1))
        if mode in ("key", "key-size") and ended and rng.random() < 0.1:
            group.append(rec(rng.choice(ended), step, 1.0, 1))
        ended.append(key)
        lines.extend(group)
    if mode.startswith("unsorted"):
        rng.shuffle(lines)
    # A header line without a key first, now and then.
    if rng.random() < 0.3:
        lines.insert(0, rec("", 0, 0.0, 1, keyless=not keyless))
    out = []
    for l in lines:
        if rng.random() < 0.05:
            out.append(rng.choice([b"", b"   ", b"\t"]))
        out.append(l + (b"\r" if rng.random() < 0.1 else b""))
    return out, G

def records(lines):
    return [l.rstrip(b"\r") for l in lines if l.strip(b" \t\r") != b""]

def prefix_of_output(o):
    at = o.rfind(b'"advantage"')
    return o[:at].rstrip().rstrip(b",").rstrip() if at >= 0 else o

def check(name, ok, why):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL %s: %s" % (name, why))
    return ok

def run(args, src, path, data):
    stdin = None
    if src == "pipe":
        stdin = subprocess.PIPE
    p = subprocess.Popen([rladv] + args + ([] if src == "pipe" else [path]),
                         stdin=stdin, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    out, err = p.communicate(data if src == "pipe" else None, timeout=60)
    return p.returncode, out, err

totals = [0, 0]
for t in range(trials):
    mode = MODES[t % len(MODES)]
    est = rng.choice(ESTS)
    if mode.startswith("unsorted") and "--scope" in est:
        est = ["-a", "grpo"]
    lines, G = make_log(mode)
    data = b"".join(l + b"\n" for l in lines)
    src = rng.choice(["file", "pipe", "gzip"])
    path = os.path.join(tmp, "log%d.jsonl" % t)
    if src == "gzip":
        path += ".gz"
        with gzip.open(path, "wb") as f:
            f.write(data)
    else:
        with open(path, "wb") as f:
            f.write(data)
    args = est + ["--no-tokens", "--on-error", "skip", "--max-line",
                  str(MAXLINE)]
    if mode in ("key-size", "keyless", "unsorted-size"):
        args += ["--group-size", str(G)]
    if mode.startswith("unsorted"):
        args += ["--unsorted"]
    if mode == "batch-key":
        args += ["--batch-key", "step"]
    if mode == "batch-groups":
        args += ["--batch-groups", str(rng.randint(1, 4))]
    if mode == "traj":
        args += ["--trajectory-key", "trajectory_id"]
        if rng.random() < 0.5:
            args += ["--trajectory-last-key", "is_last"]
    name = "trial %d (seed %d): %s %s" % (t, seed, src, " ".join(args))
    res = []
    for j in ("1", "2"):
        rej = os.path.join(tmp, "rej%d.%s" % (t, j))
        st, out, err = run(["-j", j, "--rejects", rej] + args, src, path,
                           data)
        try:
            with open(rej, "rb") as f:
                rejected = f.read()
        except FileNotFoundError:	# a failed run leaves none
            rejected = None
        res.append((st, out, err, rejected))
    st, out, err, rejected = res[0]
    if not check(name + " status", st == 0,
                 "exit %d: %s" % (st, err[-300:])):
        continue
    m = re.search(rb"(\d+) records? in, (\d+) out, (\d+) rejected", err)
    if not check(name + " summary", m is not None, err[-300:]):
        continue
    nin, nout, nrej = (int(x) for x in m.groups())
    recs = records(lines)
    outl = out.splitlines()
    rejl = rejected.split(b"\n")[:-1] if rejected else []
    totals[0] += nin
    totals[1] += nrej
    check(name + " in", nin == len(recs),
          "%d records in, the log has %d" % (nin, len(recs)))
    check(name + " in = out + rejected", nin == nout + nrej,
          "%d != %d + %d" % (nin, nout, nrej))
    check(name + " out", nout == len(outl),
          "summary says %d out, %d written" % (nout, len(outl)))
    check(name + " rejected", nrej == len(rejl),
          "summary says %d rejected, %d in --rejects" % (nrej, len(rejl)))
    # The log's records, as a multiset, are the rejected lines plus the
    # records written (each begins as its input line did).
    left = {}
    for l in recs:
        left[l] = left.get(l, 0) + 1
    miss = []
    for l in rejl:
        if left.get(l, 0) > 0:
            left[l] -= 1
        else:
            miss.append(l)
    check(name + " rejects verbatim", not miss,
          "not a line of the log: %r" % (miss[:1],))
    byprefix = {}
    for l, c in left.items():
        if c > 0:
            byprefix.setdefault(l.rstrip()[:-1].rstrip(), []).extend([l] * c)
    lost = []
    for o in outl:
        ls = byprefix.get(prefix_of_output(o))
        if ls:
            ls.pop()
        else:
            lost.append(o)
    check(name + " records written", not lost,
          "not a record of the log: %r" % (lost[:1],))
    check(name + " -j 2", res[1] == res[0], "-j 2 differs from -j 1")

print("%d records in, %d rejected" % tuple(totals))
print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
EOF
