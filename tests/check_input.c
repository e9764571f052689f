/*
 * check_input.c - tests of the line reader (src/input.c) over temporary
 * files: plain and gzip (one member and several), CRLF, blank lines, a
 * missing final newline, truncated and corrupt gzip (status 1), missing
 * files (status 3), --max-line (status 1), several files in order with
 * per-file line numbers, and standard input: from its offset, left at
 * its end, read once when named twice.  Pipes and gzip are read by a
 * second thread into blocks: lines across blocks, lines that stay valid,
 * the line named after gzip trailing garbage, and a close that does not
 * wait for a silent writer.  A mapped file's spans of whole lines, cut
 * and numbered by their own (input_span, input_cut), and a message
 * renumbered (diag_reline).
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "input.h"
#include "testutil.h"

#define MAXLINE_DEFAULT	((size_t)1 << 30)

/* Expects ln to be want, from file, numbered lineno. */
static void
check_line(const struct line *ln, const char *want, const char *file,
    unsigned long long lineno)
{
	ck_assert_msg(ln->len == strlen(want) && memcmp(ln->text, want,
	    ln->len) == 0, "line \"%.*s\", expected \"%s\"", (int)ln->len,
	    ln->text, want);
	ck_assert_str_eq(ln->file, file);
	ck_assert_msg(ln->lineno == lineno, "line number %llu, expected %llu",
	    ln->lineno, lineno);
}

/* Expects the next line to be want, from file, numbered lineno. */
static void
expect_line(struct input *in, const char *want, const char *file,
    unsigned long long lineno)
{
	struct line ln;
	struct diag d = { 0 };
	int k = input_next(in, &ln, &d);

	ck_assert_msg(k == 1, "input_next gave %d (%s), expected \"%s\"", k,
	    d.msg, want);
	check_line(&ln, want, file, lineno);
}

static void
expect_end(struct input *in)
{
	struct line ln;
	struct diag d = { 0 };

	ck_assert_int_eq(input_next(in, &ln, &d), 0);
	/* and it stays at the end */
	ck_assert_int_eq(input_next(in, &ln, &d), 0);
}

/* Reads until an error; returns its status, with the message in d. */
static int
expect_error(struct input *in, struct diag *d, size_t *nlines)
{
	struct line ln;
	int k;

	memset(d, 0, sizeof(*d));
	*nlines = 0;
	while ((k = input_next(in, &ln, d)) == 1)
		(*nlines)++;
	ck_assert_msg(k == -1, "no error: input_next gave %d", k);
	ck_assert(d->status != 0);
	return d->status;
}

static struct input *
open1(const char *path, size_t max_line)
{
	static char *names[1];

	names[0] = (char *)path;
	return input_open(names, 1, max_line);
}

START_TEST(plain_lines)
{
	const char *p = tu_path("a.jsonl");
	struct input *in;

	tu_write_str(p, "{\"a\":1}\n{\"b\":2}\n");
	in = open1(p, MAXLINE_DEFAULT);
	expect_line(in, "{\"a\":1}", p, 1);
	expect_line(in, "{\"b\":2}", p, 2);
	expect_end(in);
	/* 16 bytes read */
	ck_assert_uint_eq(input_bytes(in), 16);
	input_close(in);
}
END_TEST

START_TEST(blank_lines)
{
	const char *p = tu_path("b.jsonl");
	struct input *in;

	/* Lines 2, 3, 4 and 6 are blank (spaces, a tab, a lone CR); their
	 * numbers still count. */
	tu_write_str(p, "x\n\n  \n\t\ny\n\r\nz\n\n");
	in = open1(p, MAXLINE_DEFAULT);
	expect_line(in, "x", p, 1);
	expect_line(in, "y", p, 5);
	expect_line(in, "z", p, 7);
	expect_end(in);
	input_close(in);
}
END_TEST

START_TEST(crlf_lines)
{
	const char *p = tu_path("c.jsonl");
	struct input *in;

	/* The final \r goes; a \r inside a line stays. */
	tu_write_str(p, "ab\r\ncd\r\ne\rf\r\n");
	in = open1(p, MAXLINE_DEFAULT);
	expect_line(in, "ab", p, 1);
	expect_line(in, "cd", p, 2);
	expect_line(in, "e\rf", p, 3);
	expect_end(in);
	input_close(in);
}
END_TEST

START_TEST(no_final_newline)
{
	const char *p = tu_path("d.jsonl");
	struct input *in;

	tu_write_str(p, "one\ntwo");
	in = open1(p, MAXLINE_DEFAULT);
	expect_line(in, "one", p, 1);
	expect_line(in, "two", p, 2);
	expect_end(in);
	input_close(in);
	/* With CRLF and no final newline: "two\r" gives "two". */
	tu_write_str(p, "one\r\ntwo\r");
	in = open1(p, MAXLINE_DEFAULT);
	expect_line(in, "one", p, 1);
	expect_line(in, "two", p, 2);
	expect_end(in);
	input_close(in);
}
END_TEST

START_TEST(empty_file)
{
	const char *p = tu_path("e.jsonl");
	struct input *in;

	tu_write_str(p, "");
	in = open1(p, MAXLINE_DEFAULT);
	expect_end(in);
	input_close(in);
	/* Only blank lines. */
	tu_write_str(p, "\n\n \n");
	in = open1(p, MAXLINE_DEFAULT);
	expect_end(in);
	input_close(in);
}
END_TEST

START_TEST(gzip_single)
{
	const char *p = tu_path("f.jsonl.gz");
	const char *text = "{\"a\":1}\n\n{\"b\":2}\r\n{\"c\":3}";
	struct input *in;

	tu_gzwrite(p, "wb", text, strlen(text));
	in = open1(p, MAXLINE_DEFAULT);
	expect_line(in, "{\"a\":1}", p, 1);
	expect_line(in, "{\"b\":2}", p, 3);
	expect_line(in, "{\"c\":3}", p, 4);
	expect_end(in);
	input_close(in);
}
END_TEST

START_TEST(gzip_by_content)
{
	/* gzip is detected by the magic bytes, not the name. */
	const char *p = tu_path("not-gzip-name.txt");
	struct input *in;

	tu_gzwrite(p, "wb", "x\ny\n", 4);
	in = open1(p, MAXLINE_DEFAULT);
	expect_line(in, "x", p, 1);
	expect_line(in, "y", p, 2);
	expect_end(in);
	input_close(in);
	/* And a plain file named .gz is read as plain text. */
	p = tu_path("plain.gz");
	tu_write_str(p, "x\n");
	in = open1(p, MAXLINE_DEFAULT);
	expect_line(in, "x", p, 1);
	expect_end(in);
	input_close(in);
}
END_TEST

START_TEST(gzip_multi_member)
{
	const char *p = tu_path("g.jsonl.gz");
	struct input *in;

	/* Three members; the first ends mid-line, so the line "b2" spans
	 * two members. */
	tu_gzwrite(p, "wb", "a\nb", 3);
	tu_gzwrite(p, "ab", "2\n", 2);
	tu_gzwrite(p, "ab", "c\n", 2);
	in = open1(p, MAXLINE_DEFAULT);
	expect_line(in, "a", p, 1);
	expect_line(in, "b2", p, 2);
	expect_line(in, "c", p, 3);
	expect_end(in);
	input_close(in);
}
END_TEST

START_TEST(gzip_multi_member_concat)
{
	/* Two gzip files made apart and concatenated byte for byte, as
	 * "cat a.gz b.gz" would; one member is empty. */
	const char *a = tu_path("m1.gz"), *b = tu_path("m2.gz");
	const char *e = tu_path("m3.gz"), *c = tu_path("cat.gz");
	char *x, *y, *z, *all;
	size_t nx, ny, nz;
	struct input *in;

	tu_gzwrite(a, "wb", "first\n", 6);
	tu_gzwrite(e, "wb", "", 0);
	tu_gzwrite(b, "wb", "second\nthird\n", 13);
	x = tu_read(a, &nx);
	z = tu_read(e, &nz);
	y = tu_read(b, &ny);
	all = malloc(nx + ny + nz);
	memcpy(all, x, nx);
	memcpy(all + nx, z, nz);
	memcpy(all + nx + nz, y, ny);
	tu_write(c, all, nx + ny + nz);
	in = open1(c, MAXLINE_DEFAULT);
	expect_line(in, "first", c, 1);
	expect_line(in, "second", c, 2);
	expect_line(in, "third", c, 3);
	expect_end(in);
	/* input_bytes counts the compressed size. */
	ck_assert_uint_eq(input_bytes(in), nx + ny + nz);
	input_close(in);
	free(x);
	free(y);
	free(z);
	free(all);
}
END_TEST

/* n lines "line <i> <padding>" of about 100 bytes. */
static char *
many_lines(size_t n, size_t *len)
{
	char *s = malloc(n * 128), *o = s;
	size_t i;

	ck_assert(s != NULL);
	for (i = 0; i < n; i++)
		o += sprintf(o, "line %zu %s\n", i + 1,
		    "................................................."
		    "........................................");
	*len = (size_t)(o - s);
	return s;
}

START_TEST(gzip_large)
{
	/* 60000 lines of ~100 bytes: about 6 MB decoded, larger than the
	 * read chunk (1 MiB) and the first line buffer (4 MiB); split into
	 * two members at an arbitrary byte. */
	const char *p = tu_path("big.gz");
	size_t len, i, cut = 3333333;
	char *s = many_lines(60000, &len), want[64];
	struct input *in;

	ck_assert(len > cut);
	tu_gzwrite(p, "wb", s, cut);
	tu_gzwrite(p, "ab", s + cut, len - cut);
	in = open1(p, MAXLINE_DEFAULT);
	for (i = 0; i < 60000; i++) {
		struct line ln;
		struct diag d = { 0 };

		ck_assert_int_eq(input_next(in, &ln, &d), 1);
		ck_assert_uint_eq(ln.lineno, i + 1);
		snprintf(want, sizeof(want), "line %zu ", i + 1);
		ck_assert(ln.len > strlen(want) &&
		    memcmp(ln.text, want, strlen(want)) == 0);
	}
	expect_end(in);
	input_close(in);
	free(s);
}
END_TEST

START_TEST(plain_large_line)
{
	/* One 9 MB line (more than the 4 MiB buffer) between two short
	 * ones: the buffer grows, the line arrives whole. */
	const char *p = tu_path("long.jsonl");
	size_t n = 9u << 20, total = n + 4;
	char *s = malloc(total);
	struct input *in;
	struct line ln;
	struct diag d = { 0 };

	ck_assert(s != NULL);
	memcpy(s, "a\n", 2);
	memset(s + 2, 'x', n);
	memcpy(s + 2 + n, "\nb", 2);
	tu_write(p, s, total);
	in = open1(p, MAXLINE_DEFAULT);
	expect_line(in, "a", p, 1);
	ck_assert_int_eq(input_next(in, &ln, &d), 1);
	ck_assert_uint_eq(ln.len, n);
	ck_assert_uint_eq(ln.lineno, 2);
	ck_assert(ln.text[0] == 'x' && ln.text[n - 1] == 'x');
	expect_line(in, "b", p, 3);
	expect_end(in);
	input_close(in);
	free(s);
}
END_TEST

START_TEST(gzip_truncated)
{
	const char *p = tu_path("t.gz"), *q = tu_path("t2.gz");
	size_t len, zlen, nlines;
	char *s = many_lines(2000, &len), *z;
	struct input *in;
	struct diag d;

	tu_gzwrite(p, "wb", s, len);
	z = tu_read(p, &zlen);
	/* Cut off the 8-byte trailer and a little more. */
	tu_write(q, z, zlen - 20);
	in = open1(q, MAXLINE_DEFAULT);
	ck_assert_int_eq(expect_error(in, &d, &nlines), 1);
	ck_assert_has(d.msg, "truncated");
	ck_assert_has(d.msg, q);
	ck_assert(nlines < 2000);
	input_close(in);
	/* Only the trailer missing: every line decodes, the end does not
	 * verify: still status 1. */
	tu_write(q, z, zlen - 8);
	in = open1(q, MAXLINE_DEFAULT);
	ck_assert_int_eq(expect_error(in, &d, &nlines), 1);
	input_close(in);
	/* Just the 10-byte header. */
	tu_write(q, z, 10);
	in = open1(q, MAXLINE_DEFAULT);
	ck_assert_int_eq(expect_error(in, &d, &nlines), 1);
	ck_assert_uint_eq(nlines, 0);
	input_close(in);
	free(s);
	free(z);
}
END_TEST

START_TEST(gzip_corrupt)
{
	const char *p = tu_path("c.gz"), *q = tu_path("c2.gz");
	size_t len, zlen, nlines;
	char *s = many_lines(500, &len), *z;
	struct input *in;
	struct diag d;

	tu_gzwrite(p, "wb", s, len);
	z = tu_read(p, &zlen);
	/* A damaged CRC in the trailer. */
	z[zlen - 6] ^= 0x55;
	tu_write(q, z, zlen);
	in = open1(q, MAXLINE_DEFAULT);
	ck_assert_int_eq(expect_error(in, &d, &nlines), 1);
	ck_assert_has(d.msg, "corrupt gzip");
	input_close(in);
	z[zlen - 6] ^= 0x55;
	/* Garbage after a complete member. */
	{
		char *g = malloc(zlen + 5);

		memcpy(g, z, zlen);
		memcpy(g + zlen, "junk\n", 5);
		tu_write(q, g, zlen + 5);
		free(g);
	}
	in = open1(q, MAXLINE_DEFAULT);
	ck_assert_int_eq(expect_error(in, &d, &nlines), 1);
	ck_assert_has(d.msg, "trailing garbage");
	input_close(in);
	free(s);
	free(z);
}
END_TEST

START_TEST(missing_file)
{
	const char *p = tu_path("does-not-exist.jsonl");
	struct input *in;
	struct diag d;
	size_t nlines;

	in = open1(p, MAXLINE_DEFAULT);
	ck_assert_int_eq(expect_error(in, &d, &nlines), 3);
	ck_assert_has(d.msg, p);
	ck_assert_uint_eq(nlines, 0);
	input_close(in);
	/* A directory is not readable as a file either. */
	in = open1(tu_dir, MAXLINE_DEFAULT);
	ck_assert_int_eq(expect_error(in, &d, &nlines), 3);
	input_close(in);
}
END_TEST

START_TEST(max_line)
{
	const char *p = tu_path("m.jsonl");
	struct input *in;
	struct diag d;
	size_t nlines;

	/* max_line 10: "0123456789" (10 bytes) passes, 11 bytes do not. */
	tu_write_str(p, "0123456789\n0123456789A\nok\n");
	in = open1(p, 10);
	expect_line(in, "0123456789", p, 1);
	ck_assert_int_eq(expect_error(in, &d, &nlines), 1);
	ck_assert_uint_eq(nlines, 0);
	ck_assert_prefix(d.msg, p);
	ck_assert_has(d.msg, ":2: line longer than --max-line (10 bytes)");
	input_close(in);
	/* The last line, without a newline, is measured too. */
	tu_write_str(p, "ab\n0123456789A");
	in = open1(p, 10);
	expect_line(in, "ab", p, 1);
	ck_assert_int_eq(expect_error(in, &d, &nlines), 1);
	ck_assert_has(d.msg, ":2: line longer");
	input_close(in);
}
END_TEST

START_TEST(max_line_huge_line)
{
	/* A 6 MB line with no newline under max_line 4096: refused as soon
	 * as the partial line passes the limit, status 1, line 1. */
	const char *p = tu_path("h.jsonl");
	size_t n = 6u << 20, nlines;
	char *s = malloc(n);
	struct input *in;
	struct diag d;

	ck_assert(s != NULL);
	memset(s, 'y', n);
	tu_write(p, s, n);
	in = open1(p, 4096);
	ck_assert_int_eq(expect_error(in, &d, &nlines), 1);
	ck_assert_has(d.msg, ":1: line longer than --max-line (4096 bytes)");
	input_close(in);
	free(s);
}
END_TEST

START_TEST(several_files)
{
	const char *a = tu_path("s1.jsonl"), *b = tu_path("s2.jsonl.gz");
	const char *c = tu_path("s3.jsonl");
	char *names[3];
	struct input *in;

	tu_write_str(a, "a1\na2\n");
	tu_gzwrite(b, "wb", "\nb2\n", 4);
	tu_write_str(c, "c1");
	names[0] = (char *)a;
	names[1] = (char *)b;
	names[2] = (char *)c;
	in = input_open(names, 3, MAXLINE_DEFAULT);
	expect_line(in, "a1", a, 1);
	expect_line(in, "a2", a, 2);
	/* numbering restarts in each file */
	expect_line(in, "b2", b, 2);
	expect_line(in, "c1", c, 1);
	expect_end(in);
	input_close(in);
}
END_TEST

START_TEST(several_files_no_newline_join)
{
	/* A file without a final newline does not run into the next. */
	const char *a = tu_path("j1"), *b = tu_path("j2");
	char *names[2];
	struct input *in;

	tu_write_str(a, "end-of-a");
	tu_write_str(b, "start-of-b\n");
	names[0] = (char *)a;
	names[1] = (char *)b;
	in = input_open(names, 2, MAXLINE_DEFAULT);
	expect_line(in, "end-of-a", a, 1);
	expect_line(in, "start-of-b", b, 1);
	expect_end(in);
	input_close(in);
}
END_TEST

START_TEST(several_files_missing_middle)
{
	const char *a = tu_path("x1"), *b = tu_path("x2-missing");
	const char *c = tu_path("x3");
	char *names[3];
	struct input *in;
	struct diag d;
	size_t nlines;

	tu_write_str(a, "a\n");
	tu_write_str(c, "c\n");
	names[0] = (char *)a;
	names[1] = (char *)b;
	names[2] = (char *)c;
	in = input_open(names, 3, MAXLINE_DEFAULT);
	/* the first file's line comes, then the error for the second */
	ck_assert_int_eq(expect_error(in, &d, &nlines), 3);
	ck_assert_uint_eq(nlines, 1);
	ck_assert_has(d.msg, b);
	input_close(in);
}
END_TEST

START_TEST(stable_lines)
{
	/* Every line is stable: it stays valid after the reader moves on,
	 * into the next file too, until input_release(); plain files are
	 * mapped, gzip is inflated into blocks. */
	const char *a = tu_path("st1"), *b = tu_path("st2");
	const char *c = tu_path("st3.gz");
	char *names[3];
	struct input *in;
	struct line l1, l2, l3;
	struct diag d = { 0 };

	tu_write_str(a, "first-file\n");
	tu_write_str(b, "second-file\n");
	tu_gzwrite(c, "wb", "third\n", 6);
	names[0] = (char *)a;
	names[1] = (char *)b;
	names[2] = (char *)c;
	in = input_open(names, 3, MAXLINE_DEFAULT);
	ck_assert_int_eq(input_next(in, &l1, &d), 1);
	ck_assert_int_eq(l1.stable, 1);
	ck_assert_int_eq(input_next(in, &l2, &d), 1);
	ck_assert_int_eq(l2.stable, 1);
	ck_assert_str_eq(l2.file, b);
	/* l1 still reads as it did */
	ck_assert_uint_eq(l1.len, 10);
	ck_assert(memcmp(l1.text, "first-file", 10) == 0);
	ck_assert_int_eq(input_next(in, &l3, &d), 1);
	ck_assert_int_eq(l3.stable, 1);
	ck_assert_uint_eq(l3.len, 5);
	ck_assert(memcmp(l3.text, "third", 5) == 0);
	ck_assert(memcmp(l2.text, "second-file", 11) == 0);
	input_release(in, l3.text);
	expect_end(in);
	/* l3 is kept (release lets go of lines before it only) */
	ck_assert(memcmp(l3.text, "third", 5) == 0);
	input_close(in);
}
END_TEST

START_TEST(standard_input)
{
	const char *p = tu_path("stdin.jsonl.gz");
	int fd, saved;
	struct input *in;

	/* n == 0 reads standard input, named "<stdin>"; gzip there too. */
	tu_gzwrite(p, "wb", "s1\ns2\n", 6);
	saved = dup(STDIN_FILENO);
	fd = open(p, O_RDONLY);
	ck_assert(fd >= 0 && saved >= 0);
	ck_assert(dup2(fd, STDIN_FILENO) == STDIN_FILENO);
	close(fd);
	in = input_open(NULL, 0, MAXLINE_DEFAULT);
	expect_line(in, "s1", "<stdin>", 1);
	expect_line(in, "s2", "<stdin>", 2);
	expect_end(in);
	input_close(in);
	dup2(saved, STDIN_FILENO);
	close(saved);
}
END_TEST

/*
 * Standard input from a pipe (not a regular file, so not mapped): a child
 * writes the pieces given, pausing between them so that reads return
 * short; returns the child's pid.
 */
static pid_t
pipe_stdin(const char *const *piece, const size_t *len, size_t n,
    int *saved)
{
	int fd[2];
	pid_t pid;
	size_t i;

	ck_assert(pipe(fd) == 0);
	pid = fork();
	ck_assert(pid >= 0);
	if (pid == 0) {
		close(fd[0]);
		signal(SIGPIPE, SIG_DFL);
		for (i = 0; i < n; i++) {
			const char *p = piece[i];
			size_t left = len[i];

			while (left > 0) {
				ssize_t w = write(fd[1], p, left);

				if (w <= 0)
					_exit(1);
				p += w;
				left -= (size_t)w;
			}
			usleep(20000);
		}
		_exit(0);
	}
	close(fd[1]);
	*saved = dup(STDIN_FILENO);
	ck_assert(dup2(fd[0], STDIN_FILENO) == STDIN_FILENO);
	close(fd[0]);
	return pid;
}

static void
pipe_done(pid_t pid, int saved)
{
	int st;

	dup2(saved, STDIN_FILENO);
	close(saved);
	waitpid(pid, &st, 0);
}

START_TEST(pipe_plain)
{
	/* A line split across two writes, CRLF, a blank line, no final
	 * newline. */
	static const char *const piece[] = { "a\r\n\nb", "b\nc" };
	static const size_t len[] = { 5, 3 };
	struct input *in;
	int saved;
	pid_t pid = pipe_stdin(piece, len, 2, &saved);

	in = input_open(NULL, 0, MAXLINE_DEFAULT);
	expect_line(in, "a", "<stdin>", 1);
	expect_line(in, "bb", "<stdin>", 3);
	expect_line(in, "c", "<stdin>", 4);
	expect_end(in);
	ck_assert_uint_eq(input_bytes(in), 8);
	input_close(in);
	pipe_done(pid, saved);
}
END_TEST

START_TEST(pipe_gzip_split_magic)
{
	/* gzip through a pipe whose first read returns the single byte
	 * 0x1f: still detected as gzip. */
	const char *p = tu_path("pipe.gz");
	const char *piece[3];
	size_t len[3], zlen;
	char *z;
	struct input *in;
	int saved;
	pid_t pid;

	tu_gzwrite(p, "wb", "x1\nx2\n", 6);
	z = tu_read(p, &zlen);
	piece[0] = z;
	len[0] = 1;
	piece[1] = z + 1;
	len[1] = 5;
	piece[2] = z + 6;
	len[2] = zlen - 6;
	pid = pipe_stdin(piece, len, 3, &saved);
	in = input_open(NULL, 0, MAXLINE_DEFAULT);
	expect_line(in, "x1", "<stdin>", 1);
	expect_line(in, "x2", "<stdin>", 2);
	expect_end(in);
	input_close(in);
	pipe_done(pid, saved);
	free(z);
}
END_TEST

START_TEST(pipe_large_and_max_line)
{
	/* 6 MB of lines through a pipe (the read buffer grows past 4 MiB
	 * while a 5 MB line is pending), then a line over --max-line. */
	size_t big = 5u << 20, n = big + 64;
	char *s = malloc(n);
	const char *piece[1];
	size_t len[1];
	struct input *in;
	struct line ln;
	struct diag d = { 0 };
	int saved;
	pid_t pid;

	ck_assert(s != NULL);
	memcpy(s, "head\n", 5);
	memset(s + 5, 'z', big);
	memcpy(s + 5 + big, "\ntail\n", 6);
	piece[0] = s;
	len[0] = big + 11;
	pid = pipe_stdin(piece, len, 1, &saved);
	in = input_open(NULL, 0, MAXLINE_DEFAULT);
	expect_line(in, "head", "<stdin>", 1);
	ck_assert_int_eq(input_next(in, &ln, &d), 1);
	ck_assert_uint_eq(ln.len, big);
	ck_assert_int_eq(ln.stable, 1);
	expect_line(in, "tail", "<stdin>", 3);
	expect_end(in);
	/* still whole after the reader moved on */
	ck_assert(ln.text[0] == 'z' && ln.text[big - 1] == 'z');
	input_close(in);
	pipe_done(pid, saved);

	/* The same under --max-line 1M: line 2 is refused, status 1. */
	pid = pipe_stdin(piece, len, 1, &saved);
	in = input_open(NULL, 0, 1u << 20);
	expect_line(in, "head", "<stdin>", 1);
	ck_assert_int_eq(input_next(in, &ln, &d), -1);
	ck_assert_int_eq(d.status, 1);
	ck_assert_str_eq(d.msg, "<stdin>:2: line longer than --max-line "
	    "(1048576 bytes)");
	input_close(in);
	pipe_done(pid, saved);
	free(s);
}
END_TEST

/* Makes path standard input, at offset off; returns the saved one. */
static int
stdin_from(const char *path, off_t off)
{
	int fd = open(path, O_RDONLY), saved = dup(STDIN_FILENO);

	ck_assert(fd >= 0 && saved >= 0);
	ck_assert(lseek(fd, off, SEEK_SET) == off);
	ck_assert(dup2(fd, STDIN_FILENO) == STDIN_FILENO);
	close(fd);
	return saved;
}

static void
stdin_back(int saved)
{
	dup2(saved, STDIN_FILENO);
	close(saved);
}

START_TEST(stdin_offset)
{
	/* Standard input is read from where it stands (a command before
	 * rladv read line 1), numbered from there, and left at its end
	 * for what comes after; plain and gzip. */
	const char *p = tu_path("off.jsonl"), *q = tu_path("off.gz");
	struct input *in;
	int saved;

	tu_write_str(p, "l1\nl2\nl3\n");
	saved = stdin_from(p, 3);
	in = input_open(NULL, 0, MAXLINE_DEFAULT);
	expect_line(in, "l2", "<stdin>", 1);
	expect_line(in, "l3", "<stdin>", 2);
	expect_end(in);
	ck_assert_int_eq(lseek(STDIN_FILENO, 0, SEEK_CUR), 9);
	input_close(in);
	stdin_back(saved);
	/* Past the end: nothing. */
	saved = stdin_from(p, 9);
	in = input_open(NULL, 0, MAXLINE_DEFAULT);
	expect_end(in);
	input_close(in);
	stdin_back(saved);
	/* gzip after 4 bytes of something else. */
	tu_write_str(q, "xyz\n");
	tu_gzwrite(q, "ab", "g1\ng2\n", 6);
	saved = stdin_from(q, 4);
	in = input_open(NULL, 0, MAXLINE_DEFAULT);
	expect_line(in, "g1", "<stdin>", 1);
	expect_line(in, "g2", "<stdin>", 2);
	expect_end(in);
	input_close(in);
	stdin_back(saved);
}
END_TEST

/* Expects s's next line from *pos to be want, numbered n in s. */
static void
expect_cut(const struct linespan *s, const char **pos,
    unsigned long long *n, const char *want, unsigned long long lineno)
{
	struct line ln;
	struct diag d = { 0 };
	int k = input_cut(s, pos, n, &ln, &d);

	ck_assert_msg(k == 1, "input_cut gave %d (%s), expected \"%s\"", k,
	    d.msg, want);
	check_line(&ln, want, s->file, lineno);
	ck_assert_uint_eq(ln.fileno, s->fileno);
}

START_TEST(span_lines)
{
	/* Spans of whole lines from 4 bytes on: "a1\n\nb22\r\n" (its first
	 * newline from byte 4 on ends the third line), then "  \nc\n",
	 * then the last line, which has no newline.  The lines are
	 * numbered from 1 in each span, the blank ones counted, under
	 * input_next()'s rules. */
	const char *p = tu_path("span.jsonl");
	const char *pos;
	unsigned long long n = 0;
	struct linespan s;
	struct diag d = { 0 };
	struct line ln;
	struct input *in;

	tu_write_str(p, "a1\n\nb22\r\n  \nc\ndd");
	in = open1(p, MAXLINE_DEFAULT);
	ck_assert_int_eq(input_span(in, 4, &s, &d), 1);
	ck_assert_uint_eq((size_t)(s.end - s.p), 9);
	ck_assert_uint_eq(s.before, 0);
	ck_assert_str_eq(s.file, p);
	pos = s.p;
	expect_cut(&s, &pos, &n, "a1", 1);
	expect_cut(&s, &pos, &n, "b22", 3);
	ck_assert_int_eq(input_cut(&s, &pos, &n, &ln, &d), 0);
	ck_assert_uint_eq(n, 3);
	ck_assert_int_eq(input_span(in, 4, &s, &d), 1);
	ck_assert_uint_eq((size_t)(s.end - s.p), 5);
	pos = s.p;
	n = 0;
	expect_cut(&s, &pos, &n, "c", 2);
	ck_assert_int_eq(input_cut(&s, &pos, &n, &ln, &d), 0);
	ck_assert_int_eq(input_span(in, 4, &s, &d), 1);
	pos = s.p;
	n = 0;
	expect_cut(&s, &pos, &n, "dd", 1);
	ck_assert_int_eq(input_cut(&s, &pos, &n, &ln, &d), 0);
	ck_assert_int_eq(input_span(in, 4, &s, &d), 0);
	ck_assert_int_eq(input_span(in, 4, &s, &d), 0);
	input_close(in);
}
END_TEST

START_TEST(span_files)
{
	/* A mapped file read line by line, then in a span: before counts
	 * the lines read.  A gzip file is no span (2) until input_next()
	 * has read it to its end, and into the next file; the file after
	 * that starts at its line 1. */
	const char *a = tu_path("sp1.jsonl"), *b = tu_path("sp2.jsonl.gz");
	const char *c = tu_path("sp3.jsonl"), *e = tu_path("sp4.jsonl");
	char *names[4];
	const char *pos;
	unsigned long long n = 0;
	struct linespan s;
	struct diag d = { 0 };
	struct input *in;

	tu_write_str(a, "a1\n\na3\na4\n");
	tu_gzwrite(b, "wb", "b1\n", 3);
	tu_write_str(c, "c1\nc2\n");
	tu_write_str(e, "e1\n");
	names[0] = (char *)a;
	names[1] = (char *)b;
	names[2] = (char *)c;
	names[3] = (char *)e;
	in = input_open(names, 4, MAXLINE_DEFAULT);
	expect_line(in, "a1", a, 1);
	ck_assert_int_eq(input_span(in, 1 << 20, &s, &d), 1);
	ck_assert_uint_eq(s.before, 1);
	ck_assert_uint_eq(s.fileno, 0);
	pos = s.p;
	expect_cut(&s, &pos, &n, "a3", 2);
	expect_cut(&s, &pos, &n, "a4", 3);
	ck_assert_int_eq(input_span(in, 1 << 20, &s, &d), 2);
	expect_line(in, "b1", b, 1);
	ck_assert_int_eq(input_span(in, 1 << 20, &s, &d), 2);
	expect_line(in, "c1", c, 1);
	ck_assert_int_eq(input_span(in, 1 << 20, &s, &d), 1);
	ck_assert_uint_eq(s.before, 1);
	ck_assert_uint_eq(s.fileno, 2);
	pos = s.p;
	n = 0;
	expect_cut(&s, &pos, &n, "c2", 1);
	ck_assert_int_eq(input_span(in, 1 << 20, &s, &d), 1);
	ck_assert_uint_eq(s.before, 0);
	ck_assert_uint_eq(s.fileno, 3);
	ck_assert_str_eq(s.file, e);
	pos = s.p;
	n = 0;
	expect_cut(&s, &pos, &n, "e1", 1);
	ck_assert_int_eq(input_span(in, 1 << 20, &s, &d), 0);
	input_close(in);
}
END_TEST

START_TEST(span_max_line)
{
	/* A line longer than max_line ends the cutting with its message,
	 * at its number in the span, which diag_reline() then gives its
	 * place in the file; under input_keep_long() it is cut, marked. */
	const char *p = tu_path("spm.jsonl");
	const char *pos;
	unsigned long long n = 0;
	struct linespan s;
	struct diag d = { 0 };
	struct line ln;
	struct input *in;

	tu_write_str(p, "0123\n0123456789A\nok\n");
	in = open1(p, 10);
	ck_assert_int_eq(input_span(in, 1 << 20, &s, &d), 1);
	pos = s.p;
	expect_cut(&s, &pos, &n, "0123", 1);
	ck_assert_int_eq(input_cut(&s, &pos, &n, &ln, &d), -1);
	ck_assert_int_eq(d.status, 1);
	ck_assert_prefix(d.msg, p);
	ck_assert_has(d.msg, ":2: line longer than --max-line (10 bytes)");
	diag_reline(&d, p, 2, 41);
	ck_assert_has(d.msg, ":41: line longer than --max-line (10 bytes)");
	ck_assert_int_eq(d.status, 1);
	/* Another file's message is left as it is. */
	diag_reline(&d, "other", 41, 7);
	ck_assert_has(d.msg, ":41: line longer");
	input_close(in);
	in = open1(p, 10);
	input_keep_long(in);
	ck_assert_int_eq(input_span(in, 1 << 20, &s, &d), 1);
	pos = s.p;
	n = 0;
	expect_cut(&s, &pos, &n, "0123", 1);
	ck_assert_int_eq(input_cut(&s, &pos, &n, &ln, &d), 1);
	ck_assert_uint_eq(ln.toolong, 10);
	ck_assert_uint_eq(ln.lineno, 2);
	expect_cut(&s, &pos, &n, "ok", 3);
	input_close(in);
}
END_TEST

START_TEST(stdin_twice)
{
	/* A second "-" is the same stream, already ended: the lines come
	 * once, in one input and in another opened after it. */
	const char *p = tu_path("twice.jsonl"), *b = tu_path("mid.jsonl");
	char *names[3];
	struct input *in;
	int saved;

	tu_write_str(p, "s1\ns2\n");
	tu_write_str(b, "m1\n");
	names[0] = "-";
	names[1] = (char *)b;
	names[2] = "-";
	saved = stdin_from(p, 0);
	in = input_open(names, 3, MAXLINE_DEFAULT);
	expect_line(in, "s1", "<stdin>", 1);
	expect_line(in, "s2", "<stdin>", 2);
	expect_line(in, "m1", b, 1);
	expect_end(in);
	input_close(in);
	in = input_open(NULL, 0, MAXLINE_DEFAULT);
	expect_end(in);
	input_close(in);
	stdin_back(saved);
}
END_TEST

START_TEST(gzip_garbage_line)
{
	/* Three lines, then bytes that are not gzip: the three lines are
	 * read, and the error names line 4 (and, the last line without a
	 * newline, line 3). */
	const char *p = tu_path("tg.gz");
	struct input *in;
	struct diag d;
	size_t nlines;
	char *z;
	size_t zlen;

	tu_gzwrite(p, "wb", "a\nb\nc\n", 6);
	z = tu_read(p, &zlen);
	z = realloc(z, zlen + 5);
	memcpy(z + zlen, "junk\n", 5);
	tu_write(p, z, zlen + 5);
	in = open1(p, MAXLINE_DEFAULT);
	expect_line(in, "a", p, 1);
	expect_line(in, "b", p, 2);
	expect_line(in, "c", p, 3);
	ck_assert_int_eq(expect_error(in, &d, &nlines), 1);
	ck_assert_uint_eq(nlines, 0);
	ck_assert_has(d.msg, ":4: trailing garbage after gzip data");
	input_close(in);
	free(z);
	tu_gzwrite(p, "wb", "a\nb\nc", 5);
	z = tu_read(p, &zlen);
	z = realloc(z, zlen + 1);
	z[zlen] = 'J';
	tu_write(p, z, zlen + 1);
	in = open1(p, MAXLINE_DEFAULT);
	ck_assert_int_eq(expect_error(in, &d, &nlines), 1);
	ck_assert_uint_eq(nlines, 2);
	ck_assert_has(d.msg, ":3: trailing garbage after gzip data");
	input_close(in);
	free(z);
}
END_TEST

/* Line lineno of pipe_lines_stay's input reads as it was written. */
static int
line_intact(const struct line *ln)
{
	size_t i;

	if (ln->text[0] != '#')
		return 0;
	for (i = 1; i < ln->len; i++)
		if (ln->text[i] != (char)('a' + (ln->lineno - 1 + i) % 26))
			return 0;
	return 1;
}

START_TEST(pipe_lines_stay)
{
	/* 8 MB of lines of every length from 0 to 4999 bytes through a
	 * pipe, so lines cross the ends of blocks: each arrives whole, and
	 * all of them still read the same at the end (stable until
	 * released); then a release keeps the lines from keep on. */
	size_t n = 0, cap = 9u << 20, i, k = 0, nl;
	char *s = malloc(cap);
	const char *piece[1];
	size_t len[1];
	struct line *ln = calloc(4000, sizeof(*ln));
	struct input *in;
	struct diag d = { 0 };
	int saved;
	pid_t pid;

	ck_assert(s != NULL && ln != NULL);
	for (nl = 0; n + 5100 < cap && nl < 4000; nl++) {
		size_t l = (nl * 7919) % 5000;

		for (i = 0; i < l; i++)
			s[n + i] = (char)('a' + (nl + i) % 26);
		if (l > 0)
			s[n] = '#';	/* never blank */
		n += l;
		s[n++] = '\n';
	}
	piece[0] = s;
	len[0] = n;
	pid = pipe_stdin(piece, len, 1, &saved);
	in = input_open(NULL, 0, MAXLINE_DEFAULT);
	for (i = 0; i < nl; i++) {
		if ((i * 7919) % 5000 == 0)
			continue;	/* blank */
		ck_assert_int_eq(input_next(in, &ln[k], &d), 1);
		ck_assert_uint_eq(ln[k].len, (i * 7919) % 5000);
		ck_assert_uint_eq(ln[k].lineno, i + 1);
		k++;
	}
	expect_end(in);
	for (i = 0; i < k; i++)
		ck_assert(line_intact(&ln[i]));
	input_release(in, ln[k / 2].text);
	for (i = k / 2; i < k; i++)
		ck_assert(line_intact(&ln[i]));
	input_close(in);
	pipe_done(pid, saved);
	free(ln);
	free(s);
}
END_TEST

START_TEST(close_silent_writer)
{
	/* A writer sends one line and stays silent: after that line the
	 * caller closes the input (an error elsewhere), and the close does
	 * not wait for the writer (a hang fails by the test's timeout). */
	int fd[2], saved, st;
	pid_t pid;
	struct input *in;

	ck_assert(pipe(fd) == 0);
	pid = fork();
	ck_assert(pid >= 0);
	if (pid == 0) {
		close(fd[0]);
		if (write(fd[1], "one\n", 4) != 4)
			_exit(1);
		sleep(60);
		_exit(0);
	}
	close(fd[1]);
	saved = dup(STDIN_FILENO);
	ck_assert(dup2(fd[0], STDIN_FILENO) == STDIN_FILENO);
	close(fd[0]);
	in = input_open(NULL, 0, MAXLINE_DEFAULT);
	expect_line(in, "one", "<stdin>", 1);
	input_close(in);
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	stdin_back(saved);
}
END_TEST

static Suite *
input_suite(void)
{
	Suite *s = suite_create("input");
	TCase *tc;

	tc = tcase_create("plain");
	tcase_add_unchecked_fixture(tc, tu_mkdir, tu_rmdir);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, plain_lines);
	tcase_add_test(tc, blank_lines);
	tcase_add_test(tc, crlf_lines);
	tcase_add_test(tc, no_final_newline);
	tcase_add_test(tc, empty_file);
	tcase_add_test(tc, plain_large_line);
	suite_add_tcase(s, tc);

	tc = tcase_create("gzip");
	tcase_add_unchecked_fixture(tc, tu_mkdir, tu_rmdir);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, gzip_single);
	tcase_add_test(tc, gzip_by_content);
	tcase_add_test(tc, gzip_multi_member);
	tcase_add_test(tc, gzip_multi_member_concat);
	tcase_add_test(tc, gzip_large);
	tcase_add_test(tc, gzip_truncated);
	tcase_add_test(tc, gzip_corrupt);
	suite_add_tcase(s, tc);

	tc = tcase_create("errors");
	tcase_add_unchecked_fixture(tc, tu_mkdir, tu_rmdir);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, missing_file);
	tcase_add_test(tc, max_line);
	tcase_add_test(tc, max_line_huge_line);
	suite_add_tcase(s, tc);

	tc = tcase_create("files");
	tcase_add_unchecked_fixture(tc, tu_mkdir, tu_rmdir);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, several_files);
	tcase_add_test(tc, several_files_no_newline_join);
	tcase_add_test(tc, several_files_missing_middle);
	tcase_add_test(tc, stable_lines);
	tcase_add_test(tc, standard_input);
	tcase_add_test(tc, pipe_plain);
	tcase_add_test(tc, pipe_gzip_split_magic);
	tcase_add_test(tc, pipe_large_and_max_line);
	tcase_add_test(tc, stdin_offset);
	tcase_add_test(tc, stdin_twice);
	tcase_add_test(tc, gzip_garbage_line);
	tcase_add_test(tc, pipe_lines_stay);
	tcase_add_test(tc, close_silent_writer);
	tcase_add_test(tc, span_lines);
	tcase_add_test(tc, span_files);
	tcase_add_test(tc, span_max_line);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(input_suite());
}
