/* json.h -- small jansson helpers every part of the harness uses: dotted-path
 * lookups into a result ("workloads.s3.latency_ms.p95", "containers.0.ops")
 * and numbers that are null when they cannot be measured. */
#ifndef AOPS_JSON_H
#define AOPS_JSON_H

#include <jansson.h>

/* Look up "a.b.c" in a JSON object (a number step indexes an array, a
 * "key=value" step picks the first element whose key is that string); NULL
 * when any step is missing. */
json_t *jget(const json_t *root, const char *path);
/* The number at path, or NAN when missing, null or not a number. */
double jnum(const json_t *root, const char *path);
/* The string at path, or NULL. */
const char *jstr(const json_t *root, const char *path);
/* A real, or null when !ok or x is not finite: a figure that could not be
 * measured must never read as 0. */
json_t *json_num_or_null(double x, int ok);

#endif
