/*
 * models.c - the registry of latency models.
 */
#include "model.h"

#include <string.h>

static const struct gt_model *const models[] = {
    &gt_model_pareto, &gt_model_normal, &gt_model_delta, NULL};

const struct gt_model *gt_model_find(const char *name)
{
    for (size_t i = 0; models[i]; i++)
        if (!strcmp(models[i]->name, name))
            return models[i];
    return NULL;
}
