/*
 * svg.c - the SVG writer (see svg.h): axes with ticks, lines, bands,
 * marks, legends and colour bars, styled by one embedded stylesheet so
 * the files look the same in a browser, an editor and print.
 */
#define _DEFAULT_SOURCE
#include "svg.h"
#include "base/error.h"
#include "base/numfmt.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define MAX_TICKS 64

static const char stylesheet[] =
    "text{font-family:DejaVu Sans,Helvetica,Arial,sans-serif;font-size:12px;fill:#222}"
    ".title{font-size:15px;font-weight:bold}.tick{font-size:11px;fill:#444}"
    ".small{font-size:10px}.frame{fill:none;stroke:#444}"
    ".grid{stroke:#ddd;stroke-width:.6}.grid.minor{stroke:#f0f0f0}"
    "path{fill:none;stroke-width:1.6;stroke-linejoin:round}"
    ".data{stroke:#222}circle.data{fill:#222;stroke:none}circle.bin{fill:none;stroke:none}"
    ".pareto{stroke:#d62728}.normal{stroke:#1f77b4}.empirical{stroke:#2ca02c}"
    ".c0{stroke:#d62728}.c1{stroke:#1f77b4}.c2{stroke:#2ca02c}.c3{stroke:#9467bd}"
    ".c4{stroke:#8c564b}.c5{stroke:#e377c2}.c6{stroke:#7f7f7f}.c7{stroke:#bcbd22}"
    "circle.c0{fill:#d62728}circle.c1{fill:#1f77b4}circle.c2{fill:#2ca02c}"
    "circle.c3{fill:#9467bd}circle.c4{fill:#8c564b}circle.c5{fill:#e377c2}"
    ".loss{stroke-dasharray:6 3}.selected{stroke-width:3.2}"
    ".median{stroke:#111;stroke-width:1.3}.band1{fill:#6baed6;stroke:none}"
    ".band2{fill:#c6dbef;stroke:none}.lossbar{fill:#d62728;stroke:none}"
    ".shift{stroke:#ff7f0e;stroke-width:1.5;stroke-dasharray:4 2}"
    ".outage{fill:#d73027;fill-opacity:.12}.silent{fill:#888;fill-opacity:.15}"
    ".fit_regime{fill:#7b3294}"
    ".window{fill:#fdae6b;opacity:.25;stroke:none}.cell{stroke:#fff;stroke-width:.5}"
    ".missing{fill:#f2f2f2;stroke:#fff;stroke-width:.5}.hl{fill:none;stroke:#d62728;"
    "stroke-width:2}text.hl{fill:#d62728;stroke:none;font-weight:bold}"
    ".sig{fill:#111;stroke:none}.diag{stroke:#888;stroke-dasharray:3 3;stroke-width:1}"
    ".legendbox{fill:#fff;fill-opacity:.85;stroke:#bbb}";

/* ------------------------------------------------------------ output */

static void vput(struct gt_svg *s, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));

static void vput(struct gt_svg *s, const char *fmt, va_list ap)
{
    if (s->status)
        return;
    char small[512];
    va_list cp;
    va_copy(cp, ap);
    int n = vsnprintf(small, sizeof small, fmt, cp);
    va_end(cp);
    if (n < 0) {
        s->status = GT_EINPUT;
        return;
    }
    if ((size_t)n < sizeof small) {
        s->status = gt_buf_append(s->out, small, (size_t)n);
        return;
    }
    char *big = malloc((size_t)n + 1);
    if (!big) {
        s->status = GT_ENOMEM;
        return;
    }
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    s->status = gt_buf_append(s->out, big, (size_t)n);
    free(big);
}

void gt_svg_raw(struct gt_svg *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vput(s, fmt, ap);
    va_end(ap);
}

/* text with &, <, > and quotes escaped */
void gt_svg_escaped(struct gt_svg *s, const char *t)
{
    for (; *t && !s->status; t++) {
        switch (*t) {
        case '&': gt_svg_raw(s, "&amp;"); break;
        case '<': gt_svg_raw(s, "&lt;"); break;
        case '>': gt_svg_raw(s, "&gt;"); break;
        case '"': gt_svg_raw(s, "&quot;"); break;
        default:
            /* control characters are not allowed in XML 1.0 */
            if ((unsigned char)*t >= 0x20 || *t == '\t')
                s->status = gt_buf_append(s->out, t, 1);
        }
    }
}

static void vtext(struct gt_svg *s, double x, double y, const char *anchor, const char *cls,
                  const char *fmt, va_list ap) __attribute__((format(printf, 6, 0)));

static void vtext(struct gt_svg *s, double x, double y, const char *anchor, const char *cls,
                  const char *fmt, va_list ap)
{
    char buf[1024];
    vsnprintf(buf, sizeof buf, fmt, ap);
    gt_svg_raw(s, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\"%s%s%s>", x, y, anchor,
               cls ? " class=\"" : "", cls ? cls : "", cls ? "\"" : "");
    gt_svg_escaped(s, buf);
    gt_svg_raw(s, "</text>\n");
}

void gt_svg_text(struct gt_svg *s, double x, double y, const char *anchor, const char *cls,
                 const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vtext(s, x, y, anchor, cls, fmt, ap);
    va_end(ap);
}

/* "p" and the title's 32-bit FNV-1a hash in hex: ids unique to the
 * document yet the same for the same plot, which keeps the output a
 * function of the data (no counter, no time) */
static void id_prefix(const char *title, char out[12])
{
    uint32_t h = 2166136261u;
    for (const unsigned char *c = (const unsigned char *)title; *c; c++)
        h = (h ^ *c) * 16777619u;
    snprintf(out, 12, "p%08" PRIx32, h);
}

void gt_svg_begin(struct gt_svg *s, struct gt_buf *out, double w, double h,
                  const char *title)
{
    *s = (struct gt_svg){out, 0, w, h, 0, ""};
    id_prefix(title, s->id);
    gt_svg_raw(s,
               "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
               "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
               "viewBox=\"0 0 %.0f %.0f\">\n<title>",
               w, h, w, h);
    gt_svg_escaped(s, title);
    gt_svg_raw(s, "</title>\n<style>%s</style>\n<rect width=\"100%%\" height=\"100%%\" "
                  "fill=\"#fff\"/>\n", stylesheet);
    gt_svg_text(s, w / 2, 22, "middle", "title", "%s", title);
}

int gt_svg_end(struct gt_svg *s)
{
    gt_svg_raw(s, "</svg>\n");
    return s->status;
}

/* ------------------------------------------------------------ axes */

double gt_axis_frac(const struct gt_axis *a, double v)
{
    double t;
    if (a->kind == GT_AXIS_LOG)
        t = v > 0 ? (log10(v) - log10(a->lo)) / (log10(a->hi) - log10(a->lo)) : -1;
    else
        t = (v - a->lo) / (a->hi - a->lo);
    return isnan(t) ? -1 : t < -1 ? -1 : t > 2 ? 2 : t;
}

double gt_axis_px(const struct gt_axis *a, double v)
{
    return a->p0 + gt_axis_frac(a, v) * (a->p1 - a->p0);
}

/* k times a step of 1, 2 or 5 x 10^e as the double nearest that decimal:
 * dividing by the exact 10^-e rounds once (3 / 10 is 0.3), multiplying by
 * the rounded 10^e does not (3 * 0.1 is 0.30000000000000004), and the
 * data-v of a tick should read as its label */
static double decimal_multiple(double k, double step)
{
    if (!(step > 0 && step < INFINITY))
        return k * step;
    int e = (int)floor(log10(step) + 1e-9);
    double km = k * round(step / pow(10, e));
    if (km == 0)
        return 0;   /* not -0 for k = ceil(-0.3) */
    return e >= 0 ? km * pow(10, e) : km / pow(10, -e);
}

/* 1, 2 or 5 times a power of ten near range / target */
static double nice_step(double range, int target)
{
    double raw = range / target, mag = pow(10, floor(log10(raw))), f = raw / mag;
    return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * mag;
}

void gt_axis_extend(struct gt_axis *a, double lo, double hi, bool from_zero)
{
    if (!(lo <= hi))
        lo = hi = isfinite(lo) ? lo : isfinite(hi) ? hi : 1;
    if (a->kind == GT_AXIS_LOG) {
        if (!(lo > 0))
            lo = hi > 0 ? hi / 10 : 1;
        if (!(hi > 0))
            hi = 10 * lo;
        /* to the nearest 1, 2 or 5 times a power of ten outside the data:
           whole decades would leave most of a narrow plot empty */
        double dl = pow(10, floor(log10(lo) + 1e-9)), dh = pow(10, floor(log10(hi) - 1e-9));
        a->lo = lo >= 5 * dl * (1 - 1e-9) ? decimal_multiple(5, dl)
                : lo >= 2 * dl * (1 - 1e-9) ? 2 * dl : dl;
        a->hi = hi <= dh * (1 + 1e-9) ? dh : hi <= 2 * dh * (1 + 1e-9) ? 2 * dh
                : hi <= 5 * dh * (1 + 1e-9) ? decimal_multiple(5, dh) : decimal_multiple(10, dh);
        if (!(a->hi > a->lo))
            a->hi = 2 * a->lo;
        return;
    }
    if (a->kind == GT_AXIS_TIME) {
        a->lo = lo, a->hi = hi > lo ? hi : lo + 60;
        return;
    }
    if (from_zero && lo > 0)
        lo = 0;
    if (!(hi > lo)) {
        double d = lo != 0 ? fabs(lo) * 0.1 : 1;
        lo -= d, hi += d;
    }
    double step = nice_step(hi - lo, 5);
    a->lo = decimal_multiple(floor(lo / step + 1e-9), step);
    a->hi = decimal_multiple(ceil(hi / step - 1e-9), step);
}

void gt_svg_num(double v, char *buf, size_t size)
{
    if (v != 0 && (fabs(v) >= 1e6 || fabs(v) < 1e-3))
        snprintf(buf, size, "%.3g", v);
    else
        snprintf(buf, size, "%.6g", fabs(v) < 1e-12 ? 0 : v);
}

struct tick {
    double v;
    bool major;
    char label[32];
};

static size_t linear_ticks(const struct gt_axis *a, struct tick *t)
{
    double step = nice_step(a->hi - a->lo, 5);
    if (a->integer && (step < 1 || a->hi - a->lo <= 13))
        step = 1;
    size_t n = 0;
    for (double k = ceil(a->lo / step - 1e-9); n < MAX_TICKS; k++) {
        double v = decimal_multiple(k, step);
        if (v > a->hi + step * 1e-9)
            break;
        t[n].v = v, t[n].major = true;
        gt_svg_num(v, t[n].label, sizeof t[n].label);
        n++;
    }
    return n;
}

static size_t log_ticks(const struct gt_axis *a, struct tick *t)
{
    int d0 = (int)floor(log10(a->lo) + 1e-9), d1 = (int)ceil(log10(a->hi) - 1e-9);
    int decades = d1 - d0, every = decades > 8 ? (decades + 7) / 8 : 1;
    size_t n = 0;
    for (int d = d0; d <= d1 && n + 9 < MAX_TICKS; d++)
        for (int k = 1; k <= 9; k++) {
            double v = decimal_multiple(k, pow(10, d));
            if (v < a->lo * (1 - 1e-9) || v > a->hi * (1 + 1e-9))
                continue;
            bool major = k == 1 && (d - d0) % every == 0;
            t[n].v = v, t[n].major = major || k == 1;
            t[n].label[0] = 0;
            if (major || (log10(a->hi / a->lo) < 2.01 && (k == 2 || k == 5)))
                gt_svg_num(v, t[n].label, sizeof t[n].label);
            n++;
        }
    return n;
}

static size_t time_ticks(const struct gt_axis *a, struct tick *t)
{
    static const double steps[] = {60, 120, 300, 600, 900, 1800, 3600, 7200, 10800,
                                   21600, 43200, 86400, 172800, 604800, 2592000};
    double range = a->hi - a->lo, step = steps[0];
    for (size_t i = 0; i < sizeof steps / sizeof *steps && range / step > 8; i++)
        step = steps[i];
    if (range / step > 8)
        step = ceil(range / 8 / 86400) * 86400;
    size_t n = 0;
    int prev_day = -1;
    for (double v = ceil(a->lo / step) * step; v <= a->hi && n < MAX_TICKS; v += step) {
        time_t tt = (time_t)v;
        struct tm tm;
        gmtime_r(&tt, &tm);
        t[n].v = v, t[n].major = true;
        if (step >= 86400)
            strftime(t[n].label, sizeof t[n].label, "%m-%d", &tm);
        else if (tm.tm_yday != prev_day)
            strftime(t[n].label, sizeof t[n].label, "%m-%d %H:%M", &tm);
        else
            strftime(t[n].label, sizeof t[n].label, "%H:%M", &tm);
        prev_day = tm.tm_yday;
        n++;
    }
    return n;
}

static size_t ticks(const struct gt_axis *a, struct tick *t)
{
    return a->kind == GT_AXIS_LOG ? log_ticks(a, t)
           : a->kind == GT_AXIS_TIME ? time_ticks(a, t) : linear_ticks(a, t);
}

static const char *kind_name(const struct gt_axis *a)
{
    return a->kind == GT_AXIS_LOG ? "log" : a->kind == GT_AXIS_TIME ? "time" : "linear";
}

/* one axis: grid lines across the plot area, ticks and their labels */
static void axis(struct gt_svg *s, const struct gt_axis *a, const struct gt_axis *other,
                 bool horizontal)
{
    struct tick t[MAX_TICKS];
    size_t n = ticks(a, t);
    char lo[GT_FMT_DOUBLE_SIZE], hi[GT_FMT_DOUBLE_SIZE], v[GT_FMT_DOUBLE_SIZE];
    gt_fmt_double(lo, a->lo);
    gt_fmt_double(hi, a->hi);
    gt_svg_raw(s, "<g class=\"axis %s\" data-kind=\"%s\" data-lo=\"%s\" data-hi=\"%s\" "
                  "data-p0=\"%.3f\" data-p1=\"%.3f\">\n", horizontal ? "x" : "y", kind_name(a),
               lo, hi, a->p0, a->p1);
    for (size_t i = 0; i < n; i++) {
        double p = gt_axis_px(a, t[i].v);
        const char *cls = t[i].major ? "grid" : "grid minor";
        if (horizontal)
            gt_svg_raw(s, "<line class=\"%s\" x1=\"%.2f\" x2=\"%.2f\" y1=\"%.2f\" y2=\"%.2f\"/>"
                          "<line class=\"frame\" x1=\"%.2f\" x2=\"%.2f\" y1=\"%.2f\" y2=\"%.2f\"/>\n",
                       cls, p, p, other->p0, other->p1, p, p, other->p0, other->p0 + (t[i].major ? 5 : 3));
        else
            gt_svg_raw(s, "<line class=\"%s\" x1=\"%.2f\" x2=\"%.2f\" y1=\"%.2f\" y2=\"%.2f\"/>"
                          "<line class=\"frame\" x1=\"%.2f\" x2=\"%.2f\" y1=\"%.2f\" y2=\"%.2f\"/>\n",
                       cls, other->p0, other->p1, p, p, other->p0 - (t[i].major ? 5 : 3), other->p0, p, p);
        if (!t[i].label[0])
            continue;
        gt_fmt_double(v, t[i].v);
        gt_svg_raw(s, "<text class=\"tick\" data-v=\"%s\" x=\"%.2f\" y=\"%.2f\" "
                      "text-anchor=\"%s\">", v, horizontal ? p : other->p0 - 8,
                   horizontal ? other->p0 + 18 : p + 4, horizontal ? "middle" : "end");
        gt_svg_escaped(s, t[i].label);
        gt_svg_raw(s, "</text>\n");
    }
    gt_svg_raw(s, "</g>\n");
}

void gt_svg_axes(struct gt_svg *s, const struct gt_axis *x, const struct gt_axis *y)
{
    s->clip++;
    gt_svg_raw(s, "<clipPath id=\"%s-area%d\"><rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
                  "height=\"%.2f\"/></clipPath>\n", s->id, s->clip, x->p0, y->p1, x->p1 - x->p0,
               y->p0 - y->p1);
    axis(s, x, y, true);
    axis(s, y, x, false);
    gt_svg_raw(s, "<rect class=\"frame\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\"/>\n",
               x->p0, y->p1, x->p1 - x->p0, y->p0 - y->p1);
    if (x->label)
        gt_svg_text(s, (x->p0 + x->p1) / 2, y->p0 + 38, "middle", NULL, "%s", x->label);
    if (y->label) {
        double cx = x->p0 - 52, cy = (y->p0 + y->p1) / 2;
        gt_svg_raw(s, "<g transform=\"rotate(-90 %.1f %.1f)\">", cx, cy);
        gt_svg_text(s, cx, cy, "middle", NULL, "%s", y->label);
        gt_svg_raw(s, "</g>\n");
    }
}

/* ------------------------------------------------------------ marks */

static bool drawable(const struct gt_axis *a, double v)
{
    return isfinite(v) && (a->kind != GT_AXIS_LOG || v > 0);
}

void gt_svg_line(struct gt_svg *s, const struct gt_axis *x, const struct gt_axis *y,
                 const double *xs, const double *ys, size_t n, const char *cls)
{
    bool open = false, pen = false;
    for (size_t i = 0; i < n && !s->status; i++) {
        if (!drawable(x, xs[i]) || !drawable(y, ys[i])) {
            pen = false;
            continue;
        }
        if (!open)
            gt_svg_raw(s, "<path class=\"%s\" clip-path=\"url(#%s-area%d)\" d=\"", cls, s->id,
                       s->clip);
        open = true;
        gt_svg_raw(s, "%s%.2f %.2f", pen ? " L" : " M", gt_axis_px(x, xs[i]),
                   gt_axis_px(y, ys[i]));
        pen = true;
    }
    if (open)
        gt_svg_raw(s, "\"/>\n");
}

void gt_svg_band(struct gt_svg *s, const struct gt_axis *x, const struct gt_axis *y,
                 const double *xs, const double *ylo, const double *yhi, size_t n,
                 const char *cls)
{
    for (size_t i = 0; i < n;) {
        while (i < n && !(drawable(x, xs[i]) && drawable(y, ylo[i]) && drawable(y, yhi[i])))
            i++;
        size_t j = i;
        while (j < n && drawable(x, xs[j]) && drawable(y, ylo[j]) && drawable(y, yhi[j]))
            j++;
        if (j > i) {
            gt_svg_raw(s, "<path class=\"%s\" clip-path=\"url(#%s-area%d)\" d=\"", cls, s->id,
                       s->clip);
            for (size_t k = i; k < j; k++)
                gt_svg_raw(s, "%s%.2f %.2f", k == i ? "M" : " L", gt_axis_px(x, xs[k]),
                           gt_axis_px(y, yhi[k]));
            for (size_t k = j; k-- > i;)
                gt_svg_raw(s, " L%.2f %.2f", gt_axis_px(x, xs[k]), gt_axis_px(y, ylo[k]));
            gt_svg_raw(s, " Z\"/>\n");
        }
        i = j;
    }
}

void gt_svg_mark(struct gt_svg *s, const struct gt_axis *x, const struct gt_axis *y,
                 double xv, double yv, const char *cls)
{
    if (!drawable(x, xv) || !drawable(y, yv))
        return;
    char xt[GT_FMT_DOUBLE_SIZE], yt[GT_FMT_DOUBLE_SIZE];
    gt_fmt_double(xt, xv);
    gt_fmt_double(yt, yv);
    gt_svg_raw(s, "<circle class=\"%s\" cx=\"%.2f\" cy=\"%.2f\" r=\"2.2\" data-x=\"%s\" "
                  "data-y=\"%s\"/>\n", cls, gt_axis_px(x, xv), gt_axis_px(y, yv), xt, yt);
}

void gt_svg_legend(struct gt_svg *s, double x, double y, int row, const char *cls,
                   const char *fmt, ...)
{
    double ry = y + 14 + 17 * row;
    gt_svg_raw(s, "<path class=\"%s\" d=\"M%.1f %.1f h22\"/>\n", cls, x, ry - 4);
    va_list ap;
    va_start(ap, fmt);
    vtext(s, x + 28, ry, "start", "small", fmt, ap);
    va_end(ap);
}

/* ------------------------------------------------------------ colours */

static void interpolate(const unsigned char (*stops)[3], int n, double t, char out[8])
{
    t = isnan(t) ? 0 : t < 0 ? 0 : t > 1 ? 1 : t;
    double f = t * (n - 1);
    int i = (int)f;
    if (i >= n - 1)
        i = n - 2;
    f -= i;
    int c[3];
    for (int k = 0; k < 3; k++)
        c[k] = (int)lround(stops[i][k] + f * (stops[i + 1][k] - stops[i][k]));
    snprintf(out, 8, "#%02x%02x%02x", c[0], c[1], c[2]);
}

void gt_svg_sequential(double t, char out[8])
{
    /* viridis at nine stops */
    static const unsigned char v[][3] = {{68, 1, 84},    {71, 44, 122},  {59, 81, 139},
                                         {44, 113, 142}, {33, 144, 141}, {39, 173, 129},
                                         {92, 200, 99},  {170, 220, 50}, {253, 231, 37}};
    interpolate(v, 9, t, out);
}

void gt_svg_diverging(double t, char out[8])
{
    /* ColorBrewer RdBu */
    static const unsigned char v[][3] = {{178, 24, 43},   {214, 96, 77},   {244, 165, 130},
                                         {253, 219, 199}, {247, 247, 247}, {209, 229, 240},
                                         {146, 197, 222}, {67, 147, 195},  {33, 102, 172}};
    interpolate(v, 9, t, out);
}

void gt_svg_colorbar(struct gt_svg *s, struct gt_axis *a, double x, double y0, double y1,
                     void (*scale)(double, char[8]))
{
    enum { SLICES = 48 };
    a->p0 = y0, a->p1 = y1;
    double h = (y0 - y1) / SLICES;
    for (int i = 0; i < SLICES; i++) {
        char c[8];
        scale((i + 0.5) / SLICES, c);
        gt_svg_raw(s, "<rect x=\"%.1f\" y=\"%.2f\" width=\"14\" height=\"%.2f\" fill=\"%s\"/>\n",
                   x, y0 - (i + 1) * h, h + 0.3, c);
    }
    struct tick t[MAX_TICKS];
    size_t n = ticks(a, t);
    char lo[GT_FMT_DOUBLE_SIZE], hi[GT_FMT_DOUBLE_SIZE], v[GT_FMT_DOUBLE_SIZE];
    gt_fmt_double(lo, a->lo);
    gt_fmt_double(hi, a->hi);
    gt_svg_raw(s, "<g class=\"axis colorbar\" data-kind=\"%s\" data-lo=\"%s\" "
                  "data-hi=\"%s\" data-p0=\"%.3f\" data-p1=\"%.3f\">\n", kind_name(a), lo, hi,
               a->p0, a->p1);
    gt_svg_raw(s, "<rect class=\"frame\" x=\"%.1f\" y=\"%.2f\" width=\"14\" height=\"%.2f\"/>\n",
               x, y1, y0 - y1);
    for (size_t i = 0; i < n; i++) {
        if (!t[i].label[0])
            continue;
        double p = gt_axis_px(a, t[i].v);
        gt_svg_raw(s, "<line class=\"frame\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.2f\" y2=\"%.2f\"/>",
                   x + 14, x + 18, p, p);
        gt_fmt_double(v, t[i].v);
        gt_svg_raw(s, "<text class=\"tick\" data-v=\"%s\" x=\"%.1f\" y=\"%.2f\">", v, x + 21,
                   p + 4);
        gt_svg_escaped(s, t[i].label);
        gt_svg_raw(s, "</text>\n");
    }
    gt_svg_raw(s, "</g>\n");
    if (a->label) {
        double cx = x + 62, cy = (y0 + y1) / 2;
        gt_svg_raw(s, "<g transform=\"rotate(-90 %.1f %.1f)\">", cx, cy);
        gt_svg_text(s, cx, cy, "middle", NULL, "%s", a->label);
        gt_svg_raw(s, "</g>\n");
    }
}
