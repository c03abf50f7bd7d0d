/* db_cold.c -- --cache cold for MariaDB: a server that keeps its pages in
 * its own buffer pool serves a "cold" run from memory unless it restarts.
 * The local stack's MariaDB (the one scripts/stack started, found as the
 * attribution finds it) is restarted with `scripts/stack restart mariadb`;
 * another server is left alone and the result says so. db.c locates the
 * server and hands it in: this file calls nothing of db.c's. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "db.h"
#include "stack_state.h"
#include "workload.h"

int db_cold_start(const struct config *cfg, int located, const struct wl_server *srv, char *note,
                  size_t len) {
    if (located != 0) {
        snprintf(note, len, "not the local stack's MariaDB (%s)", srv->unavailable);
        return 1;
    }
    char sd[4200], script[4200], log[4400];
    stack_dir(cfg, sd, sizeof sd);
    snprintf(script, sizeof script, "%s/scripts/stack", cfg->harness_dir);
    snprintf(log, sizeof log, "%s/mariadb/restart.log", sd);
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(note, len, "fork: %s", strerror(errno));
        return -1;
    }
    if (pid == 0) {
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL); /* the server must see its signals */
        setenv("AOPS_STACK_DIR", sd, 1);
        /* Root writes this log in the stack dir: a symbolic link, a FIFO
         * or a hard link put there is refused, not followed, and the file
         * is truncated only once it is known to be a plain one of its own. */
        int fd = open(log, O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
        struct stat lst;
        if (fd < 0 || fstat(fd, &lst) != 0 || !S_ISREG(lst.st_mode) || lst.st_nlink != 1 ||
            ftruncate(fd, 0) != 0) {
            fprintf(stderr, "harness: %s: not a plain file of its own (a link?); refused\n", log);
            _exit(2);
        }
        dup2(fd, 1);
        dup2(fd, 2);
        /* The server outlives this run: it must hold nothing of ours (a
         * flock(1) lock the harness runs under would be held for as long). */
        close_range(3, ~0U, 0);
        execl(script, script, "restart", "mariadb", (char *)NULL);
        _exit(127);
    }
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
        snprintf(note, len, "the local stack's MariaDB restarted: its buffer pool starts empty");
        return 0;
    }
    snprintf(note, len, "scripts/stack restart mariadb failed (%s %d; see %s)",
             WIFEXITED(st) ? "exit" : "signal", WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st),
             log);
    return -1;
}
