/* A C test's own temporary directory (/tmp/<test>.<pid>): names in it,
 * and its removal at the end.  For the tests that write logs. */
#ifndef CT_TMP_H
#define CT_TMP_H

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static char ct_dir[64];

static void ct_tmp_init(const char *test)
{
    snprintf(ct_dir, sizeof ct_dir, "/tmp/%s.%d", test, (int)getpid());
    mkdir(ct_dir, 0700);
}

/* ct_dir/name, in one of four buffers that take turns (four names at once). */
static __attribute__((unused)) const char *tmp(const char *name)
{
    static char p[4][128];
    static int k;
    k = (k + 1) % 4;
    snprintf(p[k], sizeof p[k], "%s/%s", ct_dir, name);
    return p[k];
}

static void ct_tmp_remove(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", ct_dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", ct_dir);
}

#endif
