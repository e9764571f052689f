#!/usr/bin/env python3
"""Each framework's own GRPO advantages for its sample in samples/.

Independent of rladv: pure Python 3, standard library only.  For every
profile it reads the sample, applies the rules of that framework's default
GRPO path (each rule cites the file it comes from, in the framework's
repository) and writes tests/frameworks/PROFILE.expected.jsonl, one line
per sample record in output order:

    {"line": N, "advantage": A}            (N = 1-based input line)
    {"line": N, "index": K, "advantage": A} (columnar lines: K = 0-based column index)

The frameworks compute in float32 (torch) where noted; this script computes
in double, so a comparison with a framework's own logged numbers needs a
tolerance of about 1e-6, while rladv (double) should agree to 1e-12.

Usage: python3 tests/frameworks/reference.py [--check] [PROFILE...]
(run from the repository root; --check compares with the committed files
instead of writing them, and exits 1 on a difference).
"""
import json
import math
import os
import sys

SAMPLES = {
    "verl": "samples/verl_rollout_dump.jsonl",
    "verl-agent": "samples/verl_agent_loop.jsonl",
    "trl": "samples/trl_completions_00005.jsonl",
    "openrlhf": "samples/openrlhf_agent.jsonl",
    "nemo-rl": "samples/nemo_rl_train_data_step3.jsonl",
    "nemo-rl-dynamic": "samples/nemo_rl_dynamic_train_data_step5.jsonl",
    "slime": "samples/slime_rollout_data_4.jsonl",
    "slime-split": "samples/slime_rollout_data_9.jsonl",
    "areal": "samples/areal_dump_v12.jsonl",
    "roll": "samples/roll_rollout_dump_data.step_3.jsonl",
    "skyrl": "samples/skyrl_generator_output.jsonl",
    "verifiers": "samples/verifiers_results.jsonl",
}

# Group sizes the frameworks take from their configuration, not from the
# dump (these samples were made with them).
TRL_NUM_GENERATIONS = 4        # GRPOConfig.num_generations
OPENRLHF_N_SAMPLES = 4         # --rollout.n_samples_per_prompt
SLIME_N_SAMPLES = 4            # --n-samples-per-prompt
AREAL_N_SAMPLES = 4            # gconfig.n_samples (examples/math/gsm8k_grpo.yaml)
ROLL_NUM_RETURN_SEQUENCES = 4  # actor_infer.generating_args.num_return_sequences


def read(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(s) for s in f if s.strip()]


def mean(v):
    return sum(v) / len(v)


def std_sample(v, m=None):
    """torch.std default: Bessel-corrected (n - 1)."""
    if m is None:
        m = mean(v)
    return math.sqrt(sum((x - m) ** 2 for x in v) / (len(v) - 1))


def groups_by_key(keys):
    """Indices per key, in first-seen order (a dict, as verl's id2score)."""
    out = {}
    for i, k in enumerate(keys):
        out.setdefault(k, []).append(i)
    return list(out.values())


def groups_by_blocks(n, size):
    if n % size:
        raise SystemExit("sample of %d records is not whole blocks of %d" % (n, size))
    return [list(range(s, s + size)) for s in range(0, n, size)]


def group_norm(rewards, groups, eps):
    """(r - mean) / (torch.std + eps) within each group, sample std."""
    adv = [0.0] * len(rewards)
    for g in groups:
        v = [rewards[i] for i in g]
        m, s = mean(v), std_sample(v)
        for i in g:
            adv[i] = (rewards[i] - m) / (s + eps)
    return adv


def verl_grpo(rewards, groups, eps=1e-6):
    """verl/trainer/ppo/core_algos.py compute_grpo_outcome_advantage:
    scores = token_level_rewards.sum(-1); a group of one gets mean 0 and
    std 1; otherwise torch.mean and torch.std (sample); eps is added to
    the std: (r - mean) / (std + 1e-6).  norm_adv_by_std_in_grpo=True is
    the default (verl/trainer/config/ppo_trainer.yaml)."""
    adv = [0.0] * len(rewards)
    for g in groups:
        v = [rewards[i] for i in g]
        if len(v) == 1:
            m, s = 0.0, 1.0
        else:
            m, s = mean(v), std_sample(v)
        for i in g:
            adv[i] = (rewards[i] - m) / (s + eps)
    return adv


def p_verl(recs):
    # verl/trainer/ppo/ray_trainer.py _dump_generations: no uid is written;
    # the uid is one per prompt (set before rollout.n repeats), so the
    # prompt text ("input") stands for it.  "score" is
    # token_level_scores.sum(-1) (_log_rollout_data), overwritten by a
    # reward function's own "score" key when it returns a dict
    # (math_dapo: 1.0 / -1.0).  balance_batch reorders rows: groups are
    # gathered wherever they are.
    r = [x["score"] for x in recs]
    return verl_grpo(r, groups_by_key([x["input"] for x in recs]))


def p_verl_agent(recs):
    # verl/experimental/agent_loop/agent_loop.py _postprocess: rm_scores
    # holds reward_score at the last response token, so the summed score is
    # reward_score; grouping is by the trainer's uid.
    r = [x["reward_score"] for x in recs]
    return verl_grpo(r, groups_by_key([x["uid"] for x in recs]))


def p_trl(recs):
    # trl/trainer/grpo_trainer.py _generate_and_score_completions with the
    # defaults multi_objective_aggregation="sum_then_normalize",
    # scale_rewards="group" (trl/trainer/grpo_config.py):
    #   a reward function's None is NaN (_calculate_rewards);
    #   rewards = nansum_k(w_k * r_k) (reward_weights default 1.0 each);
    #   a row whose every function returned None stays NaN (unscorable);
    #   groups are consecutive blocks of num_generations;
    #   mean = nanmean, std = nanstd (trl/trainer/utils.py: Bessel over the
    #   non-NaN count, NaN when that count is 1 or 0);
    #   advantage = (r - mean) / (std + 1e-4), then nan_to_num(nan=0).
    funcs = ["math_reward_func", "coding_reward_func"]
    weights = [1.0, 1.0]
    r = []
    for x in recs:
        vals = [x[f] for f in funcs]
        if all(v is None for v in vals):
            r.append(None)
        else:
            r.append(sum(w * v for w, v in zip(weights, vals) if v is not None))
    adv = [0.0] * len(r)
    for g in groups_by_blocks(len(r), TRL_NUM_GENERATIONS):
        v = [r[i] for i in g if r[i] is not None]
        m = mean(v) if v else None
        s = std_sample(v, m) if len(v) > 1 else None
        for i in g:
            if r[i] is None or s is None:
                adv[i] = 0.0          # NaN advantage -> 0
            else:
                adv[i] = (r[i] - m) / (s + 1e-4)
    return adv


def p_openrlhf(recs):
    # openrlhf/trainer/ppo_utils/experience_maker.py
    # compute_advantages_and_returns, estimator "group_norm" (GRPO):
    #   rewards.reshape(-1, n_samples_per_prompt) -- consecutive blocks in
    #   prompt order (experience.index);
    #   (r - mean) / (r.std(-1) + 1e-9), torch.std is Bessel-corrected.
    # With gamma=1 and no KL in the reward (kl.use_loss), every action token
    # carries this value (get_cumulative_returns).
    r = [x["reward"] for x in recs]
    return group_norm(r, groups_by_blocks(len(r), OPENRLHF_N_SAMPLES), 1e-9)


def p_nemo_rl(recs):
    # nemo_rl/algorithms/advantage_estimator.py GRPOAdvantageEstimator with
    # the defaults use_leave_one_out_baseline=True, normalize_rewards=True
    # (examples/configs/grpo_math_1B.yaml), and
    # nemo_rl/algorithms/utils.py calculate_baseline_and_std_per_prompt:
    #   groups are rows with identical prompt token ids (torch.unique);
    #   for each row, the baseline is the mean of the OTHER rows' rewards and
    #   std = sqrt((mean_others(r^2) - baseline^2) * nv / (nv - 1)),
    #   nv = group size - 1, nan_to_num(0) (a leave-one-out sample std);
    #   a group with at most one valid row gets baseline = reward (adv 0);
    #   advantage = r - baseline, divided by (std + 1e-6) only where std > 0.
    # Every value is wrapped in a one-element list by
    # nemo_rl/utils/logger.py log_batched_dict_as_jsonl.
    keys, r = [], []
    for x in recs:
        ids, mask = x["token_ids"][0], x["token_loss_mask"][0]
        first = mask.index(1) if 1 in mask else len(ids)
        keys.append(tuple(ids[:first]))
        # nemo_rl/algorithms/grpo.py (train loop, "Logging"): under
        # use_dynamic_sampling the trained rewards are filtered_rewards;
        # rewards then holds rows of the unfiltered batches.
        r.append(x.get("filtered_rewards", x["rewards"])[0])
    adv = [0.0] * len(r)
    f32max = 3.4028234663852886e38
    for g in groups_by_key(keys):
        if len(g) <= 1:
            for i in g:
                adv[i] = 0.0
            continue
        nv = len(g) - 1
        for i in g:
            others = [r[j] for j in g if j != i]
            b = sum(others) / nv
            sq = sum(v * v for v in others) / nv
            var = sq - b * b
            if nv == 1:               # nv / (nv - 1) is inf
                s = 0.0 if var == 0 else (f32max if var > 0 else 0.0)
            else:
                var *= nv / (nv - 1)
                s = math.sqrt(var) if var > 0 else 0.0   # NaN -> 0
            a = r[i] - b
            adv[i] = a / (s + 1e-6) if s > 0 else a
    return adv


def p_slime(recs):
    # slime/ray/rollout.py _post_process_rewards, advantage_estimator grpo
    # with rewards_normalization and grpo_std_normalization on (defaults,
    # slime/utils/arguments.py): the reward is reward[args.reward_key]
    # (Sample.get_reward_value; the retool example sets --reward-key score);
    # groups are consecutive blocks of n_samples_per_prompt when the count
    # is n * rollout_batch_size, else the whole batch is one row (an
    # agent's rollout split into several samples, which share rollout_id,
    # makes the count larger); r - mean, then / (torch.std + 1e-6)
    # (Bessel-corrected).  n_samples_per_prompt == 1 turns the std
    # division off.
    r = []
    for x in recs:
        rw = x["reward"]
        r.append(rw["score"] if isinstance(rw, dict) else rw)
    adv = [0.0] * len(r)
    prompts = len(set(x["group_index"] for x in recs))
    rows = groups_by_blocks(len(r), SLIME_N_SAMPLES) \
        if len(r) == SLIME_N_SAMPLES * prompts else [list(range(len(r)))]
    for g in rows:
        v = [r[i] for i in g]
        m = mean(v)
        s = std_sample(v, m) if len(v) > 1 else None
        for i in g:
            adv[i] = r[i] - m if s is None else (r[i] - m) / (s + 1e-6)
    return adv


def p_areal(recs):
    # areal/trainer/ppo/actor.py _compute_advantages with
    # examples/math/gsm8k_grpo.yaml (reward_scaling 10, reward_bias -0.5,
    # kl_ctl 0, reward_norm group/group, adv_norm batch/batch) and the
    # defaults of areal/api/cli_args.py (reward_clip 20, NormConfig:
    # std_unbiased, eps 1e-5, discount 1, gae_lambda 1):
    #   x = clip((r + bias) * scaling, -20, 20);
    #   reward_norm (areal/utils/data.py Normalization, float64): consecutive
    #   blocks of group_size = n_samples, (x - mean) / (std + 1e-5), std
    #   Bessel-corrected (a group of one gets std 1);
    #   GAE with values 0, gamma = lambda = 1 and no KL puts that value on
    #   every loss token of the sample;
    #   adv_norm: mean and Bessel std over all loss tokens of the batch
    #   (token-weighted), (a - mean) / (std + 1e-5).
    # The dump has no mask; a sample's loss tokens number seqlen - prompt_len
    # (areal/infra/workflow_executor.py: prompt_end = seqlen - sum(mask)).
    # The batch is taken to be the whole sample file.
    scaling, bias, clip, eps = 10.0, -0.5, 20.0, 1e-5
    x = [min(max((rec["reward"] + bias) * scaling, -clip), clip) for rec in recs]
    a = [0.0] * len(x)
    for g in groups_by_blocks(len(x), AREAL_N_SAMPLES):
        v = [x[i] for i in g]
        m = mean(v)
        s = std_sample(v, m) if len(v) > 1 else 1.0
        for i in g:
            a[i] = (x[i] - m) / (s + eps)
    t = [rec["seqlen"] - rec["prompt_len"] for rec in recs]
    n = sum(t)
    m = sum(ti * ai for ti, ai in zip(t, a)) / n
    s = math.sqrt(sum(ti * (ai - m) ** 2 for ti, ai in zip(t, a)) / (n - 1)) if n > 1 else 1.0
    return [(ai - m) / (s + eps) for ai in a]


def p_roll(line):
    # roll/pipeline/rlvr/utils.py write_to_json_process writes one line per
    # step: a dict of columns.  roll/utils/functionals.py reward_postprocess
    # forces norm_mean_type = norm_std_type = "group" for grpo; reward_norm
    # reshapes to (-1, num_return_sequences) (consecutive blocks), then
    # (r - mean) / (torch.std + 1e-6) (Bessel-corrected); reward_clip and
    # advantage_clip default to None (roll/configs/base_config.py);
    # compute_advantage (grpo -> compute_reinforce_return, gamma 1) puts the
    # value on every response token; whiten_advantages defaults to False.
    r = line["scores"]
    return group_norm(r, groups_by_blocks(len(r), ROLL_NUM_RETURN_SEQUENCES), 1e-6)


def p_skyrl(recs):
    # skyrl/train/trainer.py compute_advantages_and_returns, step-wise:
    # advantages come from the last step of each trajectory only
    # (is_last_step), grouped by trajectory_ids.instance_id, and are
    # broadcast to every step of that trajectory (traj ids = cumsum of the
    # shifted is_last_step).  The estimator is
    # skyrl/backends/skyrl_train/utils/ppo_utils.py
    # compute_grpo_outcome_advantage (verl's: sum of the per-token rewards,
    # group of one -> mean 0 / std 1, torch.std sample, + 1e-6).
    last = [i for i, x in enumerate(recs) if x["is_last_step"]]
    r = [sum(recs[i]["rewards"]) if isinstance(recs[i]["rewards"], list)
         else recs[i]["rewards"] for i in last]
    keys = [recs[i]["trajectory_ids"]["instance_id"] for i in last]
    traj_adv = verl_grpo(r, groups_by_key(keys))
    out, t = [], 0
    for i, x in enumerate(recs):
        out.append(traj_adv[t])
        if x["is_last_step"]:
            t += 1
    return out


def p_verifiers(recs):
    # verifiers/legacy/rubrics/rubric.py Rubric.score_group: the rollouts of
    # one example are scored together; advantage = reward - mean of the
    # group's rewards (no std division).  Rows are grouped by example_id.
    r = [x["reward"] for x in recs]
    adv = [0.0] * len(r)
    for g in groups_by_key([x["example_id"] for x in recs]):
        m = mean([r[i] for i in g])
        for i in g:
            adv[i] = r[i] - m
    return adv


RULES = {
    "verl": p_verl, "verl-agent": p_verl_agent, "trl": p_trl,
    "openrlhf": p_openrlhf, "nemo-rl": p_nemo_rl,
    "nemo-rl-dynamic": p_nemo_rl, "slime": p_slime, "slime-split": p_slime,
    "areal": p_areal, "roll": p_roll, "skyrl": p_skyrl,
    "verifiers": p_verifiers,
}


def expected(profile):
    recs = read(SAMPLES[profile])
    if profile == "roll":
        out = []
        for n, line in enumerate(recs, 1):
            for k, a in enumerate(p_roll(line)):
                out.append({"line": n, "index": k, "advantage": a})
        return out
    return [{"line": n, "advantage": a}
            for n, a in enumerate(RULES[profile](recs), 1)]


def main(argv):
    check = "--check" in argv
    names = [a for a in argv if a != "--check"] or list(SAMPLES)
    bad = 0
    for name in names:
        text = "".join(json.dumps(e) + "\n" for e in expected(name))
        path = os.path.join("tests", "frameworks", name + ".expected.jsonl")
        if check:
            with open(path, encoding="utf-8") as f:
                if f.read() != text:
                    print("reference.py: %s differs from what %s gives" % (path, SAMPLES[name]))
                    bad = 1
        else:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
    return bad


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
