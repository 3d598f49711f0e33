/*
 * schema.h - the list of forward schema migrations (see schema.c).
 */
#ifndef GT_SCHEMA_H
#define GT_SCHEMA_H

/* Number of migrations = the latest schema version. */
int gt_schema_count(void);

/* SQL taking the schema from from_version to from_version + 1, or NULL. */
const char *gt_schema_step(int from_version);

#endif
