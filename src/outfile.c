/*
 * outfile.c - output files that never lose data.
 *
 * "rladv -o x.jsonl x.jsonl" used to truncate its input before reading
 * it; a run that failed half way left half a file where a good one had
 * been.  So outputs are compared with the inputs and with each other
 * before anything is opened for writing, and a regular file is written
 * as a temporary file in its own directory (so that rename(2) is atomic
 * and never crosses file systems), renamed over the old file only when
 * the command succeeded.  The temporary file takes the old file's mode
 * (and owner, where allowed), or the mode open(2) would have given a new
 * one.  A fatal signal or an exit() on the way (out of memory) removes
 * the temporary files first.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

#include "outfile.h"
#include "rng.h"

#define NSLOTS	8	/* -o, --rejects and --html at most, at once */

/*
 * An open output.  tmp is NULL when the file is written as it is.  A
 * fatal signal may come in any thread while another creates a temporary
 * file: the handler sets dying before it removes the files in use, and
 * outfile_open() marks its slot used before it looks at dying, so one of
 * the two removes the file (sequentially consistent atomics).
 */
static atomic_int dying;
static struct slot {
	atomic_int		 used;
	int			 fd;
	char			*path;		/* as the user gave it */
	char			*target;	/* what tmp replaces */
	char *volatile		 tmp;
} slots[NSLOTS];

/* What an output or an input is, for outfile_check(). */
struct ident {
	int		 kind;		/* ID_* */
	dev_t		 dev;
	ino_t		 ino;
	const char	*base;		/* ID_NEW: the name in its directory */
	size_t		 baselen;
};
enum { ID_OTHER, ID_FILE, ID_NEW, ID_STDOUT };

static void
ident_stat(const struct stat *st, struct ident *id)
{
	id->kind = S_ISREG(st->st_mode) ? ID_FILE : ID_OTHER;
	id->dev = st->st_dev;
	id->ino = st->st_ino;
}

/* A file not there yet is its directory and its name in it. */
static void
ident_new(const char *path, struct ident *id)
{
	const char *slash = strrchr(path, '/');
	char dir[PATH_MAX];
	struct stat st;
	size_t n;

	id->kind = ID_OTHER;
	if (slash == NULL) {
		strcpy(dir, ".");
		id->base = path;
	} else {
		n = slash == path ? 1 : (size_t)(slash - path);
		if (n >= sizeof(dir))
			return;
		memcpy(dir, path, n);
		dir[n] = '\0';
		id->base = slash + 1;
	}
	id->baselen = strlen(id->base);
	if (id->baselen == 0 || strcmp(id->base, ".") == 0 ||
	    strcmp(id->base, "..") == 0 || stat(dir, &st) != 0)
		return;
	id->kind = ID_NEW;
	id->dev = st.st_dev;
	id->ino = st.st_ino;
}

static void
ident_of(const char *path, int fd, struct ident *id)
{
	struct stat st;

	memset(id, 0, sizeof(*id));
	if (fd >= 0) {
		if (fstat(fd, &st) == 0)
			ident_stat(&st, id);
	} else if (stat(path, &st) == 0)
		ident_stat(&st, id);
	else if (errno == ENOENT)
		ident_new(path, id);
}

static int
ident_same(const struct ident *a, const struct ident *b)
{
	if (a->kind != b->kind || a->kind == ID_OTHER)
		return 0;
	if (a->dev != b->dev || a->ino != b->ino)
		return 0;
	return a->kind == ID_FILE || (a->baselen == b->baselen &&
	    memcmp(a->base, b->base, a->baselen) == 0);
}

static const char *
outword(const struct outname *o, char *buf, size_t n)
{
	if (strcmp(o->path, "-") == 0)
		return "standard output";
	snprintf(buf, n, "%s %s", o->opt, o->path);
	return buf;
}

int
outfile_check(char *const *in, size_t nin, const struct outname *out,
    size_t nout, struct diag *d)
{
	struct ident io, ii;
	char w1[PATH_MAX + 32], w2[PATH_MAX + 32];
	size_t i, j;
	int isstd;

	for (i = 0; i < nout; i++) {
		isstd = strcmp(out[i].path, "-") == 0;
		ident_of(out[i].path, isstd ? STDOUT_FILENO : -1, &io);
		for (j = 0; j < i; j++) {
			/* Two outputs to standard output mix their lines,
			 * whatever it is. */
			if (isstd && strcmp(out[j].path, "-") == 0)
				return diag_set(d, EXIT_USAGE, "%s and %s both "
				    "write to standard output: give one of them "
				    "a file", out[j].opt, out[i].opt);
			ident_of(out[j].path, strcmp(out[j].path, "-") == 0 ?
			    STDOUT_FILENO : -1, &ii);
			if (ident_same(&io, &ii))
				return diag_set(d, EXIT_USAGE, "%s is the same "
				    "file as %s: give each its own file",
				    outword(&out[i], w1, sizeof(w1)),
				    outword(&out[j], w2, sizeof(w2)));
		}
		for (j = 0; j < nin; j++) {
			ident_of(in[j], strcmp(in[j], "-") == 0 ?
			    STDIN_FILENO : -1, &ii);
			if (ident_same(&io, &ii))
				return diag_set(d, EXIT_USAGE, "%s is the same "
				    "file as %s%s: write to another file",
				    outword(&out[i], w1, sizeof(w1)),
				    strcmp(in[j], "-") == 0 ? "standard input" :
				    "the input ", strcmp(in[j], "-") == 0 ? "" :
				    in[j]);
		}
	}
	return 0;
}

void
outfile_cleanup(void)
{
	char *t;
	size_t i;

	for (i = 0; i < NSLOTS; i++)
		if (atomic_load(&slots[i].used) && (t = slots[i].tmp) != NULL)
			(void)unlink(t);
}

static void
on_signal(int sig)
{
	atomic_store(&dying, sig);
	outfile_cleanup();
	/* SA_RESETHAND restored the default and SA_NODEFER left the signal
	 * unblocked: it ends the process here, as it would have. */
	(void)raise(sig);
}

static void
on_exit_cleanup(void)
{
	outfile_cleanup();
}

/* Once, before the first temporary file: the signals that end a run. */
static void
catch_fatal(void)
{
	static const int sigs[] = { SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGPIPE,
	    SIGXFSZ, SIGALRM, SIGUSR1, SIGUSR2 };
	static int done;
	struct sigaction sa, old;
	size_t i;

	if (done)
		return;
	done = 1;
	atexit(on_exit_cleanup);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESETHAND | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		/* An ignored signal (nohup) stays ignored. */
		if (sigaction(sigs[i], NULL, &old) == 0 &&
		    old.sa_handler == SIG_IGN)
			continue;
		sigaction(sigs[i], &sa, NULL);
	}
}

static struct slot *
slot_of(int fd)
{
	size_t i;

	for (i = 0; i < NSLOTS; i++)
		if (slots[i].used && slots[i].fd == fd)
			return &slots[i];
	return NULL;
}

/* "DIR/.NAME.rladv-XXXXXX" beside target (create_tmp() fills the X). */
static char *
tmp_name(const char *target)
{
	const char *slash = strrchr(target, '/');
	size_t dl = slash ? (size_t)(slash - target) + 1 : 0;
	char *t = diag_malloc(strlen(target) + 16);

	memcpy(t, target, dl);
	t[dl] = '.';
	strcpy(t + dl + 1, target + dl);
	strcat(t, ".rladv-XXXXXX");
	return t;
}

/* The standard descriptor (1 or 2) that already is st's file, or -1. */
static int
std_fd(const struct stat *st)
{
	struct stat so;
	int fd;

	for (fd = STDOUT_FILENO; fd <= STDERR_FILENO; fd++)
		if (fstat(fd, &so) == 0 && so.st_dev == st->st_dev &&
		    so.st_ino == st->st_ino)
			return fd;
	return -1;
}

/* A slot for an output, taken: tmp (when not NULL) is published to the
 * signal handler before the file is created. */
static struct slot *
slot_new(const char *path, int fd, char *target, char *tmp)
{
	size_t i;

	for (i = 0; i < NSLOTS; i++)
		if (!atomic_load(&slots[i].used))
			break;
	if (i == NSLOTS)
		abort();	/* more outputs than any command has */
	slots[i].fd = fd;
	slots[i].path = diag_strdup(path);
	slots[i].target = target;
	slots[i].tmp = tmp;
	atomic_store(&slots[i].used, 1);
	return &slots[i];
}

static void
slot_free(struct slot *s)
{
	atomic_store(&s->used, 0);
	free(s->tmp);
	s->tmp = NULL;
	free(s->target);
	free(s->path);
}

/*
 * Creates the temporary file of s (its name ends in XXXXXX, replaced by
 * random letters here, as mkstemp does).  The name is in the slot before
 * the file exists, and dying is read after: a fatal signal on the way
 * never leaves the file behind.
 */
static int
create_tmp(struct slot *s)
{
	static const char set[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnop"
	    "qrstuvwxyz0123456789";
	static uint64_t seq;
	char *x = s->tmp + strlen(s->tmp) - 6;
	uint64_t z;
	int fd, i, try, sig;

	for (try = 0; try < 100; try++) {
		z = rng_mix64((uint64_t)getpid() << 32 ^ (uint64_t)time(NULL) ^
		    (uint64_t)(uintptr_t)s ^ ++seq * 0x9e3779b97f4a7c15ULL);
		for (i = 0; i < 6; i++, z /= 62)
			x[i] = set[z % 62];
		fd = open(s->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
		    0600);
		if ((sig = atomic_load(&dying)) != 0) {
			/* A handler ran: it may not have seen the file. */
			if (fd >= 0)
				(void)unlink(s->tmp);
			(void)raise(sig);
		}
		if (fd >= 0 || errno != EEXIST)
			return fd;
	}
	return -1;
}

/* A file written as it is: a device, a pipe, a dangling link. */
static int
open_plain(const char *path, struct diag *d)
{
	int fd;

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (fd < 0)
		return diag_set(d, EXIT_IO, "%s: %s", path, strerror(errno)),
		    -1;
	slot_new(path, fd, NULL, NULL);
	return fd;
}

int
outfile_open(const char *path, struct diag *d)
{
	struct stat st, ls;
	struct slot *s;
	char *target, *tmp;
	mode_t mode, mask;
	int fd, exists;

	if (strcmp(path, "-") == 0)
		return STDOUT_FILENO;
	exists = stat(path, &st) == 0;
	if (!exists && errno != ENOENT)
		return diag_set(d, EXIT_IO, "%s: %s", path, strerror(errno)),
		    -1;
	if (exists && (fd = std_fd(&st)) >= 0)
		return fd;
	if (exists ? !S_ISREG(st.st_mode) : lstat(path, &ls) == 0)
		return open_plain(path, d);
	/* A symbolic link stays one: the file it names is replaced. */
	if (exists && lstat(path, &ls) == 0 && S_ISLNK(ls.st_mode)) {
		if ((target = realpath(path, NULL)) == NULL)
			return open_plain(path, d);
	} else
		target = diag_strdup(path);
	tmp = tmp_name(target);
	catch_fatal();
	s = slot_new(path, -1, target, tmp);
	if ((fd = create_tmp(s)) < 0) {
		diag_set(d, EXIT_IO, "%s: cannot create a temporary file beside "
		    "it: %s", path, strerror(errno));
		slot_free(s);
		return -1;
	}
	s->fd = fd;
	if (exists) {
		/* chown may fail (another owner): the mode still holds. */
		(void)!fchown(fd, st.st_uid, st.st_gid);
		mode = st.st_mode & 07777;
	} else {
		mask = umask(0);
		umask(mask);
		mode = 0666 & ~mask;
	}
	(void)fchmod(fd, mode);
	return fd;
}

/* The end of slot s's file, its descriptor closed with error err. */
static int
finish(struct slot *s, int ok, int err, struct diag *d)
{
	int rc = 0;

	if (err != 0 && ok) {
		rc = diag_set(d, EXIT_IO, "%s: write error: %s", s->path,
		    strerror(err));
		ok = 0;
	}
	if (s->tmp != NULL) {
		if (ok && rename(s->tmp, s->target) != 0) {
			rc = diag_set(d, EXIT_IO, "%s: cannot rename %s into "
			    "place: %s", s->path, s->tmp, strerror(errno));
			ok = 0;
		}
		if (!ok)
			(void)unlink(s->tmp);
	}
	slot_free(s);
	return rc;
}

int
outfile_close(int fd, int ok, struct diag *d)
{
	struct slot *s = slot_of(fd);
	int err = 0;

	if (s == NULL)
		return 0;	/* standard output or error: left open */
	if (close(fd) != 0)
		err = errno;
	return finish(s, ok, err, d);
}

FILE *
outfile_fopen(const char *path, struct diag *d)
{
	FILE *f;
	int fd;

	if ((fd = outfile_open(path, d)) < 0)
		return NULL;
	if (fd == STDOUT_FILENO || fd == STDERR_FILENO)
		return fd == STDOUT_FILENO ? stdout : stderr;
	if ((f = fdopen(fd, "w")) == NULL) {
		diag_set(d, EXIT_IO, "%s: %s", path, strerror(errno));
		outfile_close(fd, 0, d);
	}
	return f;
}

int
outfile_fclose(FILE *f, int ok, struct diag *d)
{
	struct slot *s;
	int err = 0;

	if (f == NULL)
		return 0;
	errno = 0;
	if (fflush(f) != 0 || ferror(f))
		err = errno ? errno : EIO;
	if (f == stdout || f == stderr) {
		if (err != 0 && ok)
			return diag_set(d, EXIT_IO, "%s: write error: %s",
			    f == stdout ? "standard output" : "standard error",
			    strerror(err));
		return 0;
	}
	s = slot_of(fileno(f));
	if (fclose(f) != 0 && err == 0)
		err = errno;
	return s ? finish(s, ok, err, d) : 0;
}
