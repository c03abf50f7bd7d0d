/* search_engine.h -- one search: walk a tree, read its files through a
 * reader, count matching lines with a matcher, the way `rg -P -c` (or -l)
 * does.
 *
 * An engine holds everything a search needs (reader, its buffers, the
 * walk's buffers, the decoding buffer), allocated once by engine_open(), so
 * engine_search() allocates nothing in count mode: it is what a measured
 * operation calls. */
#ifndef AOPS_SEARCH_ENGINE_H
#define AOPS_SEARCH_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "../common/reader.h"
#include "search_match.h"
#include "search_utf8.h" /* utf8_valid, utf8_lossy */

#define ENGINE_SLOTS READER_SLOTS /* files read at once (io_uring) */
#define ENGINE_BUF READER_BUF     /* per file in flight: lines up to 1 MiB */

enum engine_mode { ENGINE_COUNT = 0, ENGINE_LIST };

struct engine_totals {
    uint64_t files;   /* files searched */
    uint64_t bytes;   /* bytes read from them */
    uint64_t lines;   /* matching lines, binary files counting 0 (as rg -c) */
    uint64_t matched; /* files rg would print */
    uint64_t errors;  /* unreadable files and directories, PCRE2 failures */
    char err[512];    /* the first error, one line */
    /* Set by the caller: a now_ns() past which the search stops, checked
     * between files and between reads (0: none); timed_out says it did. */
    int64_t deadline_ns;
    int timed_out;
};

/* Called once per file searched (not for files that could not be opened:
 * those come with err set and count -1). count is what `rg -c` prints (0:
 * not printed); in list mode, 1 when `rg -l` prints the file. */
typedef void (*engine_file_fn)(void *arg, const char *path, int64_t count, const char *err);

struct engine;

struct engine *engine_open(enum reader_kind kind, char *err, size_t errlen);
void engine_close(struct engine *e);
const char *engine_reader_name(const struct engine *e);

/* Search root (directory or file) for m, adding to *t. fn may be NULL.
 * Returns 0, or -1 when root cannot be searched at all (t->err says why). */
int engine_search(struct engine *e, struct matcher *m, const char *root, enum engine_mode mode,
                  engine_file_fn fn, void *arg, struct engine_totals *t);

/* Where a search's files come from: the walk of one tree (engine_search),
 * or a walk several engines share (search_par.c). next() gives a file to
 * open relative to *dirfd as *name (the end of *path, its path as ripgrep
 * prints it; valid until the next call): 1, 0 at the end, or -1 when none
 * is ready now and wait is 0 (with wait set it blocks until one is).
 * release() may close finished directories except keep[0..nkeep). */
struct engine_src {
    int (*next)(void *ctx, int wait, int *dirfd, const char **name, const char **path);
    void (*release)(void *ctx, const int *keep, int nkeep);
    void *ctx;
};

/* Search the files src gives (root names the search in errors). */
int engine_run(struct engine *e, struct matcher *m, const char *root, enum engine_mode mode,
               engine_file_fn fn, void *arg, struct engine_totals *t, const struct engine_src *src);

/* One pass over s[0..n): TEXT_NUL when it holds a NUL byte, TEXT_HIGH when
 * a byte >= 0x80 (so not pure ASCII). */
#define TEXT_NUL 1u
#define TEXT_HIGH 2u
unsigned text_scan(const char *s, size_t n);

/* ripgrep transcodes a file that starts with a UTF-16 BOM to UTF-8 (with
 * encoding_rs: each unpaired surrogate, and an odd last byte, becomes
 * U+FFFD). Decodes the UTF-16 (big_endian or little) units of s[0..n) into
 * out (room for 3 * n / 2 + 3 bytes) and returns the bytes written; *used
 * gets the input consumed. Unless last, an incomplete unit or a lead
 * surrogate at the end is left for the next call (*used < n). */
size_t utf16_to_utf8(const char *s, size_t n, int big_endian, int last, char *out, size_t *used);

#endif
