/* libpath.h -- which file a shared library was loaded from, for the
 * result's provenance: "what ran" for a library without a version call
 * (liburing 2.3, libcgroup 2.0.2) is the file the loader mapped, whose
 * name carries the version ("liburing.so.2.3"). */
#ifndef AOPS_LIBPATH_H
#define AOPS_LIBPATH_H

#include <stddef.h>

/* The real path of the loaded object whose file name starts with `soname`
 * ("liburing.so"). 0, or -1 when none is loaded. */
int libpath_loaded(const char *soname, char *out, size_t len);

#endif
