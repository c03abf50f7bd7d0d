/* docker.h -- a small client of the Docker Engine API on its Unix socket.
 *
 * libcurl speaks HTTP over the socket (CURLOPT_UNIX_SOCKET_PATH): no docker
 * process per container, no shell. Requests are synchronous and answer with
 * the HTTP status and the parsed JSON body; an engine that does not answer,
 * or answers with an error, gives one line a person can act on ("cannot
 * reach the Docker engine at /var/run/docker.sock: ... (is dockerd
 * running? scripts/docker up)"). API version 1.41 (Docker 20.10) is asked
 * for explicitly, so a newer engine answers in the shape this client reads. */
#ifndef AOPS_DOCKER_H
#define AOPS_DOCKER_H

#include <jansson.h>
#include <stddef.h>

struct docker;

/* Connect to the engine at socket_path and check it answers (/version).
 * NULL with err set. */
struct docker *docker_open(const char *socket_path, char *err, size_t errlen);
void docker_close(struct docker *d);

/* The engine's version ("20.10.24+dfsg1"), as /version said it. */
const char *docker_version(const struct docker *d);

/* One request: method, path below /v1.41 ("/containers/json?all=1"), an
 * optional JSON body. Returns the HTTP status (0 when the engine could not
 * be reached, err set), *out the parsed body when it is JSON (caller
 * decrefs), else NULL. */
long docker_request(struct docker *d, const char *method, const char *path, const json_t *body,
                    json_t **out, char *err, size_t errlen);

/* Create a container from spec (the Engine API's create body) named name;
 * its id into id (65 bytes). 0, or -1 with err (the engine's message). */
int docker_create(struct docker *d, const char *name, const json_t *spec, char *id, char *err,
                  size_t errlen);
int docker_start(struct docker *d, const char *id, char *err, size_t errlen);
/* SIGKILL (or sig) to a running container; a stopped one is not an error. */
int docker_kill(struct docker *d, const char *id, const char *sig, char *err, size_t errlen);
/* Remove, forcibly; a container already gone is not an error. */
int docker_remove(struct docker *d, const char *id, char *err, size_t errlen);
/* GET /containers/<id>/json. NULL with err. */
json_t *docker_inspect(struct docker *d, const char *id, char *err, size_t errlen);
/* Containers (running or not) carrying label (e.g. "aops.run=1234@host"). */
json_t *docker_list(struct docker *d, const char *label, char *err, size_t errlen);
/* Does the image exist here? 1, 0, or -1 with err. */
int docker_image_exists(struct docker *d, const char *image, char *err, size_t errlen);

#endif
