/*
 * diag.h - error values and the messages that report them.
 * A struct diag is owned by the caller that passes it in; callees only fill it.
 */
#ifndef RLADV_DIAG_H
#define RLADV_DIAG_H

#include <stdarg.h>
#include <stddef.h>

#include "buf.h"

/* Exit statuses. */
enum {
	EXIT_OK = 0,
	EXIT_DATA = 1,	/* invalid input data */
	EXIT_USAGE = 2,	/* usage error */
	EXIT_IO = 3	/* I/O or system error, out of memory */
};

/*
 * Skip mode's list of the groups of a batch whose numbers failed (an
 * advantage that overflows a double, a group verl's grpo_passk refuses),
 * each by its first record and with its message, so that the caller
 * rejects them whole and computes the batch again without them.  Its
 * owner empties it with diag_groups_free().
 */
struct diag_groups {
	struct diag_gerr {
		const char		*file;	/* the group's first record */
		unsigned long long	 line;
		size_t			 msg;	/* offset of its message in msgs */
	}		*v;
	size_t		 n, cap;
	struct buf	 msgs;		/* the messages, each ended by NUL */
};

/* An error as modules return it: a status above and one line of text. */
struct diag {
	int	status;		/* 0 when no error was set */
	char	msg[1024];	/* "FILE:LINE: what is wrong" or "what is wrong" */
	/* Skip mode, while a batch is computed: where diag_group() notes a
	 * group's data error; NULL: the error is returned at once. */
	struct diag_groups *groups;
};

/* Fills d (status and printf-style message); returns status. */
int	diag_set(struct diag *d, int status, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));
/* Like diag_set, with a "FILE:LINE: " prefix. */
int	diag_setl(struct diag *d, int status, const char *file,
	    unsigned long long line, const char *fmt, ...)
	    __attribute__((format(printf, 5, 6)));
/* d, set by diag_setl() for line was of file, as if it had been for line
 * now: the message of a line numbered before its place was known. */
void	diag_reline(struct diag *d, const char *file, unsigned long long was,
	    unsigned long long now);
/*
 * d, just set (status 1), is about the group of the batch computed whose
 * first record is at file:line.  Returns 1 when d->groups noted it: the
 * caller goes on with the other groups and returns d->status at the end;
 * 0 when the caller returns d->status now.
 */
int	diag_group(struct diag *d, const char *file, unsigned long long line);
/* Adds the group at file:line with its message to l. */
void	diag_groups_add(struct diag_groups *l, const char *file,
	    unsigned long long line, const char *msg);
/* Whether rc, a status returned with d, is a data error about groups
 * that d->groups noted: another group may still be computed. */
int	diag_noted(const struct diag *d, int rc);
void	diag_groups_free(struct diag_groups *l);
/* Prints "rladv: MSG" on stderr. */
void	diag_print(const struct diag *d);
/* Prints d and exits with its status. */
void	diag_exit(const struct diag *d) __attribute__((noreturn));

/* From now on, SIGBUS (the mapped input file name, which shrank while it
 * was read) ends the process with status 3 and a message, not a crash.
 * name must stay valid. */
void	diag_catch_sigbus(const char *name);

/*
 * Allocation that fails with exit 3 ("out of memory").  That is rladv's
 * one policy for memory: running out is never reported as bad data.  A
 * module that would rather name what it was doing (the group whose
 * MS-GRPO ran out) returns status 3 with "out of memory" in its message;
 * the exit status is the same.
 */
void	*diag_malloc(size_t n);
/* What they do when it fails (for memory from elsewhere, e.g. mmap). */
void	 diag_oom(void) __attribute__((noreturn));
void	*diag_calloc(size_t n, size_t size);
void	*diag_realloc(void *p, size_t n);
char	*diag_strdup(const char *s);

#endif
