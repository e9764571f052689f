/*
 * main.c - rladv: the command table and run_cmd(), as git.c has them.  A
 * first argument that names no command is the compute filter's.
 * run_cmd() does what every command shares: its options from the option
 * table, --help and --version, the checks across options, and at the end
 * the check that standard output was written.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "cmd.h"
#include "compute.h"
#include "gunzip.h"
#include "opthelp.h"
#include "outfile.h"
#include "pool.h"

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
	{ "stats", cmd_stats, OPT_STATS | CMD_DEVICE,
	    "stats [-a estimator] [-g mode] [--by-batch] [--json] "
	    "[--html page] [options] [file ...]" },
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

/* "rladv " and the words from s to e after prefix, wrapped before 80
 * columns, the rest indented under the command's name. */
static void
usage_line(const char *prefix, const char *s, const char *e)
{
	int col = printf("%srladv", prefix);
	size_t n;

	while (s < e) {
		s += strspn(s, " ");
		/* "[--html page]": a bracket's words stay together. */
		n = *s == '[' ? strcspn(s, "]") + 1 : strcspn(s, " \n");
		if (s + n > e)
			n = (size_t)(e - s);
		if (col + 1 + (int)n > 79)
			col = printf("\n%*s", (int)strlen(prefix) + 4, "") - 1;
		col += printf(" %.*s", (int)n, s);
		s += n;
	}
	putchar('\n');
}

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
			usage_line(prefix, s, nl);
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

/*
 * Before the command opens anything for writing: no output is the same
 * file as an input, or as another output (outfile.h).  Standard output
 * counts where the command writes to it.
 */
static int
check_outputs(const struct prefs *p, struct diag *d)
{
	static char *const stdin_name[] = { "-" };
	struct outname out[3];
	char **in;
	size_t nin = 0, nout = 0, i;
	int rc;

	if (p->mode & (OPT_COMPUTE | OPT_INDEX))
		out[nout++] = (struct outname){ "-o", p->out ? p->out : "-" };
	else {
		if (p->html)
			out[nout++] = (struct outname){ "--html", p->html };
		if (p->html == NULL || strcmp(p->html, "-") != 0)
			out[nout++] = (struct outname){ "the report", "-" };
	}
	if (p->rejects)
		out[nout++] = (struct outname){ "--rejects", p->rejects };
	in = diag_calloc(p->nfiles + 2, sizeof(*in));
	for (i = 0; i < p->nfiles; i++)
		in[nin++] = p->files[i];
	if (p->nfiles == 0)
		in[nin++] = stdin_name[0];
	if (p->index)
		in[nin++] = (char *)p->index;
	rc = outfile_check(in, nin, out, nout, d);
	free(in);
	return rc;
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
	    (rc = check_outputs(&r.p, &d)) == 0 &&
	    (!(c->flags & CMD_DEVICE) || (rc = compute_device(&r.p, &d)) ==
	    0)) {
		pool_start(r.p.jobs);
		rc = c->fn(&r);
		pool_stop();
	}
	if (d.status != 0)
		diag_print(&d);
	optparse_free(&r.own);
	return stdout_check(rc);
}

/*
 * A standard descriptor that is closed stays taken, by /dev/null opened
 * the wrong way: otherwise the first file rladv opens (--rejects) would
 * become standard output and get the records, while a write to the
 * closed descriptor must still fail.
 */
static void
hold_std_fds(void)
{
	int fd;

	for (fd = STDIN_FILENO; fd <= STDERR_FILENO; fd++)
		if (fcntl(fd, F_GETFD) < 0 && errno == EBADF &&
		    open("/dev/null", fd == STDIN_FILENO ? O_WRONLY :
		    O_RDONLY) < 0)
			exit(EXIT_IO);
}

int
main(int argc, char **argv)
{
	size_t i;

	hold_std_fds();
	/* A closed pipe ends us by SIGPIPE (status 141 in the shell), as it
	 * ends cat and grep: quietly, and never as a success, whatever the
	 * parent set.  A temporary output file is removed first
	 * (outfile.c). */
	signal(SIGPIPE, SIG_DFL);
	if (argc > 1)
		for (i = 0; i < NCMDS; i++)
			if (strcmp(argv[1], cmds[i].name) == 0)
				return run_cmd(&cmds[i], 1, argc - 1,
				    argv + 1);
	return run_cmd(&cmds[0], 0, argc, argv);
}
