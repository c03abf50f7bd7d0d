/* search_walk.c -- ripgrep's default directory walk with getdents64.
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

#include "search_walk.h"

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
