#!/usr/bin/env python3
# respell.py RLADV SAMPLES SEED: each framework sample written again with
# other JSON blanks (none to three spaces or tabs between any two tokens,
# as json.dumps, orjson and hand-edited files differ), run as its man page
# EXAMPLE runs it; rladv's four fields must be those it computes on the
# sample as the framework wrote it.  One line a sample, "ok NAME" or
# "FAIL NAME: why".  It found SkyRL's trajectory id, an object, taken as
# two trajectories where two rows spaced it apart differently
# (tests/check_mask.c has the mask's "1,1,1,1, 1", refused before).
import json
import os
import random
import subprocess
import sys
import tempfile

rladv, samples, seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
CASES = [
    ("--from verl", "verl_rollout_dump.jsonl"),
    ("--from verl-agent", "verl_agent_loop.jsonl"),
    ("--from trl --group-size 4 --reward-key "
     "math_reward_func,coding_reward_func", "trl_completions_00005.jsonl"),
    ("--from openrlhf --group-size 4", "openrlhf_agent.jsonl"),
    ("--from nemo-rl", "nemo_rl_train_data_step3.jsonl"),
    ("--from nemo-rl", "nemo_rl_dynamic_train_data_step5.jsonl"),
    ("--from slime --reward-key reward.score", "slime_rollout_data_4.jsonl"),
    ("--from areal", "areal_dump_v12.jsonl"),
    ("--from roll", "roll_rollout_dump_data.step_3.jsonl"),
    ("--from skyrl", "skyrl_generator_output.jsonl"),
    ("--from verifiers", "verifiers_results.jsonl"),
    ("-a stratified -g balanced --batch-key step", "search_agent.jsonl"),
    ("--like trl --group-size 4 --no-tokens", "trl_layout.jsonl"),
]
FIELDS = ("advantage", "token_advantages", "loss_weight",
          "token_loss_weights")
rnd = random.Random(seed)
# Odd seeds: blanks everywhere; even ones: a rare blank in compact text,
# where the fast paths that read several elements at a time run.
BLANKS = (0, 0, 0, 1, 1, 2, 3) if seed % 2 else (0,) * 30 + (1, 2)


def blank():
    return "".join(rnd.choice(" \t") for _ in range(rnd.choice(
        BLANKS)))


def dump(v):
    b = blank
    if isinstance(v, dict):
        return "{" + b() + ("," + b()).join(
            json.dumps(k) + b() + ":" + b() + dump(x) + b()
            for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + b() + ("," + b()).join(
            dump(x) + b() for x in v) + "]"
    return json.dumps(v)


def run(opts, path):
    p = subprocess.run([rladv] + opts.split() + [path],
                       capture_output=True, text=True)
    if p.returncode != 0:
        return None, p.stderr.strip()[:300]
    return [tuple(json.dumps(json.loads(line).get(k)) for k in FIELDS)
            for line in p.stdout.splitlines()], ""


tmp = tempfile.mkdtemp(prefix="rladv-respell.")
for opts, name in CASES:
    src = os.path.join(samples, name)
    with open(src) as f:
        lines = f.read().splitlines()
    out = os.path.join(tmp, name.replace(".jsonl", ".respelled.jsonl"))
    with open(out, "w") as f:
        for line in lines:
            f.write(blank() + dump(json.loads(line)) + blank() + "\n")
    want, why = run(opts, src)
    got, why2 = run(opts, out)
    if want is None:
        print("FAIL %s: the sample itself: %s" % (name, why))
    elif got is None:
        print("FAIL %s: respelled: %s" % (name, why2))
    elif got != want:
        print("FAIL %s: respelled, the fields differ" % name)
    else:
        print("ok %s" % name)
    os.remove(out)
os.rmdir(tmp)
