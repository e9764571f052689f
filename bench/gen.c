/*
 * bench/gen.c - fast, deterministic generator of synthetic rollout logs
 * (JSONL, one sampled response per line) for benchmarking rladv.
 *
 *   gcc -std=c11 -O2 -Wall -Wextra -o bench/gen bench/gen.c -lm
 *   bench/gen [--bytes N] [--tokens L] [--group G]
 *             [--rewards binary|continuous|passrate] [--seed S]
 *             [--step-groups K] > roll.jsonl
 *
 * Records look like samples/search_agent.jsonl:
 *   {"prompt_id": "bench-00000017", "response_id": 3, "step": 0,
 *    "tool_calls": 2, "reward": 1.0, "logprobs": [-0.0627355, ...],
 *    "mask": [1,1,0,...], "meta": {"model": "...", "step": 0, ...}}
 *
 * - G consecutive records per prompt (default 8); output stops at the first
 *   group boundary at or after N bytes (default 200e6; suffixes k, M, G and
 *   exponents such as 2e8 are accepted), so every group is complete.
 * - Response length ~L tokens (default 1024), varied by +-20%, longer with
 *   more tool calls; tool_calls 0..4; each call masks a span of tool-output
 *   tokens (10..60 tokens, shrunk for short responses).
 * - Rewards: binary (default; success more likely with more tool calls, some
 *   prompts all-correct or all-wrong), continuous (4 decimals in [0,1]) or
 *   passrate (k/10).
 * - "step" changes every K groups (default 64), for --batch-key step.
 * - Same arguments, same bytes: everything derives from --seed (default 1).
 *
 * Numbers are formatted by hand (fixed point, 7 significant digits for
 * log-probs) into a large output buffer; no printf per number.
 */

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- PRNG --- */

static uint64_t rng_s[4];

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static inline uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

/* xoshiro256** */
static inline uint64_t rnd(void)
{
    uint64_t r = rotl(rng_s[1] * 5, 7) * 9;
    uint64_t t = rng_s[1] << 17;
    rng_s[2] ^= rng_s[0];
    rng_s[3] ^= rng_s[1];
    rng_s[1] ^= rng_s[2];
    rng_s[0] ^= rng_s[3];
    rng_s[2] ^= t;
    rng_s[3] = rotl(rng_s[3], 45);
    return r;
}

static void rnd_seed(uint64_t seed)
{
    uint64_t x = seed;
    for (int i = 0; i < 4; i++)
        rng_s[i] = splitmix64(&x);
}

/* uniform in [0,1) */
static inline double rnd_u(void)
{
    return (double)(rnd() >> 11) * (1.0 / 9007199254740992.0);
}

/* uniform integer in [0, n) (n small; the bias is negligible here) */
static inline uint32_t rnd_below(uint32_t n)
{
    return (uint32_t)(((rnd() >> 32) * (uint64_t)n) >> 32);
}

static double rnd_normal(void)
{
    double u1 = rnd_u(), u2 = rnd_u();
    if (u1 < 1e-300)
        u1 = 1e-300;
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

/* ------------------------------------------------- log-prob magnitudes --- */

/* A table of |log-prob| draws from a clipped log-normal (most tokens near 0,
 * a tail of uncertain ones up to 3), indexed by random bits and jittered per
 * token, so that nearly every emitted value is distinct. */
#define LP_BITS 12
#define LP_SIZE (1u << LP_BITS)
static double lp_table[LP_SIZE];

static void lp_init(void)
{
    for (uint32_t i = 0; i < LP_SIZE; i++) {
        double v;
        do
            v = exp(-3.3 + 1.8 * rnd_normal());
        while (v > 2.9);
        if (v < 1.2e-4)
            v = 1.2e-4;
        lp_table[i] = v;
    }
}

/* ------------------------------------------------------------ output --- */

static char *buf;
static size_t buf_cap, buf_len;
static unsigned long long total_out;

static void flush_out(void)
{
    size_t off = 0;
    while (off < buf_len) {
        size_t n = fwrite(buf + off, 1, buf_len - off, stdout);
        if (n == 0) {
            if (errno == EPIPE)
                exit(0);
            fprintf(stderr, "gen: write error: %s\n", strerror(errno));
            exit(3);
        }
        off += n;
    }
    total_out += buf_len;
    buf_len = 0;
}

static void reserve(size_t need)
{
    if (buf_cap - buf_len >= need)
        return;
    flush_out();
    if (buf_cap < need) {
        free(buf);
        buf_cap = need;
        buf = malloc(buf_cap);
        if (!buf) {
            fprintf(stderr, "gen: out of memory\n");
            exit(3);
        }
    }
}

#define PUT_LIT(p, s) (memcpy((p), (s), sizeof(s) - 1), (p) += sizeof(s) - 1)

static const char digits2[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

/* unsigned integer, no leading zeros */
static inline char *put_u64(char *p, uint64_t v)
{
    char tmp[24];
    char *e = tmp + sizeof tmp, *q = e;
    while (v >= 100) {
        unsigned d = (unsigned)(v % 100) * 2;
        v /= 100;
        *--q = digits2[d + 1];
        *--q = digits2[d];
    }
    if (v >= 10) {
        *--q = digits2[v * 2 + 1];
        *--q = digits2[v * 2];
    } else {
        *--q = (char)('0' + v);
    }
    size_t n = (size_t)(e - q);
    memcpy(p, q, n);
    return p + n;
}

/* exactly `width` digits of v (v < 10^width), leading zeros kept */
static inline char *put_fixed_digits(char *p, uint64_t v, int width)
{
    char *end = p + width, *q = end;
    while (q - p >= 2) {
        unsigned d = (unsigned)(v % 100) * 2;
        v /= 100;
        *--q = digits2[d + 1];
        *--q = digits2[d];
    }
    if (q > p)
        *--q = (char)('0' + v % 10);
    return end;
}

static const double pow10d[11] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5,
                                  1e6, 1e7, 1e8, 1e9, 1e10};
static const uint64_t pow10u[11] = {1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL,
                                    100000ULL, 1000000ULL, 10000000ULL,
                                    100000000ULL, 1000000000ULL,
                                    10000000000ULL};

/* -ax with 7 significant digits, fixed notation, trailing zeros dropped;
 * ax in [1e-4, 3) */
static inline char *put_logprob(char *p, double ax)
{
    int dec;
    if (ax >= 1.0)
        dec = 6;
    else if (ax >= 0.1)
        dec = 7;
    else if (ax >= 0.01)
        dec = 8;
    else if (ax >= 0.001)
        dec = 9;
    else
        dec = 10;
    uint64_t n = (uint64_t)(ax * pow10d[dec] + 0.5);
    uint64_t one = pow10u[dec];
    unsigned ip = 0;
    while (n >= one) { /* ip is 0..2 (3 after rounding): no division */
        n -= one;
        ip++;
    }
    uint64_t frac = n;
    *p++ = '-';
    *p++ = (char)('0' + ip);
    if (frac) {
        *p++ = '.';
        while (frac % 10 == 0) {
            frac /= 10;
            dec--;
        }
        p = put_fixed_digits(p, frac, dec);
    }
    return p;
}

/* x in [0,1] with at most `dec` decimals (dec <= 9), always with a '.' */
static char *put_unit(char *p, double x, int dec)
{
    uint64_t n = (uint64_t)(x * pow10d[dec] + 0.5);
    if (n >= pow10u[dec]) {
        PUT_LIT(p, "1.0");
        return p;
    }
    *p++ = '0';
    *p++ = '.';
    if (n == 0) {
        *p++ = '0';
        return p;
    }
    while (n % 10 == 0) {
        n /= 10;
        dec--;
    }
    return put_fixed_digits(p, n, dec);
}

/* "1,1,1,..." / "0,0,0,..." for mask runs */
#define RUN_CHUNK 4096
static char ones_run[2 * RUN_CHUNK], zeros_run[2 * RUN_CHUNK];

static inline char *put_run(char *p, const char *run, uint32_t n)
{
    while (n > 0) {
        uint32_t k = n < RUN_CHUNK ? n : RUN_CHUNK;
        memcpy(p, run, 2 * (size_t)k);
        p += 2 * (size_t)k;
        n -= k;
    }
    return p;
}

/* ------------------------------------------------------------- model --- */

enum { REW_BINARY, REW_CONTINUOUS, REW_PASSRATE };

#define MAX_CALLS 4

static void usage(FILE *f)
{
    fputs("usage: gen [--bytes N] [--tokens L] [--group G]\n"
          "           [--rewards binary|continuous|passrate] [--seed S]\n"
          "           [--step-groups K]\n"
          "Writes synthetic rollout-log JSONL to stdout: groups of G records\n"
          "(default 8) until about N bytes (default 200e6; k/M/G suffixes),\n"
          "~L tokens per response (default 1024, +-20%), \"step\" changing\n"
          "every K groups (default 64). Deterministic for a seed (default 1).\n",
          f);
}

static double parse_num(const char *opt, const char *s, double lo, double hi)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno) {
        fprintf(stderr, "gen: %s: not a number: '%s'\n", opt, s);
        exit(2);
    }
    if (*end == 'k' || *end == 'K')
        v *= 1e3, end++;
    else if (*end == 'M')
        v *= 1e6, end++;
    else if (*end == 'G')
        v *= 1e9, end++;
    if (*end || !(v >= lo && v <= hi)) {
        fprintf(stderr, "gen: %s: '%s' is not a number in [%g, %g]\n", opt, s,
                lo, hi);
        exit(2);
    }
    return v;
}

int main(int argc, char **argv)
{
    double nbytes = 200e6;
    uint32_t tokens = 1024, group = 8, step_groups = 64;
    int rewards = REW_BINARY;
    uint64_t seed = 1;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        }
        const char *val = NULL;
        const char *eq = strchr(a, '=');
        char name[32];
        size_t nlen = eq ? (size_t)(eq - a) : strlen(a);
        if (nlen >= sizeof name) {
            fprintf(stderr, "gen: unknown option '%s'\n", a);
            usage(stderr);
            return 2;
        }
        memcpy(name, a, nlen);
        name[nlen] = 0;
        if (eq)
            val = eq + 1;
        else if (i + 1 < argc)
            val = argv[++i];
        else {
            fprintf(stderr, "gen: option '%s' needs a value\n", a);
            return 2;
        }
        if (!strcmp(name, "--bytes"))
            nbytes = parse_num(name, val, 0, 1e15);
        else if (!strcmp(name, "--tokens"))
            tokens = (uint32_t)parse_num(name, val, 0, 1e7);
        else if (!strcmp(name, "--group"))
            group = (uint32_t)parse_num(name, val, 1, 1e6);
        else if (!strcmp(name, "--step-groups"))
            step_groups = (uint32_t)parse_num(name, val, 1, 1e9);
        else if (!strcmp(name, "--seed")) {
            char *end;
            errno = 0;
            seed = strtoull(val, &end, 10);
            if (end == val || *end || errno) {
                fprintf(stderr, "gen: --seed: not an unsigned integer: '%s'\n",
                        val);
                return 2;
            }
        } else if (!strcmp(name, "--rewards")) {
            if (!strcmp(val, "binary"))
                rewards = REW_BINARY;
            else if (!strcmp(val, "continuous"))
                rewards = REW_CONTINUOUS;
            else if (!strcmp(val, "passrate"))
                rewards = REW_PASSRATE;
            else {
                fprintf(stderr,
                        "gen: --rewards: '%s': use binary, continuous or "
                        "passrate\n",
                        val);
                return 2;
            }
        } else {
            fprintf(stderr, "gen: unknown option '%s'\n", name);
            usage(stderr);
            return 2;
        }
    }

    rnd_seed(seed);
    lp_init();
    for (int i = 0; i < RUN_CHUNK; i++) {
        ones_run[2 * i] = '1';
        zeros_run[2 * i] = '0';
        ones_run[2 * i + 1] = zeros_run[2 * i + 1] = ',';
    }
    buf_cap = 8u << 20;
    buf = malloc(buf_cap);
    if (!buf) {
        fprintf(stderr, "gen: out of memory\n");
        return 3;
    }

    static const uint8_t base_calls[10] = {0, 0, 0, 1, 1, 1, 1, 2, 2, 3};
    static const int8_t call_delta[5] = {-1, 0, 0, 1, 1};

    for (uint64_t g = 0; (double)(total_out + buf_len) < nbytes; g++) {
        uint64_t step = g / step_groups;
        /* the prompt: difficulty (logit of success at 0 calls), search habit */
        double difficulty = -3.5 + 6.0 * rnd_u();
        int base = base_calls[rnd_below(10)];

        for (uint32_t r = 0; r < group; r++) {
            int tc = base + call_delta[rnd_below(5)];
            tc = tc < 0 ? 0 : tc > MAX_CALLS ? MAX_CALLS : tc;
            double p_ok = 1.0 / (1.0 + exp(-(difficulty + 0.8 * tc)));
            uint32_t len = (uint32_t)(tokens * (0.8 + 0.08 * tc +
                                                0.08 * rnd_u()) + 0.5);

            /* tool-output spans (mask 0), shrunk to at most half the length */
            uint32_t span[MAX_CALLS], zsum = 0;
            for (int k = 0; k < tc; k++) {
                span[k] = 10 + rnd_below(51);
                zsum += span[k];
            }
            if (zsum > len / 2) {
                uint32_t z2 = 0;
                for (int k = 0; k < tc; k++) {
                    span[k] = (uint32_t)((uint64_t)span[k] * (len / 2) / zsum);
                    z2 += span[k];
                }
                zsum = z2;
            }

            reserve((size_t)len * 18 + 512);
            char *p = buf + buf_len;
            PUT_LIT(p, "{\"prompt_id\": \"bench-");
            if (g < 100000000)
                p = put_fixed_digits(p, g, 8);
            else
                p = put_u64(p, g);
            PUT_LIT(p, "\", \"response_id\": ");
            p = put_u64(p, r);
            PUT_LIT(p, ", \"step\": ");
            p = put_u64(p, step);
            PUT_LIT(p, ", \"tool_calls\": ");
            *p++ = (char)('0' + tc);
            PUT_LIT(p, ", \"reward\": ");
            if (rewards == REW_BINARY) {
                if (rnd_u() < p_ok)
                    PUT_LIT(p, "1.0");
                else
                    PUT_LIT(p, "0.0");
            } else if (rewards == REW_PASSRATE) {
                int pass = 0;
                for (int t = 0; t < 10; t++)
                    pass += rnd_u() < p_ok;
                p = put_unit(p, pass / 10.0, 1);
            } else {
                double x = p_ok + 0.12 * rnd_normal();
                x = x < 0 ? 0 : x > 1 ? 1 : x;
                p = put_unit(p, x, 4);
            }

            PUT_LIT(p, ", \"logprobs\": [");
            for (uint32_t t = 0; t < len; t++) {
                uint64_t bits = rnd();
                double ax = lp_table[bits & (LP_SIZE - 1)] *
                            (0.99 + (double)(bits >> 44) * (0.02 / 1048576.0));
                if (t)
                    PUT_LIT(p, ", ");
                p = put_logprob(p, ax);
            }
            PUT_LIT(p, "], \"mask\": [");
            if (len) {
                uint32_t model = len - zsum;
                uint32_t done = 0;
                for (int k = 0; k <= tc; k++) {
                    uint32_t upto =
                        (uint32_t)((uint64_t)model * (uint32_t)(k + 1) /
                                   (uint32_t)(tc + 1));
                    p = put_run(p, ones_run, upto - done);
                    done = upto;
                    if (k < tc)
                        p = put_run(p, zeros_run, span[k]);
                }
                p--; /* the last comma */
            }
            PUT_LIT(p, "], \"meta\": {\"model\": \"bench-gen \\\"synthetic\\\"\", "
                       "\"step\": ");
            p = put_u64(p, step);
            PUT_LIT(p, ", \"retriever\": \"e5 \xe2\x86\x92 wiki18\"}}\n");
            buf_len = (size_t)(p - buf);
        }
    }
    flush_out();
    if (fflush(stdout) != 0) {
        if (errno == EPIPE)
            return 0;
        fprintf(stderr, "gen: write error: %s\n", strerror(errno));
        return 3;
    }
    return 0;
}
