/*
 * replay.c - runs a libFuzzer harness once on each file of a corpus,
 * without libFuzzer: make check links it with fuzz_record.c or
 * fuzz_filter.c and the objects of the build at hand (sanitized under
 * make check SANITIZE=1), so that the committed corpus (fuzz/corpus/NAME)
 * is replayed on every machine with the C compiler alone.  Fuzzing for
 * time, which needs clang's libFuzzer, is make fuzz-check's.
 *
 *	replay NAME PATH...	each PATH a file or a directory of files
 *
 * A harness reports a broken promise with abort(), the sanitizers with
 * their own report: either way the file being run is named on stderr and
 * the status is not 0.  rladv's own messages (a harness feeds it bad data
 * on purpose) are sent to /dev/null, as libFuzzer's -close_fd_mask=2 does.
 * Prints "NAME: N inputs replayed" on success; no input at all is a
 * failure too (a corpus gone missing must not pass).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* The sanitizers' interface, present only in a sanitized build. */
void	__sanitizer_set_report_fd(void *) __attribute__((weak));
void	__sanitizer_set_death_callback(void (*)(void)) __attribute__((weak));
void	__sanitizer_report_error_summary(const char *);

static int	 report_fd = 2;	/* stderr, kept while fd 2 is /dev/null */
static char	 current[4096];	/* the file being run, for a crash */

static void
say(const char *a, const char *b)
{
	ssize_t r;

	r = write(report_fd, a, strlen(a));
	r = write(report_fd, b, strlen(b));
	r = write(report_fd, "\n", 1);
	(void)r;
}

/* The harnesses call this before abort().  A plain build has no other
 * definition; in a sanitized one this program's comes before the shared
 * runtime's, and writes where the sanitizers report. */
__attribute__((weak)) void
__sanitizer_report_error_summary(const char *msg)
{
	say("SUMMARY: ", msg);
}

static void
died(void)
{
	say("replay: failed on ", current);
}

static void
on_signal(int sig)
{
	died();
	signal(sig, SIG_DFL);
	raise(sig);
}

static int
run_file(const char *path)
{
	struct stat sb;
	uint8_t *data;
	ssize_t r;
	size_t got = 0;
	int fd;

	if ((fd = open(path, O_RDONLY)) == -1 || fstat(fd, &sb) == -1) {
		dprintf(report_fd, "replay: %s: %s\n", path,
		    strerror(errno));
		exit(3);
	}
	/* A copy of exactly the file's size, as libFuzzer gives: reading
	 * past it is an error the sanitizers see. */
	if ((data = malloc(sb.st_size > 0 ? sb.st_size : 1)) == NULL) {
		dprintf(report_fd, "replay: out of memory\n");
		exit(3);
	}
	while (got < (size_t)sb.st_size &&
	    (r = read(fd, data + got, sb.st_size - got)) > 0)
		got += r;
	close(fd);
	snprintf(current, sizeof(current), "%s", path);
	LLVMFuzzerTestOneInput(data, got);
	free(data);
	return 1;
}

static int
is_file(const struct dirent *e)
{
	return e->d_name[0] != '.';
}

static int
run_path(const char *path)
{
	struct dirent **list;
	struct stat sb;
	char sub[4096];
	int i, n, count = 0;

	if (stat(path, &sb) == -1) {
		dprintf(report_fd, "replay: %s: %s\n", path,
		    strerror(errno));
		exit(3);
	}
	if (!S_ISDIR(sb.st_mode))
		return run_file(path);
	/* In name order, so that a failure is the same on every run. */
	if ((n = scandir(path, &list, is_file, alphasort)) == -1) {
		dprintf(report_fd, "replay: %s: %s\n", path,
		    strerror(errno));
		exit(3);
	}
	for (i = 0; i < n; i++) {
		snprintf(sub, sizeof(sub), "%s/%s", path, list[i]->d_name);
		count += run_path(sub);
		free(list[i]);
	}
	free(list);
	return count;
}

int
main(int argc, char *argv[])
{
	int i, count = 0, devnull;

	if (argc < 3) {
		fprintf(stderr, "usage: replay NAME PATH...\n");
		return 2;
	}
	if ((report_fd = dup(2)) == -1 ||
	    (devnull = open("/dev/null", O_WRONLY)) == -1 ||
	    dup2(devnull, 2) == -1) {
		perror("replay");
		return 3;
	}
	close(devnull);
	if (__sanitizer_set_report_fd != NULL)
		__sanitizer_set_report_fd((void *)(intptr_t)report_fd);
	if (__sanitizer_set_death_callback != NULL)
		__sanitizer_set_death_callback(died);
	signal(SIGABRT, on_signal);
	if (__sanitizer_set_death_callback == NULL) {
		signal(SIGSEGV, on_signal);
		signal(SIGBUS, on_signal);
		signal(SIGFPE, on_signal);
		signal(SIGILL, on_signal);
	}
	for (i = 2; i < argc; i++)
		count += run_path(argv[i]);
	if (count == 0) {
		dprintf(report_fd, "replay: %s: no inputs\n", argv[1]);
		return 1;
	}
	printf("%s: %d inputs replayed\n", argv[1], count);
	return 0;
}
