/* dl_lazy.c -- load a library on its first use (dl_lazy.h). */
#include "dl_lazy.h"

#include <dlfcn.h>
#include <stdio.h>

int dl_lazy_open(const char *soname, const char *needed_by, const char *const *names, size_t n,
                 void **fns) {
    void *dl = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (!dl) {
        fprintf(stderr, "harness: cannot load %s, which %s need: %s\n", soname, needed_by,
                dlerror());
        return 0;
    }
    for (size_t i = 0; i < n; i++)
        if (!(fns[i] = dlsym(dl, names[i]))) {
            fprintf(stderr, "harness: %s has no %s, which %s need\n", soname, names[i], needed_by);
            return 0;
        }
    return 1;
}
