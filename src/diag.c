/*
 * diag.c - messages and exits.  The one module besides main and the
 * commands that may end the process.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "diag.h"
#include "json.h"
#include "jsonstr.h"

int
diag_set(struct diag *d, int status, const char *fmt, ...)
{
	va_list ap;

	d->status = status;
	va_start(ap, fmt);
	vsnprintf(d->msg, sizeof(d->msg), fmt, ap);
	va_end(ap);
	return status;
}

int
diag_setl(struct diag *d, int status, const char *file,
    unsigned long long line, const char *fmt, ...)
{
	va_list ap;
	int n;

	d->status = status;
	n = snprintf(d->msg, sizeof(d->msg), "%s:%llu: ", file, line);
	if (n < 0 || (size_t)n >= sizeof(d->msg))
		n = 0;
	va_start(ap, fmt);
	vsnprintf(d->msg + n, sizeof(d->msg) - n, fmt, ap);
	va_end(ap);
	return status;
}

void
diag_reline(struct diag *d, const char *file, unsigned long long was,
    unsigned long long now)
{
	char rest[sizeof(d->msg)];
	int n;

	/* diag_setl()'s prefix, which a message of line was starts with. */
	n = snprintf(rest, sizeof(rest), "%s:%llu: ", file, was);
	if (n < 0 || (size_t)n >= sizeof(rest) ||
	    strncmp(d->msg, rest, (size_t)n) != 0)
		return;
	memcpy(rest, d->msg + n, sizeof(rest) - (size_t)n);
	diag_setl(d, d->status, file, now, "%s", rest);
}

void
diag_groups_add(struct diag_groups *l, const char *file,
    unsigned long long line, const char *msg)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 16;
		l->v = diag_realloc(l->v, l->cap * sizeof(*l->v));
	}
	l->v[l->n].file = file;
	l->v[l->n].line = line;
	l->v[l->n].msg = buf_add(&l->msgs, msg, strlen(msg) + 1);
	l->n++;
}

int
diag_group(struct diag *d, const char *file, unsigned long long line)
{
	if (d->groups == NULL)
		return 0;
	diag_groups_add(d->groups, file, line, d->msg);
	return 1;
}

int
diag_noted(const struct diag *d, int rc)
{
	return rc == EXIT_DATA && d->groups != NULL && d->groups->n > 0;
}

void
diag_groups_free(struct diag_groups *l)
{
	free(l->v);
	buf_free(&l->msgs);
	memset(l, 0, sizeof(*l));
}

/* One line that a terminal shows as it is, whatever the message holds
 * (a file name, an option's value, bytes of the input). */
void
diag_print(const struct diag *d)
{
	struct buf b = { 0 };

	jsonstr_text(&b, d->msg, strlen(d->msg));
	fprintf(stderr, "rladv: %.*s\n", (int)b.len, b.p ? b.p : "");
	buf_free(&b);
}

void
diag_exit(const struct diag *d)
{
	diag_print(d);
	exit(d->status ? d->status : EXIT_IO);
}

void
diag_oom(void)
{
	fputs("rladv: out of memory\n", stderr);
	exit(EXIT_IO);
}

void *
diag_malloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (p == NULL)
		diag_oom();
	return p;
}

void *
diag_calloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (p == NULL)
		diag_oom();
	return p;
}

void *
diag_realloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (q == NULL)
		diag_oom();
	return q;
}

char *
diag_strdup(const char *s)
{
	char *p = strdup(s);

	if (p == NULL)
		diag_oom();
	return p;
}

static const char *volatile sigbus_name = "input";

static void
on_sigbus(int sig)
{
	static const char pre[] = "rladv: ", post[] = ": the file changed "
	    "(it shrank) while it was read\n";
	const char *name = sigbus_name;

	(void)sig;
	/* Only async-signal-safe calls here. */
	(void)!write(STDERR_FILENO, pre, sizeof(pre) - 1);
	(void)!write(STDERR_FILENO, name, strlen(name));
	(void)!write(STDERR_FILENO, post, sizeof(post) - 1);
	_exit(EXIT_IO);
}

void
diag_catch_sigbus(const char *name)
{
	struct sigaction sa;

	sigbus_name = name;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigbus;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, NULL);
}
