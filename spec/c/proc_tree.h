/* Temporary /proc trees of the Process tests: files written in place (the
 * provider keeps them open, as it keeps /proc files), parents made. */
#ifndef PROC_TREE_H
#define PROC_TREE_H

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* dir/rel holds text afterwards: 1, or 0 when it could not be written. */
static inline int put_inplace(const char *dir, const char *rel, const char *text)
{
    char path[512], *p;
    FILE *f;
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    for (p = path + strlen(dir) + 1; (p = strchr(p, '/')) != NULL; p++) {
        *p = '\0';
        mkdir(path, 0755);
        *p = '/';
    }
    /* rewrite in place: the provider keeps the file open */
    f = fopen(path, "r+");
    if (!f)
        f = fopen(path, "w");
    if (!f)
        return 0;
    fputs(text, f);
    fflush(f);
    if (ftruncate(fileno(f), (off_t)strlen(text)) != 0) {
        fclose(f);
        return 0;
    }
    return fclose(f) == 0;
}

#endif
