#!/usr/bin/python3
"""The strongest script a user would write instead of rladv: ujson (or
orjson) to read, numpy for the arithmetic, and each record written back as
its own line with the four fields appended, so that only the new numbers
are serialized, as rladv does.

    /usr/bin/python3 bench/baseline_np.py [--orjson] < roll.jsonl > out.jsonl

It computes `rladv -a grpo -g token`: GRPO over contiguous prompt_id groups
(mean, population std, eps 1e-6, a group of equal rewards gets 0), token-mean
loss weights (1/N, N the trained tokens of the whole input; 0 for a record
with none), the token arrays the advantage and the weight where the mask is
1 and 0 where it is 0.  make bench checks that its numbers are rladv's
(`rladv diff --outputs`) before it times it.  Debian's python3-ujson and
python3-numpy; --orjson where an interpreter has the orjson module.
"""

import sys

import numpy as np

EPS = 1e-6


def main():
    if "--orjson" in sys.argv:
        import orjson
        loads, dumps = orjson.loads, orjson.dumps
    else:
        import ujson

        loads = ujson.loads

        def dumps(o):
            return ujson.dumps(o).encode()
    lines = [line for line in sys.stdin.buffer if line.strip()]
    records = [loads(line) for line in lines]
    n = len(records)
    if n == 0:
        return

    # Groups: where the prompt_id changes; their sums by np.add.reduceat.
    keys = [r["prompt_id"] for r in records]
    starts = np.asarray([0] + [i for i in range(1, n)
                               if keys[i] != keys[i - 1]])
    sizes = np.diff(np.append(starts, n))
    rewards = np.asarray([r["reward"] for r in records], dtype=np.float64)
    mean = np.repeat(np.add.reduceat(rewards, starts) / sizes, sizes)
    dev = rewards - mean
    std = np.repeat(np.sqrt(np.add.reduceat(dev * dev, starts) / sizes),
                    sizes)
    equal = np.repeat(np.maximum.reduceat(rewards, starts) ==
                      np.minimum.reduceat(rewards, starts), sizes)
    adv = np.where(equal, 0.0, dev / (std + EPS))

    # token-mean: every trained token of the input weighs 1/N.
    masks = [np.asarray(r["mask"], dtype=np.float64) if "mask" in r
             else np.ones(len(r["logprobs"])) for r in records]
    trained = np.asarray([m.sum() for m in masks])
    total = trained.sum()
    weight = np.where(trained > 0, 1.0 / total if total else 0.0, 0.0)

    out = sys.stdout.buffer
    for line, a, c, m in zip(lines, adv.tolist(), weight.tolist(), masks):
        end = line.rindex(b"}")
        out.write(line[:end])
        out.write(b', "advantage": ' + dumps(a) +
                  b', "token_advantages": ' + dumps((m * a).tolist()) +
                  b', "loss_weight": ' + dumps(c) +
                  b', "token_loss_weights": ' + dumps((m * c).tolist()) +
                  b"}\n")


if __name__ == "__main__":
    main()
