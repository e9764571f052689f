#!/usr/bin/env python3
"""Rewards times 2^-K must give the same advantages, times 2^-K for the
estimators that scale with the rewards, bit for bit: rladv computes a
group whose rewards pass 2^500 or fall below 2^-500 on the rewards
brought near 1 by a power of two, eps along (eps given here times 2^-K
too, a power of two that stays exact).  Random groups of verl-like
records (uid, tool_calls, response_mask), rewards multiples of 1/16
below 1 in magnitude, most groups with one of magnitude 0.5 or more, so
that the unscaled run needs no prescaling and the scaled one is brought
to the same numbers; K in 700, 1020 (rewards of 2^-1025, subnormal)
and -700.  --annotate's group and stratum figures too.  The estimators
that read more than the rewards (remax, loo) are not prescaled, nor are
rpp and rpp-baseline, whose whitening eps is not an option.

usage: python3 tests/scale.py RLADV [CASES [SEED]]
Prints "N passed, M failed".
"""
import json, math, random, subprocess, sys

RLADV = sys.argv[1]
N = int(sys.argv[2]) if len(sys.argv) > 2 else 300
SEED = int(sys.argv[3]) if len(sys.argv) > 3 else 1
SCALES = ('drgrpo', 'rloo', 'opo', 'gpg')
AFIELDS = {'group_mean': 1, 'group_std': 1, 'stratum_mean': 1, 'stratum_std': 1,
           'alpha_k': 0, 'offset_k': 0}


def case(rng):
    est = rng.choice(['grpo', 'drgrpo', 'rloo', 'san', 'stratified', 'msgrpo', 'opo',
                      'passk', 'gpg', 'grpo-whiten'])
    inside = est in ('grpo', 'san', 'stratified', 'msgrpo', 'grpo-whiten') and \
        rng.random() < 0.3
    # eps times 2^-K must stay exact: a power of two, or 0 (inside: 2^-2K
    # would leave the doubles)
    eps = 0.0 if inside else rng.choice([0.0, 2.0 ** -20, 2.0 ** -7])
    opts = ['-a', est, '--digits', '17', '--no-tokens', '--std',
            rng.choice(['sample', 'population'])]
    if inside:
        opts += ['--eps-inside']
    if est in ('grpo', 'drgrpo', 'stratified', 'grpo-whiten') and rng.random() < 0.3:
        opts += ['--gn-scope', 'batch']
    if est in ('grpo', 'san') and rng.random() < 0.3:
        # (--eps-inside divides by a deviation, which none has not)
        opts += ['--std-scope', rng.choice(['batch'] if inside else ['batch', 'none'])]
    if est == 'msgrpo':
        opts += ['--ms-mode', 'exact']
    recs = []
    for g in range(rng.randint(1, 4)):
        n = rng.randint(1, 6)
        rs = [rng.randint(-15, 15) / 16 for _ in range(n)]
        if rng.random() < 0.8:
            rs[rng.randrange(n)] = rng.choice([0.5, -0.5, 0.9375])
        for r in rs:
            recs.append({'uid': 'q%d' % g, 'tool_calls': rng.randint(0, 2), 'reward': r,
                         'response_mask': [1] * rng.randint(1, 4)})
    scales = est in SCALES or (est in ('grpo', 'san') and 'none' in opts)
    return opts, eps, recs, scales


def run(opts, recs, k, eps):
    inp = ''.join(json.dumps(dict(x, reward=math.ldexp(x['reward'], -k))) + '\n'
                  for x in recs)
    q = subprocess.run([RLADV] + opts + ['--annotate', '--eps', repr(math.ldexp(eps, -k))],
                       input=inp.encode(), capture_output=True)
    if q.returncode:
        return None, q.stderr.decode().strip()
    return [json.loads(l) for l in q.stdout.decode().splitlines()], None


def main():
    bad = 0
    for t in range(N):
        rng = random.Random(SEED * 100003 + t)
        opts, eps, recs, scales = case(rng)
        k = rng.choice([700, 1020, -700])
        a, err = run(opts, recs, 0, eps)
        b, err2 = (None, None) if err else run(opts, recs, k, eps)
        why = err or err2
        if not why and (len(a) != len(recs) or len(b) != len(recs)):
            why = '%d records in, %d and %d out' % (len(recs), len(a), len(b))
        if not why:
            for x, y in zip(a, b):
                want = math.ldexp(x['advantage'], -k) if scales else x['advantage']
                if y['advantage'] != want:
                    why = 'advantage %r, expected %r' % (y['advantage'], want)
                    break
                for f, deg in AFIELDS.items():
                    u, v = x['rladv'].get(f), y['rladv'].get(f)
                    if u is not None and v != math.ldexp(u, -k * deg):
                        why = '--annotate %s %r, expected %r' % (f, v, math.ldexp(u, -k * deg))
                        break
                if why:
                    break
        if why:
            bad += 1
            print('case %d: rewards times 2^%d: rladv %s --eps %r: %s'
                  % (t, -k, ' '.join(opts), math.ldexp(eps, -k), why))
    print('%d passed, %d failed' % (N - bad, bad))
    return 1 if bad else 0


sys.exit(main())
