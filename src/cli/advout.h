/*
 * advout.h - the advisor's answers printed for people (a table) and for
 * brokers (--format gridway|classad|tsv; --json is the library's
 * advice.h documents): estimate, rank and place print with these, plot
 * emax labels its points with the sites.
 */
#ifndef GT_ADVOUT_H
#define GT_ADVOUT_H

#include "advopts.h"

#include <jansson.h>
#include <stddef.h>

/* The partners as the input writes them: SITE, or SITE:PROCS when a site
 * runs more than one process.  Whole, however long (a broker places what
 * it reads); "" if out of memory, freed by the caller. */
char *adv_sites_joined(const struct gt_estimate *e);

/* One answer in a's format but JSON (rank 0: an estimate, unranked). */
void adv_print_one(const struct gt_estimate *e, size_t rank, const struct adv_args *a);

/* The header line of --format tsv. */
void adv_print_tsv_header(const struct adv_args *a);

/* A list of answers: JSON (doc, with them as "candidates") or lines;
 * takes doc. */
void adv_print_many(const struct gt_estimate *v, size_t n, const struct adv_args *a, json_t *doc);

#endif
