/* Application providers (appseg.h): the discoverer that finds segments and
 * registers their countersets, and the provider ops that read them. */
#include "pl_provider.h"
#include "appseg.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define MAX_DIRS 4
#define MAX_SEGMENT ((size_t)256 << 20)
#define NREFUSALS 16

/* A set learned from a segment: registered once, bound to the segment of
 * the provider that publishes it now. */
typedef struct aset {
    pl_appseg_def *d;
    char path[PATH_MAX];
    uint32_t pid;
    uint64_t start;
    uint64_t bind;           /* bumped at each rebinding */
} aset;

typedef struct dirstate {
    char path[PATH_MAX];
    struct timespec mtime, scanned;
    dev_t dev;
    ino_t ino;
} dirstate;

/* An open segment. */
typedef struct seg {
    int fd, pidfd;
    uint32_t pid;
    uint64_t start;
    uid_t owner;
    dev_t dev;               /* the file open, to tell whether its path still names it */
    ino_t ino;
    uint8_t *buf;
    size_t cap, len;
    const uint8_t *map;      /* a sealed memfd segment, mapped: read in place */
    size_t maplen;
    pl_appseg_cursor cur;
    int64_t alive_until;     /* CLOCK_MONOTONIC ns: seen running, no need to ask before then */
} seg;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static aset **sets;
static uint32_t nsets, capsets;
static dirstate dirs[MAX_DIRS];
static uint32_t ndirs;
#define TEXT_MAX (PATH_MAX * 2 + 512)
static char refusals[NREFUSALS][TEXT_MAX];
static uint32_t nrefusals;

static void refuse(const char *text)
{
    for (uint32_t i = 0; i < nrefusals && i < NREFUSALS; i++)
        if (strcmp(refusals[i], text) == 0)
            return;                      /* a rescan repeats itself */
    snprintf(refusals[nrefusals++ % NREFUSALS], sizeof refusals[0], "%s", text);
}

const char *pl_appseg_refusal(uint32_t i, char *buf, size_t size)
{
    const char *r = NULL;
    pthread_mutex_lock(&lock);
    if (i < nrefusals && i < NREFUSALS) {
        snprintf(buf, size, "%s", refusals[(nrefusals - 1 - i) % NREFUSALS]);
        r = buf;
    }
    pthread_mutex_unlock(&lock);
    return r;
}

/* ---- segments: trust, liveness, reading ---------------------------------------- */

/* Start time (/proc/<pid>/stat field 22) and owner of a process: 0 or errno. */
static int proc_start(uint32_t pid, uint64_t *start, uid_t *uid)
{
    char path[64], buf[1024], *p;
    struct stat st;
    unsigned long long v = 0;
    snprintf(path, sizeof path, "/proc/%u/stat", (unsigned)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return errno;
    ssize_t n = fstat(fd, &st) == 0 ? read(fd, buf, sizeof buf - 1) : -1;
    close(fd);
    if (n <= 0)
        return ESRCH;
    buf[n] = '\0';
    p = strrchr(buf, ')');
    for (int f = 2; p && f < 22; f++)
        p = strchr(p + 1, ' ');
    if (!p || sscanf(p + 1, "%llu", &v) != 1)
        return ESRCH;
    *start = v;
    *uid = st.st_uid;
    return 0;
}

static void seg_close(seg *s)
{
    if (s->fd >= 0)
        close(s->fd);
    if (s->pidfd >= 0)
        close(s->pidfd);
    s->fd = s->pidfd = -1;
    if (s->map)
        munmap((void *)(uintptr_t)s->map, s->maplen);
    s->map = NULL;
    s->maplen = 0;
    s->alive_until = 0;
    pl_appseg_cursor_free(&s->cur);
}

/* A sealed segment mapped whole, its bytes in use included: 0 or errno.
 * The seal guarantees the memfd never shrinks, so the mapping never faults. */
static int seg_map(seg *s)
{
    struct stat st;
    uint64_t used = s->map ? __atomic_load_n((const uint64_t *)(const void *)(s->map + 8), __ATOMIC_ACQUIRE) : 0;
    if (s->map && used <= s->maplen)
        return 0;
    if (fstat(s->fd, &st) != 0)
        return errno;
    size_t len = (size_t)st.st_size < MAX_SEGMENT ? (size_t)st.st_size : MAX_SEGMENT;
    if (len < APPSEG_HDR_SIZE)
        return EPROTO;
    void *m = mmap(NULL, len, PROT_READ, MAP_SHARED, s->fd, 0);
    if (m == MAP_FAILED)
        return errno;
    if (s->map)
        munmap((void *)(uintptr_t)s->map, s->maplen);
    s->map = m;
    s->maplen = len;
    return 0;
}

/* The path's file: a segment file (never through a symbolic link), or the
 * memfd a link of the form /proc/<pid>/fd/<n> names.  fd or -1 with errno. */
static int seg_open_path(seg *s, const char *path, char *msg, size_t size)
{
    struct stat lst;
    char target[64], again[64];
    unsigned pid, n;
    if (lstat(path, &lst) != 0)
        return -1;
    if (!S_ISLNK(lst.st_mode))
        return open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    ssize_t k = readlink(path, target, sizeof target - 1);
    if (k > 0 && (size_t)k < sizeof target - 1) {
        target[k] = '\0';
        if (sscanf(target, "/proc/%u/fd/%u", &pid, &n) == 2 &&
            (size_t)snprintf(again, sizeof again, "/proc/%u/fd/%u", pid, n) < sizeof again && strcmp(again, target) == 0) {
            int fd = open(target, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
            s->pid = pid;
            if (fd < 0 && errno == ENOENT)
                errno = ESRCH;           /* the link is there, its provider's process is not */
            return fd;
        }
    }
    pl_say(0, msg, size, "segment %s refused: a symbolic link, and not to a provider's memfd (/proc/<pid>/fd/<n>)", path);
    errno = EACCES;
    return -1;
}

/* The whole file into s->buf with pread: a file that shrinks meanwhile
 * gives fewer bytes, never a fault.  The buffer only grows. */
static int seg_read(seg *s, char *msg, size_t size)
{
    struct stat st;
    size_t want, got = 0;
    if (fstat(s->fd, &st) != 0)
        return errno;
    if (s->map) {                        /* a copy of the mapping: it cannot fault */
        int e = seg_map(s);
        if (e)
            return e;
        if (s->maplen > s->cap) {
            uint8_t *b = realloc(s->buf, s->maplen);
            if (!b)
                return ENOMEM;
            s->buf = b;
            s->cap = s->maplen;
        }
        memcpy(s->buf, s->map, s->maplen);
        s->len = s->maplen;
        return pl_appseg_check_header(s->buf, s->len, &(size_t){ 0 }, msg, size);
    }
    want = (size_t)st.st_size;
    if (want > MAX_SEGMENT)
        want = MAX_SEGMENT;
    if (s->cap >= APPSEG_HDR_SIZE && want >= APPSEG_HDR_SIZE &&
        pread(s->fd, s->buf, APPSEG_HDR_SIZE, 0) == APPSEG_HDR_SIZE) {
        uint64_t sz;                     /* the bytes in use, not the file's room to grow */
        memcpy(&sz, s->buf + 8, sizeof sz);
        if (sz >= APPSEG_HDR_SIZE && sz < want)
            want = (size_t)sz;
    }
    if (want > s->cap) {
        uint8_t *b = realloc(s->buf, want);
        if (!b)
            return ENOMEM;
        s->buf = b;
        s->cap = want;
    }
    while (got < want) {
        ssize_t n = pread(s->fd, s->buf + got, want - got, (off_t)got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    s->len = got;
    size_t used;
    return pl_appseg_check_header(s->buf, s->len, &used, msg, size);
}

/* 1 while the segment's provider runs: its pidfd not yet readable, or
 * without pidfds, its pid still has its start time. */
static int seg_alive(const seg *s)
{
    uint64_t t;
    uid_t u;
    if (s->pidfd >= 0) {
        struct pollfd p = { s->pidfd, POLLIN, 0 };
        return poll(&p, 1, 0) == 0;
    }
    return proc_start(s->pid, &t, &u) == 0 && t == s->start;
}

/* seg_alive for a collect: asked of the kernel at most once a millisecond,
 * so that a reader in a tight loop does not pay a system call per read (a
 * provider that exits is noticed within that millisecond; what was read
 * before is what it had written). */
static int seg_alive_now(seg *s)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    int64_t ns = (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
    if (s->alive_until > ns)
        return 1;
    if (!seg_alive(s))
        return 0;
    s->alive_until = ns + 1000000;
    return 1;
}

/* Opens path under the trust policy and reads it: 0, EACCES (refused, with
 * msg), EPROTO (bad header, msg) or errno.  s->pidfd < 0 and !seg_alive
 * when the provider has exited. */
static int seg_open(seg *s, const char *path, char *msg, size_t size)
{
    struct stat st;
    appseg_hdr h;
    uint64_t start = 0;
    uid_t puid = 0;
    int e;
    seg_close(s);
    msg[0] = '\0';
    s->fd = seg_open_path(s, path, msg, size);
    if (s->fd < 0 && errno == EACCES && !msg[0])
        pl_say(0, msg, size, "segment %s refused: its memory cannot be opened by uid %u", path, (unsigned)geteuid());
    if (s->fd < 0)
        return errno;
    if (fstat(s->fd, &st) != 0 || !S_ISREG(st.st_mode) || (st.st_uid != geteuid() && st.st_uid != 0) ||
        (st.st_mode & 022)) {
        pl_say(0, msg, size, "segment %s refused: not a regular file owned by uid %u or root and writable by it alone",
            path, (unsigned)geteuid());
        seg_close(s);
        return EACCES;
    }
    s->owner = st.st_uid;
    s->dev = st.st_dev, s->ino = st.st_ino;
    int seals = fcntl(s->fd, F_GET_SEALS);
    if (seals >= 0 && (seals & F_SEAL_SHRINK) && (e = seg_map(s)) != 0) {
        seg_close(s);
        return e == EPROTO ? pl_say(EPROTO, msg, size, "segment %s is shorter than its header", path) : e;
    }
    if ((e = seg_read(s, msg, size)) != 0) {
        seg_close(s);
        return e;
    }
    memcpy(&h, s->buf, sizeof h);
    if (h.flags & APPSEG_FLAG_STOPPED) {
        seg_close(s);                    /* stopped, its link not yet removed */
        return ENOENT;
    }
    s->pid = h.pid;
    s->start = h.start_time;
    s->pidfd = (int)syscall(SYS_pidfd_open, (pid_t)h.pid, 0);
    e = proc_start(h.pid, &start, &puid);
    if (!e && start == h.start_time && puid != s->owner && s->owner != 0) {
        pl_say(0, msg, size, "segment %s refused: its pid %u runs as uid %u, the file is uid %u's", path,
            (unsigned)h.pid, (unsigned)puid, (unsigned)s->owner);
        seg_close(s);
        return EACCES;
    }
    if ((e || start != h.start_time) && s->pidfd >= 0) {
        close(s->pidfd);                 /* the pid is gone, or another process's now */
        s->pidfd = -1;
        s->start = ~h.start_time;        /* so that seg_alive says no without pidfds too */
    }
    return 0;
}

/* ---- discovery ----------------------------------------------------------------------- */

static const pl_provider_ops appseg_ops;

static aset *find_aset(const appseg_guid *g)
{
    for (uint32_t i = 0; i < nsets; i++)
        if (memcmp(&sets[i]->d->cs.guid, g, sizeof *g) == 0)
            return sets[i];
    return NULL;
}

/* Whether the segment a is bound to still has a running provider. */
static int bound_alive(const aset *a)
{
    uint64_t t;
    uid_t u;
    return access(a->path, F_OK) == 0 && proc_start(a->pid, &t, &u) == 0 && t == a->start;
}

static void bind_to(aset *a, const char *path, const seg *s)
{
    snprintf(a->path, sizeof a->path, "%s", path);
    a->pid = s->pid;
    a->start = s->start;
    a->bind++;
}

static void learn_new(const appseg_set *r, const char *path, const seg *s)
{
    char msg[PATH_MAX + 300], text[TEXT_MAX];
    aset *a = calloc(1, sizeof *a);
    pl_appseg_def *d = pl_appseg_def_new(r);
    if (a && d && nsets == capsets) {
        uint32_t nc = capsets ? capsets * 2 : 16;
        aset **n = realloc(sets, nc * sizeof *n);
        if (n)
            sets = n, capsets = nc;
    }
    if (!a || !d || nsets == capsets) {
        free(a);
        pl_appseg_def_free(d);
        return;
    }
    d->cs.ops = &appseg_ops;
    d->cs.provider_data = a;
    a->d = d;
    if (pl_register_counterset(&d->cs, NULL, msg, sizeof msg) != 0) {
        snprintf(text, sizeof text, "%s: %s", path, msg);
        refuse(text);
        pl_appseg_def_free(d);
        free(a);
        return;
    }
    bind_to(a, path, s);
    sets[nsets++] = a;                   /* registered: lives as long as the process */
}

static void learn_set(const seg *s, size_t off, const char *path)
{
    const appseg_set *r = (const appseg_set *)(const void *)(s->buf + off);   /* 8-aligned in a malloc'd buffer */
    aset *a = find_aset(&r->guid);
    char text[TEXT_MAX];
    size_t used;
    if (!a) {
        learn_new(r, path, s);
        return;
    }
    if (strcmp(a->path, path) == 0) {
        a->pid = s->pid;                 /* the same file, perhaps a new process's (pid reuse) */
        a->start = s->start;
        return;
    }
    pl_appseg_check_header(s->buf, s->len, &used, NULL, 0);
    if (bound_alive(a)) {
        snprintf(text, sizeof text, "%s: counterset '%s' refused: pid %u publishes it already (%s)", path,
                 a->d->cs.name, (unsigned)a->pid, a->path);
        refuse(text);
    } else if (!pl_appseg_same_set(s->buf, used, off, a->d)) {
        snprintf(text, sizeof text, "%s: counterset '%s' refused: its definition differs from the one registered",
                 path, a->d->cs.name);
        refuse(text);
    } else {
        bind_to(a, path, s);             /* the old provider exited: this one takes over */
    }
}

static void scan_file(const char *path)
{
    seg s = { .fd = -1, .pidfd = -1 };
    char msg[PATH_MAX + 300];
    size_t used, off;
    int e = seg_open(&s, path, msg, sizeof msg);
    if (e == EACCES || e == EPROTO)
        refuse(msg);
    if (e || !seg_alive(&s)) {           /* an exited provider's sets are not learned */
        seg_close(&s);
        free(s.buf);
        return;
    }
    pl_appseg_check_header(s.buf, s.len, &used, NULL, 0);
    for (off = APPSEG_HDR_SIZE; off + sizeof(appseg_rec) + 8 <= used;) {
        appseg_rec r;
        memcpy(&r, s.buf + off, sizeof r);
        if (r.size % 8 || r.size < sizeof r + 8 || r.size > used - off)
            break;
        if (r.kind == APPSEG_KIND_SET) {
            if (pl_appseg_check_set(s.buf, used, off, msg, sizeof msg) == 0)
                learn_set(&s, off, path);
            else
                refuse(msg);
        }
        off += r.size;
    }
    seg_close(&s);
    free(s.buf);
}

/* The directories to scan: $PERFLIB_APPSEG_DIR (':'-separated) or the
 * defaults; a directory keeps its state while the list stays the same. */
static void dir_list(void)
{
    char want[MAX_DIRS][PATH_MAX];
    uint32_t n = 0;
    const char *env = getenv("PERFLIB_APPSEG_DIR"), *x = getenv("XDG_RUNTIME_DIR");
    if (env && *env) {
        for (const char *p = env; *p && n < MAX_DIRS;) {
            size_t k = strcspn(p, ":");
            if (k && k < PATH_MAX)
                snprintf(want[n++], PATH_MAX, "%.*s", (int)k, p);
            p += k + (p[k] == ':');
        }
    } else {
        if (x && *x == '/' && strlen(x) < PATH_MAX - 16)
            snprintf(want[n++], PATH_MAX, "%s/perflib", x);
        snprintf(want[n++], PATH_MAX, "/dev/shm/perflib-%u", (unsigned)geteuid());
        snprintf(want[n++], PATH_MAX, "/run/perflib");
    }
    int same = n == ndirs;
    for (uint32_t i = 0; same && i < n; i++)
        same = strcmp(want[i], dirs[i].path) == 0;
    if (same)
        return;
    memset(dirs, 0, sizeof dirs);
    for (uint32_t i = 0; i < n; i++)
        memcpy(dirs[i].path, want[i], PATH_MAX);
    ndirs = n;
}

static int ts_eq(struct timespec a, struct timespec b) { return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec; }

/* Whether a directory needs a scan: it changed since the last one, or that
 * scan came within a coarse clock tick of a change it may have missed. */
static int dir_changed(dirstate *d)
{
    struct stat st;
    struct timespec now;
    if (stat(d->path, &st) != 0 || !S_ISDIR(st.st_mode))
        return 0;
    clock_gettime(CLOCK_REALTIME, &now);
    int64_t age_ms = (int64_t)(d->scanned.tv_sec - st.st_mtim.tv_sec) * 1000 +
                     (d->scanned.tv_nsec - st.st_mtim.tv_nsec) / 1000000;
    if (ts_eq(st.st_mtim, d->mtime) && st.st_ino == d->ino && st.st_dev == d->dev && age_ms > 50)
        return 0;
    d->mtime = st.st_mtim;
    d->ino = st.st_ino;
    d->dev = st.st_dev;
    d->scanned = now;
    return 1;
}

static void scan_dir(const char *dir)
{
    DIR *dp = opendir(dir);
    struct dirent *de;
    char path[PATH_MAX];
    size_t sl = strlen(APPSEG_SUFFIX);
    if (!dp)
        return;
    while ((de = readdir(dp)) != NULL) {
        size_t n = strlen(de->d_name);
        if (de->d_name[0] == '.' || n <= sl || strcmp(de->d_name + n - sl, APPSEG_SUFFIX) != 0)
            continue;
        if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, de->d_name) < sizeof path)
            scan_file(path);
    }
    closedir(dp);
}

static void discover(void)
{
    pthread_mutex_lock(&lock);
    dir_list();
    for (uint32_t i = 0; i < ndirs; i++)
        if (dir_changed(&dirs[i]))
            scan_dir(dirs[i].path);
    pthread_mutex_unlock(&lock);
}

int pl_appseg_enable(void)
{
    return pl_register_discoverer(discover);
}

/* ---- provider ops ------------------------------------------------------------------------ */

typedef struct astate {
    aset *a;
    seg s;
    uint64_t bind;           /* the binding s was opened for; 0: none yet */
    char path[PATH_MAX];
    char msg[PATH_MAX + 512];  /* the snapshot's err_msg until the next collect */
} astate;

static int as_open_set(pl_env *env, const pl_counterset_def *cs, void **state)
{
    astate *st = calloc(1, sizeof *st);
    (void)env;
    if (!st)
        return ENOMEM;
    st->a = cs->provider_data;
    st->s.fd = st->s.pidfd = -1;
    *state = st;
    return 0;
}

static void as_close(void *state)
{
    astate *st = state;
    if (!st)
        return;
    seg_close(&st->s);
    free(st->s.buf);
    free(st);
}

/* By-reference counters: the variables in the provider's memory, read with
 * process_vm_readv; a value that cannot be read is absent. */
static void read_refs(const astate *st, pl_snapshot *snap, const uint8_t *wanted)
{
    const pl_appseg_def *d = st->a->d;
    for (uint32_t i = 0; i < snap->ninst; i++)
        for (uint32_t c = 0; c < d->cs.ncounters; c++) {
            size_t k = (size_t)i * d->cs.ncounters + c;
            uint64_t v8 = 0;
            uint32_t v4 = 0;
            if (!d->ref[c] || (wanted && !wanted[c]))
                continue;
            int large = d->counters[c].size == 8;
            struct iovec local = { large ? (void *)&v8 : (void *)&v4, large ? 8u : 4u };
            struct iovec remote = { (void *)(uintptr_t)snap->values[k], local.iov_len };
            if (process_vm_readv((pid_t)st->s.pid, &local, 1, &remote, 1, 0) == (ssize_t)local.iov_len)
                snap->values[k] = large ? v8 : v4;
            else
                snap->have[k] = 0;
        }
}

/* The segment of the current binding, open: 0 or an errno with st->msg. */
static int as_bind(astate *st)
{
    aset *a = st->a;
    uint64_t bind;
    int e;
    pthread_mutex_lock(&lock);
    bind = a->bind;
    if (bind != st->bind)
        memcpy(st->path, a->path, sizeof st->path);
    pthread_mutex_unlock(&lock);
    /* PerfStopProvider removes the file while its process may live on: the
     * file kept open is then the stopped provider's, no longer its set's */
    struct stat now;
    if (bind == st->bind && st->s.fd >= 0 && st->s.map) {
        /* a mapped memfd: PerfStopProvider says so in its header, no stat needed */
        if (!(__atomic_load_n((const uint32_t *)(const void *)(st->s.map + offsetof(appseg_hdr, flags)),
                              __ATOMIC_ACQUIRE) & APPSEG_FLAG_STOPPED))
            return 0;
        e = ENOENT;
    } else if (bind == st->bind && st->s.fd >= 0 && stat(st->path, &now) == 0 && now.st_dev == st->s.dev &&
               now.st_ino == st->s.ino) {
        return 0;
    } else {
        e = seg_open(&st->s, st->path, st->msg, sizeof st->msg);
    }
    if (e == ENOENT)
        pl_say(0, st->msg, sizeof st->msg, "the provider of '%s' has stopped (%s)", a->d->cs.name, st->path);
    else if (e == ESRCH)
        pl_say(0, st->msg, sizeof st->msg, "the provider of '%s' (pid %u) has exited; its segment %s remains",
               a->d->cs.name, (unsigned)st->s.pid, st->path);
    else if (e && e != EACCES && e != EPROTO)
        pl_say(0, st->msg, sizeof st->msg, "%s: %s", st->path, strerror(e));
    st->bind = e ? 0 : bind;
    return e;
}

/* The bound segment, open, with a running provider: 0, or an errno with st->msg. */
static int as_live(astate *st)
{
    const pl_appseg_def *d = st->a->d;
    int e = as_bind(st);
    if (!e && !seg_alive_now(&st->s)) {
        pl_say(0, st->msg, sizeof st->msg, "the provider of '%s' (pid %u) has exited; its segment %s remains",
            d->cs.name, (unsigned)st->s.pid, st->path);
        e = ESRCH;
        st->bind = 0;                    /* look again next time: a new provider may take over */
    }
    return e;
}

static int as_collect(void *state, const uint8_t *wanted, pl_snapshot *snap)
{
    astate *st = state;
    const pl_appseg_def *d = st->a->d;
    int e = as_live(st);
    if (e && e != ENOMEM) {
        discover();                      /* a provider that took over since: seen in this collect */
        e = as_live(st);
    }
    uint64_t key = ((uint64_t)st->s.pid << 40 ^ st->s.start) | 1u;
    if (!e && st->s.map) {               /* in place */
        e = EAGAIN;
        for (int k = 0; k < 3 && e == EAGAIN; k++) {   /* grown past the mapping: map it again */
            e = seg_map(&st->s);
            if (!e)
                e = pl_appseg_take_live(st->s.map, st->s.maplen, d, wanted, key, snap, &st->s.cur, st->msg,
                                        sizeof st->msg);
        }
        if (e == EAGAIN)
            pl_say(0, st->msg, sizeof st->msg, "segment %s says more bytes are in use than it has", st->path);
        if (e == ENOENT)
            pl_say(0, st->msg, sizeof st->msg, "segment %s no longer defines '%s'", st->path, d->cs.name);
    } else if (!e) {
        e = seg_read(&st->s, st->msg, sizeof st->msg);
        if (!e)
            e = pl_appseg_take(st->s.buf, st->s.len, d, wanted, key, snap, st->msg, sizeof st->msg);
        if (e == ENOENT)
            pl_say(0, st->msg, sizeof st->msg, "segment %s no longer defines '%s'", st->path, d->cs.name);
    }
    if (!e && d->nrefs)
        read_refs(st, snap, wanted);
    if (e && e != ENOMEM) {
        pl_snap_clear(snap);             /* nothing of a bad or dead segment stays */
        snap->err_msg = st->msg;
    }
    return e;
}

static int as_instances(void *state, pl_snapshot *snap)
{
    static const uint8_t none[APPSEG_MAX_COUNTERS];
    return as_collect(state, none, snap);
}

static const pl_provider_ops appseg_ops = { NULL, as_close, as_instances, as_collect, as_open_set, NULL };
