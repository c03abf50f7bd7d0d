/* search_par.c -- a search on several threads (see search_par.h). */
#include "search_par.h"

#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/walk.h"

/* The JIT stack of each thread's context: as search_match.c sizes its own. */
#define PAR_JIT_STACK_START (32u << 10)
#define PAR_JIT_STACK_MAX (4u << 20)

unsigned search_default_threads(double cpus_limit) {
    cpu_set_t set;
    unsigned n = 1;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        n = (unsigned)CPU_COUNT(&set);
    if (cpus_limit > 0 && ceil(cpus_limit) < n)
        n = (unsigned)ceil(cpus_limit);
    return n < SEARCH_RG_MAX_THREADS ? n : SEARCH_RG_MAX_THREADS;
}

struct psearch;

struct par_thread {
    struct psearch *ps;
    pthread_t th;
    int started;
    struct engine *e;
    struct pwalk_cur cur;
    pcre2_match_data *md;
    pcre2_match_context *mctx;
    pcre2_jit_stack *js;
    struct matcher m; /* the search's pattern with this thread's match data */
    struct engine_totals t;
};

struct psearch {
    unsigned n;
    struct engine *one; /* n == 1: the plain engine */
    struct par_thread *th;
    struct pwalk pw;
    pthread_mutex_t mu, fn_mu;
    pthread_cond_t go, done;
    unsigned gen, finished;
    int quit;
    /* the search being run */
    const struct matcher *m;
    const char *root;
    enum engine_mode mode;
    engine_file_fn fn;
    void *arg;
    int64_t deadline_ns; /* the caller's --op-timeout, for every thread */
};

static void locked_fn(void *arg, const char *path, int64_t count, const char *err) {
    struct psearch *ps = arg;
    pthread_mutex_lock(&ps->fn_mu);
    ps->fn(ps->arg, path, count, err);
    pthread_mutex_unlock(&ps->fn_mu);
}

static int cur_next(void *ctx, int wait, int *dirfd, const char **name, const char **path) {
    return pwalk_next(ctx, wait, dirfd, name, path);
}

static void cur_release(void *ctx, const int *keep, int nkeep) {
    pwalk_release(ctx, keep, nkeep);
}

/* One thread's share of the search under way. */
static void share(struct par_thread *p) {
    struct psearch *ps = p->ps;
    p->m = *ps->m;
    p->m.md = p->md;
    p->m.mctx = p->mctx;
    memset(&p->t, 0, sizeof p->t);
    p->t.deadline_ns = ps->deadline_ns;
    pwalk_cur_reset(&p->cur);
    struct engine_src src = {cur_next, cur_release, &p->cur};
    engine_run(p->e, &p->m, ps->root, ps->mode, ps->fn ? locked_fn : NULL, ps, &p->t, &src);
    pwalk_cur_finish(&p->cur);
}

static void *thread_main(void *arg) {
    struct par_thread *p = arg;
    struct psearch *ps = p->ps;
    unsigned seen = 0;
    for (;;) {
        pthread_mutex_lock(&ps->mu);
        while (ps->gen == seen && !ps->quit)
            pthread_cond_wait(&ps->go, &ps->mu);
        if (ps->quit) {
            pthread_mutex_unlock(&ps->mu);
            return NULL;
        }
        seen = ps->gen;
        pthread_mutex_unlock(&ps->mu);
        share(p);
        pthread_mutex_lock(&ps->mu);
        ps->finished++;
        pthread_cond_signal(&ps->done);
        pthread_mutex_unlock(&ps->mu);
    }
}

void psearch_close(struct psearch *ps) {
    if (!ps)
        return;
    engine_close(ps->one);
    if (ps->th) {
        pthread_mutex_lock(&ps->mu);
        ps->quit = 1;
        pthread_cond_broadcast(&ps->go);
        pthread_mutex_unlock(&ps->mu);
        for (unsigned i = 0; i < ps->n; i++) {
            struct par_thread *p = &ps->th[i];
            if (p->started)
                pthread_join(p->th, NULL);
            engine_close(p->e);
            if (p->cur.buf)
                pwalk_cur_free(&p->cur);
            if (p->js)
                pcre2_jit_stack_free(p->js);
            pcre2_match_context_free(p->mctx);
            pcre2_match_data_free(p->md);
        }
        free(ps->th);
        pwalk_free(&ps->pw);
        pthread_mutex_destroy(&ps->mu);
        pthread_mutex_destroy(&ps->fn_mu);
        pthread_cond_destroy(&ps->go);
        pthread_cond_destroy(&ps->done);
    }
    free(ps);
}

struct psearch *psearch_open(enum reader_kind kind, unsigned threads, const struct matcher *tmpl,
                             char *err, size_t errlen) {
    struct psearch *ps = calloc(1, sizeof *ps);
    if (!ps) {
        snprintf(err, errlen, "out of memory setting up the search");
        return NULL;
    }
    ps->n = threads < 1 ? 1 : threads > SEARCH_MAX_THREADS ? SEARCH_MAX_THREADS : threads;
    if (ps->n == 1) {
        ps->one = engine_open(kind, err, errlen);
        if (!ps->one) {
            free(ps);
            return NULL;
        }
        return ps;
    }
    pthread_mutex_init(&ps->mu, NULL);
    pthread_mutex_init(&ps->fn_mu, NULL);
    pthread_cond_init(&ps->go, NULL);
    pthread_cond_init(&ps->done, NULL);
    ps->th = calloc(ps->n, sizeof *ps->th);
    if (!ps->th || pwalk_init(&ps->pw) < 0)
        goto oom;
    for (unsigned i = 0; i < ps->n; i++) {
        struct par_thread *p = &ps->th[i];
        p->ps = ps;
        p->e = engine_open(kind, err, errlen);
        if (!p->e)
            goto fail;
        p->md = pcre2_match_data_create(1, NULL); /* a match's bounds are all that is read */
        p->mctx = pcre2_match_context_copy(tmpl->mctx);
        p->js = pcre2_jit_stack_create(PAR_JIT_STACK_START, PAR_JIT_STACK_MAX, NULL);
        if (!p->md || !p->mctx || !p->js || pwalk_cur_init(&p->cur, &ps->pw) < 0)
            goto oom;
        pcre2_jit_stack_assign(p->mctx, NULL, p->js);
    }
    /* Thread 0 is the caller's. */
    for (unsigned i = 1; i < ps->n; i++) {
        if (pthread_create(&ps->th[i].th, NULL, thread_main, &ps->th[i]) != 0) {
            snprintf(err, errlen, "cannot start search thread %u of %u", i + 1, ps->n);
            goto fail;
        }
        ps->th[i].started = 1;
    }
    return ps;
oom:
    snprintf(err, errlen, "out of memory setting up %u search threads", ps->n);
fail:
    psearch_close(ps);
    return NULL;
}

unsigned psearch_threads(const struct psearch *ps) {
    return ps->n;
}

const char *psearch_reader_name(const struct psearch *ps) {
    return engine_reader_name(ps->one ? ps->one : ps->th[0].e);
}

int psearch_search(struct psearch *ps, struct matcher *m, const char *root, enum engine_mode mode,
                   engine_file_fn fn, void *arg, struct engine_totals *t) {
    if (ps->one)
        return engine_search(ps->one, m, root, mode, fn, arg, t);
    char err[WALK_PATH_MAX + 128];
    if (pwalk_start(&ps->pw, root, err, sizeof err) < 0) {
        t->errors++;
        if (!t->err[0])
            snprintf(t->err, sizeof t->err, "%.500s", err);
        return -1;
    }
    pthread_mutex_lock(&ps->mu);
    ps->m = m, ps->root = root, ps->mode = mode, ps->fn = fn, ps->arg = arg;
    ps->deadline_ns = t->deadline_ns;
    ps->finished = 0;
    ps->gen++;
    pthread_cond_broadcast(&ps->go);
    pthread_mutex_unlock(&ps->mu);
    share(&ps->th[0]);
    pthread_mutex_lock(&ps->mu);
    while (ps->finished < ps->n - 1)
        pthread_cond_wait(&ps->done, &ps->mu);
    pthread_mutex_unlock(&ps->mu);
    unsigned walk_errors = 0;
    const char *walk_err = NULL;
    for (unsigned i = 0; i < ps->n; i++) {
        const struct engine_totals *x = &ps->th[i].t;
        t->files += x->files, t->bytes += x->bytes, t->lines += x->lines;
        t->matched += x->matched, t->errors += x->errors;
        t->timed_out |= x->timed_out;
        if (!t->err[0] && x->err[0])
            snprintf(t->err, sizeof t->err, "%s", x->err);
        walk_errors += ps->th[i].cur.errors;
        if (ps->th[i].cur.errors && !walk_err)
            walk_err = ps->th[i].cur.err;
    }
    if (walk_errors) {
        t->errors += walk_errors;
        if (!t->err[0])
            snprintf(t->err, sizeof t->err, "%.500s", walk_err);
        if (fn)
            fn(arg, "", -1, walk_err);
    }
    return 0;
}
