#!/usr/bin/env python3
"""Random small batches through rladv, against the estimators and loss
modes written again here from the man page alone (nothing shared with
rladv's C): GRPO and its scopes, Dr. GRPO, RLOO, SAN, Stratified GRPO,
OPO, exact MS-GRPO (subset by subset), REINFORCE++ and its baseline,
NeMo-RL's leave-one-out, GPG, pass@k, AReaL's grpo-whiten; the six loss
modes over the batch or the group; --drop-zero-std, --eps-inside,
--std sample.  Rewards are binary, thirds, tenths (0.1 three times must
give 0), integers or decimals; masks trim tokens, some records train none.

usage: python3 tests/oracle.py RLADV [CASES [SEED]] [-v]
Prints "N passed, M failed"; -v prints a failing case's input.

Where the man page leaves a choice to rladv, the choice is the one
DESIGN.md writes down (OPO's plain mean where no token is trained, a
group of one under --gn-scope batch normalized by the batch), and a mean
whose weighted members are all equal is that value, exactly.
"""
import itertools, json, math, random, subprocess, sys

ARGS = [a for a in sys.argv[1:] if a != '-v']
RLADV = ARGS[0]
N = int(ARGS[1]) if len(ARGS) > 1 else 200
SEED0 = int(ARGS[2]) if len(ARGS) > 2 else 1


def mean(xs, w=None):
    if w is None:
        return sum(xs) / len(xs)
    pos = [a for a, b in zip(xs, w) if b > 0]
    if pos and alleq(pos):
        return pos[0]
    return sum(a * b for a, b in zip(xs, w)) / sum(w)


def std(xs, sample, w=None):
    if w is None:
        n = len(xs)
        if n - sample <= 0:
            return 0.0
        m = mean(xs)
        return math.sqrt(sum((x - m) ** 2 for x in xs) / (n - sample))
    m = mean(xs, w)
    d = sum(w) - sample
    if d <= 0:
        return 0.0
    return math.sqrt(sum(b * (a - m) ** 2 for a, b in zip(xs, w)) / d)


def alleq(xs):
    return all(x == xs[0] for x in xs)


def norm(r, xs, o, w=None):
    """(r - mean)/(std + eps) over xs, 0 when xs are equal."""
    if alleq(xs):
        return 0.0
    m = mean(xs, w)
    if o['eps_inside']:
        s = std(xs, o['sample'], w)
        return (r - m) / math.sqrt(s * s + o['eps'])
    return (r - m) / (std(xs, o['sample'], w) + o['eps'])


def whiten(vals, T):
    """verl masked_whiten over trained tokens: each value T times."""
    N = sum(T)
    if N == 0:
        return [0.0] * len(vals)
    xs = [v for v, t in zip(vals, T) if t > 0]
    if alleq(xs):
        return [0.0] * len(vals)
    m = sum(v * t for v, t in zip(vals, T)) / N
    var = sum(t * (v - m) ** 2 for v, t in zip(vals, T)) / (N - 1) if N > 1 else 0.0
    return [(v - m) / math.sqrt(var + 1e-8) for v in vals]


def msgrpo(rs, T, o):
    G = len(rs)
    tmin = o['tau_min']
    if G < tmin:
        return [0.0] * G
    taus = list(range(tmin, G + 1))
    if o['ms_weights'] == 'uniform':
        w = [1.0] * len(taus)
    elif o['ms_weights'] == 'global':
        w = [t - tmin + 1.0 for t in taus]
    else:
        w = [G - t + 1.0 for t in taus]
    s = sum(w)
    w = [x / s for x in w]
    out = []
    for i in range(G):
        a = 0.0
        others = [j for j in range(G) if j != i]
        for wt, tau in zip(w, taus):
            tot, cnt = 0.0, 0
            for c in itertools.combinations(others, tau - 1):
                S = (i,) + c
                xs = [rs[j] for j in S]
                ww = [T[j] for j in S] if o['ms_stats'] == 'token' else None
                if ww is not None and sum(ww) == 0:
                    v = 0.0
                elif alleq(xs):
                    v = 0.0
                else:
                    m = mean(xs, ww)
                    sd = std(xs, o['sample'], ww)
                    if o['eps_inside']:
                        v = (rs[i] - m) / math.sqrt(sd * sd + o['eps'])
                    else:
                        v = (rs[i] - m) / (sd + o['eps'])
                tot += v
                cnt += 1
            a += wt * tot / cnt
        out.append(a)
    return out


def advantages(batch, o):
    """batch: list of groups; group: list of records (dicts r, s, T)."""
    est = o['a']
    live = [g for g in batch if not (o['drop'] and alleq([x['r'] for x in g]))]
    allr = [x['r'] for g in live for x in g]
    res = []
    for g in batch:
        rs = [x['r'] for x in g]
        T = [x['T'] for x in g]
        G = len(g)
        if o['drop'] and alleq(rs):
            res.append([0.0] * G)
            continue
        gnb = o['gn_scope'] == 'batch'
        if G == 1 and est not in ('rpp', 'gpg') and not gnb:
            res.append([0.0])
            continue

        def gn(r):
            if o['gn_scope'] == 'batch':
                if alleq(allr):
                    return 0.0
                if o['std_scope'] == 'none' or est == 'drgrpo':
                    return r - mean(allr)
                return norm(r, allr, o)
            if est == 'drgrpo' or o['std_scope'] == 'none':
                return 0.0 if alleq(rs) else r - mean(rs)
            if o['std_scope'] == 'batch':
                if alleq(rs):
                    return 0.0
                s = std(allr, o['sample'])
                if o['eps_inside']:
                    return (r - mean(rs)) / math.sqrt(s * s + o['eps'])
                return (r - mean(rs)) / (s + o['eps'])
            return norm(r, rs, o)

        def san(i, scoped):
            k = [x['r'] for x in g if x['s'] == g[i]['s']]
            if alleq(k):
                return 0.0
            if scoped and o['std_scope'] == 'none':
                return g[i]['r'] - mean(k)
            if scoped and o['std_scope'] == 'batch':
                s = std(allr, o['sample'])
                if o['eps_inside']:
                    return (g[i]['r'] - mean(k)) / math.sqrt(s * s + o['eps'])
                return (g[i]['r'] - mean(k)) / (s + o['eps'])
            return norm(g[i]['r'], k, o)

        if est in ('grpo', 'drgrpo'):
            a = [gn(r) for r in rs]
        elif est == 'rloo':
            a = [0.0 if alleq(rs) else r - (sum(rs) - r) / (G - 1) for r in rs]
        elif est == 'san':
            a = [san(i, True) for i in range(G)]
        elif est == 'stratified':
            a = [o['alpha'] * san(i, False) + (1 - o['alpha']) * gn(rs[i])
                 for i in range(G)]
        elif est == 'opo':
            if alleq(rs):
                a = [0.0] * G
            elif sum(T) == 0:  # DESIGN.md: the plain mean
                a = [r - mean(rs) for r in rs]
            else:
                b = mean(rs, T)
                a = [r - b for r in rs]
        elif est == 'msgrpo':
            a = msgrpo(rs, T, o)
        elif est == 'rpp-baseline':
            a = [0.0 if alleq(rs) else r - mean(rs) for r in rs]
        elif est == 'rpp':
            a = list(rs)
        elif est == 'loo':
            a = []
            for i in range(G):
                ot = rs[:i] + rs[i + 1:]
                b = mean(ot)
                if alleq(rs):
                    a.append(0.0)
                elif alleq(ot):
                    a.append(rs[i] - b)
                else:
                    a.append((rs[i] - b) / (std(ot, o['sample']) + o['eps']))
        elif est == 'gpg':
            B = len(allr)
            alpha = B / max(sum(1 for r in allr if r != 0), 1)
            a = [0.0 if (alleq(rs) or G == 1) else alpha * (r - mean(rs)) for r in rs]
        elif est == 'passk':
            srt = sorted(rs, reverse=True)
            if srt[0] == srt[1]:
                a = [0.0] * G
            else:
                d = (srt[0] - srt[1]) / (std(rs, o['sample']) + o['eps'])
                a = [d if r == srt[0] else 0.0 for r in rs]
        elif est == 'grpo-whiten':
            a = [gn(r) for r in rs]
        res.append(a)
    if est in ('rpp-baseline', 'rpp', 'grpo-whiten'):
        flat = [v for gi, g in enumerate(batch) for v in res[gi]
                if not (o['drop'] and alleq([x['r'] for x in g]))]
        Ts = [x['T'] for g in batch for x in g
              if not (o['drop'] and alleq([y['r'] for y in g]))]
        w = whiten(flat, Ts)
        k = 0
        for gi, g in enumerate(batch):
            if o['drop'] and alleq([x['r'] for x in g]):
                continue
            for j in range(len(g)):
                res[gi][j] = w[k]
                k += 1
    return res


def weights(batch, adv, o):
    mode = o['g']
    live = [gi for gi, g in enumerate(batch)
            if not (o['drop'] and alleq([x['r'] for x in g]))]
    out = [[0.0] * len(g) for g in batch]
    scopes = [[gi] for gi in live] if o['scope'] == 'group' else [live]
    for sc in scopes:
        recs = [(gi, j) for gi in sc for j in range(len(batch[gi]))]
        Tn = [batch[gi][j]['T'] for gi, j in recs]
        n = sum(1 for t in Tn if t > 0)
        Nt = sum(Tn)
        if mode in ('balanced', 'balanced-gen'):
            ng = sum(1 for gi in sc if any(x['T'] > 0 for x in batch[gi]))
            for gi in sc:
                g = batch[gi]
                idx = [j for j in range(len(g)) if g[j]['T'] > 0]
                Gv = len(idx)
                if Gv == 0:
                    continue
                pos = [j for j in idx if adv[gi][j] > 0]
                neg = [j for j in idx if adv[gi][j] < 0]
                for j in idx:
                    if mode == 'balanced':
                        if j in pos:
                            c = (len(pos) / Gv) / sum(g[k]['T'] for k in pos)
                        elif j in neg:
                            c = (len(neg) / Gv) / sum(g[k]['T'] for k in neg)
                        else:
                            c = 0.0
                    else:
                        if j in pos:
                            M = sum(adv[gi][k] for k in pos)
                            Z = sum(adv[gi][k] * g[k]['T'] for k in pos)
                            c = (M / Gv) / Z
                        elif j in neg:
                            M = sum(-adv[gi][k] for k in neg)
                            Z = sum(-adv[gi][k] * g[k]['T'] for k in neg)
                            c = (M / Gv) / Z
                        else:
                            c = 0.0
                    if o['scope'] == 'batch':
                        c /= ng
                    out[gi][j] = c
            continue
        for gi, j in recs:
            t = batch[gi][j]['T']
            if t == 0:
                continue
            if mode == 'token':
                c = 1.0 / Nt
            elif mode == 'seq':
                c = 1.0 / (n * t)
            elif mode == 'seq-sum':
                c = 1.0 / n
            else:
                c = 1.0 / (n * o['max_len'])
            out[gi][j] = c
    return out


def gen(rng):
    kind = rng.choice(['bin', 'tri', 'float', 'tenth', 'int'])
    nb = rng.choice([1, 1, 2, 3])
    batches = []
    gid = 0
    for b in range(nb):
        groups = []
        for _ in range(rng.randint(1, 4)):
            G = rng.choice([1, 2, 3, 4, 5, 6, 4, 4])
            g = []
            for _ in range(G):
                if kind == 'bin':
                    r = float(rng.randint(0, 1))
                elif kind == 'tri':
                    r = rng.choice([0.0, 0.5, 1.0])
                elif kind == 'tenth':
                    r = rng.choice([0.1, 0.1, 0.1, 0.7, 0.3])
                elif kind == 'int':
                    r = float(rng.randint(-3, 3))
                else:
                    r = round(rng.uniform(-2, 2), rng.randint(1, 6))
                L = rng.choice([0, 1, 2, 3, 5, 8])
                m = [1 if rng.random() < 0.75 else 0 for _ in range(L)]
                if rng.random() < 0.1:
                    m = [0] * L
                g.append({'r': r, 's': rng.randint(0, 2), 'L': L, 'm': m,
                          'T': sum(m), 'gid': 'q%d' % gid})
            gid += 1
            groups.append(g)
        batches.append(groups)
    return batches


def opts(rng):
    est = rng.choice(['grpo', 'drgrpo', 'rloo', 'san', 'stratified', 'opo',
                      'msgrpo', 'rpp-baseline', 'rpp', 'loo', 'gpg', 'passk',
                      'grpo-whiten'])
    o = {'a': est, 'sample': rng.random() < 0.4, 'eps': rng.choice([1e-6, 1e-6, 0.01, 0.5]),
         'alpha': rng.choice([0.6, 0.0, 1.0, 0.3]), 'std_scope': 'group',
         'gn_scope': 'group', 'eps_inside': False, 'drop': rng.random() < 0.25,
         'g': rng.choice(['token', 'seq', 'seq-sum', 'seq-sum-norm', 'balanced',
                          'balanced-gen']),
         'scope': rng.choice(['batch', 'group']), 'max_len': rng.choice([8, 10, 16]),
         'tau_min': rng.choice([2, 2, 3]), 'ms_weights': rng.choice(['uniform', 'global', 'local']),
         'ms_stats': rng.choice(['seq', 'token'])}
    if est in ('grpo', 'stratified', 'san') and rng.random() < 0.4:
        o['std_scope'] = rng.choice(['batch', 'none'])
    if est in ('grpo', 'drgrpo', 'stratified', 'grpo-whiten') and rng.random() < 0.3:
        o['gn_scope'] = 'batch'
    if est in ('grpo', 'san', 'stratified', 'msgrpo', 'grpo-whiten') and rng.random() < 0.3:
        o['eps_inside'] = True
    return o


def argv(o):
    a = ['-a', o['a'], '-g', o['g'], '--scope', o['scope'], '--eps', repr(o['eps']),
         '--std', 'sample' if o['sample'] else 'population', '--digits', '17',
         '--batch-key', 'step']
    if o['a'] == 'stratified':
        a += ['--alpha', repr(o['alpha'])]
    if o['std_scope'] != 'group':
        a += ['--std-scope', o['std_scope']]
    if o['gn_scope'] != 'group':
        a += ['--gn-scope', o['gn_scope']]
    if o['eps_inside']:
        a += ['--eps-inside']
    if o['drop']:
        a += ['--drop-zero-std']
    if o['g'] == 'seq-sum-norm':
        a += ['--max-len', str(o['max_len'])]
    if o['a'] == 'msgrpo':
        a += ['--ms-mode', 'exact', '--tau-min', str(o['tau_min']), '--ms-weights',
              o['ms_weights'], '--ms-stats', o['ms_stats']]
    return a


def close(a, b):
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


def main():
    fails = 0
    for t in range(N):
        rng = random.Random(SEED0 * 100003 + t)
        batches = gen(rng)
        o = opts(rng)
        lines = []
        for bi, b in enumerate(batches):
            for g in b:
                for x in g:
                    lines.append(json.dumps({'prompt_id': x['gid'], 'step': bi,
                                             'tool_calls': x['s'], 'reward': x['r'],
                                             'logprobs': [-0.5] * x['L'], 'mask': x['m']}))
        inp = '\n'.join(lines) + '\n'
        p = subprocess.run([RLADV] + argv(o), input=inp.encode(), capture_output=True)
        exp = []
        for b in batches:
            adv = advantages(b, o)
            w = weights(b, adv, o)
            for gi, g in enumerate(b):
                for j in range(len(g)):
                    exp.append((adv[gi][j], w[gi][j], g[j]))
        if p.returncode != 0:
            print('case %d: rladv %s: rc %d: %s' % (t, ' '.join(argv(o)), p.returncode,
                                                    p.stderr.decode().strip()))
            fails += 1
            continue
        got = [json.loads(l) for l in p.stdout.decode().splitlines()]
        bad = []
        for k, (rec, (a, w, x)) in enumerate(zip(got, exp)):
            if not close(rec['advantage'], a):
                bad.append('line %d advantage %r, expected %r' % (k + 1, rec['advantage'], a))
            if not close(rec['loss_weight'], w):
                bad.append('line %d loss_weight %r, expected %r' % (k + 1, rec['loss_weight'], w))
            ta = [rec['advantage'] * m for m in x['m']]
            if len(rec['token_advantages']) != x['L'] or not all(
                    close(u, v) for u, v in zip(rec['token_advantages'], ta)):
                bad.append('line %d token_advantages' % (k + 1))
        if bad:
            fails += 1
            print('case %d: rladv %s' % (t, ' '.join(argv(o))))
            for l in bad[:4]:
                print('   ', l)
            if '-v' in sys.argv:
                print(inp)
    print('%d passed, %d failed' % (N - fails, fails))
    return 1 if fails else 0


sys.exit(main())
