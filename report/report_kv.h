/* report_kv.h -- the configuration and inventory of a result as a table a
 * person reads: nested objects (config.corpus.manifest.trees...)
 * as indented key/value rows under their key instead of raw JSON, lists as
 * lists, long values wrapped inside their column, and long paths shortened
 * in the middle ("/work/…/corpus/data/tiny") with the whole value in a
 * title. Nothing in it is wider than its column, on screen or on paper. */
#ifndef AOPS_REPORT_KV_H
#define AOPS_REPORT_KV_H

#include <jansson.h>
#include <stddef.h>

#include "report_html.h"

/* <table id=ID class="kv"> of obj's keys but those in skip (NULL-ended, or
 * NULL). A number carries data-key PREFIX.<key>[.<key>|.<index>...]. */
void kv_table_nested(struct sbuf *b, const json_t *obj, const char *id, const char *prefix,
                     const char *const *skip);

/* s shortened in the middle to about max characters at '/' boundaries
 * ("/work/main/…/stack/server.sock") into out; returns 1 when shortened,
 * 0 when s is kept as is (not a path, or short enough). */
int path_shorten(const char *s, char *out, size_t len, size_t max);

#endif
