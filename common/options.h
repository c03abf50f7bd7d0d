/* options.h -- command-line options as tables of rows, as fio does it.
 *
 * A row names an option, its type, where its value lands (an offset into a
 * settings struct), its default and allowed values, and the environment key
 * it may also come from. The harness's own settings (struct config) have one
 * table; every workload brings a table for its own settings struct. A parse
 * walks a list of such sets, so a new workload's options need no line
 * anywhere else. Defaults are parsed from the rows' text with the same code
 * as user values, so help text and behaviour cannot disagree.
 *
 * Secrets are rows too (OPT_SECRET): they come only from the environment or
 * the credentials file, are refused on the command line, and their values
 * are never printed. Errors are one line naming the option and what it takes. */
#ifndef AOPS_OPTIONS_H
#define AOPS_OPTIONS_H

#include <stddef.h>
#include <stdio.h>

enum opt_type {
    OPT_FLAG,   /* int, set to 1 by its presence */
    OPT_UINT,   /* unsigned, in [min, max] */
    OPT_U64,    /* uint64_t */
    OPT_DOUBLE, /* double, in [min, max] */
    OPT_STR,    /* char[size] */
    OPT_CHOICE, /* int: index of the value in `choices` ("full|small|tiny") */
    OPT_SIZE,   /* uint64_t bytes: "4G", "512M", "1073741824" */
    OPT_CUSTOM, /* parse() does it */
};

#define OPT_SECRET 1u   /* environment or credentials file only; never printed */
#define OPT_CMD_ONLY 2u /* only where a command asks for it by name (corpus fetch --dir) */

struct opt_row;
typedef int (*opt_parse_fn)(const struct opt_row *o, void *base, const char *value, char *err,
                            size_t errlen);

struct opt_row {
    const char *name; /* without the leading "--" */
    enum opt_type type;
    size_t off;  /* offsetof in the settings struct */
    size_t size; /* OPT_STR: buffer size */
    double min, max;
    const char *def;     /* default as text (parsed like a user value), NULL: zero */
    const char *choices; /* OPT_CHOICE: "a|b|c" */
    const char *env;     /* environment / credentials-file key, NULL for none */
    unsigned flags;
    opt_parse_fn parse; /* OPT_CUSTOM */
    const char *help;   /* what it is, without the default (added from def) */
};

/* One table of rows and the struct its offsets point into. */
struct opt_set {
    const char *title; /* heading in --help: "run", "s3 workload" */
    const struct opt_row *rows;
    size_t nrows;
    void *base;
};

/* Set every row of every set to its default. Returns 0, or -1 with err set
 * (a default that does not parse is a bug, said as such). */
int opt_defaults(const struct opt_set *sets, size_t nsets, char *err, size_t errlen);

/* Apply rows that carry an `env` key: first from a KEY=VALUE file (when
 * `file` is non-NULL and exists; must_exist: a missing file is an error),
 * then from the environment, which wins. Returns 0 or -1 with err set. */
int opt_load_env(const struct opt_set *sets, size_t nsets, const char *file, int must_exist,
                 char *err, size_t errlen);

/* Parse argv[first..argc) up to the first operand or "--". `only`, when not
 * NULL, is a NULL-terminated list of the option names accepted (a command
 * that takes few); OPT_CMD_ONLY rows are accepted only when listed there.
 * Returns the index of the first operand (argc when none), or -1 with err. */
int opt_parse(const struct opt_set *sets, size_t nsets, int argc, char **argv, int first,
              const char *const *only, char *err, size_t errlen);

/* Apply one option by name, as if given on the command line. */
int opt_set_value(const struct opt_set *sets, size_t nsets, const char *name, const char *value,
                  char *err, size_t errlen);

/* The value of a row as text, as it would be given (choices by name). */
void opt_format(const struct opt_row *o, const void *base, char *buf, size_t len);

/* KEY=VALUE for every row with an env key (secrets included: for a 0600
 * credentials file handed to a worker, never for output). */
void opt_write_env(const struct opt_set *sets, size_t nsets, FILE *f);

/* "  --name VALUE   help (default)" for every row, grouped by set. */
void opt_usage(const struct opt_set *sets, size_t nsets, FILE *f);

/* The row named `name`, or NULL. */
const struct opt_row *opt_find(const struct opt_set *sets, size_t nsets, const char *name,
                               const struct opt_set **set);

/* Parse "4G", "512M", "1GiB", "1073741824" into bytes. -1 on a malformed size. */
long long parse_size(const char *s);

/* The n-th value of a "a|b|c" choice list into buf; NULL past the end. */
const char *opt_choice_name(const char *choices, int n, char *buf, size_t len);

#endif
