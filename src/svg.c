/*
 * svg.c - line charts, histograms and grouped bars as inline SVG.  The
 * layout is computed here in CSS pixels for one chart size: the page is
 * read in a browser, which measures nothing for us, so text widths are
 * estimated from the number of characters (CHARW each at 11px) and long
 * labels are cut, with the whole label in the mark's tooltip.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bins.h"
#include "html.h"
#include "svg.h"

#define ML	60	/* left margin: y tick labels and the axis title */
#define MR	14
#define MB	46	/* bottom margin: x tick labels and the axis title */
#define PAD	10	/* between the y axis and a line chart's first step */
#define CHARW	6.2	/* an 11px character, about */
#define DOTS	60	/* most steps that get a dot each */
#define CATMAX	14	/* most characters of a category label */

/* Paul Tol's "bright" scheme, its seven colours: told apart with any
 * colour vision. */
static const char *const palette[SVG_MAXSERIES] = { "#4477aa", "#ee6677",
    "#228833", "#ccbb44", "#66ccee", "#aa3377", "#bbbbbb" };

/* Where a chart draws and what its axes span. */
struct frame {
	double			x, y, w, h;	/* plot area */
	struct svg_ticks	yt, xt;		/* xt: histograms only */
};

/* ---- Ticks --------------------------------------------------------- */

/* 10^k for 0 <= k <= 308: exact up to 10^22, as a double can be. */
static double
tenpow(int k)
{
	double p = 1;

	while (k-- > 0)
		p *= 10;
	return p;
}

/* x 10^e, dividing for negative e so that 0.1 is the double nearest it. */
static double
scale10(double x, int e)
{
	return e >= 0 ? x * tenpow(e) : x / tenpow(-e);
}

/* Ticks at the ends of [lo, hi] (and at 0 between): no round step fits. */
static void
ticks_ends(double lo, double hi, struct svg_ticks *t)
{
	t->n = 0;
	t->v[t->n++] = lo;
	if (lo < 0 && hi > 0)
		t->v[t->n++] = 0;
	t->v[t->n++] = hi;
	t->sig = 3;
	t->decimals = 0;
}

void
svg_ticks(double lo, double hi, int target, int percent, struct svg_ticks *t)
{
	double raw, f, step, amax;
	long long k0, k1, k;
	int e, s;

	memset(t, 0, sizeof(*t));
	t->percent = percent;
	target = target < 2 ? 2 : target > 8 ? 8 : target;
	if (!(lo <= hi) || !isfinite(lo) || !isfinite(hi))
		lo = hi = 0;
	if (lo == hi) {
		f = fabs(lo) / 10;
		if (lo == 0)
			hi = 1;
		else {
			lo -= f;
			hi += f;
		}
	}
	raw = (hi - lo) / target;
	if (!(raw >= 1e-290 && raw <= 1e290)) {
		ticks_ends(lo, hi, t);
		return;
	}
	/* Heckbert's nice numbers: the step nearest raw among 1, 2, 5
	 * times a power of ten; log10() may round e by one either way. */
	e = (int)floor(log10(raw));
	f = scale10(raw, -e);
	if (f < 1)
		f = scale10(raw, -(--e));
	else if (f >= 10)
		f = scale10(raw, -(++e));
	s = f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10;
	if (s == 10) {
		s = 1;
		e++;
	}
	step = scale10(s, e);
	/* The tolerance keeps 0.6 / 0.2 = 2.9999999999999996 a tick. */
	if (fabs(lo / step) > 1e15 || fabs(hi / step) > 1e15) {
		ticks_ends(lo, hi, t);
		return;
	}
	k0 = (long long)floor(lo / step + 1e-9);
	k1 = (long long)ceil(hi / step - 1e-9);
	if (k1 - k0 + 1 > SVG_MAXTICKS || k1 <= k0) {
		ticks_ends(lo, hi, t);
		return;
	}
	for (k = k0; k <= k1; k++)
		t->v[t->n++] = scale10((double)(k * s), e);
	if (!isfinite(t->v[0]) || !isfinite(t->v[t->n - 1])) {
		ticks_ends(lo, hi, t);
		return;
	}
	if (percent)
		e += 2;
	amax = fmax(fabs(t->v[0]), fabs(t->v[t->n - 1])) * (percent ? 100 : 1);
	if (amax >= 1e6 || e <= -5) {
		t->sig = (int)floor(log10(amax)) - e + 1;
		t->sig = t->sig < 1 ? 1 : t->sig > 17 ? 17 : t->sig;
	} else
		t->decimals = e < 0 ? -e : 0;
}

void
svg_tick_label(const struct svg_ticks *t, double v, char *buf, size_t n)
{
	const char *pct = t->percent ? "%" : "";
	char *p;

	if (t->percent)
		v *= 100;
	if (t->sig)
		snprintf(buf, n, "%.*g%s", t->sig, v, pct);
	else
		snprintf(buf, n, "%.*f%s", t->decimals, v, pct);
	/* A value that rounds to zero shows no sign. */
	if (buf[0] != '-')
		return;
	for (p = buf + 1; *p != '\0' && strchr("0.%", *p) != NULL; p++)
		continue;
	if (*p == '\0')
		memmove(buf, buf + 1, strlen(buf));
}

double
svg_scale(double v, double d0, double d1, double r0, double r1)
{
	double t;

	if (isfinite(d1 - d0))
		t = (v - d0) / (d1 - d0);
	else	/* across most of the double range */
		t = (v / 2 - d0 / 2) / (d1 / 2 - d0 / 2);
	return r0 + t * (r1 - r0);
}

/* ---- What is drawn ------------------------------------------------- */

/* An empty bin draws nothing; a bar of 0 is a line on the axis, as a
 * stratum whose mean advantage is 0 has a figure to show. */
static int
drawn(const struct svg_chart *c, double v)
{
	return isfinite(v) && (c->kind != SVG_HIST || v != 0);
}

/* Whether step j of a line is a dot: few steps, or no neighbour. */
static int
dot(const struct svg_chart *c, const double *v, size_t j)
{
	if (c->n <= DOTS)
		return 1;
	return (j == 0 || !isfinite(v[j - 1])) &&
	    (j + 1 == c->n || !isfinite(v[j + 1]));
}

void
svg_words(struct svg_chart *c, const struct svg_words *w)
{
	c->id = w->id;
	c->title = w->title;
	c->caption = w->caption;
	c->ylabel = w->ylabel;
	c->percent = w->percent;
}

size_t
svg_marks(const struct svg_chart *c)
{
	size_t s, j, m = 0;
	const double *v;

	for (s = 0; s < c->ns; s++) {
		v = c->s[s].v;
		for (j = 0; j < c->n; j++) {
			if (!drawn(c, v[j]))
				continue;
			if (c->kind != SVG_LINE) {
				m++;
				continue;
			}
			m += dot(c, v, j);
			/* a polyline per run of two steps or more */
			if (j + 1 < c->n && isfinite(v[j + 1]) &&
			    (j == 0 || !isfinite(v[j - 1])))
				m++;
		}
	}
	return m;
}

/* ---- Frame, axes, legend ------------------------------------------- */

static int
legend(const struct svg_chart *c)
{
	return c->ns > 1 || (c->ns == 1 && c->s[0].name != NULL);
}

/* The y axis: the data's range (and 0), as round ticks. */
static void
frame_init(const struct svg_chart *c, struct frame *fr)
{
	double lo = INFINITY, hi = -INFINITY, v;
	size_t s, j;

	fr->x = ML;
	fr->y = legend(c) ? 46 : 30;
	fr->w = SVG_WIDTH - ML - MR;
	fr->h = SVG_HEIGHT - MB - fr->y;
	for (s = 0; s < c->ns; s++)
		for (j = 0; j < c->n; j++)
			if (isfinite(v = c->s[s].v[j])) {
				lo = fmin(lo, v);
				hi = fmax(hi, v);
			}
	if (c->zero || c->kind != SVG_LINE) {
		lo = fmin(lo, 0);
		hi = fmax(hi, 0);
	}
	svg_ticks(lo, hi, 5, c->percent, &fr->yt);
	if (c->kind == SVG_HIST)
		svg_ticks(c->lo, fmin(c->lo + (double)c->n * c->width,
		    DBL_MAX), 5, 0, &fr->xt);
}

static double
ypos(const struct frame *fr, double v)
{
	return svg_scale(v, fr->yt.v[0], fr->yt.v[fr->yt.n - 1], fr->y + fr->h,
	    fr->y);
}

static double
xnum(const struct frame *fr, double v)
{
	return svg_scale(v, fr->xt.v[0], fr->xt.v[fr->xt.n - 1], fr->x,
	    fr->x + fr->w);
}

/* The centre of step or category i. */
static double
xcat(const struct svg_chart *c, const struct frame *fr, size_t i)
{
	if (c->kind == SVG_BARS)
		return fr->x + ((double)i + 0.5) * fr->w / (double)c->n;
	if (c->n == 1)
		return fr->x + fr->w / 2;
	return fr->x + PAD + (double)i * (fr->w - 2 * PAD) /
	    (double)(c->n - 1);
}

static void
text(FILE *f, double x, double y, const char *anchor, const char *s,
    size_t max)
{
	fprintf(f, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"%s\">", x, y,
	    anchor);
	html_text_cut(f, s, strlen(s), max);
	fputs("</text>\n", f);
}

static void
chart_begin(FILE *f, const struct svg_chart *c, const struct frame *fr)
{
	double x = fr->x;
	size_t s;

	fputs("<figure id=\"", f);
	html_str(f, c->id);
	fprintf(f, "\">\n<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/"
	    "svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
	    "role=\"img\" data-marks=\"%zu\" data-plot=\"%.2f %.2f %.2f "
	    "%.2f\" font-family=\"DejaVu Sans,Liberation Sans,Arial,"
	    "sans-serif\" font-size=\"11\" fill=\"#222\">\n<title>",
	    SVG_WIDTH, SVG_HEIGHT, SVG_WIDTH, SVG_HEIGHT, svg_marks(c), fr->x,
	    fr->y, fr->w, fr->h);
	html_str(f, c->title);
	fputs("</title>\n<g font-size=\"13\" font-weight=\"bold\">", f);
	text(f, 8, 18, "start", c->title, (SVG_WIDTH - 16) / 8);
	fputs("</g>\n", f);
	if (!legend(c))
		return;
	for (s = 0; s < c->ns; s++) {
		const char *name = c->s[s].name ? c->s[s].name : "";

		fprintf(f, "<rect x=\"%.2f\" y=\"27\" width=\"10\" "
		    "height=\"10\" fill=\"%s\"/>\n", x, palette[s]);
		text(f, x + 14, 36, "start", name, 30);
		x += 14 + CHARW * (double)html_width(name,
		    strlen(name) < 30 ? strlen(name) : 30) + 16;
	}
}

/* The y axis: grid lines, tick labels, its title, the zero line. */
static void
axis_y(FILE *f, const struct svg_chart *c, const struct frame *fr)
{
	char lab[64];
	double y;
	int i;

	for (i = 0; i < fr->yt.n; i++) {
		y = ypos(fr, fr->yt.v[i]);
		fprintf(f, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" "
		    "y2=\"%.2f\" stroke=\"#e6e6e6\"/>\n", fr->x, y,
		    fr->x + fr->w, y);
		svg_tick_label(&fr->yt, fr->yt.v[i], lab, sizeof(lab));
		text(f, fr->x - 6, y + 4, "end", lab, 12);
	}
	if (fr->yt.v[0] < 0 && fr->yt.v[fr->yt.n - 1] > 0)
		fprintf(f, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" "
		    "y2=\"%.2f\" stroke=\"#888\"/>\n", fr->x, ypos(fr, 0),
		    fr->x + fr->w, ypos(fr, 0));
	fprintf(f, "<path d=\"M%.2f %.2fV%.2fH%.2f\" fill=\"none\" "
	    "stroke=\"#888\"/>\n", fr->x, fr->y, fr->y + fr->h, fr->x + fr->w);
	fprintf(f, "<text transform=\"translate(14 %.2f) rotate(-90)\" "
	    "text-anchor=\"middle\">", fr->y + fr->h / 2);
	html_text_cut(f, c->ylabel, strlen(c->ylabel), (size_t)(fr->h /
	    CHARW));
	fputs("</text>\n", f);
}

/* One label every k steps or categories, k = 1, 2, 5, 10, 20 ...: as
 * many as fit side by side. */
static size_t
label_every(const struct svg_chart *c, const struct frame *fr, size_t max)
{
	double gap, widest = 0;
	char num[32];
	const char *s;
	size_t i, k, m;

	gap = c->n < 2 ? fr->w : xcat(c, fr, 1) - xcat(c, fr, 0);
	for (i = 0; i < c->n; i++) {
		snprintf(num, sizeof(num), "%zu", i + 1);
		s = c->cat ? c->cat[i] : num;
		m = html_width(s, strlen(s));
		widest = fmax(widest, (double)(m < max ? m : max));
	}
	widest = widest * CHARW + 8;
	for (k = 1, m = 0; gap * (double)k < widest; m++)
		k *= m % 3 == 1 ? 5 : 2;	/* 1 2 5 10 20 50 ... */
	return k;
}

static void
axis_x(FILE *f, const struct svg_chart *c, const struct frame *fr)
{
	double x, base = fr->y + fr->h;
	char lab[64];
	size_t i, k, max = CATMAX;
	int j;

	if (c->kind == SVG_HIST) {
		k = fr->xt.n * 46 > fr->w ? 2 : 1;
		for (j = 0; j < fr->xt.n; j += (int)k) {
			x = xnum(fr, fr->xt.v[j]);
			svg_tick_label(&fr->xt, fr->xt.v[j], lab, sizeof(lab));
			fprintf(f, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" "
			    "y2=\"%.2f\" stroke=\"#888\"/>\n", x, base, x,
			    base + 4);
			text(f, x, base + 16, "middle", lab, 12);
		}
	} else {
		if (c->kind == SVG_BARS && c->n > 0) {
			max = (size_t)((fr->w / (double)c->n - 4) / CHARW);
			max = max < 3 ? 3 : max > CATMAX ? CATMAX : max;
		}
		k = label_every(c, fr, max);
		for (i = 0; i < c->n; i += k) {
			x = xcat(c, fr, i);
			snprintf(lab, sizeof(lab), "%zu", i + 1);
			fprintf(f, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" "
			    "y2=\"%.2f\" stroke=\"#888\"/>\n", x, base, x,
			    base + 4);
			text(f, x, base + 16, "middle", c->cat ? c->cat[i] :
			    lab, max);
		}
	}
	text(f, fr->x + fr->w / 2, SVG_HEIGHT - 8, "middle", c->xlabel,
	    (size_t)(fr->w / CHARW));
}

/* ---- Marks --------------------------------------------------------- */

/* A tooltip: "what: value". */
static void
tip(FILE *f, const char *what, const char *name, double v)
{
	fputs("<title>", f);
	html_str(f, what);
	if (name != NULL) {
		fputs(", ", f);
		html_str(f, name);
	}
	fprintf(f, ": %.6g</title>", v);
}

static void
marks_line(FILE *f, const struct svg_chart *c, const struct frame *fr)
{
	const double *v;
	char num[32];
	size_t s, j;

	for (s = 0; s < c->ns; s++) {
		v = c->s[s].v;
		for (j = 0; j < c->n; j++) {
			if (!isfinite(v[j]) || (j > 0 && isfinite(v[j - 1])) ||
			    j + 1 == c->n || !isfinite(v[j + 1]))
				continue;
			fprintf(f, "<polyline class=\"mark\" fill=\"none\" "
			    "stroke=\"%s\" stroke-width=\"2\" points=\"",
			    palette[s]);
			for (; j < c->n && isfinite(v[j]); j++)
				fprintf(f, "%s%.2f,%.2f", j > 0 &&
				    isfinite(v[j - 1]) ? " " : "",
				    xcat(c, fr, j), ypos(fr, v[j]));
			fputs("\"/>\n", f);
		}
		for (j = 0; j < c->n; j++) {
			if (!isfinite(v[j]) || !dot(c, v, j))
				continue;
			fprintf(f, "<circle class=\"mark\" cx=\"%.2f\" "
			    "cy=\"%.2f\" r=\"3\" fill=\"%s\">", xcat(c, fr, j),
			    ypos(fr, v[j]), palette[s]);
			snprintf(num, sizeof(num), "%zu", j + 1);
			tip(f, c->cat ? c->cat[j] : num, c->s[s].name, v[j]);
			fputs("</circle>\n", f);
		}
	}
}

/* A bar from value 0 to v, at least 1px tall so that no count vanishes. */
static void
bar(FILE *f, const struct frame *fr, double x0, double x1, double v,
    const char *colour, double opacity)
{
	double y0 = ypos(fr, fmax(v, 0)), y1 = ypos(fr, fmin(v, 0));

	if (y1 - y0 < 1) {
		if (v > 0)
			y0 = y1 - 1;
		else
			y1 = y0 + 1;
	}
	fprintf(f, "<rect class=\"mark\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
	    "height=\"%.2f\" fill=\"%s\" fill-opacity=\"%.2f\" stroke=\"%s\">",
	    x0, y0, fmax(x1 - x0, 1), y1 - y0, colour, opacity, colour);
}

static void
marks_bars(FILE *f, const struct svg_chart *c, const struct frame *fr)
{
	double slot = fr->w / (double)c->n, bw, x, v, a, b;
	char what[96], num[32];
	size_t s, j;

	bw = slot * 0.8 / (double)c->ns;
	for (s = 0; s < c->ns; s++)
		for (j = 0; j < c->n; j++) {
			v = c->s[s].v[j];
			if (!drawn(c, v))
				continue;
			if (c->kind == SVG_HIST) {
				a = fmin(c->lo + (double)j * c->width,
				    DBL_MAX);
				b = fmin(a + c->width, DBL_MAX);
				bar(f, fr, xnum(fr, a), xnum(fr, b), v,
				    palette[s], c->ns > 1 ? 0.45 : 0.8);
				snprintf(what, sizeof(what), "[%.6g, %.6g)",
				    a, b);
				tip(f, what, c->s[s].name, v);
			} else {
				x = fr->x + (double)j * slot + slot * 0.1 +
				    (double)s * bw;
				bar(f, fr, x, x + bw, v, palette[s], 0.85);
				snprintf(num, sizeof(num), "%zu", j + 1);
				tip(f, c->cat ? c->cat[j] : num, c->s[s].name,
				    v);
			}
			fputs("</rect>\n", f);
		}
}

int
svg_chart(FILE *f, const struct svg_chart *c)
{
	struct frame fr;

	frame_init(c, &fr);
	chart_begin(f, c, &fr);
	axis_y(f, c, &fr);
	axis_x(f, c, &fr);
	if (svg_marks(c) == 0)
		text(f, fr.x + fr.w / 2, fr.y + fr.h / 2, "middle", "no data",
		    20);
	else if (c->kind == SVG_LINE)
		marks_line(f, c, &fr);
	else
		marks_bars(f, c, &fr);
	fputs("</svg>\n", f);
	if (c->caption != NULL) {
		fputs("<figcaption>", f);
		html_str(f, c->caption);
		fputs("</figcaption>\n", f);
	}
	fputs("</figure>\n", f);
	return ferror(f) ? -1 : 0;
}

int
svg_bins(FILE *f, const struct svg_chart *c, const struct bins *const *b,
    const char *const *name, size_t n)
{
	struct svg_chart h = *c;
	struct svg_series s[4];
	struct bins_view v;
	size_t i;

	n = n > 4 ? 4 : n;
	bins_view(b, n, BINS_VIEW, &v);
	for (i = 0; i < n; i++) {
		s[i].name = name[i];
		s[i].v = v.count[i];
	}
	h.kind = SVG_HIST;
	h.n = v.nbins;
	h.lo = v.lo;
	h.width = v.width;
	h.s = s;
	h.ns = n;
	return svg_chart(f, &h);
}

int
svg_lengths(FILE *f, const struct svg_chart *c, const struct bins *pos,
    const struct bins *neg)
{
	static const char *const sign[2] = { "A > 0", "A < 0" };
	const struct bins *b[2] = { pos, neg };
	struct svg_chart h = *c;

	h.xlabel = "trained tokens T";
	h.ylabel = "records";
	return svg_bins(f, &h, b, sign, 2);
}
