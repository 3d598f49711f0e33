/*
 * exports.h - the pair costs that schedulers read as a matrix (issue 28,
 * part 4; docs/INTEGRATION.md).
 *
 * Each stored pair's statistic as the advisor estimates it for a
 * collective of one partner (its mean with the loss model, or a quantile:
 * --statistic mean|pNN), grouped by a site map into the names the
 * scheduler knows, each group pair taking the largest of its site pairs
 * (the conservative cost), rounded to an integer in ms or us:
 *
 *  - networktopology: a Kubernetes NetworkTopology custom resource
 *    (networktopology.diktyo.x-k8s.io/v1alpha1, scheduler-plugins'
 *    network-aware scheduling): zone costs, and region costs when the map
 *    gives regions.  Map lines SITE,ZONE[,REGION]; without a map each site
 *    is its own zone.  Names are checked as Kubernetes wants them.
 *  - rucio: distances between RSEs (rucio-admin rse add-distance, the
 *    client's add_distance).  Map lines SITE,RSE (a site may hold several
 *    RSEs, an RSE is at one site); required.
 */
#ifndef GT_EXPORTS_H
#define GT_EXPORTS_H

#include "advisor.h"
#include "base/error.h"
#include "db/db.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#define GT_EXPORT_MAX_SITES 1000      /* sites whose pairs are estimated */
#define GT_EXPORT_MAX_NAMES 1000      /* zones, regions or RSEs */
#define GT_EXPORT_MAP_MAX_LINES 100000
#define GT_EXPORT_MAP_LINE 1024       /* longest map line, bytes */

enum gt_export_format { GT_EXPORT_NETWORKTOPOLOGY, GT_EXPORT_RUCIO };

struct gt_export_entry {
    char *site, *name, *region;   /* region NULL unless the map gives it */
    long line;
};

struct gt_export_map {
    struct gt_export_entry *v;
    size_t n;
    bool regions;                 /* every line gives a region */
};

/* Read a map file for the format; errors name path:line: field. */
int gt_export_map_load(const char *path, enum gt_export_format fmt, struct gt_export_map *m,
                       struct gt_error *err);
void gt_export_map_free(struct gt_export_map *m);

struct gt_export_req {
    enum gt_export_format format;
    const struct gt_export_map *map;  /* NULL: networktopology, a zone per site */
    const char *statistic;            /* "mean" or "pNN", what the advisor ranks by */
    double scale;                     /* cost = round(ms * scale): 1 (ms) or 1000 (us) */
    const char *unit;                 /* "ms" or "us" */
    const char *name, *nspace;        /* NetworkTopology metadata */
    const char *configmap, *weights;  /* its spec.configmapName and weights[].name */
    size_t window;                    /* said in the document's annotations */
    int64_t at;
};

/* What was left out: pairs without an estimate (the first few named) and
 * sites not in the map. */
#define GT_EXPORT_NAMED 5
struct gt_export_report {
    size_t pairs, estimated, missing, unmapped_sites;
    char missing_named[GT_EXPORT_NAMED][160];
    char unmapped_named[GT_EXPORT_NAMED][80];
};

/* The document for r->format from every stored pair (self pairs aside)
 * whose two sites are exported: a NetworkTopology object, or
 * {"statistic", "unit", "distances": [{source, destination, distance,
 * ms}]} for Rucio.  The advisor must be set for one partner's quantile
 * or mean (objective).  GT_ENOTFOUND when no pair has an estimate. */
int gt_export_build(struct gt_advisor *adv, struct gt_db *db, const struct gt_export_req *r,
                    json_t **doc, struct gt_export_report *rep, struct gt_error *err);

/* Whether s is a Kubernetes label value (a zone or region name), a DNS
 * subdomain (an object's name) or label (a namespace), a Rucio RSE name
 * (its default schema, ^[A-Z0-9]+([_-][A-Z0-9]+)*$). */
bool gt_export_label_value(const char *s);
bool gt_export_dns_subdomain(const char *s);
bool gt_export_dns_label(const char *s);
bool gt_export_rse_name(const char *s);

#endif
