#!/usr/bin/env python3
"""Independent reference for the framework presets (standard library only).

usage: python3 reference.py            write cases.tsv, NAME.expected.jsonl
                                       and the NAME.in.jsonl links
       python3 reference.py --verify   the same, but only compare with the
                                       files on disk (exit 1 on a difference)
       python3 reference.py --check RLADV [-k TEXT]
                                       run RLADV on every case (or those whose
                                       name contains TEXT) and compare its
                                       output with NAME.expected.jsonl
       python3 reference.py --random RLADV ROUNDS [SEED]
                                       run every case ROUNDS times more on
                                       its input with random rewards and
                                       masks, computing the expected
                                       numbers on the spot
       python3 reference.py --crosscheck DIR
                                       recompute the public conformance
                                       cases like_verl and like_trl_stdbatch
                                       (DIR: the conformance directory)

Each function below is one framework's advantage or loss-aggregation code,
written out again from reading that code at the pinned release (file and
function named in its comment).  Nothing is imported from rladv.  The
frameworks compute in float32 on the GPU; these are their formulas in
double precision.

What rladv calls the loss weight c_i of a record is the weight each of its
trained tokens carries, so that the framework's loss equals
sum_i sum_t c_i m_it l_it (m the mask, l the per-token term).  Each
aggregation below derives c_i from the framework's reduction over one batch
processed as one micro-batch on one rank (no gradient accumulation, dp 1):
that is what a batch of rladv means.

Two conventions are rladv's, not a framework's (see README.md):
- Equal rewards give exactly 0: where a framework divides r - mean by a
  deviation, the set is compared first, as rladv does, instead of relying
  on a floating-point mean that may not equal the rewards.
- A record with no trained token has loss weight 0; its advantage is the
  estimator's value for its reward (the framework's per-token advantages
  are all 0 there, so any value would do; this one keeps the formula).
"""
import json
import math
import os
import re
import shlex
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
INPUTS = "inputs"


class Refused(Exception):
    """The framework raises, or computes NaN: rladv must refuse (exit 1)."""


class Quirk(Exception):
    """The framework gives a record's trained tokens different advantages,
    which one scalar per record cannot express: the test data avoids it."""


# ---------------------------------------------------------------------------
# Reading a batch the way the rladv options of a case describe it.

GROUP_KEYS = ["prompt_id", "uid", "group_id", "group_index"]
REWARD_KEYS = ["reward", "score"]
LOGPROB_KEYS = ["logprobs", "rollout_log_probs", "generation_logprobs"]
MASK_KEYS = ["mask", "response_mask", "loss_mask", "token_loss_mask"]


class Rec:
    def __init__(self, line, obj, o):
        self.line = line
        self.key = pick(obj, o.get("--group-key"), GROUP_KEYS)
        names = o.get("--reward-key", "").split(",")
        if len(names) > 1:
            # TRL's reward functions: each part, None as NaN; the reward
            # the other estimators read is their weighted nansum.
            w = [float(x) for x in o["--reward-weights"].split(",")] \
                if "--reward-weights" in o else [1.0] * len(names)
            self.parts = [math.nan if obj[k] is None else float(obj[k])
                          for k in names]
            self.w = w
            self.r = sum(x * y for x, y in zip(self.parts, w)
                         if not math.isnan(x))
        else:
            self.r = float(pick(obj, o.get("--reward-key"), REWARD_KEYS))
        lp = pick(obj, o.get("--logprobs-key"), LOGPROB_KEYS)
        mask = pick(obj, o.get("--mask-key"), MASK_KEYS)
        self.m = [1 if x else 0 for x in mask] if mask is not None else [1] * len(lp)
        # slime's remove_sample: _convert_samples_to_train_data sets the
        # loss mask to zeros (after the dump is written).
        if "--remove-key" in o and obj.get(o["--remove-key"]) is True:
            self.m = [0] * len(self.m)
        assert len(self.m) == len(lp)
        self.L = len(lp)
        self.T = sum(self.m)
        self.batch = obj.get(o["--batch-key"]) if "--batch-key" in o else None
        self.b = float(obj[o["--baseline-key"]]) if "--baseline-key" in o else None
        self.rollout = obj.get(o["--rollout-key"]) if "--rollout-key" in o else None


def pick(obj, named, defaults):
    if named is not None:
        return obj[named]
    for k in defaults:
        if k in obj:
            return obj[k]
    return None


def options(opts):
    """The input-shaping options of a case's rladv command line."""
    words = shlex.split(opts)
    o = {}
    for flag in ("--group-key", "--reward-key", "--logprobs-key", "--mask-key",
                 "--batch-key", "--batch-groups", "--group-size", "--baseline-key",
                 "--reward-weights", "--rollout-key", "--remove-key"):
        if flag in words:
            o[flag] = words[words.index(flag) + 1]
    return o


class Batch:
    def __init__(self, recs, o):
        self.recs = recs
        self.groups = []       # lists of positions in recs
        if "--group-size" in o and recs[0].key is None:
            g = int(o["--group-size"])
            assert len(recs) % g == 0
            self.groups = [list(range(i, i + g)) for i in range(0, len(recs), g)]
        else:
            seen = set()
            for i, rec in enumerate(recs):
                if self.groups and recs[self.groups[-1][0]].key == rec.key:
                    self.groups[-1].append(i)
                else:
                    assert rec.key not in seen, "group reappears"
                    seen.add(rec.key)
                    self.groups.append([i])
            if "--group-size" in o:
                assert all(len(g) == int(o["--group-size"]) for g in self.groups)


def load(path, o):
    recs = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if line.strip():
                recs.append(Rec(n, json.loads(line), o))
    batches, cur, runs = [], [], 0
    for rec in recs:
        if "--batch-groups" in o:
            # a batch every N groups: count the runs of one key
            runs += not cur or rec.key != cur[-1].key
            new = runs > int(o["--batch-groups"])
            runs = 1 if new else runs
        else:
            new = cur and rec.batch != cur[-1].batch
        if new:
            batches.append(Batch(cur, o))
            cur = []
        cur.append(rec)
    batches.append(Batch(cur, o))
    return batches


# ---------------------------------------------------------------------------
# Small statistics, two-pass.

def mean(xs):
    return sum(xs) / len(xs)


def std(xs, ddof):
    m = mean(xs)
    return math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - ddof))


def equal(xs):
    return all(x == xs[0] for x in xs)


def per_group(batch, fn):
    """fn(rewards of a group) -> advantages of the group, in order."""
    out = [0.0] * len(batch.recs)
    for g in batch.groups:
        for i, a in zip(g, fn([batch.recs[i].r for i in g])):
            out[i] = a
    return out


def trained(batch):
    return [rec.T for rec in batch.recs]


# ---------------------------------------------------------------------------
# verl v0.7.0 (volcengine/verl), verl/trainer/ppo/core_algos.py and
# verl/utils/torch_functional.py.  compute_advantage (ray_trainer.py) calls
# each estimator once on the whole training batch, grouped by uid.

def verl_grpo(batch, eps=1e-6, norm_by_std=True):
    """compute_grpo_outcome_advantage: a group of one gets mean 0, std 1;
    otherwise torch.mean and torch.std (n-1); (r - mean) / (std + eps), or
    r - mean when norm_adv_by_std_in_grpo is false (Dr. GRPO)."""
    def f(rs):
        if len(rs) == 1:
            return [rs[0] / (1.0 + eps) if norm_by_std else rs[0]]
        if equal(rs):
            return [0.0] * len(rs)
        m = mean(rs)
        if not norm_by_std:
            return [r - m for r in rs]
        s = std(rs, 1)
        return [(r - m) / (s + eps) for r in rs]
    return per_group(batch, f)


def verl_passk(batch, eps=1e-6, ddof=1, singleton="error"):
    """compute_grpo_passk_outcome_advantage: only the best response of a
    group gets r_max - r_second (torch.topk(rewards, 2)), divided by
    torch.std (n-1) + eps when norm_adv_by_std_in_grpo (default true); every
    other response 0.  A group of one raises ValueError ("Pass@k requires
    at least 2 samples per group").  When the two best tie the difference
    is 0, so which one topk picks does not matter.  ddof and singleton are
    for rladv's own -a grpo_passk (population deviation, 0 for one)."""
    def f(rs):
        if len(rs) < 2:
            if singleton == "error":
                raise Refused("grpo_passk: a group of one")
            return [0.0]
        order = sorted(range(len(rs)), key=lambda i: -rs[i])
        best, second = rs[order[0]], rs[order[1]]
        out = [0.0] * len(rs)
        if best != second:
            out[order[0]] = (best - second) / (std(rs, ddof) + eps)
        return out
    return per_group(batch, f)


def verl_rloo(batch):
    """compute_rloo_outcome_advantage: r * n/(n-1) - mean * n/(n-1), which is
    r minus the mean of the others; a group of one keeps r (mean 0, and the
    n > 1 branch is skipped)."""
    def f(rs):
        n = len(rs)
        if n == 1:
            return [rs[0]]
        if equal(rs):
            return [0.0] * n
        m = mean(rs)
        return [(r - m) * n / (n - 1) for r in rs]
    return per_group(batch, f)


def verl_opo(batch):
    """compute_opo_outcome_advantage: baseline sum(T r) / sum(T) with T =
    response_mask.sum(-1) (trained tokens); a group of one has baseline 0."""
    out = [0.0] * len(batch.recs)
    for g in batch.groups:
        rs = [batch.recs[i].r for i in g]
        ts = [batch.recs[i].T for i in g]
        if len(g) == 1:
            base = 0.0
        elif equal(rs):
            base = rs[0]
        else:
            if sum(ts) == 0:
                raise Refused("opo: a group without a trained token (0/0)")
            base = sum(t * r for t, r in zip(ts, rs)) / sum(ts)
        for i, r in zip(g, rs):
            out[i] = r - base
    return out


def verl_gpg(batch):
    """compute_gpg_outcome_advantage: alpha = bsz / max(count_nonzero(scores),
    1) over the whole batch (bsz counts every response, masked or not);
    alpha * (r - group mean) / f_norm with f_norm 1; a group of one has mean
    0 (the std it computes is never used)."""
    rs = [rec.r for rec in batch.recs]
    alpha = len(rs) / max(sum(1 for r in rs if r != 0), 1)

    def f(g):
        if len(g) == 1:
            return [alpha * g[0]]
        if equal(g):
            return [0.0] * len(g)
        m = mean(g)
        return [alpha * (r - m) for r in g]
    return per_group(batch, f)


def verl_masked_whiten(a, T):
    """torch_functional.masked_whiten over the batch's trained tokens, each
    record's value repeated on its T_i tokens: masked_mean adds 1e-8 to the
    token count, masked_var multiplies by N/(N-1) (ValueError for N <= 1),
    then (x - mean) * rsqrt(var + 1e-8)."""
    N = sum(T)
    if N <= 1:
        raise Refused("masked_whiten needs two trained tokens")
    live = [x for x, t in zip(a, T) if t > 0]
    if equal(live):
        return [0.0] * len(a)
    mu = sum(t * x for x, t in zip(a, T)) / (N + 1e-8)
    var = sum(t * (x - mu) ** 2 for x, t in zip(a, T)) / (N + 1e-8) * N / (N - 1)
    return [(x - mu) / math.sqrt(var + 1e-8) for x in a]


def verl_rpp_baseline(batch):
    """compute_reinforce_plus_plus_baseline_outcome_advantage: r - group mean
    (a group of one: mean 0), broadcast to the tokens, masked_whiten."""
    def f(rs):
        if len(rs) == 1:
            return [rs[0]]
        if equal(rs):
            return [0.0] * len(rs)
        m = mean(rs)
        return [r - m for r in rs]
    return verl_masked_whiten(per_group(batch, f), trained(batch))


def verl_returns(rec):
    """The token returns of an outcome reward: the reward manager puts the
    score on the last token of the response (naive.py, valid_response_length
    - 1); compute_reinforce_plus_plus_outcome_advantage runs backwards with
    gamma 1 and multiplies the running return by response_mask[t] after
    storing it ("Reset after EOS"), so a masked token cuts off every token
    before it."""
    ret = [0.0] * rec.L
    run = 0.0
    for t in reversed(range(rec.L)):
        run = (rec.r if t == rec.L - 1 else 0.0) + run
        ret[t] = run
        run *= rec.m[t]
    return ret


def verl_rpp(batch):
    """compute_reinforce_plus_plus_outcome_advantage: returns with the reset
    above, then masked_whiten over the batch's trained tokens.  A record's
    trained tokens all carry its reward only when no masked token follows a
    trained one; otherwise this is a Quirk the test data avoids."""
    for rec in batch.recs:
        ret = verl_returns(rec)
        if any(x != rec.r for x, m in zip(ret, rec.m) if m):
            raise Quirk("line %d: a masked token resets the return" % rec.line)
    return verl_masked_whiten([rec.r for rec in batch.recs], trained(batch))


def verl_remax(batch):
    """compute_remax_outcome_advantage: returns = reverse cumsum of
    token_level_rewards * response_mask, minus reward_baselines on the
    trained tokens.  With the score on the last token, a trained token gets
    r - b when that last token is trained, -b when it is not (a Quirk the
    data avoids).  The baseline is the greedy response's reward."""
    out = []
    for rec in batch.recs:
        if rec.T > 0 and rec.m[-1] == 0:
            raise Quirk("line %d: last token masked, the reward is lost" % rec.line)
        out.append(rec.r - rec.b)
    return out


def verl_agg(batch, mode, version="0.7.0", max_len=None):
    """agg_loss as the actor calls it on one micro-batch (dp_actor.py passes
    no global_batch_size, so n is the micro-batch's own count).
    v0.7.0: token-mean masked_sum / N; seq-mean-token-mean sum / (T_i + 1e-8),
      then over n = records with T_i > 0; seq-mean-token-sum over the same n;
      seq-mean-token-sum-norm sum of all sequence sums / loss_mask.shape[-1]
      (the padded response length, or actor.loss_scale_factor): 1/L, no n.
      A batch with no trained token is 0/0 there (N = n = 0): the loss
      verl logs is NaN, but masked_sum takes the loss matrix through
      torch.where(mask, values, 0), whose gradient is 0 where the mask
      is, so every parameter gets gradient 0 from it: weight 0.
    v0.6.1: the same rule, but through masked_mean: + 1e-8 on N and on n.
    v0.6.0 and older: masked_mean for token-mean (+1e-8); the seq modes
      torch.mean over every record: seq-mean-token-sum 1/B; seq-mean-token-
      mean divides by T_i with no epsilon, NaN for a record with T_i = 0."""
    T = trained(batch)
    B, N, n = len(T), sum(T), sum(1 for t in T if t > 0)
    if version == "0.7.0":
        tok, seq_n, seq_eps = 1.0 / N if N else 0.0, n, 1e-8
    elif version == "0.6.1":
        tok, seq_n, seq_eps = 1.0 / (N + 1e-8), n + 1e-8, 1e-8
    else:
        if mode == "seq" and n < B:
            raise Refused("verl 0.6.0 seq-mean-token-mean: 0/0 on a fully masked record")
        tok, seq_n, seq_eps = 1.0 / (N + 1e-8), B, 0.0
    if mode == "token":
        c = [tok] * B
    elif mode == "seq":
        c = [1.0 / (seq_n * (t + seq_eps)) if t else 0.0 for t in T]
    elif mode == "seq-sum":
        c = [1.0 / seq_n if seq_n else 0.0] * B
    elif mode == "seq-sum-norm":
        c = [1.0 / max_len] * B
    return [x if t else 0.0 for x, t in zip(c, T)]


# ---------------------------------------------------------------------------
# TRL v1.9.0 (huggingface/trl), trl/trainer/grpo_trainer.py
# (_generate_and_score_completions, _compute_loss) and trl/trainer/utils.py.

def trl_grpo(batch, scale="group"):
    """Rewards viewed as (-1, num_generations): group mean (nanmean);
    scale_rewards "group": nanstd (n-1) of the group, "batch": nanstd of the
    whole batch, "none": no division; (r - mean) / (std + 1e-4).
    num_generations 1: std set to 0, and r - mean is 0."""
    allr = [rec.r for rec in batch.recs]
    bstd = std(allr, 1) if len(allr) > 1 and not equal(allr) else 0.0

    def f(rs):
        if len(rs) == 1 or equal(rs):
            return [0.0] * len(rs)
        m = mean(rs)
        if scale == "none":
            return [r - m for r in rs]
        s = std(rs, 1) if scale == "group" else bstd
        return [(r - m) / (s + 1e-4) for r in rs]
    return per_group(batch, f)


def trl_gdpo(batch):
    """multi_objective_aggregation "normalize_then_sum" (TRL 0.27.0 on):
    rewards_per_func viewed as (-1, num_generations, functions); each
    function's group nanmean and nanstd (n-1; NaN where fewer than two
    numbers), (r - mean) / (std + 1e-4); nansum with reward_weights; a
    row whose every function returned None is NaN (unscorable_mask);
    then (r - nanmean) / (nanstd + 1e-4) over the batch, and NaN -> 0
    (nan_to_num).  Equal numbers give exactly 0 (rladv's rule)."""
    recs = batch.recs
    K = len(recs[0].parts)
    A = [0.0] * len(recs)
    for g in batch.groups:
        for k in range(K):
            xs = [recs[i].parts[k] for i in g if not math.isnan(recs[i].parts[k])]
            if len(xs) < 2 or equal(xs):
                continue        # nanstd NaN, or exactly 0: adds 0
            m, s = mean(xs), std(xs, 1)
            for i in g:
                x = recs[i].parts[k]
                if not math.isnan(x):
                    A[i] += recs[i].w[k] * (x - m) / (s + 1e-4)
    scored = [i for i, rec in enumerate(recs)
              if not all(math.isnan(x) for x in rec.parts)]
    xs = [A[i] for i in scored]
    out = [0.0] * len(recs)
    if len(xs) < 2 or equal(xs):
        return out
    m, s = mean(xs), std(xs, 1)
    for i in scored:
        out[i] = (A[i] - m) / (s + 1e-4)
    return out


def trl_agg(batch, loss_type, max_len=None):
    """_compute_loss, mask = completion_mask * tool_mask:
    grpo:    per sequence sum / mask.sum(-1).clamp(min=1), .mean() over the
             B rows: 1/(B max(T_i, 1)), fully masked rows count in B;
    bnpo:    sum / mask.sum().clamp(min=1) over the local batch: 1/max(N, 1);
    dr_grpo: sum / (B * max_completion_length): 1/(B L);
    dapo:    sum / num_items_in_batch.clamp(min=1), the tokens of the whole
             generation batch: 1/max(N, 1);
    luspo:   (per_token_loss * mask.sum(1, keepdim=True)).mean(), the
             sequence-level loss (importance_sampling_level "sequence",
             its log-ratio averaged over mask.sum(-1).clamp(min=1)) times
             the row's trained tokens, a mean over the B rows: each
             trained token's gradient is 1/B of its own, fully masked rows
             count in B."""
    T = trained(batch)
    B, N = len(T), sum(T)
    if loss_type == "grpo":
        c = [1.0 / (B * max(t, 1)) for t in T]
    elif loss_type in ("bnpo", "dapo"):
        c = [1.0 / max(N, 1)] * B
    elif loss_type == "dr_grpo":
        c = [1.0 / (B * max_len)] * B
    elif loss_type == "luspo":
        c = [1.0 / B] * B
    return [x if t else 0.0 for x, t in zip(c, T)]


# ---------------------------------------------------------------------------
# OpenRLHF v0.11.0, openrlhf/trainer/ppo_utils/experience_maker.py
# (compute_advantages_and_returns), openrlhf/models/utils.py
# (compute_reward), openrlhf/models/loss.py (aggregate_loss).  Groups are
# rewards.reshape(-1, n_samples_per_prompt).  The reward goes on the last
# token whose action_mask is 1 and get_cumulative_returns sums masked
# rewards backwards with no reset: every trained token carries it.

def orlhf_group_norm(batch):
    """"group_norm": (r - mean) / (std (n-1) + 1e-9).  A group of one
    would be 0/NaN (torch.std of one value), but cli/train_ppo_ray.py
    asserts n_samples_per_prompt > 1 at start; rladv gives 0."""
    def f(rs):
        if len(rs) == 1 or equal(rs):
            return [0.0] * len(rs)
        m = mean(rs)
        s = std(rs, 1)
        return [(r - m) / (s + 1e-9) for r in rs]
    return per_group(batch, f)


def orlhf_rloo(batch):
    """"rloo": r - (sum - r) / (n - 1); a group of one would divide by 0,
    but OpenRLHF asserts n_samples_per_prompt > 1 at start; rladv gives
    0."""
    def f(rs):
        n = len(rs)
        if n == 1 or equal(rs):
            return [0.0] * n
        s = sum(rs)
        return [r - (s - r) / (n - 1) for r in rs]
    return per_group(batch, f)


def orlhf_center(batch):
    """"reinforce_baseline" and "dr_grpo": r - mean(-1) (a group of one: 0)."""
    def f(rs):
        if equal(rs):
            return [0.0] * len(rs)
        m = mean(rs)
        return [r - m for r in rs]
    return per_group(batch, f)


def orlhf_whiten(a, T):
    """The normalization at the end of compute_advantages_and_returns (for
    gae, reinforce, reinforce_baseline): mean over the action_mask tokens,
    population variance (/ num_actions), rstd = var.clamp(min=1e-8).rsqrt().
    NeMo-RL's ReinforcePlusPlusAdvantageEstimator whitens the same way."""
    N = sum(T)
    live = [x for x, t in zip(a, T) if t > 0]
    if equal(live):
        return [0.0] * len(a)
    mu = sum(t * x for x, t in zip(a, T)) / N
    var = sum(t * (x - mu) ** 2 for x, t in zip(a, T)) / N
    return [(x - mu) / math.sqrt(max(var, 1e-8)) for x in a]


def orlhf_reinforce_baseline(batch):
    return orlhf_whiten(orlhf_center(batch), trained(batch))


def orlhf_reinforce(batch):
    """"reinforce": the return (the reward on every trained token), whitened."""
    return orlhf_whiten([rec.r for rec in batch.recs], trained(batch))


def orlhf_agg(batch, mode, version="0.11.0"):
    """aggregate_loss (v0.10.3 on): token_level_loss (always, except GSPO)
    sum / batch_num_tokens = 1/N; per-sample (GSPO) sum / (T_i + 1e-8),
    masked by T_i > 0, over global_batch_size = records with T_i > 0
    (utils/loss_utils.py counts them over the step).
    v0.10.0 to v0.10.2: PolicyLoss reduces with models/utils.py's
    masked_mean, (x * mask).sum(dim) / mask.sum(dim): token 1/N; per-sample
    masked_mean(dim=-1).mean(), 1/(B T_i) over every record, 0/0 for a
    record with T_i = 0.
    Every version divides by the count with no epsilon and no torch.where
    (the gradient through x * mask is 0 * inf there): a batch with no
    trained token has NaN gradients in both modes, and so does a record
    with none under 0.10.2's per-sample loss."""
    T = trained(batch)
    B, N, n = len(T), sum(T), sum(1 for t in T if t > 0)
    if N == 0:
        raise Refused("OpenRLHF %s: 0/0 on a batch with no trained token" % version)
    if mode == "token":
        return [1.0 / N if t else 0.0 for t in T]
    if version == "0.10.2":
        if n < B:
            raise Refused("OpenRLHF 0.10.2 per-sample loss: 0/0 on a fully masked record")
        return [1.0 / (B * t) for t in T]
    return [1.0 / (n * (t + 1e-8)) if t else 0.0 for t in T]


# ---------------------------------------------------------------------------
# NeMo-RL v0.7.0 (NVIDIA-NeMo/RL), nemo_rl/algorithms/advantage_estimator.py
# (GRPOAdvantageEstimator), nemo_rl/algorithms/utils.py
# (calculate_baseline_and_std_per_prompt, masked_mean),
# nemo_rl/algorithms/loss/loss_functions.py (ClippedPGLossFn).

def nemo_grpo(batch, loo=True, version="0.7.0"):
    """Baseline: with use_leave_one_out_baseline the mean of the others,
    else of the group; std: sqrt((E[r^2] - baseline^2) * n/(n-1)) over the
    same set (n-1: the sample deviation of the others), NaN -> 0, so one
    other gives 0.  A group of one: baseline = reward, std 0.  Then
    normalize_rewards divides only where std > 0: (r - b) / (std + 1e-6),
    and leaves r - b where std == 0 ("don't sharpen").
    v0.3.x: population deviation of the set (no n/(n-1)), no epsilon."""
    def f(rs):
        n = len(rs)
        if n == 1:
            return [0.0]
        out = []
        for i, r in enumerate(rs):
            others = rs[:i] + rs[i + 1:] if loo else rs
            if equal(others):
                b, s = others[0], 0.0
            else:
                b = mean(others)
                s = std(others, 1 if version != "0.3" else 0)
            if s > 0:
                out.append((r - b) / (s + (1e-6 if version != "0.3" else 0.0)))
            else:
                out.append(r - b)
        return out
    return per_group(batch, f)


def nemo_rpp_baseline(batch):
    """ReinforcePlusPlusAdvantageEstimator with minus_baseline (the shipped
    default): r - group mean (calculate_baseline_and_std_per_prompt without
    leave-one-out; a group of one: baseline = reward, 0), then global
    normalization over mask = token_mask * sample_mask: population variance,
    clamp(min=1e-8).rsqrt(), as OpenRLHF."""
    def f(rs):
        if len(rs) == 1 or equal(rs):
            return [0.0] * len(rs)
        m = mean(rs)
        return [r - m for r in rs]
    return orlhf_whiten(per_group(batch, f), trained(batch))


def nemo_agg(batch, mode):
    """ClippedPGLossFn with masked_mean (sum / (factor + 1e-8)):
    token_level_loss (default): over global_valid_toks: 1/(N + 1e-8);
    sequence level: per-sequence masked_mean over token_mask (T_i + 1e-8),
    then over global_valid_seqs = sum of sample_mask, every sample with
    sample_mask 1, trained tokens or not: 1/((B + 1e-8)(T_i + 1e-8))."""
    T = trained(batch)
    B, N = len(T), sum(T)
    if mode == "token":
        return [1.0 / (N + 1e-8) if t else 0.0 for t in T]
    return [1.0 / ((B + 1e-8) * (t + 1e-8)) if t else 0.0 for t in T]


# ---------------------------------------------------------------------------
# AReaL v1.0.4 (inclusionAI/AReaL), areal/trainer/ppo/actor.py
# (PPOActor._compute_advantages), areal/utils/data.py (Normalization),
# examples/math/gsm8k_grpo.yaml (reward_norm group, adv_norm batch).

def areal_grpo(batch, scaling=10.0, bias=-0.5, clip=20.0):
    """AReaL's GRPO is its gsm8k_grpo.yaml recipe (the actor's own defaults,
    no reward_norm or adv_norm and kl_ctl 0.1, are PPO): reward_score =
    clip((r + reward_bias) * reward_scaling, +-reward_clip) with the yaml's
    bias -0.5 and scaling 10 and the default clip 20; reward_norm
    (mean_level group, std_level group, std_unbiased, eps 1e-5, group_size
    n_samples): (x - mean) / (std (n-1) + 1e-5); a group of one: mean = x,
    std 1 -> 0.  GAE with gamma = lambda = 1, no critic, kl_ctl 0: every
    trained token carries that value (the score sits on the last token;
    masked tokens are skipped, not reset).  adv_norm (mean_level and
    std_level batch, float64): mean over the trained tokens, std with N - 1
    (1 when N <= 1), (x - mean) * loss_mask / (std + 1e-5).  With no
    trained token at all, Normalization returns x unchanged."""
    def f(rs):
        rs = [min(max((r + bias) * scaling, -clip), clip) for r in rs]
        if len(rs) == 1 or equal(rs):
            return [0.0] * len(rs)
        m = mean(rs)
        s = std(rs, 1)
        return [(r - m) / (s + 1e-5) for r in rs]
    x = per_group(batch, f)
    T = trained(batch)
    N = sum(T)
    if N == 0:
        return x
    live = [v for v, t in zip(x, T) if t > 0]
    if equal(live):
        return [0.0] * len(x)
    mu = sum(t * v for v, t in zip(x, T)) / N
    s = math.sqrt(sum(t * (v - mu) ** 2 for v, t in zip(x, T)) / (N - 1)) if N > 1 else 1.0
    return [(v - mu) / (s + 1e-5) for v in x]


def areal_agg(batch):
    """ppo_actor_loss_fn: sum / loss_mask_count per micro-batch, scaled by
    loss_weight_fn (count_nonzero of loss_mask) / its total: token mean over
    the mini-batch, 1/N."""
    T = trained(batch)
    N = sum(T)
    return [1.0 / N if t else 0.0 for t in T]


# ---------------------------------------------------------------------------
# slime v0.3.1 (THUDM/slime), slime/ray/rollout.py (_post_process_rewards),
# slime/backends/megatron_utils/loss.py (compute_advantages_and_returns,
# loss_function), slime/utils/ppo_utils.py, slime/utils/distributed_utils.py
# (distributed_masked_whiten), slime/backends/megatron_utils/cp_utils.py
# (get_sum_of_sample_mean).

def slime_groups(batch):
    """rewards.reshape(-1, n_samples_per_prompt) when every prompt has its n
    samples; otherwise rewards.view(-1, rewards.shape[-1]): the whole batch
    is one group."""
    sizes = set(len(g) for g in batch.groups)
    return batch.groups if len(sizes) == 1 else [list(range(len(batch.recs)))]


def slime_center(batch, std_norm):
    """r - mean; with grpo_std_normalization / (std (n-1) + 1e-6).  With
    n_samples_per_prompt 1, arguments.py turns std normalization off and
    r - mean is 0."""
    out = [0.0] * len(batch.recs)
    for g in slime_groups(batch):
        rs = [batch.recs[i].r for i in g]
        if len(rs) == 1 or equal(rs):
            continue
        m = mean(rs)
        s = std(rs, 1)
        for i, r in zip(g, rs):
            out[i] = (r - m) / (s + 1e-6) if std_norm else r - m
    return out


def slime_whiten(a, T):
    """distributed_masked_whiten: global mean, var = E[x^2] - mean^2 (here in
    the two-pass form), times N/(N-1) when N >= 2, (x - mean) *
    rsqrt(var + 1e-8)."""
    N = sum(T)
    if N == 0:
        raise Refused("distributed_masked_whiten: mask sum is zero")
    live = [x for x, t in zip(a, T) if t > 0]
    if equal(live):
        return [0.0] * len(a)
    mu = sum(t * x for x, t in zip(a, T)) / N
    var = sum(t * (x - mu) ** 2 for x, t in zip(a, T)) / N
    if N >= 2:
        var *= N / (N - 1)
    return [(x - mu) / math.sqrt(var + 1e-8) for x in a]


def slime_grpo(batch):
    """advantage_estimator grpo (default): the group-normalized reward on every
    token (get_grpo_returns); normalize_advantages is off by default."""
    return slime_center(batch, True)


def slime_rpp_baseline(batch):
    """reinforce_plus_plus_baseline: r - group mean, broadcast
    (get_reinforce_plus_plus_baseline_advantages), whitened (arguments.py
    requires --normalize-advantages for both reinforce_plus_plus estimators)."""
    return slime_whiten(slime_center(batch, False), trained(batch))


def slime_rpp(batch):
    """reinforce_plus_plus: get_reinforce_plus_plus_returns asserts that no
    sequence is fully masked, puts the reward on the last trained token and
    sums backwards without a reset; whitened."""
    if any(rec.T == 0 for rec in batch.recs):
        raise Refused("slime reinforce_plus_plus: a fully masked sequence")
    return slime_whiten([rec.r for rec in batch.recs], trained(batch))


def slime_rollout_ids(batch):
    """_convert_samples_to_train_data: each None rollout_id becomes the
    smallest integer no sample has (tmp_id), so every such sample is a
    rollout of its own."""
    ids = [rec.rollout for rec in batch.recs]
    taken = set(i for i in ids if i is not None)
    tmp = 0
    for k, rid in enumerate(ids):
        if rid is None:
            while tmp in taken:
                tmp += 1
            ids[k] = tmp
            taken.add(tmp)
    return ids


def slime_agg(batch, mode):
    """Default (calculate_per_token_loss off): get_sum_of_sample_mean sums
    sum_t / clamp_min(denom, 1) with denom = rollout_mask_sums, the
    loss-mask total of every sample of the sample's rollout (rollout_id),
    and loss_function scales by num_microbatches / step_global_batch_size,
    the step's rollouts R (dp_schedule keeps a rollout's samples in one
    step): 1/(R max(M_r, 1)); with an id of its own per sample,
    1/(B max(T_i, 1)).
    calculate_per_token_loss: sum of tokens / num_tokens, num_tokens =
    sum_i clamp_min(T_i, 1): a fully masked sample adds 1."""
    T = trained(batch)
    B = len(T)
    if mode == "seq":
        ids = slime_rollout_ids(batch)
        M = {}
        for rid, t in zip(ids, T):
            M[rid] = M.get(rid, 0) + t
        R = len(M)
        c = [1.0 / (R * max(M[rid], 1)) for rid in ids]
    else:
        d = sum(max(t, 1) for t in T)
        c = [1.0 / d] * B
    return [x if t else 0.0 for x, t in zip(c, T)]


# ---------------------------------------------------------------------------
# SkyRL skyrl-v0.3.0 (NovaSky-AI/SkyRL),
# skyrl/backends/skyrl_train/utils/ppo_utils.py, .../torch_utils.py.

def skyrl_grpo(batch):
    """compute_grpo_outcome_advantage: verl's rule (a group of one: mean 0,
    std 1; torch.std n-1; eps 1e-6)."""
    return verl_grpo(batch)


def skyrl_rloo(batch):
    """compute_rloo_outcome_advantage: (r - mean) * n/(n-1); a group of one
    is set to 0 (verl keeps r)."""
    def f(rs):
        n = len(rs)
        if n == 1 or equal(rs):
            return [0.0] * n
        m = mean(rs)
        return [(r - m) * n / (n - 1) for r in rs]
    return per_group(batch, f)


def skyrl_agg(batch, mode, max_len=None):
    """apply_loss_reduction_to_advantages_minibatch (the loss is then a plain
    masked sum): token_mean 1/max(N, 1); sequence_mean
    1/(B max(T_i, 1)); seq_mean_token_sum_norm 1/(B max_seq_len); B is the
    mini-batch, fully masked rows included.  prompt_mean: each prompt's
    tokens (compute_prompt_boundaries: consecutive runs of one uid) over
    1/(P max(N_p, 1)), P the prompts of the mini-batch, N_p the prompt's
    trained tokens."""
    T = trained(batch)
    B, N = len(T), sum(T)
    if mode == "token":
        c = [1.0 / max(N, 1)] * B
    elif mode == "seq":
        c = [1.0 / (B * max(t, 1)) for t in T]
    elif mode == "prompt":
        c = [0.0] * B
        for g in batch.groups:
            for i in g:
                c[i] = 1.0 / (len(batch.groups) * max(sum(T[k] for k in g), 1))
    else:
        c = [1.0 / (B * max_len)] * B
    return [x if t else 0.0 for x, t in zip(c, T)]


# ---------------------------------------------------------------------------
# rladv's own defaults, for the estimators run without a preset.

def rladv_token(batch):
    T = trained(batch)
    N = sum(T)
    return [1.0 / N if t else 0.0 for t in T]


# ---------------------------------------------------------------------------
# The cases.  opts is the rladv command line; adv and lw are the framework
# functions that give the expected numbers; input names a file of inputs/.
# The estimator names for new estimators (grpo_passk, gpg, ...) are the
# framework names issue 12 gives; AReaL's and NeMo-RL's defaults are
# reached through --like only.

VERLA = "--reward-key reward_score --logprobs-key response_logprobs"
VERL = VERLA + " --batch-groups 5"
TRL = ("--group-size 4 --reward-key math_reward_func"
       " --logprobs-key sampling_per_token_logps --mask-key completion_mask")
TRLM = ("--null-reward unscored --group-size 4"
        " --reward-key accuracy_reward,think_format_reward"
        " --logprobs-key sampling_per_token_logps --mask-key completion_mask")
ORL = "--group-key index --mask-key action_mask"
NEMO = "--reward-key rewards --mask-key token_loss_mask"
AREAL = "--group-key task_id"
SKY = "--reward-key rewards --mask-key loss_masks --logprobs-key rollout_logprobs"


def case(name, inp, opts, adv=None, lw=None, code=0, needle=""):
    return dict(name=name, input=inp, opts=opts, adv=adv, lw=lw, code=code, needle=needle)


def lwv(mode, version="0.7.0", L=None):
    return lambda b: verl_agg(b, mode, version, L)


CASES = [
    # verl: GRPO under every loss mode, the rule change of v0.6.1, the
    # other estimators.
    case("verl_grpo_token", "verl_multiturn", "--like verl " + VERL,
         verl_grpo, lwv("token")),
    case("verl_grpo_seq", "verl_multiturn", "--like verl -g seq " + VERL,
         verl_grpo, lwv("seq")),
    case("verl_grpo_seqsum", "verl_multiturn", "--like verl -g seq-sum " + VERL,
         verl_grpo, lwv("seq-sum")),
    case("verl_seqsumnorm", "verl_multiturn", "--like verl -g seq-sum-norm --max-len 64 " + VERL,
         verl_grpo, lwv("seq-sum-norm", L=64)),
    case("verl060_seq_fully_masked", "verl_multiturn", "--like verl@0.6.0 -g seq " + VERL,
         verl_grpo, lwv("seq", "0.6.0"), code=1),
    case("verl060_seqsum", "verl_multiturn", "--like verl@0.6.0 -g seq-sum " + VERL,
         verl_grpo, lwv("seq-sum", "0.6.0")),
    case("verl060_seq", "verl_passk", "--like verl@0.6.0 -g seq " + VERLA,
         verl_grpo, lwv("seq", "0.6.0")),
    case("verl060_token", "verl_passk", "--like verl@0.6.0 " + VERLA,
         verl_grpo, lwv("token", "0.6.0")),
    case("verl_untrained_token", "verl_untrained", "--like verl --batch-groups 2 " + VERLA,
         verl_grpo, lwv("token")),
    case("verl_untrained_seq", "verl_untrained", "--like verl -g seq --batch-groups 2 " + VERLA,
         verl_grpo, lwv("seq")),
    case("verl_untrained_seqsum", "verl_untrained", "--like verl -g seq-sum --batch-groups 2 " + VERLA,
         verl_grpo, lwv("seq-sum")),
    case("verl_drgrpo", "verl_multiturn", "--like verl -a drgrpo -g seq-sum-norm --max-len 64 " + VERL,
         lambda b: verl_grpo(b, norm_by_std=False), lwv("seq-sum-norm", L=64)),
    case("verl_rloo", "verl_multiturn", "--like verl -a rloo -g seq " + VERL,
         verl_rloo, lwv("seq")),
    case("verl_opo", "verl_multiturn", "--like verl -a opo " + VERL,
         verl_opo, lwv("token")),
    case("verl_rpp_baseline", "verl_multiturn", "--like verl -a reinforce_plus_plus_baseline " + VERL,
         verl_rpp_baseline, lwv("token")),
    case("verl_gpg", "verl_multiturn", "--like verl -a gpg " + VERL,
         verl_gpg, lwv("token")),
    case("verl_passk", "verl_passk", "--like verl -a grpo_passk " + VERLA,
         verl_passk, lwv("token")),
    case("verl_passk_singleton", "verl_multiturn", "--like verl -a grpo_passk " + VERL,
         verl_passk, lwv("token"), code=1),
    case("passk_plain", "verl_multiturn", "-a grpo_passk " + VERL,
         lambda b: verl_passk(b, ddof=0, singleton="zero"), rladv_token),
    case("verl_rpp", "verl_single_turn", "--like verl -a reinforce_plus_plus " + VERLA,
         verl_rpp, lwv("token")),
    case("verl_remax", "verl_single_turn", "--like verl -a remax --baseline-key reward_baselines " + VERLA,
         verl_remax, lwv("token")),
    # TRL: scale_rewards and loss_type.
    case("trl_dapo", "trl_padded", "--like trl " + TRL,
         trl_grpo, lambda b: trl_agg(b, "dapo")),
    case("trl_grpo_loss", "trl_padded", "--like trl -g seq " + TRL,
         trl_grpo, lambda b: trl_agg(b, "grpo")),
    case("trl_gdpo", "trl_multi", "--like trl -a gdpo " + TRLM,
         trl_gdpo, lambda b: trl_agg(b, "dapo")),
    case("trl_gdpo_weights", "trl_multi", "--like trl -a gdpo --reward-weights 1,0.5 " + TRLM,
         trl_gdpo, lambda b: trl_agg(b, "dapo")),
    case("trl_luspo_loss", "trl_padded", "--like trl -g seq-sum " + TRL,
         trl_grpo, lambda b: trl_agg(b, "luspo")),
    case("trl_drgrpo_loss", "trl_padded", "--like trl -g seq-sum-norm --max-len 24 " + TRL,
         trl_grpo, lambda b: trl_agg(b, "dr_grpo", 24)),
    case("trl_scale_batch", "trl_padded", "--like trl --std-scope batch " + TRL,
         lambda b: trl_grpo(b, "batch"), lambda b: trl_agg(b, "dapo")),
    case("trl_scale_none", "trl_padded", "--like trl --std-scope none -g seq " + TRL,
         lambda b: trl_grpo(b, "none"), lambda b: trl_agg(b, "grpo")),
    case("trl_one_generation", "trl_padded", "--like trl " + TRL.replace("--group-size 4", "--group-size 1"),
         trl_grpo, lambda b: trl_agg(b, "dapo")),
    # OpenRLHF: its estimator names and its whitening.
    case("openrlhf_default", "openrlhf_padded", "--like openrlhf " + ORL,
         orlhf_group_norm, lambda b: orlhf_agg(b, "token")),
    case("openrlhf_group_norm", "openrlhf_padded", "--like openrlhf -a group_norm " + ORL,
         orlhf_group_norm, lambda b: orlhf_agg(b, "token")),
    case("openrlhf_reinforce_baseline", "openrlhf_padded", "--like openrlhf -a reinforce_baseline " + ORL,
         orlhf_reinforce_baseline, lambda b: orlhf_agg(b, "token")),
    case("openrlhf_rloo", "openrlhf_padded", "--like openrlhf -a rloo " + ORL,
         orlhf_rloo, lambda b: orlhf_agg(b, "token")),
    case("openrlhf_dr_grpo", "openrlhf_padded", "--like openrlhf -a dr_grpo " + ORL,
         orlhf_center, lambda b: orlhf_agg(b, "token")),
    case("openrlhf_reinforce", "openrlhf_padded", "--like openrlhf -a reinforce " + ORL,
         orlhf_reinforce, lambda b: orlhf_agg(b, "token")),
    case("openrlhf_seq", "openrlhf_padded", "--like openrlhf -g seq " + ORL,
         orlhf_group_norm, lambda b: orlhf_agg(b, "seq")),
    case("openrlhf_untrained_token", "openrlhf_untrained", "--like openrlhf --batch-groups 1 " + ORL,
         orlhf_group_norm, lambda b: orlhf_agg(b, "token"), code=1),
    case("openrlhf_untrained_seq", "openrlhf_untrained", "--like openrlhf -g seq --batch-groups 1 " + ORL,
         orlhf_group_norm, lambda b: orlhf_agg(b, "seq"), code=1),
    # OpenRLHF 0.10.0 to 0.10.2: the per-sample loss over every record.
    case("openrlhf0102_seq", "openrlhf_trained", "--like openrlhf@0.10.2 -g seq " + ORL,
         orlhf_group_norm, lambda b: orlhf_agg(b, "seq", "0.10.2")),
    case("openrlhf0102_seq_fully_masked", "openrlhf_padded", "--like openrlhf@0.10.2 -g seq " + ORL,
         orlhf_group_norm, lambda b: orlhf_agg(b, "seq", "0.10.2"), code=1),
    case("openrlhf0102_token", "openrlhf_padded", "--like openrlhf@0.10.1 -a reinforce_baseline " + ORL,
         orlhf_reinforce_baseline, lambda b: orlhf_agg(b, "token", "0.10.2")),
    case("openrlhf0102_untrained_token", "openrlhf_untrained", "--like openrlhf@0.10.2 --batch-groups 1 " + ORL,
         orlhf_group_norm, lambda b: orlhf_agg(b, "token", "0.10.2"), code=1),
    # NeMo-RL: leave-one-out, its versions, its reinforce_plus_plus.
    case("nemo_loo", "nemo_rl", "--like nemo-rl --group-size 4 " + NEMO,
         nemo_grpo, lambda b: nemo_agg(b, "token")),
    case("nemo_loo_seq", "nemo_rl", "--like nemo-rl -g seq --group-size 4 " + NEMO,
         nemo_grpo, lambda b: nemo_agg(b, "seq")),
    case("nemo_loo_pairs", "nemo_rl", "--like nemo-rl --group-size 2 " + NEMO,
         nemo_grpo, lambda b: nemo_agg(b, "token")),
    case("nemo_one_generation", "nemo_rl", "--like nemo-rl --group-size 1 " + NEMO,
         nemo_grpo, lambda b: nemo_agg(b, "token")),
    case("nemo03_loo", "nemo_rl", "--like nemo-rl@0.3 --group-size 4 " + NEMO,
         lambda b: nemo_grpo(b, version="0.3"), lambda b: nemo_agg(b, "token")),
    case("nemo_rpp_baseline", "nemo_rl", "--like nemo-rl -a reinforce_plus_plus_baseline --group-size 4 " + NEMO,
         nemo_rpp_baseline, lambda b: nemo_agg(b, "token")),
    # AReaL: group normalization, then token whitening over the batch.
    case("areal_default", "areal", "--like areal " + AREAL,
         areal_grpo, areal_agg),
    case("areal_one_sample", "areal_n1", "--like areal " + AREAL,
         areal_grpo, areal_agg),
    # slime: seq-mean-token-mean by default, clamp(T, 1), whitening.
    case("slime_default", "slime", "--like slime",
         slime_grpo, lambda b: slime_agg(b, "seq")),
    case("slime_token", "slime", "--like slime -g token",
         slime_grpo, lambda b: slime_agg(b, "token")),
    case("slime_rpp_baseline", "slime", "--like slime -a reinforce_plus_plus_baseline",
         slime_rpp_baseline, lambda b: slime_agg(b, "seq")),
    case("slime_rpp_fully_masked", "slime", "--like slime -a reinforce_plus_plus",
         slime_rpp, lambda b: slime_agg(b, "seq"), code=1),
    case("slime_one_sample", "slime_n1", "--like slime",
         slime_grpo, lambda b: slime_agg(b, "seq")),
    # slime's agents split a rollout into samples that share rollout_id:
    # one sequence of the per-rollout mean.  Its prompts then hold 6, 5
    # and 4 samples, and slime normalizes the whole batch as one group.
    case("slime_split", "slime_split",
         "--like slime --rollout-key rollout_id --remove-key remove_sample "
         "--gn-scope batch", slime_grpo, lambda b: slime_agg(b, "seq")),
    case("slime_split_token", "slime_split",
         "--like slime -g token --rollout-key rollout_id --remove-key "
         "remove_sample --gn-scope batch", slime_grpo,
         lambda b: slime_agg(b, "token")),
    # SkyRL: verl's GRPO, its own rloo and loss reductions.
    case("skyrl_default", "skyrl", "--like skyrl " + SKY,
         skyrl_grpo, lambda b: skyrl_agg(b, "token")),
    case("skyrl_seq", "skyrl", "--like skyrl -g seq " + SKY,
         skyrl_grpo, lambda b: skyrl_agg(b, "seq")),
    case("skyrl_seqsumnorm", "skyrl", "--like skyrl -g seq-sum-norm --max-len 32 " + SKY,
         skyrl_grpo, lambda b: skyrl_agg(b, "seq-sum-norm", 32)),
    case("skyrl_rloo", "skyrl", "--like skyrl -a rloo " + SKY,
         skyrl_rloo, lambda b: skyrl_agg(b, "token")),
    # prompt_mean: a token mean in each prompt, the mean over the prompts
    # (its group of one and its group with a fully masked row included).
    case("skyrl_prompt_mean", "skyrl", "--like skyrl -g prompt_mean " + SKY,
         skyrl_grpo, lambda b: skyrl_agg(b, "prompt")),
]


# ---------------------------------------------------------------------------

def expected(c):
    """The expected records of a case, or None when the framework refuses."""
    path = c.get("path") or os.path.join(HERE, INPUTS, c["input"] + ".jsonl")
    out = []
    try:
        for batch in load(path, options(c["opts"])):
            adv = c["adv"](batch)
            lw = c["lw"](batch)
            for rec, a, w in zip(batch.recs, adv, lw):
                out.append({"line": rec.line, "advantage": a + 0.0, "loss_weight": w + 0.0})
    except Refused:
        return None
    return out


def render(rows):
    return "".join(json.dumps(r) + "\n" for r in rows)


def generate(verify):
    bad = []

    def put(path, text):
        old = open(path, encoding="utf-8").read() if os.path.exists(path) else None
        if old == text:
            return
        if verify:
            bad.append(os.path.relpath(path, HERE))
        else:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)

    tsv = ["# name\toptions\texit\n",
           "# generated by reference.py from its CASES table; input NAME.in.jsonl\n"]
    for c in CASES:
        rows = expected(c)
        code = 0 if rows is not None else 1
        if code != c["code"]:
            sys.exit("%s: the reference gives exit %d, the table says %d" % (c["name"], code, c["code"]))
        tsv.append("%s\t%s\t%d%s\n" % (c["name"], c["opts"], code, "\t" + c["needle"] if c["needle"] else ""))
        link = os.path.join(HERE, c["name"] + ".in.jsonl")
        target = os.path.join(INPUTS, c["input"] + ".jsonl")
        if os.path.islink(link) and os.readlink(link) == target:
            pass
        elif verify:
            bad.append(os.path.relpath(link, HERE))
        else:
            if os.path.lexists(link):
                os.remove(link)
            os.symlink(target, link)
        exp = os.path.join(HERE, c["name"] + ".expected.jsonl")
        if rows is not None:
            put(exp, render(rows))
        elif os.path.exists(exp):
            if verify:
                bad.append(os.path.relpath(exp, HERE))
            else:
                os.remove(exp)
    put(os.path.join(HERE, "cases.tsv"), "".join(tsv))
    if bad:
        sys.exit("differ from reference.py: " + " ".join(bad))
    print("%d cases%s" % (len(CASES), " agree" if verify else " written"))


def crosscheck(d):
    """The public conformance vectors like_verl and like_trl_stdbatch were
    checked against verl's and TRL's own functions: these functions must
    give them back (to the conformance tolerance)."""
    checks = [
        ("like_verl", "--like verl -g seq", verl_grpo, lwv("seq")),
        ("like_trl_stdbatch", "", lambda b: trl_grpo(b, "batch"),
         lambda b: [1.0 / sum(1 for _ in b.recs) if r.T else 0.0 for r in b.recs]),
    ]
    fails = total = 0
    for name, opts, adv, lw in checks:
        exp = [json.loads(l) for l in open(os.path.join(d, name + ".expected.jsonl"))]
        got = expected(dict(input=None, opts=opts, adv=adv, lw=lw,
                            path=os.path.join(d, name + ".in.jsonl")))
        if len(exp) != len(got):
            fails += 1
        total += len(exp)
        for e, g in zip(exp, got):
            for k in ("advantage", "loss_weight"):
                if abs(e[k] - g[k]) > 1e-10 + 2e-8 * abs(e[k]):
                    fails += 1
                    print("%s line %d: %s %r, conformance %r" % (name, e["line"], k, g[k], e[k]))
    print("crosscheck: %d records, %d differences" % (total, fails))
    return fails == 0


NEG_ZERO = re.compile(r'(?<![\w.])-0(?:\.0*)?(?:[eE][-+]?\d+)?(?![\d.eE])')


def close(a, b):
    """The conformance tolerance."""
    return abs(a - b) <= 1e-10 + 2e-8 * abs(b)


def check_case(binary, c):
    """Problems of one case: exit status, then for exit 0 each record's two
    numbers, its token arrays (length L_i, the scalar times the mask, read
    through the case's own field options), no -0, the input passed through."""
    inp = os.path.join(HERE, c["name"] + ".in.jsonl")
    try:
        res = subprocess.run([binary] + shlex.split(c["opts"]) + [inp],
                             capture_output=True, timeout=120)
    except subprocess.TimeoutExpired:
        return ["timed out"]
    err = res.stderr.decode("utf-8", "replace").strip()[:300]
    if res.returncode < 0:
        return ["crashed (signal %d): %s" % (-res.returncode, err)]
    if res.returncode != c["code"]:
        return ["exit %d, expected %d: %s" % (res.returncode, c["code"], err)]
    if c["needle"] and c["needle"] not in err:
        return ["stderr lacks %r: %s" % (c["needle"], err)]
    if c["code"]:
        return []
    exp = [json.loads(l) for l in open(os.path.join(HERE, c["name"] + ".expected.jsonl"))]
    got = res.stdout.decode("utf-8").splitlines()
    if len(got) != len(exp):
        return ["%d output records, expected %d" % (len(got), len(exp))]
    recs = {r.line: r for b in load(inp, options(c["opts"])) for r in b.recs}
    src = open(inp, encoding="utf-8").read().splitlines()
    problems = []
    for line, e in zip(got, exp):
        out = json.loads(line)
        rec = recs[e["line"]]
        for k in ("advantage", "loss_weight"):
            if not close(float(out.get(k, "nan")), e[k]):
                problems.append("line %d: %s = %r, expected %.12g" % (e["line"], k, out.get(k), e[k]))
        for arr, k in (("token_advantages", "advantage"), ("token_loss_weights", "loss_weight")):
            v = out.get(arr)
            if not isinstance(v, list) or len(v) != rec.L or \
                    any(not close(x, out[k] * m) for x, m in zip(v, rec.m)):
                problems.append("line %d: %s is not %s times the mask" % (e["line"], arr, k))
        if NEG_ZERO.search(line):
            problems.append("line %d: a negative zero" % e["line"])
        if not line.startswith(src[e["line"] - 1].rstrip()[:-1]):
            problems.append("line %d: the input is not passed through" % e["line"])
    return problems[:8]


def perturb(path, o, rng, out):
    """A case's input with other rewards and masks, in the same fields and
    shapes: binary, tenths (whose means round) or decimals; each mask
    element kept, or flipped one time in four."""
    kind = rng.choice(["bin", "tenth", "float"])
    with open(path, encoding="utf-8") as f, open(out, "w", encoding="utf-8") as w:
        for line in f:
            if not line.strip():
                continue
            obj = json.loads(line)
            rk = o.get("--reward-key") or next(k for k in REWARD_KEYS if k in obj)
            parts = rk.split(",")
            for rk in parts:
                # Several reward functions (TRL's): one in five null,
                # so that rows of every part null come up too.
                if len(parts) > 1 and rng.random() < 0.2:
                    obj[rk] = None
                elif (isinstance(obj.get(rk), (int, float)) or len(parts) > 1) \
                        and not isinstance(obj.get(rk), bool):
                    obj[rk] = (float(rng.randint(0, 1)) if kind == "bin" else
                               rng.choice([0.1, 0.2, 0.3, 0.7]) if kind == "tenth" else
                               round(rng.uniform(-1, 2), 4))
            mk = o.get("--mask-key") or next((k for k in MASK_KEYS if k in obj), None)
            if mk is not None and isinstance(obj.get(mk), list):
                obj[mk] = [type(v)(not v) if rng.random() < 0.25 else v for v in obj[mk]]
            w.write(json.dumps(obj) + "\n")


def check_random(binary, rounds, seed):
    """Every case again on its input with random rewards and masks: the
    framework's numbers (or its refusal) against rladv's."""
    import random
    import tempfile
    passed = failed = 0
    tmp = tempfile.mkdtemp(prefix="rladv-presets-")
    try:
        for c in CASES:
            for k in range(rounds):
                rng = random.Random("%s/%d/%d" % (c["name"], seed, k))
                inp = os.path.join(tmp, "in.jsonl")
                o = options(c["opts"])
                perturb(os.path.join(HERE, INPUTS, c["input"] + ".jsonl"), o, rng, inp)
                try:
                    exp = expected(dict(c, path=inp))
                except Quirk:
                    continue
                res = subprocess.run([binary] + shlex.split(c["opts"]) + [inp],
                                     capture_output=True, timeout=120)
                err = res.stderr.decode("utf-8", "replace").strip()[:300]
                problems = []
                if exp is None:
                    if res.returncode != 1:
                        problems.append("exit %d where the framework refuses" % res.returncode)
                elif res.returncode != 0:
                    problems.append("exit %d: %s" % (res.returncode, err))
                else:
                    got = res.stdout.decode("utf-8").splitlines()
                    for line, e in zip(got, exp):
                        out = json.loads(line)
                        for f in ("advantage", "loss_weight"):
                            if not close(float(out.get(f, "nan")), e[f]):
                                problems.append("line %d: %s = %r, expected %.12g"
                                                % (e["line"], f, out.get(f), e[f]))
                    if len(got) != len(exp):
                        problems.append("%d records out, %d expected" % (len(got), len(exp)))
                for q in problems[:4]:
                    print("FAIL %s round %d: %s" % (c["name"], k, q))
                if problems:
                    os.replace(inp, os.path.join(tmp, "%s.%d.jsonl" % (c["name"], k)))
                failed += bool(problems)
                passed += not problems
    finally:
        for f in os.listdir(tmp):
            if failed == 0 or not f.endswith(".jsonl") or f == "in.jsonl":
                os.remove(os.path.join(tmp, f))
        if not os.listdir(tmp):
            os.rmdir(tmp)
        else:
            print("failing inputs kept in %s" % tmp)
    print("%d passed, %d failed" % (passed, failed))
    return failed == 0


def check(binary, only):
    passed = failed = 0
    for c in CASES:
        if only and only not in c["name"]:
            continue
        problems = check_case(os.path.abspath(binary), c)
        for p in problems:
            print("FAIL %s: %s" % (c["name"], p))
        failed += bool(problems)
        passed += not problems
    print("%d passed, %d failed" % (passed, failed))
    return failed == 0


if __name__ == "__main__":
    args = sys.argv[1:]
    if args[:1] == ["--check"]:
        sys.exit(0 if check(args[1], args[3] if args[2:3] == ["-k"] else None) else 1)
    if args[:1] == ["--random"]:
        sys.exit(0 if check_random(os.path.abspath(args[1]), int(args[2]),
                                   int(args[3]) if len(args) > 3 else 1) else 1)
    if args[:1] == ["--crosscheck"]:
        sys.exit(0 if crosscheck(args[1]) else 1)
    generate(verify=args[:1] == ["--verify"])
