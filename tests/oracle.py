#!/usr/bin/env python3
"""Random small batches through rladv, against the estimators and loss
modes written again here from the man page alone (nothing shared with
rladv's C): GRPO and its scopes, Dr. GRPO, RLOO, SAN, Stratified GRPO,
OPO, exact MS-GRPO (subset by subset), REINFORCE++ and its baseline,
NeMo-RL's leave-one-out, GPG, pass@k, AReaL's grpo-whiten, GDPO (each reward
field of a two-field layout normalized apart); the seven loss
modes over the batch or the group; --drop-zero-std, --eps-inside,
--std sample, --eps 0.  Rewards are binary, thirds, tenths (0.1 three
times must give 0), integers, decimals, millions or ten-millionths; masks
trim tokens, some records train none.
The records come in the layouts rladv reads: batches by a step field,
--batch-groups or the whole input; groups by a key, --group-size blocks
or shuffled under --unsorted; one reward field, or TRL's two weighted,
with nulls (--null-reward unscored); SkyRL's step-wise rows
(--trajectory-key); slime's split rollouts (--rollout-key, ids shared
across groups, some null); --stratum-cap; masks as 0/1, booleans, floats,
absent, or OpenRLHF's spans; lengths from log-probs, token ids or the
mask; NeMo-RL's sample_loss_mask; every value a batch of one (--unwrap);
ROLL's lines of columns (--columnar).
A 0 that a rule gives (equal
rewards, a group of one, a weighted mean of equal rewards) must be
exactly 0; every other number within 1e-9.  On the same input (where
each record is one line and every reward scored), rladv stats --json's
totals are checked against their definitions in docs/stats_diff.md, and
so are rladv diff --json's figures for these options against another
random configuration (every other case), and --annotate's figures
(every third case).  Every fourth case goes in by the other routes too,
each of which must write the bytes that standard input gave: the file
mapped, gzip'd, cut in two files, -j 1, -j 8, -o FILE.gz, and three
shards through rladv index, index --merge and compute --index.  Every
fourth other case gets broken lines mixed in, which --on-error skip must
leave out as if they were not there, each in --rejects.

usage: python3 tests/oracle.py RLADV [CASES [SEED]] [-v]
Prints "N passed, M failed"; -v prints a failing case's input.

Where the man page leaves a choice to rladv, the choice is the one
DESIGN.md writes down (OPO's plain mean where no token is trained, a
group of one under --gn-scope batch normalized by the batch), and a mean
whose weighted members are all equal is that value, exactly.
"""
import gzip, itertools, json, math, os, random, re, subprocess, sys, tempfile
from fractions import Fraction

ARGS = [a for a in sys.argv[1:] if a != '-v']
RLADV = ARGS[0]
N = int(ARGS[1]) if len(ARGS) > 1 else 200
SEED0 = int(ARGS[2]) if len(ARGS) > 2 else 1


class Zero(float):
    """A 0 that a rule gives (equal rewards, a group of one, a dropped
    group, a weighted mean of equal rewards): rladv must write exactly 0,
    whatever the order of its sums."""


Z = Zero(0.0)


def wequal(xs, w):
    """The members that weigh something share one value."""
    pos = [a for a, b in zip(xs, w) if b > 0]
    return bool(pos) and alleq(pos)


def mean(xs, w=None):
    """The exact mean of the doubles, rounded once (as rladv's means of
    rewards are: 0.1, 0.2, 0.3 have the mean 0.2)."""
    if w is None:
        return float(sum(Fraction(x) for x in xs) / len(xs))
    return float(sum(Fraction(a) * Fraction(b) for a, b in zip(xs, w)) /
                 sum(Fraction(b) for b in w))


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
        return Z
    m = mean(xs, w)
    if o['eps_inside']:
        s = std(xs, o['sample'], w)
        return (r - m) / math.sqrt(s * s + o['eps'])
    return (r - m) / (std(xs, o['sample'], w) + o['eps'])


def whiten(vals, T):
    """verl masked_whiten over trained tokens: each value T times."""
    N = sum(T)
    if N == 0:
        return [Z] * len(vals)
    xs = [v for v, t in zip(vals, T) if t > 0]
    if alleq(xs):
        return [Z] * len(vals)
    m = mean(vals, T)
    var = sum(t * (v - m) ** 2 for v, t in zip(vals, T)) / (N - 1) if N > 1 else 0.0
    return [(v - m) / math.sqrt(var + 1e-8) for v in vals]


def msgrpo(rs, T, o):
    G = len(rs)
    tmin = o['tau_min']
    if G < tmin:
        return [Z] * G
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
        allz = True
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
                elif ww is not None and wequal(xs, ww) and rs[i] == mean(xs, ww):
                    v = 0.0
                else:
                    allz = False
                    m = mean(xs, ww)
                    sd = std(xs, o['sample'], ww)
                    den = math.sqrt(sd * sd + o['eps']) if o['eps_inside'] else sd + o['eps']
                    v = (rs[i] - m) / den if den > 0 else 0.0
                tot += v
                cnt += 1
            a += wt * tot / cnt
        out.append(Z if allz else a)
    return out


def gdpo(batch, o):
    """GDPO: each reward field normalized in the group over the records
    that have it (a field of fewer than two numbers, or of equal ones,
    adds 0), summed with the weights (one field: the reward itself), then
    over the batch's live records A / (std about 0 + eps): the sums'
    mean is 0 by construction."""
    live = [g for g in batch if not (o['drop'] and alleq([x['r'] for x in g]))]
    A = {}
    for g in live:
        for x in g:
            A[id(x)] = 0.0
        K = len(g[0]['parts']) if 'parts' in g[0] else 1
        for k in range(K):
            has = [(x, x['parts'][k] if 'parts' in x
                    else x['r']) for x in g
                   if 'parts' not in x or x['parts'][k] is not None]
            xs = [v for _, v in has]
            if len(xs) < 2 or alleq(xs):
                continue
            for x, v in has:
                w = x['w'][k] if 'parts' in x else 1.0
                A[id(x)] += w * norm(v, xs, o)
    xs = list(A.values())
    if all(a == 0 for a in xs) or (o['sample'] and len(xs) < 2):
        return [[Z] * len(g) for g in batch]
    var = sum(a * a for a in xs) / (len(xs) - 1 if o['sample'] else len(xs))
    den = math.sqrt(var + o['eps']) if o['eps_inside'] else math.sqrt(var) + o['eps']
    return [[A[id(x)] / den if id(x) in A and A[id(x)] != 0 else Z for x in g]
            for g in batch]


def advantages(batch, o):
    """batch: list of groups; group: list of records (dicts r, s, T)."""
    est = o['a']
    if est == 'gdpo':
        return gdpo(batch, o)
    live = [g for g in batch if not (o['drop'] and alleq([x['r'] for x in g]))]
    allr = [x['r'] for g in live for x in g]
    res = []
    for g in batch:
        rs = [x['r'] for x in g]
        T = [x['T'] for x in g]
        G = len(g)
        if o['drop'] and alleq(rs):
            res.append([Z] * G)
            continue
        gnb = o['gn_scope'] == 'batch'
        if G == 1 and est not in ('rpp', 'gpg') and not gnb:
            res.append([Z])
            continue

        def gn(r):
            if o['gn_scope'] == 'batch':
                if alleq(allr):
                    return Z
                if o['std_scope'] == 'none' or est == 'drgrpo':
                    return r - mean(allr)
                return norm(r, allr, o)
            if est == 'drgrpo' or o['std_scope'] == 'none':
                return Z if alleq(rs) else r - mean(rs)
            if o['std_scope'] == 'batch':
                if alleq(rs):
                    return Z
                s = std(allr, o['sample'])
                if o['eps_inside']:
                    return (r - mean(rs)) / math.sqrt(s * s + o['eps'])
                return (r - mean(rs)) / (s + o['eps'])
            return norm(r, rs, o)

        def san(i, scoped):
            k = [x['r'] for x in g if x['s'] == g[i]['s']]
            if alleq(k):
                return Z
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
            a = [Z if alleq(rs) else r - mean(rs[:i] + rs[i + 1:]) for i, r in enumerate(rs)]
        elif est == 'san':
            a = [san(i, True) for i in range(G)]
        elif est == 'stratified':
            a = []
            for i in range(G):
                u, v = san(i, False), gn(rs[i])
                a.append(Z if isinstance(u, Zero) and isinstance(v, Zero)
                         else o['alpha'] * u + (1 - o['alpha']) * v)
        elif est == 'opo':
            if alleq(rs):
                a = [Z] * G
            elif sum(T) == 0:  # DESIGN.md: the plain mean
                a = [r - mean(rs) for r in rs]
            else:
                b = mean(rs, T)
                a = [Z if r == b and wequal(rs, T) else r - b for r in rs]
        elif est == 'msgrpo':
            a = msgrpo(rs, T, o)
        elif est == 'rpp-baseline':
            a = [Z if alleq(rs) else r - mean(rs) for r in rs]
        elif est == 'rpp':
            a = list(rs)
        elif est == 'loo':
            a = []
            for i in range(G):
                ot = rs[:i] + rs[i + 1:]
                b = mean(ot)
                if alleq(rs):
                    a.append(Z)
                elif alleq(ot):
                    a.append(rs[i] - b)
                else:
                    a.append((rs[i] - b) / (std(ot, o['sample']) + o['eps']))
        elif est == 'gpg':
            B = len(allr)
            alpha = B / max(sum(1 for r in allr if r != 0), 1)
            a = [Z if (alleq(rs) or G == 1) else alpha * (r - mean(rs)) for r in rs]
        elif est == 'passk':
            srt = sorted(rs, reverse=True)
            if srt[0] == srt[1]:
                a = [Z] * G
            else:
                d = (srt[0] - srt[1]) / (std(rs, o['sample']) + o['eps'])
                a = [d if r == srt[0] else Z for r in rs]
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
    # --drop-zero-std: a group's scored rewards decide (none: dropped).
    live = [gi for gi, g in enumerate(batch)
            if not (o['drop'] and alleq([x['r'] for x in g
                                         if x.get('scored', True)]))]
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
        # --rollout-key (slime's rollout_id): the seq modes' sequence is
        # the rollout, its tokens M the sum of its samples' in the scope
        # (a null id: a rollout of its own), n the rollouts with tokens.
        M = {}
        for gi, j in recs:
            x = batch[gi][j]
            if x.get('rk') is not None:
                M[x['rk']] = M.get(x['rk'], 0) + x['T']
        if M:
            n = sum(1 for gi, j in recs if batch[gi][j].get('rk') is None
                    and batch[gi][j]['T'] > 0) + sum(1 for v in M.values() if v > 0)
        for gi, j in recs:
            t = batch[gi][j]['T']
            if t == 0:
                continue
            if batch[gi][j].get('rk') is not None:
                t = M[batch[gi][j]['rk']]
            if mode == 'token':
                c = 1.0 / Nt
            elif mode == 'seq':
                c = 1.0 / (n * t)
            elif mode == 'seq-sum':
                c = 1.0 / n
            elif mode == 'prompt':
                # a token mean in each group, the mean over the groups
                # of the scope that have a trained token
                P = sum(1 for gk in sc if any(x['T'] > 0 for x in batch[gk]))
                c = 1.0 / P / sum(x['T'] for x in batch[gi])
            else:
                c = 1.0 / (n * o['max_len'])
            out[gi][j] = c
    return out


def gen(rng):
    kind = rng.choice(['bin', 'tri', 'float', 'tenth', 'int', 'big', 'small'])
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
                elif kind == 'big':
                    r = rng.choice([1e6, -3e6, 2.5e6, 1e6 + 1])
                elif kind == 'small':
                    r = rng.choice([1e-7, 3e-7, -2e-7, 0.0])
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
                      'grpo-whiten', 'gdpo'])
    o = {'a': est, 'sample': rng.random() < 0.4, 'eps': rng.choice([1e-6, 1e-6, 0.01, 0.5, 0.0]),
         'alpha': rng.choice([0.6, 0.0, 1.0, 0.3]), 'std_scope': 'group',
         'gn_scope': 'group', 'eps_inside': False, 'drop': rng.random() < 0.25,
         'g': rng.choice(['token', 'seq', 'seq-sum', 'seq-sum-norm', 'balanced',
                          'balanced-gen', 'prompt']),
         'scope': rng.choice(['batch', 'group']), 'max_len': rng.choice([8, 10, 16]),
         'tau_min': rng.choice([2, 2, 3]), 'ms_weights': rng.choice(['uniform', 'global', 'local']),
         'ms_stats': rng.choice(['seq', 'token']),
         # auto is exact within --ms-budget, which these small groups are
         'ms_mode': rng.choice(['exact', 'auto'])}
    if est in ('grpo', 'stratified', 'san') and rng.random() < 0.4:
        o['std_scope'] = rng.choice(['batch', 'none'])
    if est in ('grpo', 'drgrpo', 'stratified', 'grpo-whiten') and rng.random() < 0.3:
        o['gn_scope'] = 'batch'
    if est in ('grpo', 'san', 'stratified', 'msgrpo', 'grpo-whiten', 'gdpo') and rng.random() < 0.3:
        # (--std-scope none divides by nothing: --eps-inside is refused)
        o['eps_inside'] = o['std_scope'] != 'none'
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
        a += ['--ms-mode', o['ms_mode'], '--tau-min', str(o['tau_min']), '--ms-weights',
              o['ms_weights'], '--ms-stats', o['ms_stats']]
    return a


def residue(v, ours=True):
    """v may be a residue of rounding, whose sign another order of sums
    would change: tiny but not 0, or (ours) a 0 that rounding happened to
    give rather than one a rule gives."""
    if ours and v == 0:
        return not isinstance(v, Zero)
    return 0 < abs(v) < 1e-12


def close(a, b):
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


def layout(batches, o, rng):
    """The records as a framework writes them, in one of the layouts rladv
    reads; returns the lines, each with what it must carry, and the options
    that say how to read them."""
    extra = []
    groups = [g for b in batches for g in b]
    # Batches: a step field, every n groups, or the whole input.
    how = rng.choice(['key', 'key', 'groups', 'whole'])
    if how == 'groups':
        n = rng.randint(1, 3)
        batches = [groups[k:k + n] for k in range(0, len(groups), n)]
        extra += ['--batch-groups', str(n)]
    elif how == 'whole':
        batches = [groups]
    else:
        extra += ['--batch-key', 'step']
    # Groups: a key, blocks of --group-size (all groups one size), or a key
    # with each batch's responses shuffled (--unsorted).
    sizes = set(len(g) for g in groups)
    grouping = rng.choice(['key', 'key', 'unsorted'] +
                          (['size'] if len(sizes) == 1 else []))
    if grouping == 'size':
        extra += ['--group-size', str(sizes.pop())]
    elif grouping == 'unsorted':
        extra += ['--unsorted']
    # Rewards: one field, or two weighted (TRL's reward functions), where a
    # null counts 0 beside a number and a response with none is unscored.
    rew = rng.choice(['one', 'one', 'two'])
    wts = (rng.choice([1.0, 0.5, 2.0]), rng.choice([1.0, 0.25, 3.0]))
    if rew == 'two':
        extra += ['--reward-key', 'correctness,format', '--reward-weights',
                  '%r,%r' % wts, '--null-reward', 'unscored']
    # Trajectories (SkyRL's step-wise rows): a response cut into rows,
    # its reward on the last one.
    # ROLL's dump (--columnar): a line of columns, several records.
    columnar = rng.random() < 0.15
    traj = rew == 'one' and not columnar and rng.random() < 0.25
    if traj:
        extra += ['--trajectory-key', 'trajectory_id']
    # slime's rollouts split in samples (--rollout-key): a few ids shared
    # across the groups of a batch, some null (a rollout each).
    roll = not traj and rng.random() < 0.3
    if roll:
        extra += ['--rollout-key', 'rollout_id']
    if o['a'] in ('san', 'stratified') and rng.random() < 0.3:
        extra += ['--stratum-cap', '2']
        for g in groups:
            for x in g:
                x['s'] = min(x['s'], 2)
    # The mask as 0/1, booleans, floats (torch's tolist()), absent where
    # it is all 1, or OpenRLHF's spans; the length from the log-probs, the
    # token ids or the mask alone; NeMo-RL's sample_loss_mask.
    mstyle = rng.choice(['int', 'int', 'bool', 'float', 'spans'] +
                        ([] if columnar else ['absent']))
    lstyle = rng.choice(['logprobs', 'logprobs', 'tokens', 'none'])
    if lstyle == 'none' and mstyle in ('absent', 'spans'):
        lstyle = 'logprobs'
    if mstyle == 'spans':
        extra += ['--mask-spans', 'action_ranges']
    smask = not traj and rng.random() < 0.2
    if smask:
        extra += ['--sample-mask-key', 'sample_loss_mask']
        for g in groups:
            for x in g:
                x['smask'] = 0 if rng.random() < 0.25 else 1
                x['m0'] = x['m']
                if not x['smask']:
                    x['m'] = [0] * x['L']
                    x['T'] = 0

    def tokens(obj, m):
        if lstyle == 'logprobs':
            obj['logprobs'] = [-0.5] * len(m)
        elif lstyle == 'tokens':
            obj['response_ids'] = [rng.randint(0, 151000) for _ in m]
        if mstyle == 'spans':
            sp, k = [], 0
            while k < len(m):
                if m[k]:
                    e = k
                    while e < len(m) and m[e]:
                        e += 1
                    sp.append([k, e])
                    k = e
                else:
                    k += 1
            obj['action_ranges'] = sp
        elif mstyle == 'bool':
            obj['mask'] = [v == 1 for v in m]
        elif mstyle == 'float':
            obj['mask'] = [float(v) for v in m]
        elif mstyle == 'int' or lstyle == 'none' or not all(m):
            obj['mask'] = list(m)

    units = []          # (batch, [(json object, record, row mask)])
    tid = 0
    for bi, b in enumerate(batches):
        for g in b:
            for x in g:
                obj = {}
                if grouping != 'size':
                    obj['prompt_id'] = x['gid']
                if how == 'key':
                    obj['step'] = bi
                obj['tool_calls'] = x['s']
                if roll:
                    v = rng.choice([None, None, 0, 1, 2, 'r0', 'r1'])
                    obj['rollout_id'] = v
                    # per batch, by type: 1 and "1" are two rollouts
                    x['rk'] = None if v is None else (bi, type(v).__name__, v)
                if rew == 'two':
                    u = rng.choice(['both', 'both', 'a', 'b', 'none'])
                    a = float(rng.randint(0, 2)) if u in ('both', 'a') else None
                    c = rng.choice([0.0, 0.5, 1.0]) if u in ('both', 'b') else None
                    obj['correctness'] = a
                    obj['format'] = c
                    x['scored'] = u != 'none'
                    x['r'] = (a or 0.0) * wts[0] + (c or 0.0) * wts[1]
                    x['parts'], x['w'] = (a, c), wts
                else:
                    obj['reward'] = x['r']
                if not traj or x['L'] < 2 or rng.random() < 0.4:
                    if smask:
                        obj['sample_loss_mask'] = x['smask']
                        tokens(obj, x['m0'] if not x['smask'] else x['m'])
                    else:
                        tokens(obj, x['m'])
                    units.append((bi, [(obj, x, x['m'])]))
                    continue
                cut = sorted(rng.sample(range(1, x['L']), rng.randint(1, min(2, x['L'] - 1))))
                cut = [0] + cut + [x['L']]
                rows = []
                for k in range(len(cut) - 1):
                    row = dict(obj)
                    row['trajectory_id'] = 't%d' % tid
                    m = x['m'][cut[k]:cut[k + 1]]
                    tokens(row, m)
                    if k < len(cut) - 2:
                        row['reward'] = 0.0
                    rows.append((row, x, m))
                tid += 1
                units.append((bi, rows))
            if traj:
                for u in units:
                    if 'trajectory_id' not in u[1][0][0]:
                        u[1][0][0]['trajectory_id'] = 't%d' % tid
                        tid += 1
    if grouping == 'unsorted':
        out = []
        for bi in range(len(batches)):
            us = [u for u in units if u[0] == bi]
            rng.shuffle(us)
            out += us
        units = out
    # NeMo-RL's logger: every value a batch of one (--unwrap).
    if not columnar and rng.random() < 0.15:
        extra += ['--unwrap']
        for _, rows in units:
            for obj, _, _ in rows:
                for k in list(obj):
                    obj[k] = [obj[k]]
    lines = [(json.dumps(obj), x, m) for _, rows in units for obj, x, m in rows]
    if columnar:
        # Lines of one to four records, never across a batch (nor, under
        # --batch-groups, a group); a line holds the first record's text,
        # the others None.
        extra += ['--columnar']
        lines, k = [], 0
        while k < len(units):
            n = rng.randint(1, 4)
            chunk = [units[k]]
            while len(chunk) < n and k + len(chunk) < len(units):
                u, v = chunk[-1][1][0], units[k + len(chunk)][1][0]
                if units[k + len(chunk)][0] != chunk[0][0] or \
                        (how == 'groups' and u[1]['gid'] != v[1]['gid']):
                    break
                chunk.append(units[k + len(chunk)])
            k += len(chunk)
            objs = [u[1][0][0] for u in chunk]
            text = json.dumps({key: [o[key] for o in objs] for key in objs[0]})
            for j, u in enumerate(chunk):
                lines.append((text if j == 0 else None, u[1][0][1], u[1][0][2]))
    # A group's sums run in the order of its records in the input, as
    # rladv's do (the last bits of a mean depend on it).
    at = {}
    for k, (_, x, _) in enumerate(lines):
        at.setdefault(id(x), k)
    for b in batches:
        for g in b:
            g.sort(key=lambda x: at[id(x)])
        b.sort(key=lambda g: at[id(g[0])])
    return batches, lines, extra


def expected(batches, o):
    """Advantage and loss weight of each record (keyed by id).  TRL's rule
    from 1.6.0 for an unscored record (every reward function None): out of
    every sum of the advantages (its group's mean and deviation, the
    batch's moments; a group with no scored record has none), advantage 0,
    and a record of the loss like any other (TRL's completion mask and
    num_items_in_batch keep it): its tokens in N, itself in n, its group
    live, its own weight.  --drop-zero-std judges a group on its scored
    records and drops it whole."""
    res = {}
    for b in batches:
        sb = [[x for x in g if x.get('scored', True)] for g in b]
        adv = dict(zip((id(x) for g in sb if g for x in g),
                       (a for ag in advantages([g for g in sb if g], o)
                        for a in ag)))
        full = [[adv.get(id(x), 0.0) for x in g] for g in b]
        w = weights(b, full, o)
        for gi, g in enumerate(b):
            for j, x in enumerate(g):
                res[id(x)] = (full[gi][j], w[gi][j])
    return res


def stats_expected(batches):
    """rladv stats' figures over the whole input, from their definitions:
    strata pooled, T the trained tokens, the sign that of r - group mean,
    Stratified GRPO's Theorem 1 pooled over groups."""
    groups = [g for b in batches for g in b]
    recs = [x for g in groups for x in g]
    n = len(recs)
    e = {'records': n, 'groups': len(groups)}
    hist = {}
    for g in groups:
        hist[len(g)] = hist.get(len(g), 0) + 1
    e['group_sizes'] = [{'size': k, 'groups': hist[k]} for k in sorted(hist)]
    strata = []
    for k in sorted(set(x['s'] for x in recs)):
        rs = [x['r'] for x in recs if x['s'] == k]
        strata.append({'records': len(rs), 'share': len(rs) / n,
                       'reward_mean': mean(rs), 'reward_std': std(rs, 0)})
    e['strata'] = strata
    zero = sum(1 for g in groups if alleq([x['r'] for x in g]))
    e['zero_std_groups'] = zero
    e['frac_reward_zero_std'] = zero / len(groups)
    T = [x['T'] for x in recs]
    mt = mean(T)
    e['length'] = {'mean': mt, 'std': std(T, 0),
                   'cv': std(T, 0) / mt if mt > 0 else None}
    pos, neg, nz = [], [], 0
    both = False
    tot = wi = be = 0.0
    shares = []
    for g in groups:
        rs = [x['r'] for x in g]
        if alleq(rs):
            nz += len(g)
            continue
        m = mean(rs)
        p = [x['T'] for x in g if x['r'] - m > 0]
        q = [x['T'] for x in g if x['r'] - m < 0]
        nz += len(g) - len(p) - len(q)
        both = both or (p and q)
        pos += p
        neg += q
        t = sum((r - m) ** 2 for r in rs)
        w = b = 0.0
        for k in set(x['s'] for x in g):
            rk = [x['r'] for x in g if x['s'] == k]
            mk = mean(rk)
            w += sum((r - mk) ** 2 for r in rk)
            b += len(rk) * (mk - m) ** 2
        tot += t
        wi += w
        be += b
        if t > 0:
            shares.append(b / t)
    sg = {'positive': {'records': len(pos), 'mean_length': mean(pos) if pos else None},
          'negative': {'records': len(neg), 'mean_length': mean(neg) if neg else None},
          'zero': {'records': nz}}
    if pos and neg:
        gap = mean(pos) - mean(neg)
        sg['length_gap'] = gap
        sg['relative_gap'] = gap / mt if mt > 0 else None
    e['sign'] = sg
    e['reward_variance'] = {'total': tot / n, 'within': wi / n, 'between': be / n,
                            'between_share': be / tot if tot > 0 else None,
                            'groups_with_variance': len(shares),
                            'mean_group_between_share':
                                mean(shares) if shares else None}
    return e


def stats_diff(exp, got, path=''):
    """Where got (rladv stats --json) differs from exp; got may have more."""
    if isinstance(exp, dict):
        out = []
        for k, v in exp.items():
            if k not in got:
                out.append('%s.%s missing' % (path, k))
            else:
                out += stats_diff(v, got[k], path + '.' + k)
        return out
    if isinstance(exp, list):
        if len(exp) != len(got):
            return ['%s: %d entries, expected %d' % (path, len(got), len(exp))]
        return [d for k, (a, b) in enumerate(zip(exp, got))
                for d in stats_diff(a, b, '%s[%d]' % (path, k))]
    if exp is None or got is None:
        return [] if exp is got else ['%s: %r, expected %r' % (path, got, exp)]
    return [] if close(got, exp) else ['%s: %r, expected %r' % (path, got, exp)]


def diff_expected(batches, oa, ob):
    """rladv diff --json's figures (docs/stats_diff.md) for the two sides."""
    recs = [x for b in batches for g in b for x in g]
    side = {}
    for name, o in (('a', oa), ('b', ob)):
        e = expected(batches, o)
        side[name] = [e[id(x)] for x in recs]
    d = {'records': len(recs), 'groups': sum(len(b) for b in batches)}
    for name in ('a', 'b'):
        A = [a for a, _ in side[name]]
        mass = sum(abs(a) * w * x['T'] for (a, w), x in zip(side[name], recs))
        d[name] = {'mean': mean(A), 'var': std(A, 0) ** 2, 'mass': mass}
    # Cells: (group, stratum).  cell_var pools those whose rewards differ;
    # the offset is over the groups with two strata or more.
    at = {id(x): i for i, x in enumerate(recs)}
    cells = []
    for b in batches:
        for g in b:
            ks = sorted(set(x['s'] for x in g))
            for k in ks:
                cells.append((k, len(ks) > 1, [at[id(x)] for x in g if x['s'] == k]))
    for name in ('a', 'b'):
        num = den = 0.0
        for _, multi, idx in cells:
            if multi:
                cm = mean([side[name][i][0] for i in idx])
                num += len(idx) * cm * cm
                den += len(idx)
        d[name]['offset_rms'] = math.sqrt(num / den) if den else None
    strata = []
    for k in sorted(set(x['s'] for x in recs)):
        idx = [i for i, x in enumerate(recs) if x['s'] == k]
        st = {'records': len(idx)}
        live = [c for c in cells if c[0] == k and not alleq([recs[i]['r'] for i in c[2]])]
        st['cell_records'] = sum(len(c[2]) for c in live)
        for name in ('a', 'b'):
            A = [side[name][i][0] for i in idx]
            tot = d[name]['mass']
            m = sum(abs(side[name][i][0]) * side[name][i][1] * recs[i]['T'] for i in idx)
            ss = 0.0
            for c in live:
                cm = mean([side[name][i][0] for i in c[2]])
                ss += sum((side[name][i][0] - cm) ** 2 for i in c[2])
            st[name] = {'mean': mean(A), 'var': std(A, 0) ** 2,
                        'cell_var': ss / st['cell_records'] if live else None,
                        'mass_share': m / tot if tot > 0 else None}
        strata.append(st)
    d['strata'] = strata
    for name in ('a', 'b'):
        ms = [st[name]['mean'] for st in strata]
        d[name]['offset_range'] = max(ms) - min(ms)
    A = [a for a, _ in side['a']]
    B = [a for a, _ in side['b']]
    d['sign_flips'] = sum(1 for u, v in zip(A, B) if u * v < 0)
    if alleq(A) or alleq(B):
        d['correlation'] = None
    else:
        ma, mb = mean(A), mean(B)
        cov = sum((u - ma) * (v - mb) for u, v in zip(A, B))
        d['correlation'] = cov / math.sqrt(sum((u - ma) ** 2 for u in A) *
                                           sum((v - mb) ** 2 for v in B))
    return d


def compute_opts(o):
    """o's options that --a and --b take (no input or output options)."""
    a, skip = [], False
    for v in argv(o):
        if skip:
            skip = False
            continue
        if v in ('--batch-key', '--digits'):
            skip = True
            continue
        a.append(v)
    return a


def annotate_expected(batches, o):
    """--annotate's figures of each record (keyed by id): its group's and
    stratum's size, mean and deviation, alpha_k and offset_k, and its
    group's balanced sums from the advantages written."""
    exp = expected(batches, o)
    res = {}
    for b in batches:
        for g in b:
            rs = [x['r'] for x in g]
            m, sd = mean(rs), std(rs, o['sample'])
            if alleq(rs):
                m, sd = rs[0], 0.0
            A = [exp[id(x)][0] for x in g]
            v = [(a, x['T']) for a, x in zip(A, g) if x['T'] > 0]
            bal = {'Gv': len(v), 'k': sum(1 for a, _ in v if a > 0),
                   'm': sum(1 for a, _ in v if a < 0),
                   'n_pos': sum(t for a, t in v if a > 0),
                   'n_neg': sum(t for a, t in v if a < 0),
                   'm_pos': sum(a for a, _ in v if a > 0),
                   'm_neg': sum(-a for a, _ in v if a < 0),
                   'z_pos': sum(a * t for a, t in v if a > 0),
                   'z_neg': sum(-a * t for a, t in v if a < 0)}
            for x in g:
                rk = [y['r'] for y in g if y['s'] == x['s']]
                mk, sk = mean(rk), std(rk, o['sample'])
                if alleq(rk):
                    mk, sk = rk[0], 0.0
                e = {'group_size': len(g), 'group_mean': m, 'group_std': sd,
                     'stratum_size': len(rk), 'stratum_mean': mk, 'stratum_std': sk,
                     'balanced': bal}
                if not o['eps_inside']:
                    e['alpha_k'] = (sk + o['eps']) / (sd + o['eps']) if sd + o['eps'] > 0 else None
                    e['offset_k'] = (mk - m) / (sd + o['eps']) if sd + o['eps'] > 0 else None
                res[id(x)] = e
    return res


def run(args, inp):
    """rladv with args on inp: (stdout, None), or (None, what went wrong)."""
    q = subprocess.run([RLADV] + args, input=inp.encode(), capture_output=True)
    if q.returncode != 0:
        return None, 'rc %d: %s' % (q.returncode, q.stderr.decode().strip())
    return q.stdout.decode(), None


def check_compute(out, lines, extra, o, exp):
    """The four fields of every record against exp."""
    got = [json.loads(l) for l in out.splitlines()]
    if '--columnar' in extra:
        got = [{f: c[f][k] for f in ('advantage', 'loss_weight', 'token_advantages',
                                      'token_loss_weights')}
               for c in got for k in range(len(c['advantage']))]
    bad = []
    # The balanced modes side a record by its advantage's sign: where one
    # is 0 in exact arithmetic but a residue of rounding here or there
    # (MS-GRPO's sums over subgroups, rewards 0.1, 0.2, 0.3), the two sides
    # may differ without either being wrong.
    tiny = any(residue(a) for a, _ in exp.values()) or \
        any(residue(r['advantage'], False) for r in got)
    skipw = tiny and o['g'].startswith('balanced')
    if len(got) != len(lines):
        bad.append('%d records out, %d in' % (len(got), len(lines)))
    for k, (rec, (_, x, m)) in enumerate(zip(got, lines)):
        a, w = exp.get(id(x), (0.0, 0.0))
        if isinstance(a, Zero) and rec['advantage'] != 0:
            bad.append('record %d advantage %r, expected exactly 0' % (k + 1, rec['advantage']))
        if not close(rec['advantage'], a):
            bad.append('record %d advantage %r, expected %r' % (k + 1, rec['advantage'], a))
        if skipw:
            w = rec['loss_weight']
        if not close(rec['loss_weight'], w):
            bad.append('record %d loss_weight %r, expected %r' % (k + 1, rec['loss_weight'], w))
        ta = [a * v for v in m]
        tw = [w * v for v in m]
        if len(rec['token_advantages']) != len(m) or not all(
                close(u, v) for u, v in zip(rec['token_advantages'], ta)):
            bad.append('record %d token_advantages %r, expected %r'
                       % (k + 1, rec['token_advantages'], ta))
        if len(rec['token_loss_weights']) != len(m) or not all(
                close(u, v) for u, v in zip(rec['token_loss_weights'], tw)):
            bad.append('record %d token_loss_weights' % (k + 1))
    return bad


def check_stats(batches, extra, inp):
    """stats --json's totals, where each record is one line and every
    reward is scored."""
    if '--trajectory-key' in extra or '--null-reward' in extra:
        return []
    out, err = run(['stats', '--json'] + extra, inp)
    if err:
        return ['stats: ' + err]
    return ['stats ' + d for d in stats_diff(stats_expected(batches), json.loads(out)['total'])]


def check_annotate(batches, lines, args, extra, o, exp, inp):
    """--annotate's figures, where each record is one line, every reward
    scored, no group dropped, and GN's statistics are the group's."""
    if '--trajectory-key' in extra or '--columnar' in extra or \
            '--null-reward' in extra or o['drop'] or o['std_scope'] != 'group' or \
            o['gn_scope'] != 'group' or any(residue(a) for a, _ in exp.values()):
        return []
    out, err = run(args + ['--annotate'], inp)
    if err:
        return ['--annotate: ' + err]
    ann = annotate_expected(batches, o)
    return ['--annotate record %d %s' % (k + 1, d)
            for k, (l, (_, x, _)) in enumerate(zip(out.splitlines(), lines))
            for d in stats_diff(ann[id(x)], json.loads(l)['rladv'])]


def check_diff(batches, extra, o, exp, rng, inp):
    """diff --json: these options against another configuration, same
    input (not where a sign is a residue of rounding: see above)."""
    if '--trajectory-key' in extra or '--null-reward' in extra:
        return []
    ob = opts(rng)
    sa, sb = ' '.join(compute_opts(o)), ' '.join(compute_opts(ob))
    eb = expected(batches, ob)
    if any(residue(a) for a, _ in list(exp.values()) + list(eb.values())):
        return []
    out, err = run(['diff', '--json', '--a', sa, '--b', sb] + extra, inp)
    if err:
        return ['diff --b "%s": %s' % (sb, err)]
    return ['diff --b "%s" %s' % (sb, d)
            for d in stats_diff(diff_expected(batches, o, ob), json.loads(out))]


def routes(args, extra, inp, out, rng):
    """The same records by every other way in must give the same bytes as
    standard input: the file mapped, gzip'd, split in two files (read as one
    stream), -j 1 and -j 8, -o FILE.gz; and, where each record is one line,
    split in shards that are indexed, merged and computed one by one."""
    bad = []
    with tempfile.TemporaryDirectory() as d:
        f = os.path.join(d, 'log.jsonl')
        with open(f, 'w') as h:
            h.write(inp)
        with gzip.open(f + '.gz', 'wt') as h:
            h.write(inp)
        lines = inp.splitlines(True)
        cut = rng.randint(0, len(lines))
        halves = [os.path.join(d, 'a.jsonl'), os.path.join(d, 'b.jsonl')]
        for name, part in zip(halves, (lines[:cut], lines[cut:])):
            with open(name, 'w') as h:
                h.writelines(part)

        def same(what, argv, data=''):
            q = subprocess.run([RLADV] + argv, input=data.encode(), capture_output=True)
            if q.returncode != 0:
                bad.append('%s: rc %d: %s' % (what, q.returncode, q.stderr.decode().strip()))
            elif q.stdout.decode() != out:
                bad.append('%s: other bytes than standard input' % what)

        same('the file', args + [f])
        same('gzip', args + [f + '.gz'])
        same('two files cut at line %d' % cut, args + halves)
        same('-j 1', args + ['-j', '1'], inp)
        same('-j 8', args + ['-j', '8', f])
        q = subprocess.run([RLADV] + args + ['-o', f + '.out.gz', f], capture_output=True)
        if q.returncode != 0:
            bad.append('-o .gz: rc %d: %s' % (q.returncode, q.stderr.decode().strip()))
        else:
            with gzip.open(f + '.out.gz', 'rt') as h:
                if h.read() != out:
                    bad.append('-o .gz: other bytes than standard input')
        if '--columnar' in extra or '--trajectory-key' in extra:
            return bad
        # Shards: up to three, cut at random lines; index each, merge, apply.
        cuts = sorted(rng.sample(range(len(lines) + 1), min(2, len(lines) + 1)))
        parts = [lines[:cuts[0]], lines[cuts[0]:cuts[-1]], lines[cuts[-1]:]]
        shards, idx = [], []
        k = args.index('--digits')
        iargs = args[:k] + args[k + 2:]
        for k, part in enumerate(parts):
            name = os.path.join(d, 's%d.jsonl' % k)
            with open(name, 'w') as h:
                h.writelines(part)
            shards.append(name)
            q = subprocess.run([RLADV, 'index'] + iargs + ['-o', name + '.idx', name],
                               capture_output=True)
            if q.returncode != 0:
                return bad + ['index %s: rc %d: %s' % (name, q.returncode,
                                                       q.stderr.decode().strip())]
            idx.append(name + '.idx')
        q = subprocess.run([RLADV, 'index', '--merge'] + iargs + ['-o', d + '/all.idx'] + idx,
                           capture_output=True)
        if q.returncode != 0:
            return bad + ['index --merge: rc %d: %s' % (q.returncode, q.stderr.decode().strip())]
        got = ''
        for name in shards:
            q = subprocess.run([RLADV, 'compute', '--index', d + '/all.idx'] + args + [name],
                               capture_output=True)
            if q.returncode != 0:
                return bad + ['--index %s: rc %d: %s' % (name, q.returncode,
                                                         q.stderr.decode().strip())]
            got += q.stdout.decode()
        if got != out:
            bad.append('three shards cut at lines %s: other bytes than one process' % cuts)
    return bad


def skipped(args, extra, inp, out, rng):
    """--on-error skip over the same log with broken lines mixed in (cut
    short, not an object, a reward past a double) must write the bytes of
    the clean log, and put exactly the broken lines in --rejects."""
    if '--columnar' in extra or '--trajectory-key' in extra or '--group-size' in extra:
        return []
    lines = inp.splitlines(True)
    broken = []
    for _ in range(rng.randint(1, 3)):
        l = rng.choice([l for l in lines if len(l) > 3]).rstrip('\n')
        # A field that rladv does not read goes out byte for byte, 1e400
        # too: only the reward's is broken.
        b = rng.choice([l[:rng.randint(1, len(l) - 1)], '[' + l + ']',
                        l[:-1] + ',"n":1', 'NaN',
                        re.sub(r'"reward": [-0-9.e]+', '"reward": -1e400', l)])
        if b == l:
            b = l + ','
        broken.append(b + '\n')
        lines.insert(rng.randint(0, len(lines)), b + '\n')
    with tempfile.TemporaryDirectory() as d:
        q = subprocess.run([RLADV] + args + ['--on-error', 'skip', '--rejects', d + '/rej'],
                           input=''.join(lines).encode(), capture_output=True)
        if q.returncode != 0:
            return ['skip: rc %d: %s' % (q.returncode, q.stderr.decode().strip())]
        bad = []
        if q.stdout.decode() != out:
            bad.append('skip: other bytes than the clean log')
        with open(d + '/rej') as h:
            if sorted(h.readlines()) != sorted(broken):
                bad.append('skip: --rejects holds other lines than the %d broken' % len(broken))
        return bad


def main():
    fails = 0
    for t in range(N):
        rng = random.Random(SEED0 * 100003 + t)
        batches = gen(rng)
        o = opts(rng)
        batches, lines, extra = layout(batches, o, rng)
        inp = '\n'.join(l for l, _, _ in lines if l is not None) + '\n'
        args = [a for a in argv(o) if a not in ('--batch-key', 'step')] + extra
        exp = expected(batches, o)
        out, err = run(args, inp)
        if err:
            bad = [err]
        else:
            bad = check_compute(out, lines, extra, o, exp)
            bad += check_stats(batches, extra, inp)
            if t % 3 == 1:
                bad += check_annotate(batches, lines, args, extra, o, exp, inp)
            if t % 2 == 0:
                bad += check_diff(batches, extra, o, exp, rng, inp)
            if t % 4 == 3:
                bad += routes(args, extra, inp, out, rng)
            if t % 4 == 1:
                bad += skipped(args, extra, inp, out, rng)
        if bad:
            fails += 1
            print('case %d: rladv %s' % (t, ' '.join(args)))
            for l in bad[:4]:
                print('   ', l)
            if '-v' in sys.argv:
                print(inp)
    print('%d passed, %d failed' % (N - fails, fails))
    return 1 if fails else 0


sys.exit(main())
