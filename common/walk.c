/* walk.c -- ripgrep's default directory walk with getdents64.
 *
 * One getdents buffer per directory level, allocated once in walk_init(), so
 * walking the Linux tree inside a measured operation costs syscalls only. An
 * entry whose type the file system does not report is classified with
 * fstatat(AT_SYMLINK_NOFOLLOW), so a symlink is never taken for what it
 * points to. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "walk.h"

#define LEVEL_BUF (32u << 10)

int walk_init(struct walk *w) {
    memset(w, 0, sizeof *w);
    w->bufs = malloc((size_t)WALK_MAX_DEPTH * LEVEL_BUF);
    if (!w->bufs)
        return -1;
    for (int i = 0; i < WALK_MAX_DEPTH; i++)
        w->lv[i].buf = w->bufs + (size_t)i * LEVEL_BUF;
    return 0;
}

void walk_free(struct walk *w) {
    walk_stop(w);
    free(w->bufs);
    w->bufs = NULL;
}

void walk_release(struct walk *w, const int *keep, int nkeep) {
    int n = 0;
    for (int i = 0; i < w->nlate; i++) {
        int k = 0;
        while (k < nkeep && keep[k] != w->late[i])
            k++;
        if (k < nkeep)
            w->late[n++] = w->late[i];
        else
            close(w->late[i]);
    }
    w->nlate = n;
}

/* A directory is done: close it now, or later if a file of it may still be
 * waiting to be opened relative to it. */
static void level_done(struct walk *w, struct walk_level *L) {
    if (L->lent && w->nlate < (int)(sizeof w->late / sizeof w->late[0]))
        w->late[w->nlate++] = L->fd;
    else
        close(L->fd);
}

void walk_stop(struct walk *w) {
    walk_release(w, NULL, 0);
    while (w->depth > 0)
        close(w->lv[--w->depth].fd);
    w->root_is_file = 0;
}

static void walk_error(struct walk *w, const char *path, int e) {
    w->errors++;
    snprintf(w->err, sizeof w->err, "%s: %s", path, strerror(e));
}

int walk_start(struct walk *w, const char *root) {
    walk_stop(w);
    w->errors = 0;
    w->err[0] = 0;
    size_t rl = strlen(root);
    if (rl + 2 >= WALK_PATH_MAX) {
        walk_error(w, root, ENAMETOOLONG);
        return -1;
    }
    struct stat st;
    if (stat(root, &st) < 0) {
        walk_error(w, root, errno);
        return -1;
    }
    memcpy(w->path, root, rl + 1);
    if (!S_ISDIR(st.st_mode)) {
        w->root_is_file = 1; /* an explicit file is searched whatever its name */
        return 0;
    }
    int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        walk_error(w, root, errno);
        return -1;
    }
    /* ripgrep joins with '/', without doubling one the user typed. */
    if (root[rl - 1] != '/')
        w->path[rl++] = '/';
    w->lv[0] = (struct walk_level){.fd = fd, .pathlen = rl, .buf = w->lv[0].buf};
    w->depth = 1;
    return 0;
}

int walk_next(struct walk *w, int *dirfd, const char **name) {
    if (w->root_is_file) {
        w->root_is_file = 0;
        *dirfd = AT_FDCWD;
        *name = w->path;
        return 1;
    }
    while (w->depth > 0) {
        struct walk_level *L = &w->lv[w->depth - 1];
        if (L->pos >= L->len) {
            ssize_t n = getdents64(L->fd, L->buf, LEVEL_BUF);
            if (n <= 0) {
                if (n < 0) {
                    w->path[L->pathlen] = 0;
                    walk_error(w, w->path, errno);
                }
                level_done(w, L);
                w->depth--;
                continue;
            }
            L->pos = 0;
            L->len = (size_t)n;
        }
        struct dirent64 *d = (struct dirent64 *)(L->buf + L->pos);
        L->pos += d->d_reclen;
        const char *nm = d->d_name;
        if (nm[0] == '.') /* hidden, and . and .. */
            continue;
        size_t nl = strlen(nm);
        if (L->pathlen + nl + 2 >= WALK_PATH_MAX) {
            walk_error(w, nm, ENAMETOOLONG);
            continue;
        }
        memcpy(w->path + L->pathlen, nm, nl + 1);
        unsigned type = d->d_type;
        if (type == DT_UNKNOWN) {
            struct stat st;
            if (fstatat(L->fd, nm, &st, AT_SYMLINK_NOFOLLOW) < 0) {
                walk_error(w, w->path, errno);
                continue;
            }
            type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISREG(st.st_mode) ? DT_REG : DT_LNK;
        }
        if (type == DT_REG) {
            L->lent = 1;
            *dirfd = L->fd;
            *name = nm;
            return 1;
        }
        if (type != DT_DIR)
            continue; /* symlinks are not followed; devices, fifos, sockets skipped */
        if (w->depth == WALK_MAX_DEPTH) {
            walk_error(w, w->path, ELOOP);
            continue;
        }
        int fd = openat(L->fd, nm, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0) {
            walk_error(w, w->path, errno);
            continue;
        }
        size_t pl = L->pathlen + nl;
        w->path[pl++] = '/';
        struct walk_level *C = &w->lv[w->depth++];
        C->fd = fd;
        C->lent = 0;
        C->pos = C->len = 0;
        C->pathlen = pl;
    }
    return 0;
}

/* ---- the parallel walk ---- */

#define PWALK_ARENA (1u << 20) /* paths of directories waiting: the Linux tree's all fit */
#define PWALK_DIRS 32768

int pwalk_init(struct pwalk *pw) {
    memset(pw, 0, sizeof *pw);
    pw->arena = malloc(PWALK_ARENA);
    pw->stk = malloc(PWALK_DIRS * sizeof *pw->stk);
    if (!pw->arena || !pw->stk) {
        free(pw->arena);
        free(pw->stk);
        return -1;
    }
    pw->acap = PWALK_ARENA, pw->scap = PWALK_DIRS;
    pthread_mutex_init(&pw->mu, NULL);
    pthread_cond_init(&pw->cv, NULL);
    return 0;
}

void pwalk_free(struct pwalk *pw) {
    if (!pw->arena)
        return;
    pthread_mutex_destroy(&pw->mu);
    pthread_cond_destroy(&pw->cv);
    free(pw->arena);
    free(pw->stk);
    memset(pw, 0, sizeof *pw);
}

/* With the lock held: push a directory's path (and its flag). 0, or -1
 * when the arena or the stack is full. */
static int push_dir(struct pwalk *pw, char flag, const char *path, size_t len) {
    if (pw->nstk == pw->scap || pw->atop + len + 2 > pw->acap)
        return -1;
    pw->stk[pw->nstk++] = (unsigned)pw->atop;
    pw->arena[pw->atop] = flag;
    memcpy(pw->arena + pw->atop + 1, path, len);
    pw->arena[pw->atop + 1 + len] = 0;
    pw->atop += len + 2;
    return 0;
}

int pwalk_start(struct pwalk *pw, const char *root, char *err, size_t errlen) {
    struct stat st;
    size_t rl = strlen(root);
    pw->nstk = pw->atop = 0;
    pw->active = 0;
    pw->done = pw->root_file = 0;
    if (rl + 2 >= WALK_PATH_MAX) {
        snprintf(err, errlen, "%s: %s", root, strerror(ENAMETOOLONG));
        return -1;
    }
    if (stat(root, &st) < 0) {
        snprintf(err, errlen, "%s: %s", root, strerror(errno));
        return -1;
    }
    memcpy(pw->root, root, rl + 1);
    if (!S_ISDIR(st.st_mode)) {
        pw->root_file = 1; /* an explicit file is searched whatever its name */
        return 0;
    }
    /* ripgrep joins with '/', without doubling one the user typed. */
    if (root[rl - 1] != '/')
        pw->root[rl++] = '/', pw->root[rl] = 0;
    push_dir(pw, 'R', pw->root, rl);
    return 0;
}

static void cur_dir_done(struct pwalk_cur *c);

int pwalk_cur_init(struct pwalk_cur *c, struct pwalk *pw) {
    memset(c, 0, sizeof *c);
    c->pw = pw;
    c->fd = -1;
    c->buf = malloc(LEVEL_BUF);
    if (!c->buf || walk_init(&c->own) < 0) {
        free(c->buf);
        c->buf = NULL;
        return -1;
    }
    return 0;
}

void pwalk_cur_free(struct pwalk_cur *c) {
    pwalk_release(c, NULL, 0);
    if (c->fd >= 0)
        close(c->fd);
    walk_free(&c->own);
    free(c->buf);
    c->buf = NULL;
}

void pwalk_cur_reset(struct pwalk_cur *c) {
    c->errors = 0;
    c->err[0] = 0;
}

void pwalk_cur_finish(struct pwalk_cur *c) {
    if (c->in_own) {
        c->errors += c->own.errors;
        walk_stop(&c->own);
        c->in_own = 0;
    }
    if (c->fd >= 0) /* a search that stopped early leaves the others a walk that can end */
        cur_dir_done(c);
    pwalk_release(c, NULL, 0);
}

static void cur_error(struct pwalk_cur *c, const char *path, int e) {
    c->errors++;
    snprintf(c->err, sizeof c->err, "%s: %s", path, strerror(e));
}

void pwalk_release(struct pwalk_cur *c, const int *keep, int nkeep) {
    int n = 0;
    for (int i = 0; i < c->nlate; i++) {
        int k = 0;
        while (k < nkeep && keep[k] != c->late[i])
            k++;
        if (k < nkeep)
            c->late[n++] = c->late[i];
        else
            close(c->late[i]);
    }
    c->nlate = n;
    walk_release(&c->own, keep, nkeep);
}

/* The directory in hand is read: close it now, or later if a file of it
 * may still be waiting to be opened; the walk may be over. */
static void cur_dir_done(struct pwalk_cur *c) {
    if (c->lent && c->nlate < (int)(sizeof c->late / sizeof c->late[0]))
        c->late[c->nlate++] = c->fd;
    else
        close(c->fd);
    c->fd = -1;
    struct pwalk *pw = c->pw;
    pthread_mutex_lock(&pw->mu);
    pw->active--;
    if (pw->nstk || !pw->active)
        pthread_cond_broadcast(&pw->cv);
    pthread_mutex_unlock(&pw->mu);
}

/* Walk the subdirectory at c->path alone (the shared stack is full). */
static void cur_walk_own(struct pwalk_cur *c) {
    /* walk_start closes the last own walk's finished directories, which
     * opens in flight may still need: they become this thread's to release. */
    for (int i = 0; i < c->own.nlate; i++) {
        if (c->nlate < (int)(sizeof c->late / sizeof c->late[0]))
            c->late[c->nlate++] = c->own.late[i];
        else
            close(c->own.late[i]);
    }
    c->own.nlate = 0;
    if (walk_start(&c->own, c->path) < 0) {
        c->errors++;
        snprintf(c->err, sizeof c->err, "%s", c->own.err);
    } else
        c->in_own = 1;
}

int pwalk_next(struct pwalk_cur *c, int wait, int *dirfd, const char **name, const char **path) {
    struct pwalk *pw = c->pw;
    for (;;) {
        if (c->in_own) {
            if (walk_next(&c->own, dirfd, name)) {
                *path = c->own.path;
                return 1;
            }
            c->errors += c->own.errors;
            if (c->own.errors)
                snprintf(c->err, sizeof c->err, "%s", c->own.err);
            c->own.errors = 0;
            c->in_own = 0;
        }
        if (c->fd >= 0) {
            if (c->pos >= c->len) {
                ssize_t n = getdents64(c->fd, c->buf, LEVEL_BUF);
                if (n <= 0) {
                    if (n < 0) {
                        c->path[c->pathlen] = 0;
                        cur_error(c, c->path, errno);
                    }
                    cur_dir_done(c);
                    continue;
                }
                c->pos = 0, c->len = (size_t)n;
            }
            struct dirent64 *d = (struct dirent64 *)(c->buf + c->pos);
            c->pos += d->d_reclen;
            const char *nm = d->d_name;
            if (nm[0] == '.') /* hidden, and . and .. */
                continue;
            size_t nl = strlen(nm);
            if (c->pathlen + nl + 2 >= WALK_PATH_MAX) {
                cur_error(c, nm, ENAMETOOLONG);
                continue;
            }
            memcpy(c->path + c->pathlen, nm, nl + 1);
            unsigned type = d->d_type;
            if (type == DT_UNKNOWN) {
                struct stat st;
                if (fstatat(c->fd, nm, &st, AT_SYMLINK_NOFOLLOW) < 0) {
                    cur_error(c, c->path, errno);
                    continue;
                }
                type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISREG(st.st_mode) ? DT_REG : DT_LNK;
            }
            if (type == DT_REG) {
                c->lent = 1;
                *dirfd = c->fd;
                *name = nm;
                *path = c->path;
                return 1;
            }
            if (type != DT_DIR)
                continue; /* symlinks are not followed; devices, fifos, sockets skipped */
            size_t pl = c->pathlen + nl;
            c->path[pl] = '/', c->path[pl + 1] = 0;
            pthread_mutex_lock(&pw->mu);
            int pushed = push_dir(pw, 'D', c->path, pl + 1);
            if (pushed == 0)
                pthread_cond_signal(&pw->cv);
            pthread_mutex_unlock(&pw->mu);
            if (pushed < 0) {
                c->path[pl] = 0;
                cur_walk_own(c);
            }
            continue;
        }
        /* Nothing in hand: take a directory, or wait for one while another
         * thread may still push some. */
        pthread_mutex_lock(&pw->mu);
        if (pw->root_file) {
            pw->root_file = 0;
            pw->done = 1;
            pthread_cond_broadcast(&pw->cv);
            pthread_mutex_unlock(&pw->mu);
            snprintf(c->path, sizeof c->path, "%s", pw->root);
            *dirfd = AT_FDCWD;
            *name = *path = c->path;
            return 1;
        }
        while (!pw->nstk && pw->active && !pw->done) {
            if (!wait) {
                pthread_mutex_unlock(&pw->mu);
                return -1;
            }
            pthread_cond_wait(&pw->cv, &pw->mu);
        }
        if (!pw->nstk) {
            pw->done = 1;
            pthread_cond_broadcast(&pw->cv);
            pthread_mutex_unlock(&pw->mu);
            return 0;
        }
        size_t off = pw->stk[--pw->nstk];
        char flag = pw->arena[off];
        size_t len = strlen(pw->arena + off + 1);
        memcpy(c->path, pw->arena + off + 1, len + 1);
        pw->atop = off;
        pw->active++;
        pthread_mutex_unlock(&pw->mu);
        c->pathlen = len;
        /* Below the root a directory is never reached through a symlink. */
        c->fd = open(c->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | (flag == 'D' ? O_NOFOLLOW : 0));
        c->lent = 0;
        c->pos = c->len = 0;
        if (c->fd < 0) {
            c->path[len && c->path[len - 1] == '/' ? len - 1 : len] = 0;
            cur_error(c, c->path, errno);
            pthread_mutex_lock(&pw->mu);
            pw->active--;
            if (pw->nstk || !pw->active)
                pthread_cond_broadcast(&pw->cv);
            pthread_mutex_unlock(&pw->mu);
        }
    }
}
