/*
 * svg.h - the small SVG writer behind `gridtail plot` and the dashboard:
 * a canvas, linear, logarithmic and time axes with "nice" ticks, lines,
 * marks, cells, text (XML-escaped) and colour scales, written into a
 * capped gt_buf.  SVG is text a program can write and a test can read:
 * every data mark carries its values (data-x, data-y), and every axis its
 * pixel span and range (data-lo, data-hi, data-p0, data-p1), so a reader
 * maps pixels back to data without knowing the layout.
 */
#ifndef GT_SVG_H
#define GT_SVG_H

#include "base/util.h"

#include <stdbool.h>
#include <stddef.h>

enum gt_axis_kind { GT_AXIS_LINEAR, GT_AXIS_LOG, GT_AXIS_TIME };

struct gt_axis {
    enum gt_axis_kind kind;
    double lo, hi;            /* the data range shown (lo < hi; > 0 on log) */
    double p0, p1;            /* the pixels of lo and hi */
    const char *label;        /* with its unit, e.g. "RTT (ms)" */
    bool integer;             /* linear: ticks at whole numbers only */
};

/* Widen [lo, hi] (the data's extent; NAN-free) to ticks: whole decades on
 * a log axis, multiples of the tick step on a linear one (from 0 when
 * from_zero and the data are positive); a time axis is left as it is.
 * A single value gets a range around it. */
void gt_axis_extend(struct gt_axis *a, double lo, double hi, bool from_zero);

/* The pixel of v (clamped far outside so paths stay drawable). */
double gt_axis_px(const struct gt_axis *a, double v);

struct gt_svg {
    struct gt_buf *out;
    int status;               /* the first gt_buf error (GT_ETOOBIG), or 0 */
    double w, h;
    int clip;                 /* the current plot area's clip path, <id>-area<N> */
    char id[12];              /* this document's prefix of its ids (gt_svg_begin) */
};

/* Start a document of w x h pixels with gridtail's stylesheet and a
 * title (escaped) at the top.  Its ids (the plot areas' clip paths) start
 * with a prefix made from the title, so that documents inlined into one
 * page (the dashboard's pair view) do not take each other's clips. */
void gt_svg_begin(struct gt_svg *s, struct gt_buf *out, double w, double h,
                  const char *title);
/* Close it; returns s->status. */
int gt_svg_end(struct gt_svg *s);

/* Raw markup (no escaping: callers pass only their own markup). */
void gt_svg_raw(struct gt_svg *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* text XML-escaped (for attribute values and element content alike) */
void gt_svg_escaped(struct gt_svg *s, const char *text);

/* Text at (x, y): anchor "start", "middle" or "end", class cls (NULL:
 * none); the formatted text is XML-escaped. */
void gt_svg_text(struct gt_svg *s, double x, double y, const char *anchor, const char *cls,
                 const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* The frame of the plot area x.p0..x.p1 by y.p0..y.p1, grid lines, ticks
 * with labels, and the axis labels. */
void gt_svg_axes(struct gt_svg *s, const struct gt_axis *x, const struct gt_axis *y);

/* A polyline through (xs[i], ys[i]) in class cls, broken where a value
 * is NAN or (on a log axis) not positive. */
void gt_svg_line(struct gt_svg *s, const struct gt_axis *x, const struct gt_axis *y,
                 const double *xs, const double *ys, size_t n, const char *cls);

/* A closed band between ylo[i] and yhi[i] over xs[i], broken like lines. */
void gt_svg_band(struct gt_svg *s, const struct gt_axis *x, const struct gt_axis *y,
                 const double *xs, const double *ylo, const double *yhi, size_t n,
                 const char *cls);

/* A data mark (a small circle) at (xv, yv) with data-x/data-y. */
void gt_svg_mark(struct gt_svg *s, const struct gt_axis *x, const struct gt_axis *y,
                 double xv, double yv, const char *cls);

/* A legend entry at row `row` of the box whose top-right is (x, y): a
 * sample of line class cls and the escaped text. */
void gt_svg_legend(struct gt_svg *s, double x, double y, int row, const char *cls,
                   const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* Colour scales for t in [0, 1] as "#rrggbb": sequential (viridis, dark
 * to light) and diverging (red - white - blue, 0.5 white). */
void gt_svg_sequential(double t, char out[8]);
void gt_svg_diverging(double t, char out[8]);

/* A vertical colour bar at (x, y0..y1) for an axis (its p0/p1 are set
 * here) and a scale (sequential or diverging). */
void gt_svg_colorbar(struct gt_svg *s, struct gt_axis *a, double x, double y0, double y1,
                     void (*scale)(double, char[8]));

/* t in [0, 1] of v on axis a (its position between lo and hi). */
double gt_axis_frac(const struct gt_axis *a, double v);

/* v as a short label: 3 significant digits, no exponent under 1e6. */
void gt_svg_num(double v, char *buf, size_t size);

#endif
