#!/usr/bin/env python3
"""Write the committed sample rollout logs under samples/.

    python3 scripts/gen_sample.py [OUTDIR]      (default: samples/ beside this script)

Deterministic: a fixed seed, Python's stdlib PRNG (stable across versions for
random(), randrange() and gauss()), numbers formatted by hand, gzip written with
mtime 0 and no file name. Running it again rewrites byte-identical files.

Files written:
  search_agent.jsonl     a search-agent log: 40 prompts x 8 responses, two
                         training steps of 20 prompts, 0-4 tool calls per
                         response, binary rewards, tool-output spans masked out
  search_agent.jsonl.gz  the same bytes, gzipped
  trl_layout.jsonl       TRL layout: no group key, blocks of 4 consecutive
                         records, fields reward and logprobs only

What the search-agent log is built to exercise:
  - more tool calls -> higher success probability and longer responses, so the
    strata (tool_calls values) of a group differ in mean reward and length
    (the motivating case of Stratified GRPO);
  - some prompts all correct and some all wrong (zero-variance groups);
  - response lengths 20..400 tokens; each tool call inserts a span of 10..60
    mask-0 tokens (the tool's output) after the model's query tokens;
  - a passthrough "meta" object holding a non-ASCII character and an escaped
    quote, which a filter must copy byte for byte;
  - a top-level "step" with two values (--batch-key step gives two batches).
"""

import gzip
import io
import json
import math
import os
import random
import sys

SEED = 1126   # picked so the properties listed above hold (see the asserts)
PROMPTS_PER_STEP = 20
STEPS = (3, 4)
G = 8
MODEL = 'Qwen2.5-7B "search-r1"'               # escaped quotes in JSON
RETRIEVER = "e5 → wiki18"                       # non-ASCII (U+2192)

# prompt kinds: forced outcome for zero-variance groups, else None
ALL_CORRECT = {2, 9, 23, 31}      # prompt index -> every response correct
ALL_WRONG = {5, 16, 27, 36}       # prompt index -> every response wrong
FORCED_LENGTH_LIMIT = (11, 5)     # (prompt index, response) hitting 400


def fmt_lp(x):
    """A log-prob as JSON text with 7 significant digits, no exponent."""
    # x in [-3, -1e-4]; choose decimals so 7 significant digits are kept
    ax = -x
    if ax >= 1.0:
        dec = 6
    elif ax >= 0.1:
        dec = 7
    elif ax >= 0.01:
        dec = 8
    elif ax >= 0.001:
        dec = 9
    else:
        dec = 10
    s = "%.*f" % (dec, ax)
    s = s.rstrip("0").rstrip(".") if "." in s else s
    return "-" + s


def draw_logprob(rng, confident):
    """A per-token log-prob: most tokens near 0, a tail of uncertain ones."""
    mu = -3.6 if confident else -2.4
    while True:
        v = math.exp(rng.gauss(mu, 1.7))
        if v <= 3.0:
            return -max(v, 1e-4)


def tool_span_len(rng):
    """Tool output length, 10..60, skewed short (snippets are usually short)."""
    u = rng.random()
    return 10 + int(51 * u ** 5)


def make_response(rng, tool_calls, correct, long_tail):
    """Return (logprobs, mask) for one response."""
    lp, mask = [], []

    def model_tokens(n, confident):
        for _ in range(n):
            lp.append(draw_logprob(rng, confident))
            mask.append(1)

    # opening reasoning
    model_tokens(rng.randrange(2, 6), correct)
    for _ in range(tool_calls):
        # <search>query</search>
        model_tokens(rng.randrange(2, 6), correct)
        # <information>...</information> from the tool: not trained
        n = tool_span_len(rng)
        for _ in range(n):
            # the trainer's re-scoring of tool text: log-probs exist, mask is 0
            lp.append(draw_logprob(rng, False))
            mask.append(0)
        # a short thought after reading
        model_tokens(rng.randrange(1, 5), correct)
    # final answer
    model_tokens(rng.randrange(2, 7), correct)
    if long_tail:
        # a rambling answer that runs towards (or into) the length limit
        model_tokens(long_tail, False)
    # lengths stay in 20..400
    while len(lp) < 20:
        model_tokens(1, correct)
    if len(lp) > 400:
        del lp[400:]
        del mask[400:]
    return lp, mask


def search_agent_lines(rng):
    lines = []
    ids = sorted(rng.sample(range(1, 7406), PROMPTS_PER_STEP * len(STEPS)))
    rng.shuffle(ids)
    pidx = 0
    for step in STEPS:
        for _ in range(PROMPTS_PER_STEP):
            pid = "hotpot-%05d" % ids[pidx]
            difficulty = rng.gauss(-0.6, 0.9)    # logit of success at 0 calls
            # how many searches this question tends to draw (0..3), then
            # each response strays by -1..+1 from it: tool-call count 0..4
            base = rng.choice((0, 0, 0, 1, 1, 1, 1, 2, 2, 3))
            calls = [min(4, max(0, base + rng.choice((-1, 0, 0, 1, 1))))
                     for _r in range(G)]
            if len(set(calls)) == 1:               # keep strata varied
                calls[rng.randrange(G)] = (calls[0] + 2) % 5
            for r in range(G):
                tc = calls[r]
                if pidx in ALL_CORRECT:
                    ok = True
                elif pidx in ALL_WRONG:
                    ok = False
                else:
                    p = 1.0 / (1.0 + math.exp(-(difficulty + 0.9 * tc)))
                    ok = rng.random() < p
                long_tail = 0
                if (pidx, r) == FORCED_LENGTH_LIMIT:
                    ok, long_tail = False, 400       # truncated at 400
                elif not ok and rng.random() < 0.03:
                    long_tail = rng.randrange(100, 360)
                lp, mask = make_response(rng, tc, ok, long_tail)
                meta = {"model": MODEL, "step": step, "retriever": RETRIEVER}
                line = (
                    '{"prompt_id": %s, "response_id": %d, "step": %d, '
                    '"tool_calls": %d, "reward": %s, "logprobs": [%s], '
                    '"mask": [%s], "meta": %s}'
                    % (json.dumps(pid), r, step,
                       tc, "1.0" if ok else "0.0",
                       ", ".join(fmt_lp(x) for x in lp),
                       ",".join("1" if m else "0" for m in mask),
                       json.dumps(meta, ensure_ascii=False)))
                lines.append(line)
            pidx += 1
    return lines


def check_search_agent(lines):
    """Assert the properties the sample exists to show (guards edits/seeds)."""
    recs = [json.loads(x) for x in lines]
    assert len(recs) == G * PROMPTS_PER_STEP * len(STEPS)
    size = sum(len(x.encode("utf-8")) + 1 for x in lines)
    assert size < 300_000, size
    by_tc = {}
    groups = {}
    for rec in recs:
        n = len(rec["logprobs"])
        assert 20 <= n <= 400 and len(rec["mask"]) == n
        by_tc.setdefault(rec["tool_calls"], []).append(rec)
        groups.setdefault(rec["prompt_id"], []).append(rec["reward"])
    assert sorted(by_tc) == [0, 1, 2, 3, 4]
    mean = lambda xs: sum(xs) / len(xs)
    rew = [mean([r["reward"] for r in by_tc[k]]) for k in range(5)]
    length = [mean([len(r["logprobs"]) for r in by_tc[k]]) for k in range(5)]
    assert all(rew[k] < rew[k + 1] for k in range(4)), rew
    assert all(length[k] < length[k + 1] for k in range(4)), length
    zero_var = sum(len(set(v)) == 1 for v in groups.values())
    assert len(groups) == len(STEPS) * PROMPTS_PER_STEP and 4 <= zero_var <= 16
    assert max(len(r["logprobs"]) for r in recs) == 400


def trl_lines(rng):
    lines = []
    for block in range(4):
        if block == 2:
            rewards = [0.5] * 4                    # zero-variance block
        else:
            rewards = [round(rng.random(), 3) for _ in range(4)]
        for r in rewards:
            n = rng.randrange(5, 25)
            lp = ", ".join(fmt_lp(draw_logprob(rng, True)) for _ in range(n))
            lines.append('{"reward": %s, "logprobs": [%s]}' % (repr(float(r)), lp))
    return lines


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "samples")
    os.makedirs(out, exist_ok=True)
    rng = random.Random(SEED)

    lines = search_agent_lines(rng)
    check_search_agent(lines)
    sa = ("\n".join(lines) + "\n").encode("utf-8")
    write(os.path.join(out, "search_agent.jsonl"), sa)

    buf = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buf, mtime=0,
                       compresslevel=9) as gz:
        gz.write(sa)
    write(os.path.join(out, "search_agent.jsonl.gz"), buf.getvalue())

    trl = ("\n".join(trl_lines(random.Random(SEED + 1))) + "\n").encode("utf-8")
    write(os.path.join(out, "trl_layout.jsonl"), trl)


if __name__ == "__main__":
    main()
