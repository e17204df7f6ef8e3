/* The listing of /sys/fs/btrfs shared by Btrfs and Btrfs Device: see
 * btrfs_fs.h and btrfs.c. */
#include "btrfs_fs.h"
#include "pl_provider.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void subs_close(pl_bt_subs *t)
{
    for (uint32_t i = 0; i < t->n; i++)
        for (int k = 0; k < PL_BT_SUBFD; k++)
            if (t->v[i].fd[k] >= 0)
                close(t->v[i].fd[k]);
    t->n = 0;
    if (t->dir)
        closedir(t->dir);
    t->dir = NULL;
}

static void fs_close(pl_bt_fs *f)
{
    for (int k = 0; k < PL_BT_NFD; k++) {
        if (f->fd[k] >= 0)
            close(f->fd[k]);
        f->fd[k] = -1;
    }
    subs_close(&f->devs);
    subs_close(&f->info);
}

int pl_bt_open(pl_env *env, void **state)
{
    pl_bt_state *s = calloc(1, sizeof *s);
    if (!s)
        return ENOMEM;
    s->env = pl_env_ref(env);
    pl_names_init(&s->names);
    *state = s;
    return 0;
}

void pl_bt_close(void *state)
{
    pl_bt_state *s = state;
    if (!s)
        return;
    for (uint32_t i = 0; i < s->n; i++) {
        fs_close(&s->v[i]);
        free(s->v[i].devs.v);
        free(s->v[i].info.v);
    }
    free(s->v);
    if (s->dir)
        closedir(s->dir);
    pl_names_free(&s->names);
    pl_env_unref(s->env);
    free(s);
}

/* The fsid directories' names: the kernel's "%pU", 8-4-4-4-12 lower-case hex. */
static int is_fsid(const char *n)
{
    for (int i = 0; i < 36; i++) {
        int dash = i == 8 || i == 13 || i == 18 || i == 23;
        if (dash ? n[i] != '-' : !((n[i] >= '0' && n[i] <= '9') || (n[i] >= 'a' && n[i] <= 'f')))
            return 0;
    }
    return n[36] == '\0';
}

static DIR *open_dir(const pl_env *env, const char *rel)
{
    int fd = pl_open_rel(env, rel);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (fd >= 0 && !d)
        close(fd);
    return d;
}

/* A file that is one unsigned decimal and a newline: 1 with *v. */
int pl_bt_whole_u64(const char *p, uint64_t *v)
{
    if (*p < '0' || *p > '9' || pl_parse_u64(&p, v))
        return 0;
    return p[0] == '\n' ? p[1] == '\0' : p[0] == '\0';
}

/* Brings t in line with the entries of directory rel (opened on first use,
 * then rewound): a new or replaced entry (another inode) gets closed files.
 * 0, ENOMEM, or the errno of opening rel. */
int pl_bt_subs_sync(const pl_env *env, pl_bt_subs *t, const char *rel)
{
    struct dirent *de;
    uint32_t j = 0;
    if (t->dir)
        rewinddir(t->dir);
    else if (!(t->dir = open_dir(env, rel)))
        return errno;
    for (uint32_t i = 0; i < t->n; i++)
        t->v[i].seen = 0;
    while ((de = readdir(t->dir)) != NULL) {
        pl_bt_sub *b = NULL;
        if (de->d_name[0] == '.')
            continue;
        for (uint32_t i = 0; i < t->n && !b; i++)
            if (!strcmp(t->v[i].name, de->d_name))
                b = &t->v[i];
        if (!b) {
            if (t->n == t->cap) {
                uint32_t cap = t->cap ? t->cap * 2 : 4;
                pl_bt_sub *nv = realloc(t->v, cap * sizeof *nv);
                if (!nv)
                    return ENOMEM;
                t->v = nv;
                t->cap = cap;
            }
            b = &t->v[t->n++];
            snprintf(b->name, sizeof b->name, "%s", de->d_name);
            for (int k = 0; k < PL_BT_SUBFD; k++)
                b->fd[k] = -1;
            b->ino = de->d_ino;
        }
        if (b->ino != de->d_ino) {       /* the same name for another device */
            for (int k = 0; k < PL_BT_SUBFD; k++)
                if (b->fd[k] >= 0)
                    close(b->fd[k]);
            for (int k = 0; k < PL_BT_SUBFD; k++)
                b->fd[k] = -1;
            b->ino = de->d_ino;
        }
        b->seen = 1;
    }
    for (uint32_t i = 0; i < t->n; i++) {
        if (t->v[i].seen) {
            t->v[j++] = t->v[i];
            continue;
        }
        for (int k = 0; k < PL_BT_SUBFD; k++)
            if (t->v[i].fd[k] >= 0)
                close(t->v[i].fd[k]);
    }
    t->n = j;
    return 0;
}

static void fs_init(pl_bt_fs *f, const char *fsid, ino_t ino)
{
    memset(f, 0, sizeof *f);
    memcpy(f->fsid, fsid, 37);
    f->ino = ino;
    f->id = (uint32_t)strtoul(fsid, NULL, 16);   /* the first 8 hex digits */
    for (int k = 0; k < PL_BT_NFD; k++)
        f->fd[k] = -1;
}

static int by_fsid(const void *a, const void *b)
{
    return strcmp(((const pl_bt_fs *)a)->fsid, ((const pl_bt_fs *)b)->fsid);
}

/* Finds or adds the record of fsid (directory inode ino); NULL for ENOMEM. */
static pl_bt_fs *fs_take(pl_bt_state *s, const char *fsid, ino_t ino, int *added)
{
    for (uint32_t i = 0; i < s->n; i++) {
        pl_bt_fs *f = &s->v[i];
        if (strcmp(f->fsid, fsid) != 0)
            continue;
        if (f->ino != ino) {             /* mounted again: a new directory */
            pl_bt_subs d = f->devs, n = f->info;
            fs_close(f);
            fs_init(f, fsid, ino);
            f->devs.v = d.v, f->devs.cap = d.cap;
            f->info.v = n.v, f->info.cap = n.cap;
        }
        return f;
    }
    if (s->n == s->cap) {
        uint32_t cap = s->cap ? s->cap * 2 : 4;
        pl_bt_fs *nv = realloc(s->v, cap * sizeof *nv);
        if (!nv)
            return NULL;
        s->v = nv;
        s->cap = cap;
    }
    fs_init(&s->v[s->n], fsid, ino);
    *added = 1;
    return &s->v[s->n++];
}

/* Reads /sys/fs/btrfs into the records (fsid order).  0 or ENOMEM. */
static int sync_fs(pl_bt_state *s)
{
    struct dirent *de;
    uint32_t j = 0;
    int any = 0, added = 0;
    if (s->dir)
        rewinddir(s->dir);
    else
        s->dir = open_dir(s->env, PL_BT_ROOT);     /* the module may be loaded later */
    for (uint32_t i = 0; i < s->n; i++)
        s->v[i].seen = 0;
    while (s->dir && (de = readdir(s->dir)) != NULL) {
        pl_bt_fs *f;
        if (de->d_name[0] == '.')
            continue;
        any = 1;                              /* "features" at least, while loaded */
        if (!is_fsid(de->d_name))
            continue;
        if (!(f = fs_take(s, de->d_name, de->d_ino, &added)))
            return ENOMEM;
        f->seen = 1;
    }
    if (s->dir && !any) {                     /* the module unloaded: open it afresh */
        closedir(s->dir);
        s->dir = NULL;
    }
    for (uint32_t i = 0; i < s->n; i++) {
        if (s->v[i].seen) {
            s->v[j++] = s->v[i];
            continue;
        }
        fs_close(&s->v[i]);
        free(s->v[i].devs.v);
        free(s->v[i].info.v);
    }
    s->n = j;
    if (added)
        qsort(s->v, s->n, sizeof *s->v, by_fsid);
    return 0;
}

/* The label file: the label and '\n', or nothing when there is none. */
static void read_label(pl_bt_state *s, pl_bt_fs *f)
{
    char rel[80] = "";
    if (f->fd[PL_BT_FD_LABEL] < 0)
        snprintf(rel, sizeof rel, PL_BT_ROOT "/%s/label", f->fsid);
    if (pl_read_once(&f->fd[PL_BT_FD_LABEL], s->env, rel, f->label, sizeof f->label) != 0)
        f->label[0] = '\0';
    f->label[strcspn(f->label, "\n")] = '\0';
    pl_name_sanitize(f->label);
}

/* The records and their names: the label, "label fsid" where mounted
 * filesystems share it, the fsid without one.  0 or ENOMEM. */
int pl_bt_name_fs(pl_bt_state *s)
{
    char buf[sizeof s->v->name];
    int e;
    if ((e = sync_fs(s)) != 0)
        return e;
    for (uint32_t i = 0; i < s->n; i++)
        read_label(s, &s->v[i]);
    if (pl_names_begin(&s->names, s->n) != 0)
        return ENOMEM;
    for (uint32_t i = 0; i < s->n; i++) {
        pl_bt_fs *f = &s->v[i];
        int shared = 0;
        for (uint32_t k = 0; k < s->n && f->label[0] && !shared; k++)
            shared = k != i && !strcmp(f->label, s->v[k].label);
        if (!f->label[0])
            snprintf(buf, sizeof buf, "%s", f->fsid);
        else
            snprintf(buf, sizeof buf, shared ? "%s %s" : "%s", f->label, f->fsid);
        if (!pl_names_next(&s->names, buf, strlen(buf), f->name))
            return ENOMEM;
    }
    return 0;
}

static int by_num(const void *a, const void *b)
{
    const char *x = ((const pl_bt_sub *)a)->name, *y = ((const pl_bt_sub *)b)->name;
    size_t lx = strlen(x), ly = strlen(y);
    return lx != ly ? (lx < ly ? -1 : 1) : strcmp(x, y);
}

void pl_bt_subs_sort_num(pl_bt_subs *t)
{
    for (uint32_t i = 1; i < t->n; i++)
        if (by_num(&t->v[i - 1], &t->v[i]) > 0) {
            qsort(t->v, t->n, sizeof *t->v, by_num);
            return;
        }
}
