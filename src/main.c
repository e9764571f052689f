/*
 * main.c - rladv: the command table and run_cmd(), as git.c has them.  A
 * first argument that names no command is the compute filter's.
 * run_cmd() does what every command shares: its options from the option
 * table, --help and --version, the checks across options, and at the end
 * the check that standard output was written.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "backend.h"
#include "cmd.h"
#include "compute.h"
#include "gunzip.h"
#include "opthelp.h"

#define CMD_DEVICE	0x100u	/* pick the device before the command */

static const struct cmd {
	const char	*name;
	int		(*fn)(struct run *);
	unsigned	 flags;		/* its OPT_* bit and CMD_* */
	const char	*usage;		/* lines, as SYNOPSIS has them */
} cmds[] = {
	{ "compute", cmd_compute, OPT_COMPUTE | CMD_DEVICE,
	    "[compute] [-a estimator] [-g mode] [options] [file ...]\n"
	    "compute --index file [options] shard" },
	{ "stats", cmd_stats, OPT_STATS,
	    "stats [--json] [--html page] [options] [file ...]" },
	{ "diff", cmd_diff, OPT_DIFF,
	    "diff --a options --b options [--json] [--html page] [--top n] "
	    "[options] [file ...]\n"
	    "diff --outputs [--key field] [--tol x] [--atol x] [--top n] "
	    "[--json] file_a file_b" },
	{ "index", cmd_index, OPT_INDEX,
	    "index [options] [file ...]\n"
	    "index --merge [options] index ..." },
};

#define NCMDS	(sizeof(cmds) / sizeof(cmds[0]))

/* The usage lines of one command, or of all (c NULL), then the options
 * it takes. */
static void
usage(const struct cmd *c)
{
	const char *prefix = "usage: ", *s, *nl;
	unsigned mode = 0;
	size_t i;

	for (i = 0; i < NCMDS; i++) {
		if (c != NULL && &cmds[i] != c)
			continue;
		mode |= cmds[i].flags & OPT_CMDS;
		for (s = cmds[i].usage; *s; s = *nl ? nl + 1 : nl) {
			nl = s + strcspn(s, "\n");
			printf("%srladv %.*s\n", prefix, (int)(nl - s), s);
			prefix = "       ";
		}
	}
	if (c == NULL)
		printf("%srladv --help | --version\n", prefix);
	printf("\n");
	opthelp_print(stdout, mode);
	if (c == NULL)
		printf("rladv COMMAND --help lists the options of COMMAND; "
		    "see rladv(1).\n");
}

/*
 * What git's run_builtin() checks last: what went to standard output got
 * out.  A close that finds no descriptor (stdout closed, and nothing
 * written to it: compute -o FILE) loses nothing.
 */
static int
stdout_check(int rc)
{
	errno = 0;
	if (fflush(stdout) == 0 && !ferror(stdout) &&
	    (fclose(stdout) == 0 || errno == EBADF))
		return rc;
	fprintf(stderr, "rladv: standard output: write error: %s\n",
	    strerror(errno ? errno : EIO));
	return EXIT_IO;
}

static int
run_cmd(const struct cmd *c, int named, int argc, char **argv)
{
	struct run r;
	struct diag d = { 0 };
	int rc;

	memset(&r, 0, sizeof(r));
	options_defaults(&r.p);
	r.p.mode = c->flags & OPT_CMDS;
	rc = optparse_argv(&r.p, &r.own, argc, argv, &d);
	if (rc == OPT_HELP) {
		usage(named ? c : NULL);
		rc = 0;
	} else if (rc == OPT_VERSION) {
		printf("rladv %s (cuda: %s, gzip: %s)\n", RLADV_VERSION,
		    backend_has_cuda() ? "compiled in" : "not compiled in",
		    gunzip_library());
		rc = 0;
	} else if (rc == 0 && (rc = options_check(&r.p, &d)) == 0 &&
	    (!(c->flags & CMD_DEVICE) || (rc = compute_device(&r.p, &d)) ==
	    0))
		rc = c->fn(&r);
	if (d.status != 0)
		diag_print(&d);
	optparse_free(&r.own);
	return stdout_check(rc);
}

int
main(int argc, char **argv)
{
	size_t i;

	/* A closed pipe ends us by SIGPIPE, as it does cat: whatever the
	 * parent set, it never passes for success. */
	signal(SIGPIPE, SIG_DFL);
	if (argc > 1)
		for (i = 0; i < NCMDS; i++)
			if (strcmp(argv[1], cmds[i].name) == 0)
				return run_cmd(&cmds[i], 1, argc - 1,
				    argv + 1);
	return run_cmd(&cmds[0], 0, argc, argv);
}
