/*
 * progress.c - see progress.h.
 */
#define _POSIX_C_SOURCE 200809L
#include "progress.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static bool wanted(void)
{
    const char *force = getenv("GRIDTAIL_PROGRESS");
    if (force && *force)
        return strcmp(force, "0") != 0;
    return isatty(STDERR_FILENO) == 1;
}

void gt_progress_start(struct gt_progress *p, const char *what, const char *unit,
                       double total)
{
    memset(p, 0, sizeof *p);
    p->on = wanted();
    p->what = what;
    p->unit = unit;
    p->total = total > 0 ? total : 0;
    p->started_ms = p->drawn_ms = gt_monotonic_ms();
}

/* "1h02m", "3m05s", "42s" */
static void format_seconds(double s, char *buf, size_t size)
{
    long v = s < 0 ? 0 : (long)(s + 0.5);
    if (v >= 3600)
        snprintf(buf, size, "%ldh%02ldm", v / 3600, v % 3600 / 60);
    else if (v >= 60)
        snprintf(buf, size, "%ldm%02lds", v / 60, v % 60);
    else
        snprintf(buf, size, "%lds", v);
}

void gt_progress_update(struct gt_progress *p, double done)
{
    if (!p->on)
        return;
    double now = gt_monotonic_ms();
    if (p->drawn && now - p->drawn_ms < 100)
        return;
    p->drawn_ms = now;
    p->drawn = true;
    /* bytes read as MiB: "312/1205 MiB" reads better than nine digits */
    bool bytes = p->unit && !strcmp(p->unit, "bytes");
    double scale = bytes ? 1048576.0 : 1.0, total = p->total / scale;
    const char *unit = bytes ? "MiB" : p->unit;
    done /= scale;
    double secs = (now - p->started_ms) / 1000.0;
    double rate = secs > 0 ? done / secs : 0;
    char line[256], eta[32] = "";
    if (total > 0) {
        if (rate > 0)
            format_seconds((total - done) / rate, eta, sizeof eta);
        snprintf(line, sizeof line, "%s: %.0f/%.0f %s (%.0f%%), %.0f %s/s, %s left", p->what,
                 done, total, unit, 100.0 * done / total, rate, unit, rate > 0 ? eta : "?");
    } else {
        snprintf(line, sizeof line, "%s: %.0f %s, %.0f/s", p->what, done, unit, rate);
    }
    fprintf(stderr, "\r%s\033[K", line);
    fflush(stderr);
}

void gt_progress_end(struct gt_progress *p)
{
    if (p->on && p->drawn) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
    }
    p->drawn = false;
}
