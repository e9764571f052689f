#!/usr/bin/env python3
"""Write the input batches of tests/presets/inputs/ (standard library only).

usage: python3 make_inputs.py [DIR]      (default: inputs/ beside this file)

Each batch is laid out the way its framework holds or writes a rollout:
field names, which arrays cover the prompt too, right padding to the
batch's longest sequence, blocks of consecutive samples with no group key.
The rewards and masks are spelled out below so that every case can be
checked by hand; only the log-probs (which no advantage or loss weight
reads) come from a seeded generator.  Mask patterns are written "1x9 0x6
1x7": nine trained tokens, six masked (a tool's output), seven trained.
"""
import json
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
rng = random.Random(20260522)


def pattern(spec):
    """ "1x9 0x6 1x7" -> [1]*9 + [0]*6 + [1]*7 """
    out = []
    for part in spec.split():
        v, n = part.split("x")
        out += [int(v)] * int(n)
    return out


def logprobs(n):
    """Rollout log-probs as inference engines print them: 7 significant digits."""
    return [float("%.7g" % -abs(rng.gauss(0, 0.6))) for _ in range(n)]


def pad(xs, width, value):
    return xs + [value] * (width - len(xs))


def write(name, records, compact=False):
    path = os.path.join(OUT, name)
    sep = (",", ":") if compact else (", ", ": ")
    with open(path, "w", encoding="utf-8") as f:
        for r in records:
            f.write(json.dumps(r, ensure_ascii=False, separators=sep) + "\n")
    return path


QUESTIONS = [
    "Natalia sold clips to 48 of her friends in April, and then she sold half as many in May. How many clips did she sell altogether?",
    "Who directed the film in which the lead actor of 'Heat' (1995) played a retired detective?",
    "Weng earns $12 an hour for babysitting. Yesterday, she just did 50 minutes of babysitting. How much did she earn?",
    "Which river flows through the capital of the country that won the 1998 FIFA World Cup?",
    "Betty is saving money for a new wallet which costs $100. How much more money does Betty need?",
    "What is the population of the birthplace of the author of 'The Name of the Rose'?",
    "James writes a 3-page letter to 2 different friends twice a week. How many pages does he write a year?",
    "In what year was the university attended by the inventor of the World Wide Web founded?",
    "Albert buys 2 large pizzas and 2 small pizzas. A large pizza has 16 slices. How many pieces does he eat?",
]


def token_ids(n):
    """Token ids of a Qwen vocabulary, the last one <|im_end|>."""
    return [rng.randrange(151000) for _ in range(n - 1)] + [151645] if n else []


def verl_records(groups, uid_of, extra=None):
    """verl: AgentLoopOutput.model_dump() of each response (the agent loop,
    verl/experimental/agent_loop/agent_loop.py), preceded by the trainer's
    uid, the non_tensor_batch key compute_advantage groups by.
    response_mask is 0 on tool-response tokens, which have log-prob 0.0;
    num_turns counts 2 per round."""
    out = []
    for g, (rewards, masks) in enumerate(groups):
        prompt = token_ids(9 + g % 4)
        for r, m in zip(rewards, masks):
            mask = pattern(m)
            lp = logprobs(len(mask))
            rounds = sum(1 for a, b in zip([0] + mask, mask) if b and not a)
            rec = {
                "uid": uid_of(g),
                "prompt_ids": prompt,
                "response_ids": token_ids(len(mask)),
                "response_mask": mask,
                "response_logprobs": [x if k else 0.0 for x, k in zip(lp, mask)],
                "routed_experts": None,
                "multi_modal_data": {},
                "reward_score": r,
            }
            if extra:
                rec.update(extra(g, r))
            rec.update({
                "num_turns": 2 * max(rounds, 1),
                "metrics": {"generate_sequences": round(rng.uniform(0.3, 2.5), 6),
                            "tool_calls": round(rng.uniform(0.0, 0.05), 6) if rounds > 1 else 0.0,
                            "num_preempted": -1},
                "extra_fields": {"turn_scores": [], "tool_rewards": [0.0] * (rounds - 1),
                                 "raw_prompt": [{"role": "user", "content": QUESTIONS[g % len(QUESTIONS)]}],
                                 "reward_extra_info": {}},
            })
            out.append(rec)
    return out


def uuid(g):
    return "%08x-%04x-4%03x-8%03x-%012x" % (
        rng.getrandbits(32), rng.getrandbits(16), rng.getrandbits(12),
        rng.getrandbits(12), rng.getrandbits(48))


def make_verl():
    # Two training steps of a multi-turn (tool) run, five prompts in the
    # first and four in the second (--batch-groups 5): interior zeros are
    # tool outputs; singletons, equal rewards (1.0 and the unrepresentable
    # 0.1), fully masked responses and ragged lengths.
    step1 = [
        ([1.0, 0.0, 0.0, 1.0], ["1x9 0x6 1x7", "1x12", "1x5 0x8 1x3 0x4 1x6", "1x18"]),
        ([1.0, 1.0, 1.0, 1.0], ["1x7", "1x4 0x5 1x4", "1x11", "1x6"]),
        ([1.0], ["1x8 0x3 1x2"]),
        ([0.1, 0.1, 0.1], ["1x10", "1x3", "1x5 0x2 1x5"]),
        ([0.25, 0.8, 0.0, 0.55], ["1x6 0x10 1x4", "0x14", "1x15", "1x2 0x4 1x9"]),
    ]
    step2 = [
        ([0.0, 0.0, 1.0, 0.0, 0.0], ["1x9", "1x13", "1x4 0x6 1x4", "1x7", "1x20"]),
        ([0.3, 0.9], ["1x5", "1x16 0x3 1x2"]),
        ([0.0], ["1x10"]),
        ([0.5, 0.5, 0.2, 0.9], ["1x1", "0x9", "1x12", "1x8 0x5 1x6"]),
    ]
    groups = step1 + step2
    uids = [uuid(g) for g in range(len(groups))]
    write("verl_multiturn.jsonl", verl_records(groups, lambda g: uids[g]))

    # grpo_passk needs two responses per prompt: no singletons here, and no
    # fully masked response, so that verl 0.6.0's seq-mean-token-mean is
    # defined too.  Ties for the best reward, all equal, a pair.
    passk = [
        ([0.0, 1.0, 0.0, 0.0], ["1x11", "1x6 0x4 1x6", "1x9", "1x14"]),
        ([1.0, 1.0, 0.0, 1.0], ["1x8", "1x5", "1x3 0x7 1x8", "1x12"]),
        ([0.2, 0.7, 0.5], ["1x13", "1x4", "1x7 0x2 1x1"]),
        ([0.0, 0.0, 0.0, 0.0], ["1x10", "1x6", "1x16", "1x2"]),
        ([0.9, 0.4], ["1x9 0x9 1x3", "1x7"]),
    ]
    uids = [uuid(g) for g in range(len(passk))]
    write("verl_passk.jsonl", verl_records(passk, lambda g: uids[g]))

    # Single-turn run (masks all 1 up to EOS) with ReMax's greedy baseline:
    # RayPPOTrainer stores the greedy response's reward per prompt as
    # batch["reward_baselines"] before repeating the prompt rollout.n times,
    # so every response of a prompt carries its prompt's baseline; the rows
    # carry it under that DataProto key.  One response is fully masked.
    single = [
        ([1.0, 0.0, 1.0, 1.0], ["1x14", "1x9", "1x21", "1x6"], 1.0),
        ([0.0, 0.0, 0.0, 0.0], ["1x11", "1x17", "1x8", "1x12"], 0.0),
        ([0.3, 0.6, 0.0, 0.9], ["1x10", "0x7", "1x15", "1x5"], 0.6),
        ([1.0, 0.0, 0.0, 0.0], ["1x4", "1x19", "1x13", "1x10"], 0.0),
    ]
    uids = [uuid(g) for g in range(len(single))]
    write("verl_single_turn.jsonl", verl_records(
        [(r, m) for r, m, _ in single], lambda g: uids[g],
        extra=lambda g, r: {"reward_baselines": single[g][2]}))


def make_trl():
    # TRL GRPOTrainer: the columns of its completions log (step, prompt,
    # completion, one per reward function; pandas' compact JSON), without
    # TRL's own advantage column, plus two tensors of the batch
    # _generate_and_score_completions builds: completion_mask and
    # sampling_per_token_logps, padded right to the longest completion
    # (mask 0, log-prob 0.0 there).  No group key: blocks of
    # num_generations = 4 in order.  The first completion of the third
    # block hit max_completion_length = 24 without EOS and
    # mask_truncated_completions zeroed its completion_mask.
    blocks = [
        ([1.5, 0.5, 1.0, 0.0], [10, 17, 6, 12], [False] * 4),
        ([1.0, 1.0, 1.0, 1.0], [8, 14, 9, 11], [False] * 4),
        ([2.0, 0.0, 1.0, 1.5], [24, 13, 7, 19], [True, False, False, False]),
        ([0.2, 0.7, 0.7, 0.7], [5, 9, 16, 12], [False] * 4),
    ]
    width = max(n for _, lens, _ in blocks for n in lens)
    out = []
    for b, (rewards, lens, trunc) in enumerate(blocks):
        for r, n, t in zip(rewards, lens, trunc):
            mask = [0] * n if t else [1] * n
            out.append({
                "step": 12,
                "prompt": "system\nYou are a helpful assistant.\nuser\n" + QUESTIONS[b] + "\nassistant\n",
                "completion": "Let me think step by step." + " ..." * (n // 3),
                "math_reward_func": r,
                "completion_mask": pad(mask, width, 0),
                "sampling_per_token_logps": pad(logprobs(n), width, 0.0),
            })
    write("trl_padded.jsonl", out, compact=True)


def make_trl_multi():
    # TRL GRPOTrainer with two reward functions, trl.rewards'
    # accuracy_reward and think_format_reward, logged as make_trl's.
    # accuracy_reward gives None where the gold answer does not parse
    # (the whole second block) or its verification failed (two rows).
    # For multi_objective_aggregation: equal parts (block 3's accuracy,
    # block 4's format) and a part with one number in a group (block 5).
    N = None
    blocks = [
        ([1.0, 0.0, 1.0, 0.0], [1.0, 1.0, 0.0, 1.0], [12, 7, 15, 9]),
        ([N, N, N, N], [1.0, 0.0, 1.0, 1.0], [10, 18, 6, 11]),
        ([1.0, 1.0, 1.0, 1.0], [0.0, 1.0, 1.0, 0.0], [14, 8, 13, 5]),
        ([0.0, N, 1.0, 0.0], [1.0, 1.0, 1.0, 1.0], [9, 16, 7, 12]),
        ([1.0, N, N, N], [0.0, 0.0, 1.0, 0.0], [11, 6, 17, 10]),
    ]
    width = max(n for _, _, lens in blocks for n in lens)
    out = []
    for b, (acc, fmt, lens) in enumerate(blocks):
        for a, f, n in zip(acc, fmt, lens):
            out.append({
                "step": 40,
                "prompt": "system\nYou are a helpful assistant.\nuser\n" + QUESTIONS[b] + "\nassistant\n",
                "completion": "<think>Let me work it out.</think>" + " ..." * (n // 3),
                "accuracy_reward": a,
                "think_format_reward": f,
                "completion_mask": pad([1] * n, width, 0),
                "sampling_per_token_logps": pad(logprobs(n), width, 0.0),
            })
    write("trl_multi.jsonl", out, compact=True)


def openrlhf_records(groups):
    width = max(n for _, lens in groups for n in lens)
    out = []
    for g, (rewards, lens) in enumerate(groups):
        for r, n in zip(rewards, lens):
            out.append({
                "index": g,
                "prompt": QUESTIONS[g + 2],
                "response": "The answer is" + " ..." * (n // 3),
                "label": str(rng.randrange(100)),
                "reward": r,
                "rollout_log_probs": pad(logprobs(n), width, 0.0),
                "action_mask": pad([1] * n, width, 0),
            })
    return out


def make_openrlhf():
    # OpenRLHF: Experience rows sorted back to prompt order (index = the
    # prompt's position), n_samples_per_prompt = 4, action_mask and
    # rollout_log_probs padded right to the longest response.  One response
    # came back empty: its action_mask is all 0.
    groups = [
        ([1.0, 0.0, 0.0, 1.0], [12, 7, 15, 9]),
        ([0.5, 0.5, 0.5, 0.5], [6, 11, 8, 13]),
        ([0.9, 0.1, 0.4, 0.0], [14, 0, 10, 5]),
        ([1.0, 1.0, 0.0, 1.0], [16, 3, 9, 12]),
    ]
    write("openrlhf_padded.jsonl", openrlhf_records(groups))


def make_nemo():
    # NeMo-RL's train_data_step log: one row per sample, the arrays cover
    # the whole conversation (prompt tokens have token_loss_mask 0 and
    # generation_logprobs 0.0), padded right; no prompt id: the
    # num_generations_per_prompt = 4 samples of a prompt are consecutive.
    # The first group is the [1, 0, 1, 1] of issue 12; in the third the
    # others of the 1.0 are all equal (leave-one-out std 0).  One sample
    # generated nothing (token_loss_mask all 0, sample_loss_mask 1).
    groups = [
        ([1.0, 0.0, 1.0, 1.0], [(21, 9), (21, 14), (21, 6), (21, 11)]),
        ([0.0, 0.0, 0.0, 0.0], [(17, 12), (17, 8), (17, 15), (17, 10)]),
        ([0.5, 0.5, 0.5, 1.0], [(25, 7), (25, 13), (25, 0), (25, 9)]),
        ([0.9, 0.2, 0.6, 0.3], [(19, 16), (19, 5), (19, 11), (19, 8)]),
    ]
    width = max(p + n for _, lens in groups for p, n in lens)
    out = []
    for g, (rewards, lens) in enumerate(groups):
        for r, (p, n) in zip(rewards, lens):
            lp = [0.0] * p + logprobs(n)
            out.append({
                "content": [
                    {"role": "user", "content": QUESTIONS[g + 4]},
                    {"role": "assistant", "content": "..." * (n // 2)},
                ],
                "rewards": r,
                "input_lengths": p + n,
                "generation_logprobs": pad(lp, width, 0.0),
                "token_loss_mask": pad([0] * p + [1] * n, width, 0),
                "sample_loss_mask": 1,
            })
    write("nemo_rl.jsonl", out)


def make_areal():
    # AReaL: the fields WorkflowExecutor dumps per sample (task_id groups
    # the n_samples of one prompt), plus the trajectory's logprobs and
    # loss_mask over the whole packed sequence (prompt tokens masked).
    # AReaL skips samples whose last token is not trained, so none here is
    # fully masked.
    groups = [
        ([1.0, 0.0, 0.0, 1.0], [(30, 12), (30, 7), (30, 18), (30, 9)]),
        ([1.0, 1.0, 1.0, 1.0], [(26, 5), (26, 14), (26, 10), (26, 8)]),
        ([0.2, 0.9, 0.4, 0.4], [(41, 16), (41, 6), (41, 11), (41, 13)]),
        ([0.0, 1.0, 0.0, 0.0], [(22, 15), (22, 9), (22, 4), (22, 20)]),
    ]
    write("areal.jsonl", areal_records(groups, task0=120))
    write("areal_n1.jsonl", areal_records(
        [([1.0], [(28, 11)]), ([0.0], [(19, 6)]), ([1.0], [(33, 14)]), ([0.0], [(24, 9)])],
        task0=310))


def areal_records(groups, task0):
    out = []
    for g, (rewards, lens) in enumerate(groups):
        for i, (r, (p, n)) in enumerate(zip(rewards, lens)):
            out.append({
                "task_id": task0 + g,
                "sample_idx": i,
                "seqlen": p + n,
                "prompt_len": p,
                "head_version": 5,
                "tail_version": 6,
                "reward": r,
                "prompt": "<|im_start|>user\n" + QUESTIONS[g % len(QUESTIONS)] + "<|im_end|>\n<|im_start|>assistant\n",
                "completion": "..." * (n // 3) + " #### %d<|im_end|>" % rng.randrange(100),
                "logprobs": [0.0] * p + logprobs(n),
                "loss_mask": [0] * p + [1] * n,
            })
    return out


def make_slime():
    # slime: Sample.to_dict() fields; loss_mask and rollout_log_probs cover
    # the response only (response_length tokens); n_samples_per_prompt = 4
    # consecutive samples share group_index.  A multi-turn run: 0 marks
    # tool output.  One sample has remove_sample set, so its loss_mask is
    # all 0 (RolloutManager._convert_samples_to_train_data).
    groups = [
        ([1.0, 0.0, 1.0, 0.0], ["1x7 0x9 1x5", "1x13", "1x4 0x3 1x4 0x6 1x2", "1x10"]),
        ([0.0, 0.0, 0.0, 0.0], ["1x6", "1x9 0x4 1x3", "1x15", "1x8"]),
        ([0.7, 0.2, 1.0, 0.2], ["1x11", "0x12", "1x3 0x8 1x9", "1x5"]),
    ]
    write("slime.jsonl", slime_records(groups, 0))
    write("slime_n1.jsonl", slime_records(
        [([1.0], ["1x9"]), ([0.0], ["1x5 0x6 1x3"]), ([0.5], ["1x12"])], 40))


def slime_records(groups, g0):
    out = []
    k = g0 * 4
    for g, (rewards, masks) in enumerate(groups):
        for r, m in zip(rewards, masks):
            mask = pattern(m)
            out.append({
                "group_index": g0 + g,
                "index": k,
                "rollout_id": None,
                "prompt": QUESTIONS[(g + 1) % len(QUESTIONS)],
                "response": "<tool_call>search</tool_call>" + " ..." * (len(mask) // 3),
                "response_length": len(mask),
                "label": str(rng.randrange(100)),
                "reward": r,
                "loss_mask": mask,
                "rollout_log_probs": logprobs(len(mask)),
                "remove_sample": not any(mask),
                "status": "completed",
                "metadata": {},
            })
            k += 1
    return out


def make_skyrl():
    # SkyRL: one row per index of GeneratorOutput (skyrl/train/generators/
    # base.py) with response-level rewards, preceded by the uid the trainer
    # groups by (its metadata "uids", the trajectory's instance_id;
    # trajectory_ids itself is None outside step-wise training).  Groups of
    # 4, a singleton, equal rewards, a fully masked trajectory.
    groups = [
        ("gsm8k-0117", [1.0, 0.0, 0.0, 1.0], ["1x6 0x5 1x8", "1x14", "1x9", "1x3 0x9 1x6"]),
        ("gsm8k-0245", [1.0], ["1x12"]),
        ("gsm8k-0301", [0.3, 0.3, 0.3], ["1x7", "1x10", "1x4 0x2 1x4"]),
        ("gsm8k-0388", [0.0, 0.6, 1.0, 0.6], ["1x11", "0x13", "1x5 0x7 1x8", "1x16"]),
    ]
    out = []
    for g, (uid, rewards, masks) in enumerate(groups):
        prompt = token_ids(10 + g)
        for r, m in zip(rewards, masks):
            mask = pattern(m)
            out.append({
                "uid": uid,
                "prompt_token_ids": prompt,
                "response_ids": token_ids(len(mask)),
                "rewards": r,
                "loss_masks": mask,
                "stop_reasons": "stop" if any(mask) else "length",
                "rollout_logprobs": logprobs(len(mask)),
            })
    write("skyrl.jsonl", out)


def make_untrained():
    # Written last, so that the files above keep their draws.  verl: two
    # steps of two prompts (--batch-groups 2); in the second every response
    # is a tool's output alone, so the batch has no trained token.
    groups = [
        ([1.0, 0.0, 1.0], ["1x6 0x3 1x4", "1x9", "1x5"]),
        ([0.2, 0.6], ["1x7", "1x3 0x5 1x2"]),
        ([1.0, 0.0, 0.0], ["0x8", "0x5", "0x11"]),
        ([0.4, 0.9], ["0x6", "0x4"]),
    ]
    uids = [uuid(g) for g in range(len(groups))]
    write("verl_untrained.jsonl", verl_records(groups, lambda g: uids[g]))

    # OpenRLHF: every response trained (0.10.2's per-sample loss is
    # defined), then two steps of one prompt (--batch-groups 1), the
    # second's four responses all empty.
    write("openrlhf_trained.jsonl", openrlhf_records([
        ([1.0, 0.0, 1.0, 0.0], [8, 3, 11, 5]),
        ([0.7, 0.2, 0.2, 0.9], [4, 9, 6, 2]),
        ([0.0, 0.0, 1.0, 0.0], [10, 7, 1, 12]),
    ]))
    write("openrlhf_untrained.jsonl", openrlhf_records([
        ([1.0, 0.0, 0.0, 1.0], [5, 8, 3, 6]),
        ([0.0, 1.0, 1.0, 0.0], [0, 0, 0, 0]),
    ]))


def make_slime_split():
    # slime 0.3.1's agents that split one rollout into several training
    # samples (docs/en/get_started/customization.md, "Returning multiple
    # training samples for one prompt"; slime/agent/trajectory.py): each
    # segment is a copy of the sample with its own tokens, loss_mask and
    # reward, and rollout_id = the sample's index on every sibling.  A
    # rollout not split keeps rollout_id None.  n_samples_per_prompt = 4,
    # so the three prompts hold 6, 5 and 4 samples.  Rollout 1 spreads its
    # reward 1.0 over two segments (reward / K, as the docs suggest); the
    # context compaction of rollout 5 ends in a segment with no trained
    # token; rollout 9's second segment has remove_sample set.
    rollouts = [
        # (group_index, index, [(reward, mask), ...]), one entry a segment
        (0, 0, [(1.0, "1x7 0x9 1x5")]),
        (0, 1, [(0.5, "1x9"), (0.5, "1x4 0x3 1x6")]),
        (0, 2, [(0.0, "1x12"), (0.0, "1x3 0x5 1x2"), (0.0, "1x8")]),
        (0, 3, [(1.0, "1x10")]),
        (1, 4, [(0.0, "1x6")]),
        (1, 5, [(1.0, "1x9 0x4 1x3"), (1.0, "0x7")]),
        (1, 6, [(0.0, "1x15")]),
        (1, 7, [(1.0, "1x4 0x2 1x4")]),
        (2, 8, [(0.2, "1x11")]),
        (2, 9, [(0.7, "1x3 0x8 1x9"), (0.7, "1x5")]),
        (2, 10, [(1.0, "1x13")]),
    ]
    out = []
    for g, k, segs in rollouts:
        for j, (r, m) in enumerate(segs):
            mask = pattern(m)
            removed = (k, j) == (9, 1)
            out.append({
                "group_index": g,
                "index": k,
                "rollout_id": k if len(segs) > 1 else None,
                "prompt": QUESTIONS[(g + 2) % len(QUESTIONS)],
                "response": "<tool_call>search</tool_call>" + " ..." * (len(mask) // 3),
                "response_length": len(mask),
                "label": str(rng.randrange(100)),
                "reward": r,
                "loss_mask": [0] * len(mask) if removed else mask,
                "rollout_log_probs": logprobs(len(mask)),
                "remove_sample": removed,
                "status": "completed",
                "metadata": {"segment": j},
            })
    write("slime_split.jsonl", out)


if __name__ == "__main__":
    OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "inputs")
    os.makedirs(OUT, exist_ok=True)
    make_verl()
    make_trl()
    make_openrlhf()
    make_nemo()
    make_areal()
    make_slime()
    make_skyrl()
    make_untrained()
    make_trl_multi()
    make_slime_split()
