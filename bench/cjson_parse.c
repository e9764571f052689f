/*
 * bench/cjson_parse.c - baseline: parse every JSONL line with cJSON.
 *
 *   gcc -O2 -o bench/cjson_parse bench/cjson_parse.c \
 *       $(pkg-config --cflags --libs libcjson)
 *   bench/cjson_parse < roll.jsonl
 *
 * Reads standard input in large blocks, splits it into lines (a last line
 * without a newline counts; blank lines are skipped), builds a cJSON tree for
 * each line with cJSON_ParseWithLength and frees it with cJSON_Delete. Prints
 * the number of lines parsed; lines cJSON rejects are counted on stderr and
 * make the exit status 1. This is the cost floor of "parse each record into
 * a DOM" that rladv is compared against.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#define BLOCK (16u << 20)

static unsigned long long lines, bad;

static void parse_line(const char *s, size_t n)
{
    if (n && s[n - 1] == '\r')
        n--;
    if (n == 0)
        return;
    cJSON *j = cJSON_ParseWithLength(s, n);
    if (!j)
        bad++;
    else
        lines++;
    cJSON_Delete(j);
}

int main(void)
{
    size_t cap = BLOCK, len = 0;
    char *buf = malloc(cap);
    if (!buf) {
        fputs("cjson_parse: out of memory\n", stderr);
        return 3;
    }
    for (;;) {
        if (cap - len < BLOCK / 2) { /* a line longer than the buffer */
            cap *= 2;
            char *nb = realloc(buf, cap);
            if (!nb) {
                fputs("cjson_parse: out of memory\n", stderr);
                return 3;
            }
            buf = nb;
        }
        size_t got = fread(buf + len, 1, cap - len, stdin);
        if (got == 0) {
            if (ferror(stdin)) {
                perror("cjson_parse: read");
                return 3;
            }
            break;
        }
        len += got;
        char *p = buf, *end = buf + len, *nl;
        while ((nl = memchr(p, '\n', (size_t)(end - p))) != NULL) {
            parse_line(p, (size_t)(nl - p));
            p = nl + 1;
        }
        len = (size_t)(end - p); /* keep the incomplete last line */
        memmove(buf, p, len);
    }
    parse_line(buf, len);
    free(buf);
    printf("%llu\n", lines);
    if (bad) {
        fprintf(stderr, "cjson_parse: %llu lines failed to parse\n", bad);
        return 1;
    }
    return 0;
}
