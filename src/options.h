/*
 * options.h - rladv's options, one row each in options_table: the
 * commands that take the option, how its argument is read, where its
 * value goes, and its line in --help.  optparse.c reads argv by the table,
 * opthelp.c prints it.  The table and the names it lists are static; a
 * struct prefs is the caller's and owns nothing.
 */
#ifndef RLADV_OPTIONS_H
#define RLADV_OPTIONS_H

#include <stddef.h>

#include "advantage.h"
#include "alias.h"
#include "diag.h"
#include "group.h"
#include "loss_weights.h"
#include "preset.h"
#include "record.h"

/*
 * Who takes an option (struct opt's cmds), and which command's options a
 * parse accepts.  OPT_SIDE is the option strings of diff --a and --b.
 */
#define OPT_COMPUTE	0x01u	/* rladv [compute] */
#define OPT_STATS	0x02u	/* rladv stats */
#define OPT_DIFF	0x04u	/* rladv diff --a ... --b ... */
#define OPT_OUTPUTS	0x08u	/* rladv diff --outputs */
#define OPT_INDEX	0x10u	/* rladv index */
#define OPT_SIDE	0x20u	/* diff --a "...", --b "..." */
#define OPT_CMDS	0x3fu

enum device { DEV_CPU, DEV_CUDA, DEV_AUTO };

/* diff's own options. */
struct dopts {
	const char	*opt[2];	/* --a, --b */
	const char	*key;		/* --key */
	double		 tol, atol;
	size_t		 top;
};

/*
 * What the user asked for: plain values, copied freely (diff starts each
 * side from a copy of its own).  Strings point into argv or an optstore.
 */
struct prefs {
	unsigned		 mode;	/* the OPT_* bit whose options apply */
	const struct preset	*like;	/* --like, or NULL */
	const struct estimator	*est;
	int			 est_given;	/* -a given: --like keeps it */
	struct adv_params	 ap;
	const struct loss_mode	*loss;
	int			 loss_given;	/* -g given */
	struct advmath_lw	 lp;	/* the loss modes' options */
	int			 scope_group;
	struct fields		 fields;
	struct gopts		 go;
	int			 tokens;	/* not --no-tokens */
	int			 no_expect;	/* --no-expect */
	/* --output-names and --prefix, which fields.out is made of:
	 * prefix + name, in whichever order they were given. */
	const char		*out_name[OUT_ANN];	/* NULL: the default */
	const char		*out_prefix;
	int			 annotate;
	int			 digits;
	const char		*out;		/* -o */
	int			 gzip;		/* -z, or -o FILE.gz */
	int			 gzip_level;
	int			 skip;		/* --on-error skip */
	const char		*rejects;
	size_t			 max_line;
	int			 jobs;		/* -j: threads, 0 every core */
	enum device		 device;
	int			 verbose;
	int			 json;		/* stats, diff: --json */
	const char		*html;		/* stats, diff: --html FILE */
	int			 by_batch;	/* stats: --by-batch */
	const char		*index;		/* compute --index */
	int			 merge;		/* index --merge */
	struct dopts		 diff;
	char			**files;	/* argv's */
	size_t			 nfiles;
};

struct optstore;	/* optparse.h: what prefs point into */

/* How an argument is read; OK_FLAG takes none. */
enum opt_kind {
	OK_FLAG,	/* sets the int at off to ival */
	OK_NUM,		/* a finite number in [min, max] (> min: excl) */
	OK_INT,		/* an integer in [min, max] (max 0: 1e15), then at
			   most clamp (0: none): int, size_t or uint64_t */
	OK_BYTES,	/* a size, 64K, 16M, 1G: size_t */
	OK_CHOICE,	/* one of choices: its index to the int at off */
	OK_STR,		/* any string (the option strings of diff) */
	OK_FIELD,	/* a field name, not empty */
	OK_FILE,	/* a file name, not empty */
	OK_MODE,	/* selects mode: diff --outputs */
	OK_HELP,
	OK_VERSION
};

enum opt_ctype { CT_INT, CT_SIZE, CT_U64 };

/* The sections of --help, in order. */
enum opt_section {
	OS_ADV, OS_LOSS, OS_INPUT, OS_OUTPUT, OS_ERR, OS_SHARD, OS_SUB, OS_N
};
extern const char *const options_section[OS_N];

/* An argument as its kind reads it (OK_INT and OK_NUM: num). */
union optval {
	double		 num;
	size_t		 size;
	int		 choice;
	const char	*str;
};

struct opt;
struct buf;
/* Puts v where it goes: own keeps what p will point into. */
typedef int	(*opt_setter)(struct prefs *p, struct optstore *own,
		    const struct opt *o, const union optval *v,
		    struct diag *d);

struct opt {
	const char		*name;		/* --name */
	int			 shortname;	/* -c, or 0 */
	enum opt_kind		 kind;
	const char		*meta;		/* the argument in --help */
	unsigned		 cmds;		/* OPT_* bits */
	enum opt_section	 section;	/* of --help */
	/* Where the value goes: set, or else the kind's store at off. */
	opt_setter		 set;
	size_t			 off;
	size_t			 off2;		/* a second field (a count) */
	enum opt_ctype		 ctype;
	int			 ival;		/* OK_FLAG's value */
	unsigned		 mode;		/* OK_MODE's */
	double			 min, max, clamp;
	int			 excl;		/* min excluded */
	const char *const	*choices;	/* NULL-terminated */
	/* Names listed in --help after the text (the estimators); the
	 * first is the default when listdef. */
	const char		*(*list)(size_t i);
	int			 listdef;
	/* Other names, listed after those as "name (row)": the table
	 * whose frameworks' names they are (alias.h), 0 none. */
	enum alias_of		 alias;
	const char		*want;		/* "expected ..." of errors */
	const char		*help;
	/*
	 * An option of rladv index is recorded in the index, and rladv
	 * compute --index refuses another value, unless it is local: its
	 * value is the step's own (a file, a buffer) and changes no number.
	 * show writes a row's value as the index records it, for rows whose
	 * value the kind's store at off does not hold.
	 */
	int			 local;
	void			(*show)(const struct prefs *p, struct buf *out);
};

/* The rows, ended by one whose name is NULL. */
extern const struct opt options_table[];

void	options_defaults(struct prefs *p);
/* Checks what no single option can (seq-sum-norm needs --max-len...). */
int	options_check(struct prefs *p, struct diag *d);
/* The row of --name (without dashes), or NULL. */
const struct opt *options_find(const char *name);
/* The row of -c, or NULL. */
const struct opt *options_find_short(int c);
/* "rladv stats", ... for messages. */
const char *options_cmd_name(unsigned mode);
/* mode and the modes its options select (diff: diff --outputs). */
unsigned options_reachable(unsigned mode);
/* Whether rladv index records the row's value (struct opt's local). */
int	options_recorded(const struct opt *o);
/* Appends the row's value in p as text, the same for equal values. */
void	options_show(const struct prefs *p, const struct opt *o,
	    struct buf *out);
/* A double in the fewest digits that read back to it. */
void	options_show_num(struct buf *out, double v);
/* The rows' show functions (struct opt's show), for the values that the
 * kind's store at off does not hold. */
void	options_show_estimator(const struct prefs *p, struct buf *out);
void	options_show_loss(const struct prefs *p, struct buf *out);
void	options_show_like(const struct prefs *p, struct buf *out);
void	options_show_ms_weights(const struct prefs *p, struct buf *out);
void	options_show_cap(const struct prefs *p, struct buf *out);
void	options_show_from(const struct prefs *p, struct buf *out);
void	options_show_weights(const struct prefs *p, struct buf *out);
/* "a, b, c": a row's list names (mark: "a (default), b, c"). */
void	options_list(const struct opt *o, int mark, char *buf, size_t size);
/* "x, y (a), z (b)": a row's aliases, those of one row together. */
void	options_aliases(const struct opt *o, char *buf, size_t size);

#endif
