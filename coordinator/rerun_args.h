/* rerun_args.h -- the options `harness rerun` replays from a result.json
 * that anyone may have written (see rerun_args.c). */
#ifndef AOPS_RERUN_ARGS_H
#define AOPS_RERUN_ARGS_H

#include <jansson.h>
#include <stddef.h>

struct rerun_args {
    char **argv; /* the job's options, each malloc'd; argc of them */
    int argc;
    char **dropped; /* one line per option left out, each malloc'd */
    int ndropped;
};

/* From result's provenance.invocation (argv and environment_options): only
 * the options that define the job. 0 with ra filled (free with
 * rerun_args_free), or -1 with err set to one line and ra empty: a value
 * that is not a string, an option this table does not know, an operand, or
 * a flag given a value. Reads nothing but result; prints nothing. */
int rerun_args_from_result(const json_t *result, struct rerun_args *ra, char *err, size_t errlen);
void rerun_args_free(struct rerun_args *ra);

#endif
