#!/usr/bin/env python3
"""The script a user would write instead of rladv (the benchmark baseline).

    python3 bench/baseline.py < roll.jsonl > out.jsonl

Reads JSONL rollout records from stdin, groups them by prompt_id (records of
a prompt are contiguous), computes GRPO advantages (group mean, population
std, eps 1e-6; a group whose rewards are all equal gets 0) and token-mean loss
weights (1/N, N = trained tokens over the whole input; 0 for a record with no
trained token), and writes every record with the fields advantage,
token_advantages, loss_weight and token_loss_weights appended. Stdlib only.
It matches `rladv -a grpo -g token` in meaning (not in number formatting).
"""

import json
import math
import sys

EPS = 1e-6


def grpo(rewards):
    n = len(rewards)
    if n < 2 or all(r == rewards[0] for r in rewards):
        return [0.0] * n
    mean = sum(rewards) / n
    std = math.sqrt(sum((r - mean) ** 2 for r in rewards) / n)
    return [(r - mean) / (std + EPS) for r in rewards]


def main():
    records = [json.loads(line) for line in sys.stdin if line.strip()]

    # advantages, group by group (contiguous prompt_id runs)
    advantages = []
    start = 0
    for i in range(1, len(records) + 1):
        if i == len(records) or records[i]["prompt_id"] != records[start]["prompt_id"]:
            advantages += grpo([float(r["reward"]) for r in records[start:i]])
            start = i

    # token-mean: every trained token of the input weighs 1/N
    masks = [rec.get("mask") or [1] * len(rec["logprobs"]) for rec in records]
    total = sum(sum(m) for m in masks)
    weight = 1.0 / total if total else 0.0

    out = sys.stdout
    for rec, adv, mask in zip(records, advantages, masks):
        c = weight if sum(mask) else 0.0
        rec["advantage"] = adv
        rec["token_advantages"] = [adv * m for m in mask]
        rec["loss_weight"] = c
        rec["token_loss_weights"] = [c * m for m in mask]
        out.write(json.dumps(rec))
        out.write("\n")


if __name__ == "__main__":
    main()
