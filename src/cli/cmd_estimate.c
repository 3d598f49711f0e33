/*
 * cmd_estimate.c - `gridtail estimate`, `gridtail rank`, `gridtail place`:
 * the advisor's three questions on the command line, with output for
 * people (a table) and for brokers (--json, --format gridway|classad|tsv).
 * Their options are advopts.h's, their printers advout.h's.
 */
#define _POSIX_C_SOURCE 200809L
#include "advopts.h"
#include "advout.h"
#include "base/progress.h"
#include "base/util.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ estimate */

static const char estimate_usage[] =
    "usage: gridtail estimate --root R --sites A,B[:PROCS],... [OPTIONS]\n"
    "\n"
    "Expected time of one collective rooted at R with partners A, B...:\n"
    "E[max] over the partners of the R<->partner RTT, its quantiles, which\n"
    "partner is most often the slowest, the per-partner models, sample\n"
    "counts and data age, and warnings (stale data, few samples, alpha <= 1\n"
    "cut-off, partners left out).  A pair without samples is an error\n"
    "naming the pair (status 2) unless --skip-missing.\n\n";
static const struct adv_cmd estimate_cmd = {
    "estimate", estimate_usage, TAKES_ASK | TAKES_OUT | OPT(AO_ROOT) | OPT(AO_SITES), NULL};

int cmd_estimate(struct gt_cli *cli, int argc, char **argv)
{
    struct adv_args a = {0};
    int code = adv_parse(cli, &estimate_cmd, argc, argv, &a);
    if (code >= 0)
        return code;
    if (!a.root || !a.sites)
        return gt_cli_usage_error("estimate", "--root and --sites are required");
    struct gt_site_list sites = {0};
    const char *why;
    if (!gt_sites_parse(&sites, a.sites, &why)) {
        gt_sites_clear(&sites);
        return gt_cli_usage_error("estimate", "--sites: %s", why);
    }
    struct gt_db *db;
    code = GT_EXIT_OK;
    struct gt_advisor *adv = adv_open(cli, &a, &db, &code);
    if (adv) {
        struct gt_estimate e;
        struct gt_error err = {0};
        int rc = gt_advisor_estimate(adv, a.root, sites.v, sites.n, &e, &err);
        if (rc) {
            code = gt_cli_fail(&err, rc);
        } else if (a.fmt == AOUT_JSON) {
            gt_cli_print_json(gt_advice_estimate_json(&e, &a.ad));
        } else {
            if (a.fmt == AOUT_TSV)
                adv_print_tsv_header(&a);
            adv_print_one(&e, 0, &a);
        }
        gt_estimate_clear(&e);
        adv_close(adv, db);
    }
    gt_sites_clear(&sites);
    return code;
}

/* ------------------------------------------------------------ rank */

static int cands_from_json(const char *name, const char *text, size_t len,
                           struct gt_cand_list *l)
{
    json_error_t jerr;
    json_t *root = json_loadb(text, len, 0, &jerr);
    size_t bad;
    const char *why;
    int code = GT_EXIT_OK;
    if (!root) {
        fprintf(stderr, "gridtail: %s:%d: %s\n", name, jerr.line, jerr.text);
        code = GT_EXIT_INPUT;
    } else if (!gt_cands_from_json(l, root, &bad, &why)) {
        fprintf(stderr, "gridtail: %s: [%zu]: %s\n", name, bad, why);
        code = GT_EXIT_INPUT;
    }
    json_decref(root);
    return code;
}

static int cands_from_lines(const char *name, char *text, struct gt_cand_list *l)
{
    long lineno = 0;
    for (char *line = text; line && *line;) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        lineno++;
        const char *p = line;
        size_t len = strcspn(line, "#");
        gt_trim_span(&p, &len);
        const char *colon = len ? memchr(p, ':', len) : NULL;
        const char *why = NULL;
        if (len && !colon)
            why = "expected 'root: site,site,...'";
        if (len && !why) {
            size_t rl = (size_t)(colon - p);
            const char *rp = p;
            gt_trim_span(&rp, &rl);
            struct gt_candidate *c = rl ? gt_cands_push(l, rp, rl) : NULL;
            if (!c)
                why = rl ? "out of memory" : "empty root";
            char *rest = strndup(colon + 1, len - (size_t)(colon - p) - 1);
            if (!why && (!rest || !gt_sites_parse(&c->sites, rest, &why)) && !why)
                why = "out of memory";
            free(rest);
        }
        if (why) {
            fprintf(stderr, "gridtail: %s:%ld: %s\n", name, lineno, why);
            return GT_EXIT_INPUT;
        }
        line = nl ? nl + 1 : NULL;
    }
    return GT_EXIT_OK;
}

static int read_candidates(const char *path, struct gt_cand_list *l)
{
    const char *name;
    FILE *f = gt_cli_open_input(path, &name);
    if (!f)
        return GT_EXIT_IO;
    struct gt_buf b;
    gt_buf_init(&b, (size_t)64 << 20);
    int rc = gt_buf_read_stream(&b, f);
    gt_cli_close_input(f);
    int code = GT_EXIT_OK;
    if (rc) {
        fprintf(stderr, "gridtail: %s: %s\n", name, rc == GT_ETOOBIG ? "larger than 64 MiB"
                                                                     : "read error");
        code = GT_EXIT_INPUT;
    } else {
        const char *p = b.data + strspn(b.data, " \t\r\n");
        code = *p == '[' ? cands_from_json(name, b.data, b.len, l)
                         : cands_from_lines(name, b.data, l);
        if (code == GT_EXIT_OK && l->n == 0) {
            fprintf(stderr, "gridtail: %s: no candidates\n", name);
            code = GT_EXIT_INPUT;
        }
    }
    gt_buf_free(&b);
    return code;
}

static const char rank_usage[] =
    "usage: gridtail rank --candidates FILE|- [--top K] [OPTIONS]\n"
    "\n"
    "Estimate candidate placements and print them best first: the lowest\n"
    "iteration time, compute + E[max] (with no compute time or one for all,\n"
    "the lowest E[max]).  FILE is a JSON list of {\"root\": R, \"sites\": [\"A\", \"B:4\",\n"
    "{\"site\": \"C\", \"procs\": 2}]} or one 'ROOT: SITE,SITE:PROCS,...' per\n"
    "line ('#' comments).  A candidate with a pair that has no samples is\n"
    "left out with the reason (JSON: \"rejected\").\n\n";
static const struct adv_cmd rank_cmd = {
    "rank", rank_usage, TAKES_ASK | TAKES_OUT | OPT(AO_CANDS) | OPT(AO_TOP) | OPT(AO_THREADS),
    NULL};

int cmd_rank(struct gt_cli *cli, int argc, char **argv)
{
    struct adv_args a = {0};
    int code = adv_parse(cli, &rank_cmd, argc, argv, &a);
    if (code >= 0)
        return code;
    if (!a.candidates)
        return gt_cli_usage_error("rank", "--candidates FILE|- is required");
    struct gt_cand_list l = {0};
    if ((code = read_candidates(a.candidates, &l)) != GT_EXIT_OK) {
        gt_cands_clear(&l);
        return code;
    }
    struct gt_db *db;
    code = GT_EXIT_OK;
    a.ad.o.enforce_max_loss = true;   /* rank leaves lossier partners out */
    struct gt_advisor *adv = adv_open(cli, &a, &db, &code);
    if (adv) {
        struct gt_rank_answer r;
        struct gt_error err = {0};
        int rc = gt_advice_rank(adv, &l, a.top, &r, &err);
        size_t i;
        json_t *rej;
        if (a.fmt != AOUT_JSON)
            json_array_foreach(r.rejected, i, rej)
                fprintf(stderr, "gridtail: candidate %lld (root %s) left out: %s\n",
                        (long long)json_integer_value(json_object_get(rej, "candidate")) + 1,
                        json_string_value(json_object_get(rej, "root")),
                        json_string_value(json_object_get(rej, "reason")));
        if (rc)
            code = gt_cli_fail(&err, rc);
        else
            adv_print_many(r.best, r.nbest, &a, gt_advice_rank_json(adv, &r, &a.ad));
        if (rc == GT_OK && r.ok == 0)
            code = GT_EXIT_INPUT;
        code = adv_after_search(code);
        gt_rank_answer_clear(&r);
        adv_close(adv, db);
    }
    gt_cands_clear(&l);
    return code;
}

/* ------------------------------------------------------------ place */

static const char place_usage[] =
    "usage: gridtail place --pool A,B,...|--pool-file F --size K [--root R|auto]\n"
    "                      [--top N] [--exact-limit S] [OPTIONS]\n"
    "\n"
    "Choose the K partner sites (and, with --root auto, the default, the\n"
    "root too) from the pool that minimise the objective: compute + E[max]\n"
    "(with one compute time for all: E[max]), or with --objective pNN\n"
    "compute + that quantile of the collective time.  Partners lossier than\n"
    "--max-loss are left out with the reason.  While the number of\n"
    "candidate sets is at most S (default 100000) every set is estimated\n"
    "(search \"exact\"), but for those whose worst partner alone already does\n"
    "worse than the best kept (\"pruned\": a max is at least each of its\n"
    "partners); beyond, each root starts from its K partners with the\n"
    "lowest own quantile at 1 - 1/(K+1), and the 4 best roots then swap the\n"
    "partner most often slowest for one of the 16 best unused ones while\n"
    "the time drops (search \"greedy+swap\").  Pool sites without data for a root are left\n"
    "out with the reason.  --pool-file has one SITE[:PROCS] per line.\n\n";
static const struct adv_cmd place_cmd = {
    "place", place_usage, TAKES_ASK | TAKES_OUT | OPT(AO_POOL) | OPT(AO_POOLFILE) | OPT(AO_SIZE) |
                          OPT(AO_ROOT) | OPT(AO_TOP) | OPT(AO_EXACT) | OPT(AO_THREADS),
    NULL};

static void place_progress(void *ctx, double done, double total)
{
    struct gt_progress *line = ctx;
    line->total = total;
    gt_progress_update(line, done);
}

int cmd_place(struct gt_cli *cli, int argc, char **argv)
{
    struct adv_args a = {0};
    int code = adv_parse(cli, &place_cmd, argc, argv, &a);
    if (code >= 0)
        return code;
    if (!a.pool == !a.pool_file)
        return gt_cli_usage_error("place", "give --pool or --pool-file");
    if (a.size < 1)
        return gt_cli_usage_error("place", "--size K is required");
    struct gt_site_list pool = {0};
    const char *why;
    if (a.pool && !gt_sites_parse(&pool, a.pool, &why)) {
        gt_sites_clear(&pool);
        return gt_cli_usage_error("place", "--pool: %s", why);
    }
    if (a.pool_file && (code = adv_read_pool(a.pool_file, &pool)) != GT_EXIT_OK) {
        gt_sites_clear(&pool);
        return code;
    }
    code = -1;
    struct gt_db *db;
    a.ad.o.enforce_max_loss = true;
    struct gt_advisor *adv = adv_open(cli, &a, &db, &code);
    if (adv) {
        code = GT_EXIT_OK;
        struct gt_progress line;
        gt_progress_start(&line, "place: exact search", "sets", 0);
        struct gt_place_opts po = {(size_t)a.size, a.root && strcmp(a.root, "auto") ? a.root : NULL,
                                   a.exact_limit, a.top > 0 ? (size_t)a.top : 1, place_progress,
                                   &line};
        struct gt_place_result r;
        struct gt_error err = {0};
        int64_t t0 = gt_monotonic_ns();
        int rc = gt_advisor_place(adv, pool.v, pool.n, &po, &r, &err);
        gt_progress_end(&line);
        double elapsed = gt_elapsed_ms(t0);
        if (rc) {
            code = gt_cli_fail(&err, rc);
        } else {
            if (a.fmt == AOUT_TABLE)
                printf("search: %s, %.0f candidate sets estimated, %.0f left out by their "
                       "bound, %zu pair windows fitted, %zu from the fit cache, %.0f ms\n",
                       r.search, r.evaluated, r.pruned, gt_advisor_fits(adv),
                       gt_advisor_cached_fits(adv), elapsed);
            if (a.fmt == AOUT_TABLE)
                for (size_t i = 0; i < r.nexcluded; i++)
                    printf("left out: %s\n", r.excluded[i]);
            adv_print_many(r.best, r.nbest, &a, gt_advice_place_json(adv, &r, elapsed, &a.ad));
        }
        code = adv_after_search(code);
        gt_place_result_clear(&r);
        adv_close(adv, db);
    }
    gt_sites_clear(&pool);
    return code;
}

