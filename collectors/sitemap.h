/*
 * sitemap.h - which site a host of another tool's measurements is
 * (issue 27: RIPE Atlas, perfSONAR 5, Prometheus): a file of KEY,SITE
 * lines, KEY a hostname, an address or a probe ("prb6001"), looked up
 * exactly.  And the hosts a run met without a line, told once each.
 */
#ifndef GT_SITEMAP_H
#define GT_SITEMAP_H

#include "collector.h"

#include <stdbool.h>
#include <stddef.h>

#define GT_SITE_MAP_LINE 1024          /* bytes a line, newline included */
#define GT_SITE_MAP_MAX_LINES 100000

struct gt_site_map;

/* Load FILE: KEY,SITE lines, # comments and blank lines; a key given
 * twice with another site, a bad site name, a line without two fields
 * or past the limits is GT_EINPUT with FILE:LINE: field: reason. */
int gt_site_map_load(const char *path, struct gt_site_map **out, struct gt_error *err);
void gt_site_map_free(struct gt_site_map *m);

/* The site of key (len bytes), or NULL. */
const char *gt_site_map_find(const struct gt_site_map *m, const char *key, size_t len);

/* The site of a host: of the first of keys[0], keys[1] (may be NULL) the
 * map has a line for, else keys[0] itself; with a map, a key without a
 * line is told once (in told) as "FORMAT: WHAT KEY (KEY1) has no
 * --site-map line". */
struct gt_key_set;
const char *gt_site_map_name(const struct gt_site_map *m, struct gt_key_set *told,
                             const struct gt_sink *sink, const char *format, const char *what,
                             const char *const keys[2]);

/* The keys a run met that the map has no line for (or every key, with
 * no map): true the first time one is seen, so that it is told once. */
struct gt_key_set;
struct gt_key_set *gt_key_set_new(void);
bool gt_key_set_first(struct gt_key_set *s, const char *key, size_t len);
void gt_key_set_free(struct gt_key_set *s);

#endif
