/*
 * diag.h - error values and the messages that report them.
 * A struct diag is owned by the caller that passes it in; callees only fill it.
 */
#ifndef RLADV_DIAG_H
#define RLADV_DIAG_H

#include <stdarg.h>
#include <stddef.h>

/* Exit statuses (SPEC §6). */
enum {
	EXIT_OK = 0,
	EXIT_DATA = 1,	/* invalid input data */
	EXIT_USAGE = 2,	/* usage error */
	EXIT_IO = 3	/* I/O or system error, out of memory */
};

/* An error as modules return it: a status above and one line of text. */
struct diag {
	int	status;		/* 0 when no error was set */
	char	msg[1024];	/* "FILE:LINE: what is wrong" or "what is wrong" */
};

/* Fills d (status and printf-style message); returns status. */
int	diag_set(struct diag *d, int status, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));
/* Like diag_set, with a "FILE:LINE: " prefix. */
int	diag_setl(struct diag *d, int status, const char *file,
	    unsigned long long line, const char *fmt, ...)
	    __attribute__((format(printf, 5, 6)));
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
