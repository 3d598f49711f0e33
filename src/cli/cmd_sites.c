/*
 * cmd_sites.c - `gridtail sites`: the stored sites, and their attributes
 * imported from a CSV file.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "advisor/advice.h"
#include "base/util.h"
#include "db/query.h"
#include "collectors/csvread.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char sites_usage[] =
    "usage: gridtail sites [--json] [--import FILE]\n"
    "\n"
    "List the sites with their attributes and how many pairs start (out)\n"
    "and end (in) at each.  --import FILE sets attributes from a CSV file\n"
    "with the header name,cluster,domain,latitude,longitude (any subset\n"
    "after name; empty fields leave a value as it is), in one transaction:\n"
    "a record a line of at most 4,095 bytes, the file at most 16 MiB.\n";

static int import_row(struct gt_db *db, const struct csv_record *rec, const int *col,
                      const char *file, struct gt_error *err)
{
    char where[GT_ERR_WHERE];
    snprintf(where, sizeof where, "%s:%ld", file, rec->line);
    char *val[5] = {NULL};
    double num[2];
    bool has_num[2] = {false, false};
    int rc = GT_OK;
    for (int k = 0; k < 5 && rc == GT_OK; k++) {
        if (col[k] < 0 || rec->f[col[k]].len == 0)
            continue;
        const struct csv_field *f = &rec->f[col[k]];
        if (k >= 3) {
            double lim = k == 3 ? 90 : 180;
            if (!gt_parse_double(f->p, f->len, &num[k - 3]) || !(fabs(num[k - 3]) <= lim))
                rc = gt_error_set(err, GT_EINPUT, where, "%s: not a number in [-%g, %g]",
                                  k == 3 ? "latitude" : "longitude", lim, lim);
            has_num[k - 3] = true;
        } else if (!gt_utf8_valid(f->p, f->len) || f->len > 255 || gt_has_control(f->p, f->len)) {
            rc = gt_error_set(err, GT_EINPUT, where,
                              "field %d: not UTF-8 up to 255 bytes without control characters",
                              k + 1);
        } else if (!(val[k] = strndup(f->p, f->len))) {
            rc = gt_error_set(err, GT_ENOMEM, where, "out of memory");
        }
    }
    if (rc == GT_OK && !val[0])
        rc = gt_error_set(err, GT_EINPUT, where, "name: empty site name");
    if (rc == GT_OK)
        rc = gt_site_set_attrs(db, val[0], val[1], val[2], has_num[0] ? &num[0] : NULL,
                               has_num[1] ? &num[1] : NULL, err);
    for (int k = 0; k < 3; k++)
        free(val[k]);
    return rc;
}

/* The next record of the sites file, one a line (a small text input:
 * base/util.h bounds it); 1, 0 at the end, or an error in err. */
static int next_record(struct gt_lines *in, char *line, struct csv_record *rec,
                       struct gt_error *err)
{
    int got;
    while ((got = gt_lines_next(in, line, GT_LINE_MAX, err)) == 1) {
        char *s = line;
        if (in->line == 1 && !strncmp(s, "\xEF\xBB\xBF", 3))
            s += 3;   /* UTF-8 byte order mark */
        size_t len = strlen(s);
        if (len && s[len - 1] == '\r')
            len--;
        if (!len)
            continue;
        csv_split(s, len, ',', rec);
        rec->line = in->line;
        return 1;
    }
    return got == GT_ETOOBIG ? GT_EINPUT : got;
}

static int import_sites(struct gt_db *db, const char *file, long *count, struct gt_error *err)
{
    static const char *names[5] = {"name", "cluster", "domain", "latitude", "longitude"};
    FILE *f = fopen(file, "rb");
    if (!f)
        return gt_error_set(err, GT_EIO, file, "cannot open: %s", strerror(errno));
    char *line = malloc(GT_LINE_MAX);
    struct gt_lines in;
    gt_lines_init(&in, f, file, 0);
    struct csv_record rec;
    int col[5] = {-1, -1, -1, -1, -1}, rc = line ? next_record(&in, line, &rec, err) : GT_ENOMEM;
    if (rc == 1) {
        rc = GT_OK;
        for (int i = 0; i < rec.n; i++)
            for (int k = 0; k < 5; k++)
                if (gt_span_ieq(rec.f[i].p, rec.f[i].len, names[k]))
                    col[k] = i;
        if (col[0] < 0)
            rc = gt_error_set(err, GT_EINPUT, file, "header has no 'name' column");
    } else if (rc == 0) {
        rc = gt_error_set(err, GT_EINPUT, file, "empty file");
    }
    int ncols = rec.n;
    if (rc == GT_OK)
        rc = gt_db_begin(db, err);
    while (rc == GT_OK && (rc = next_record(&in, line, &rec, err)) == 1) {
        rc = GT_OK;
        if (rec.problem || rec.total != ncols) {
            char where[GT_ERR_WHERE];
            snprintf(where, sizeof where, "%s:%ld", file, rec.line);
            rc = gt_error_set(err, GT_EINPUT, where, "%s", rec.problem ? rec.problem :
                              "wrong number of fields");
        } else if ((rc = import_row(db, &rec, col, file, err)) == GT_OK) {
            (*count)++;
        }
    }
    if (rc == 0)
        rc = gt_db_commit(db, err);
    if (rc < 0 && err->code == GT_OK)
        gt_error_set(err, rc, file, "%s", gt_strerror(rc));
    if (rc)
        gt_db_rollback(db);
    free(line);
    fclose(f);
    return rc;
}

static void print_sites(const struct gt_site_row *v, size_t n, bool json)
{
    if (json) {
        gt_cli_print_json(gt_advice_sites_json(v, n));
        return;
    }
    printf("%-24s %-12s %-20s %9s %9s %5s %5s\n", "SITE", "CLUSTER", "DOMAIN", "LAT", "LON",
           "OUT", "IN");
    for (size_t i = 0; i < n; i++) {
        printf("%-24s %-12s %-20s ", v[i].name, v[i].cluster ? v[i].cluster : "-",
               v[i].domain ? v[i].domain : "-");
        if (v[i].has_coords)
            printf("%9.4f %9.4f", v[i].latitude, v[i].longitude);
        else
            printf("%9s %9s", "-", "-");
        printf(" %5ld %5ld\n", v[i].pairs_out, v[i].pairs_in);
    }
    printf("%zu sites\n", n);
}

int cmd_sites(struct gt_cli *cli, int argc, char **argv)
{
    static const struct option opts[] = {
        {"help", no_argument, NULL, 'h'}, {"json", no_argument, NULL, 'j'},
        {"import", required_argument, NULL, 'i'}, {NULL, 0, NULL, 0}};
    bool json = false;
    const char *import = NULL;
    int c, code;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        if (c == 'h') {
            return gt_cli_help(sites_usage);
        } else if (c == 'j') {
            json = true;
        } else if (c == 'i') {
            import = optarg;
        } else {
            return gt_cli_usage_error("sites", "bad option");
        }
    }
    if (optind < argc)
        return gt_cli_usage_error("sites", "unexpected argument '%s'", argv[optind]);
    struct gt_db *db = gt_cli_open_db(cli, import ? GT_DB_EXISTING : GT_DB_READ, &code);
    if (!db)
        return code;
    struct gt_error err = {0};
    int rc = GT_OK;
    if (import) {
        long count = 0;
        rc = import_sites(db, import, &count, &err);
        if (rc == GT_OK)
            fprintf(stderr, "gridtail: %s: attributes set for %ld sites\n", import, count);
    }
    struct gt_site_row *v = NULL;
    size_t n = 0;
    if (rc == GT_OK && (rc = gt_query_sites(db, &v, &n, &err)) == GT_OK)
        print_sites(v, n, json);
    gt_sites_free(v, n);
    gt_db_close(db);
    return rc ? gt_cli_fail(&err, rc) : GT_EXIT_OK;
}
