/* search_utf8.h -- UTF-8 validation and ripgrep's lossy decoding, shared
 * by the engine (which decodes a buffer before PCRE2 sees it) and the
 * matcher (which, given undecoded text, decodes only the lines it hands
 * PCRE2). With -P ripgrep 13 decodes every file before matching, each
 * maximal invalid sequence becoming U+FFFD (the WHATWG rule). */
#ifndef AOPS_SEARCH_UTF8_H
#define AOPS_SEARCH_UTF8_H

#include <stddef.h>

/* Offset of the first invalid sequence in s[0..n), n when it is all valid
 * UTF-8. */
size_t utf8_valid_upto(const char *s, size_t n);

/* Returns 1 when s[0..n) is valid UTF-8. */
int utf8_valid(const char *s, size_t n);

/* Writes the decoded text to out (room for 3 * n bytes), returns its
 * length. Valid runs are copied whole. */
size_t utf8_lossy(const char *s, size_t n, char *out);

#endif
