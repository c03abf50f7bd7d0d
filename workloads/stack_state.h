/* stack_state.h -- what scripts/stack records about the servers it started
 * (each in a cgroup of its own: <stack dir>/<server>/cgroup, perf_cgroup and
 * a pid file), read by the workloads that use those servers so the run can
 * attribute the servers' CPU time. Read only: nothing here changes the
 * stack's files. */
#ifndef AOPS_STACK_STATE_H
#define AOPS_STACK_STATE_H

#include <stddef.h>

#include "../common/config.h"
#include "workload.h"

/* $AOPS_STACK_DIR, else the directory of the credentials file
 * ($AOPS_CREDENTIALS, else <repository>/.local/stack). */
void stack_dir(const struct config *cfg, char *out, size_t len);

/* 1 when host names this machine: a loopback name or address, this
 * machine's host name, or one of its interface addresses. */
int host_is_local(const char *host);

/* Find `server` ("minio") from the stack's state: its CPU cgroup and perf
 * cgroup, else the live pid in <server dir>/<pidfile>. host and port are
 * where this run reaches the server (host NULL: a local socket; port 0:
 * unknown), so a remote server is "not on this host" and a stack serving
 * another port is not taken for it. 0, or -1 with out->unavailable set. */
int stack_server_locate(const struct config *cfg, const char *server, const char *pidfile,
                        const char *host, unsigned port, struct wl_server *out);

#endif
