/* What the sample-reading fuzz targets share: the machine with the built-in
 * sets, an exact-size copy of the input, and the check that every value of
 * one sample against another formats the same by the bulk path and value by
 * value (UBSan: no overflow whatever the input says). */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include "perflib.h"
#include "providers.h"

#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

/* The machine, made once; NULL when it cannot be. */
static pl_env *fz_env(void)
{
    static pl_env *env;
    if (!env && pl_register_builtin(NULL, 0) == 0)
        env = pl_env_new(NULL);
    return env;
}

/* A copy of exactly size bytes: reading one byte past it is a reported overflow. */
static uint8_t *fz_copy(const uint8_t *data, size_t size)
{
    uint8_t *buf = malloc(size ? size : 1);
    if (buf)
        memcpy(buf, data, size);
    return buf;
}

/* The input as a file (a memfd made once, rewritten each run): its /proc
 * path, for the readers that open paths; NULL when it cannot be written. */
static __attribute__((unused)) const char *fz_memfd(const uint8_t *data, size_t size)
{
    static int fd = -1;
    static char path[64];
    if (fd < 0) {
        fd = memfd_create("fuzz", 0);
        if (fd < 0)
            return NULL;
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    }
    if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
        return NULL;
    return path;
}

/* Every value of s1 against s0: the bulk path and the one-value path agree. */
static void fz_format_pair(const pl_sample *s1, const pl_sample *s0)
{
    for (uint32_t k = 0; k < s1->nblocks; k++) {
        const pl_block *b = &s1->blocks[k];
        size_t n = (size_t)b->ninst * b->ncounters;
        double *out = malloc((n ? n : 1) * sizeof *out);
        uint8_t *st = malloc(n ? n : 1);
        if (out && st) {
            pl_sample_format_block(s1, b, s0, NULL, out, st);
            for (uint32_t i = 0, q = 0; i < b->ninst; i++)
                for (uint32_t c = 0; c < b->ncounters; c++, q++) {
                    double v;
                    pl_status one = pl_sample_format(s1, b, i, c, s0, NULL, &v);
                    if (one != st[q] || (one == PL_VALID && !(v == out[q] || (v != v && out[q] != out[q]))))
                        abort();
                }
        }
        free(out);
        free(st);
    }
}

#endif
