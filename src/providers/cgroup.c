/* Control Group: one instance per cgroup directory, named by its path below
 * the hierarchy root ("/" for the root group, "/system.slice/ssh.service").
 * Costly: every collect walks the whole tree.
 *
 * Layout (reference §2.12).  With the root "/", statfs of sys/fs/cgroup:
 * cgroup2 = unified; tmpfs with a cgroup2 sys/fs/cgroup/unified = hybrid;
 * tmpfs otherwise = legacy.  Below any other root (fixtures), or when statfs
 * says neither, the tree decides: cgroup.controllers at the top = unified, a
 * "unified" directory with cgroup.controllers = hybrid, else legacy when a
 * v1 hierarchy exists.  No cgroup filesystem at all: zero instances.
 *
 * Sources.  Each counter has a v2 file and most a v1 fallback; a group uses
 * the v2 file when its directory exists in the v2 tree (unified, or the
 * hybrid's unified/) and the file reads, else the v1 file of its v1
 * hierarchy (cpuacct, memory, blkio, pids under sys/fs/cgroup/).  So a
 * hybrid machine gives cpu.stat and pressure from unified/ and memory from
 * the v1 memory controller.  The instance set is the union of the paths of
 * every hierarchy read (v1 controllers usually share paths, systemd's do).
 *
 * Identity (R5): path + inode.  The inode is that of the group's directory
 * in the first hierarchy that has it, in the order v2, cpuacct, memory,
 * blkio, pids; id = inode truncated to 32 bits, key = the full inode.  A
 * directory removed and created again is a new instance.
 *
 * Bounds: 8 levels below the root and 4096 directories per hierarchy; the
 * union is cut at 4096 groups in path order.  Source files are kept open
 * while at most FD_BUDGET are (1024, or a quarter of RLIMIT_NOFILE if
 * lower); past that a file is opened, read and closed each time.
 *
 * Units: usec x 10 and ns / 100 -> 100 ns; cpuacct.stat USER_HZ ticks ->
 * 100 ns; "max" limits and v1 limits of 2^62 or more (the kernel prints
 * 2^63 - page size) are "no limit": the value is unset.  v1 has no swap,
 * throttling, quota or pressure counters here (unset). */
#include "pl_provider.h"
#include "providers.h"
#include "pl_rowset.h"
#include "cgparse.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#define MAX_DEPTH 8
#define MAX_GROUPS 4096
#define FD_BUDGET 1024
#define CGROUP2_MAGIC 0x63677270
#define TMPFS_MAGIC_ 0x01021994
#define V1_UNLIMITED (1ull << 62)

enum {
    C_CPU, C_USER, C_SYS, C_THR, C_PER, C_THRP, C_THRP_B, C_THRT, C_QUOTA, C_QUOTA_B,
    C_MEM, C_LIMIT, C_MEMP, C_MEMP_B, C_SWAP, C_ANON, C_FILE, C_PGF, C_PGMAJ, C_OOM,
    C_RBYTES, C_WBYTES, C_RIOS, C_WIOS, C_DBYTES, C_TASKS, C_TASKS_MAX,
    C_PSI_CPU_S, C_PSI_CPU_F, C_PSI_MEM_S, C_PSI_MEM_F, C_PSI_IO_S, C_PSI_IO_F, NC
};

#define NOV PERF_DETAIL_NOVICE
#define ADV PERF_DETAIL_ADVANCED
#define T100 PERF_100NSEC_TIMER
#define BULK PERF_COUNTER_BULK_COUNT
#define LRAW PERF_COUNTER_LARGE_RAWCOUNT

/* ids equal indexes: the rows are in id order and never renumbered.  The
 * collect below fills every counter by hand (v1 and v2 files differ). */
#define CG_ROWS(R) \
    R(C_CPU, "% CPU Usage", "CPU time of the group's tasks as a share of one CPU, over 100 with " \
      "several CPUs busy (cpu.stat usage_usec; v1 cpuacct.usage in ns).", \
      T100, PL_NO_ID, NOV, 0, PL_U(SECONDS, 1e-7, COUNTER), PL_BY_HAND()) \
    R(C_USER, "% User Time", "User-mode CPU time of the group's tasks as a share of one CPU " \
      "(cpu.stat user_usec; v1 cpuacct.stat user in USER_HZ ticks).", \
      T100, PL_NO_ID, NOV, 0, PL_U(SECONDS, 1e-7, COUNTER), PL_BY_HAND()) \
    R(C_SYS, "% System Time", "Kernel-mode CPU time of the group's tasks as a share of one CPU " \
      "(cpu.stat system_usec; v1 cpuacct.stat system).", \
      T100, PL_NO_ID, NOV, 0, PL_U(SECONDS, 1e-7, COUNTER), PL_BY_HAND()) \
    R(C_THR, "Throttled Periods/sec", "Enforcement periods per second in which the group hit its " \
      "CPU quota (cpu.stat nr_throttled; cpu controller enabled).", \
      BULK, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_BY_HAND()) \
    R(C_PER, "Periods/sec", "CPU bandwidth enforcement periods per second that had runnable " \
      "tasks (cpu.stat nr_periods; cpu controller enabled).", \
      BULK, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_BY_HAND()) \
    R(C_THRP, "% Throttled Periods", "Share of enforcement periods in which the group was " \
      "throttled (cpu.stat nr_throttled over nr_periods).", \
      PERF_SAMPLE_FRACTION, C_THRP_B, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_BY_HAND()) \
    R(C_THRP_B, "% Throttled Periods Base", "cpu.stat nr_periods, the base of % Throttled " \
      "Periods.", \
      PERF_SAMPLE_BASE, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_BY_HAND()) \
    R(C_THRT, "% Throttled Time", "Time the group's tasks were held back by the quota, as a " \
      "share of wall-clock time (cpu.stat throttled_usec).", \
      T100, PL_NO_ID, ADV, 0, PL_U(SECONDS, 1e-7, COUNTER), PL_BY_HAND()) \
    R(C_QUOTA, "% CPU Quota", "CPU quota as a percentage of one CPU (cpu.max quota over period); " \
      "no value when the quota is \"max\".", \
      PERF_LARGE_RAW_FRACTION, C_QUOTA_B, ADV, 0, PL_U(SECONDS, 1e-6, DISCRETE), PL_BY_HAND()) \
    R(C_QUOTA_B, "% CPU Quota Base", "cpu.max period in microseconds, the base of % CPU Quota.", \
      PERF_LARGE_RAW_BASE, PL_NO_ID, ADV, 0, PL_U(SECONDS, 1e-6, DISCRETE), PL_BY_HAND()) \
    R(C_MEM, "Memory Current Bytes", "Memory charged to the group and its descendants, in bytes " \
      "(memory.current; v1 memory.usage_in_bytes).", \
      LRAW, PL_NO_ID, NOV, 0, PL_U(BYTES, 1, GAUGE), PL_BY_HAND()) \
    R(C_LIMIT, "Memory Limit Bytes", "Hard memory limit in bytes (memory.max; v1 " \
      "memory.limit_in_bytes); no value when there is no limit.", \
      LRAW, PL_NO_ID, NOV, 0, PL_U(BYTES, 1, DISCRETE), PL_BY_HAND()) \
    R(C_MEMP, "% Memory Limit Used", "Memory Current Bytes as a percentage of the limit; no " \
      "value without a limit.", \
      PERF_LARGE_RAW_FRACTION, C_MEMP_B, NOV, 0, PL_U(BYTES, 1, GAUGE), PL_BY_HAND()) \
    R(C_MEMP_B, "% Memory Limit Used Base", "The memory limit in bytes, the base of % Memory " \
      "Limit Used.", \
      PERF_LARGE_RAW_BASE, PL_NO_ID, NOV, 0, PL_U(BYTES, 1, DISCRETE), PL_BY_HAND()) \
    R(C_SWAP, "Swap Current Bytes", "Swap used by the group, in bytes (memory.swap.current).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_BY_HAND()) \
    R(C_ANON, "Anonymous Bytes", "Anonymous memory of the group, in bytes (memory.stat anon; v1 " \
      "total_rss).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_BY_HAND()) \
    R(C_FILE, "File Bytes", "Page cache charged to the group, in bytes (memory.stat file; v1 " \
      "total_cache).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_BY_HAND()) \
    R(C_PGF, "Page Faults/sec", "Page faults of the group's tasks per second (memory.stat " \
      "pgfault; v1 total_pgfault).", \
      BULK, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_BY_HAND()) \
    R(C_PGMAJ, "Major Page Faults/sec", "Page faults that needed I/O, per second (memory.stat " \
      "pgmajfault; v1 total_pgmajfault).", \
      BULK, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_BY_HAND()) \
    R(C_OOM, "OOM Kills", "Tasks of the group killed by the OOM killer since it was created " \
      "(memory.events oom_kill; v1 memory.oom_control oom_kill).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_BY_HAND()) \
    R(C_RBYTES, "IO Read Bytes/sec", "Bytes read from block devices per second, all devices " \
      "(io.stat rbytes; v1 blkio.throttle.io_service_bytes_recursive Read).", \
      BULK, PL_NO_ID, NOV, 0, PL_U(BYTES, 1, COUNTER), PL_BY_HAND()) \
    R(C_WBYTES, "IO Write Bytes/sec", "Bytes written to block devices per second, all devices " \
      "(io.stat wbytes; v1 ... Write).", \
      BULK, PL_NO_ID, NOV, 0, PL_U(BYTES, 1, COUNTER), PL_BY_HAND()) \
    R(C_RIOS, "IO Read Operations/sec", "Read requests per second, all devices (io.stat rios; v1 " \
      "blkio.throttle.io_serviced_recursive Read).", \
      BULK, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_BY_HAND()) \
    R(C_WIOS, "IO Write Operations/sec", "Write requests per second, all devices (io.stat wios; " \
      "v1 ... Write).", \
      BULK, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_BY_HAND()) \
    R(C_DBYTES, "IO Discard Bytes/sec", "Bytes discarded per second, all devices (io.stat " \
      "dbytes; v1 ... Discard).", \
      BULK, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, COUNTER), PL_BY_HAND()) \
    R(C_TASKS, "Tasks", "Tasks (threads) in the group and its descendants (pids.current).", \
      LRAW, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, GAUGE), PL_BY_HAND()) \
    R(C_TASKS_MAX, "Tasks Limit", "Most tasks the group may hold (pids.max); no value for " \
      "\"max\".", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, DISCRETE), PL_BY_HAND()) \
    R(C_PSI_CPU_S, "% Some CPU Stall Time", "Share of time some of the group's tasks waited for " \
      "a CPU (cpu.pressure some total).", \
      T100, PL_NO_ID, ADV, 0, PL_U(SECONDS, 1e-7, COUNTER), PL_BY_HAND()) \
    R(C_PSI_CPU_F, "% Full CPU Stall Time", "Share of time all non-idle tasks of the group " \
      "waited for a CPU (cpu.pressure full total).", \
      T100, PL_NO_ID, ADV, 0, PL_U(SECONDS, 1e-7, COUNTER), PL_BY_HAND()) \
    R(C_PSI_MEM_S, "% Some Memory Stall Time", "Share of time some tasks of the group waited for " \
      "memory (memory.pressure some total).", \
      T100, PL_NO_ID, ADV, 0, PL_U(SECONDS, 1e-7, COUNTER), PL_BY_HAND()) \
    R(C_PSI_MEM_F, "% Full Memory Stall Time", "Share of time all non-idle tasks of the group " \
      "waited for memory (memory.pressure full total).", \
      T100, PL_NO_ID, ADV, 0, PL_U(SECONDS, 1e-7, COUNTER), PL_BY_HAND()) \
    R(C_PSI_IO_S, "% Some IO Stall Time", "Share of time some tasks of the group waited for I/O " \
      "(io.pressure some total).", \
      T100, PL_NO_ID, ADV, 0, PL_U(SECONDS, 1e-7, COUNTER), PL_BY_HAND()) \
    R(C_PSI_IO_F, "% Full IO Stall Time", "Share of time all non-idle tasks of the group waited " \
      "for I/O (io.pressure full total).", \
      T100, PL_NO_ID, ADV, 0, PL_U(SECONDS, 1e-7, COUNTER), PL_BY_HAND())


static const pl_counter_def counters[] = { CG_ROWS(PL_ROW_COUNTER) };
_Static_assert(sizeof counters / sizeof counters[0] == NC, "one row per counter");


/* ---- hierarchies and source files -------------------------------------------------- */

enum { H_V2, H_CPUACCT, H_MEMORY, H_BLKIO, H_PIDS, NH };
enum { L_NONE, L_UNIFIED, L_HYBRID, L_LEGACY };

static const char *const v1name[NH] = { NULL, "cpuacct", "memory", "blkio", "pids" };

enum {
    F_CPU_STAT, F_CPU_MAX, F_MEM_CUR, F_MEM_MAX, F_MEM_STAT, F_MEM_SWAP, F_MEM_EVENTS,
    F_IO_STAT, F_PIDS_CUR, F_PIDS_MAX, F_PSI_CPU, F_PSI_MEM, F_PSI_IO,
    F_ACCT_USAGE, F_ACCT_STAT, F_V1_USAGE, F_V1_LIMIT, F_V1_STAT, F_V1_OOM, F_BLK_BYTES,
    F_BLK_IOS, F_V1_PIDS_CUR, F_V1_PIDS_MAX, NF
};

static const struct { const char *name; unsigned char h; } fdef[NF] = {
    { "cpu.stat", H_V2 }, { "cpu.max", H_V2 }, { "memory.current", H_V2 },
    { "memory.max", H_V2 }, { "memory.stat", H_V2 }, { "memory.swap.current", H_V2 },
    { "memory.events", H_V2 }, { "io.stat", H_V2 }, { "pids.current", H_V2 },
    { "pids.max", H_V2 }, { "cpu.pressure", H_V2 }, { "memory.pressure", H_V2 },
    { "io.pressure", H_V2 },
    { "cpuacct.usage", H_CPUACCT }, { "cpuacct.stat", H_CPUACCT },
    { "memory.usage_in_bytes", H_MEMORY }, { "memory.limit_in_bytes", H_MEMORY },
    { "memory.stat", H_MEMORY }, { "memory.oom_control", H_MEMORY },
    { "blkio.throttle.io_service_bytes_recursive", H_BLKIO },
    { "blkio.throttle.io_serviced_recursive", H_BLKIO },
    { "pids.current", H_PIDS }, { "pids.max", H_PIDS },
};

typedef struct group {
    char *path;
    uint64_t ino;            /* identity: inode in the first hierarchy that has it */
    uint64_t hino[NH];       /* inode of the directory in each hierarchy */
    uint8_t in[NH];          /* present there in the last walk */
    uint8_t absent[NF];      /* ENOENT once: not tried again */
    pl_file f[NF];
} group;

typedef struct entry {
    uint32_t off;            /* path, into ent_names */
    uint32_t h;
    uint64_t ino;
} entry;

typedef struct cstate {
    pl_env *env;
    int layout;
    char base[NH][64];       /* hierarchy roots below the env root, "" if none */
    uint64_t hns_per_tick;   /* 10^7 / USER_HZ, 0 when not exact */
    long hz;
    unsigned budget, nopen;  /* kept-open file limit, files kept open */
    group **g, **ng;         /* groups sorted by path; scratch for the merge */
    uint32_t ngroups, gcap;
    entry *ent;              /* one walk: every directory of every hierarchy */
    uint32_t nent, entcap, hcount;
    char *names;
    size_t nlen, ncap;
    char path[PATH_MAX];
} cstate;

/* ---- layout ----------------------------------------------------------------------------- */

static int exists(const cstate *s, const char *rel)
{
    int fd = pl_open_rel(s->env, rel);
    if (fd < 0)
        return 0;
    close(fd);
    return 1;
}

static long fs_magic(const char *path)
{
    struct statfs sf;
    return statfs(path, &sf) == 0 ? (long)sf.f_type : -1;
}

static int detect(cstate *s)
{
    if (strcmp(pl_env_root(s->env), "/") == 0) {
        /* the kernel's own answer; only meaningful on the live root */
        long m = fs_magic("/sys/fs/cgroup");
        if (m == CGROUP2_MAGIC)
            return L_UNIFIED;
        if (m == TMPFS_MAGIC_)
            return fs_magic("/sys/fs/cgroup/unified") == CGROUP2_MAGIC ? L_HYBRID : L_LEGACY;
    }
    if (exists(s, "sys/fs/cgroup/cgroup.controllers"))
        return L_UNIFIED;
    if (exists(s, "sys/fs/cgroup/unified/cgroup.controllers"))
        return L_HYBRID;
    for (int h = H_CPUACCT; h < NH; h++) {
        char rel[64];
        snprintf(rel, sizeof rel, "sys/fs/cgroup/%s", v1name[h]);
        if (exists(s, rel))
            return L_LEGACY;
    }
    return L_NONE;
}

/* ---- state -------------------------------------------------------------------------------- */

static void group_close_h(cstate *s, group *g, int h)
{
    for (int f = 0; f < NF; f++) {
        if (fdef[f].h != h)
            continue;
        if (g->f[f].fd >= 0) {
            close(g->f[f].fd);   /* the buffer stays for the next reader */
            g->f[f].fd = -1;
            s->nopen--;
        }
        g->absent[f] = 0;
    }
}

static void group_free(cstate *s, group *g)
{
    for (int f = 0; f < NF; f++) {
        if (g->f[f].fd >= 0)
            s->nopen--;
        pl_file_close(&g->f[f]);
    }
    free(g->path);
    free(g);
}

static void cg_close(void *state)
{
    cstate *s = state;
    if (!s)
        return;
    for (uint32_t i = 0; i < s->ngroups; i++)
        group_free(s, s->g[i]);
    free(s->g);
    free(s->ng);
    free(s->ent);
    free(s->names);
    pl_env_unref(s->env);
    free(s);
}

static int cg_open(pl_env *env, void **state)
{
    struct rlimit rl;
    cstate *s = calloc(1, sizeof *s);
    if (!s)
        return ENOMEM;
    s->env = pl_env_ref(env);
    s->hz = pl_env_user_hz(env);
    s->hns_per_tick = s->hz > 0 && 10000000 % s->hz == 0 ? (uint64_t)(10000000 / s->hz) : 0;
    s->budget = FD_BUDGET;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
        rl.rlim_cur / 4 < s->budget)
        s->budget = (unsigned)(rl.rlim_cur / 4);
    s->layout = detect(s);
    if (s->layout == L_UNIFIED)
        strcpy(s->base[H_V2], "sys/fs/cgroup");
    else if (s->layout == L_HYBRID)
        strcpy(s->base[H_V2], "sys/fs/cgroup/unified");
    if (s->layout == L_HYBRID || s->layout == L_LEGACY)
        for (int h = H_CPUACCT; h < NH; h++)
            snprintf(s->base[h], sizeof s->base[h], "sys/fs/cgroup/%s", v1name[h]);
    *state = s;
    return 0;
}

/* ---- the walk ------------------------------------------------------------------------------- */

static int add_entry(cstate *s, const char *path, size_t len, int h, uint64_t ino)
{
    if (s->nent == s->entcap) {
        uint32_t cap = s->entcap ? s->entcap * 2 : 64;
        entry *ne = realloc(s->ent, cap * sizeof *ne);
        if (!ne)
            return ENOMEM;
        s->ent = ne;
        s->entcap = cap;
    }
    if (s->nlen + len + 1 > s->ncap) {
        size_t cap = s->ncap ? s->ncap * 2 : 4096;
        while (cap < s->nlen + len + 1)
            cap *= 2;
        char *nn = realloc(s->names, cap);
        if (!nn)
            return ENOMEM;
        s->names = nn;
        s->ncap = cap;
    }
    s->ent[s->nent].off = (uint32_t)s->nlen;
    s->ent[s->nent].h = (uint32_t)h;
    s->ent[s->nent].ino = ino;
    memcpy(s->names + s->nlen, path, len);
    s->names[s->nlen + len] = '\0';
    s->nlen += len + 1;
    s->nent++;
    s->hcount++;
    return 0;
}

/* Adds the directory open as dfd (path s->path[0..plen), "" = root) and its
 * subdirectories; takes dfd. */
static int walk(cstate *s, int h, int dfd, size_t plen, int depth)
{
    struct stat st;
    struct dirent *de;
    DIR *d;
    int e;
    if (fstat(dfd, &st) != 0) {
        close(dfd);
        return 0;            /* vanished under us */
    }
    e = plen ? add_entry(s, s->path, plen, h, (uint64_t)st.st_ino)
             : add_entry(s, "/", 1, h, (uint64_t)st.st_ino);
    if (e || depth >= MAX_DEPTH || !(d = fdopendir(dfd))) {
        close(dfd);
        return e;
    }
    while (s->hcount < MAX_GROUPS && (de = readdir(d)) != NULL) {
        const char *n = de->d_name;
        size_t nl;
        int cfd;
        if (n[0] == '.' && (n[1] == '\0' || (n[1] == '.' && n[2] == '\0')))
            continue;
        if (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN)
            continue;
        nl = strlen(n);
        if (plen + 1 + nl >= sizeof s->path)
            continue;
        cfd = openat(dirfd(d), n, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (cfd < 0)
            continue;        /* a file (DT_UNKNOWN), a symlink, gone, or forbidden */
        s->path[plen] = '/';
        memcpy(s->path + plen + 1, n, nl + 1);
        e = walk(s, h, cfd, plen + 1 + nl, depth + 1);
        s->path[plen] = '\0';
        if (e)
            break;
    }
    closedir(d);
    return e;
}

static int cmp_entry(const void *a, const void *b, void *names)
{
    const entry *x = a, *y = b;
    int c = strcmp((const char *)names + x->off, (const char *)names + y->off);
    return c ? c : (x->h > y->h) - (x->h < y->h);
}

static group *group_new(const char *path)
{
    group *g = calloc(1, sizeof *g);
    if (!g || !(g->path = strdup(path))) {
        free(g);
        return NULL;
    }
    for (int f = 0; f < NF; f++)
        pl_file_init(&g->f[f]);
    return g;
}

/* Walks every hierarchy and merges the paths into the sorted group list:
 * new paths get a group, gone ones are freed, recreated directories have
 * their files reopened. */
static int refresh(cstate *s)
{
    uint32_t i = 0, n = 0, o = 0;
    int e = 0;
    s->nent = 0;
    s->nlen = 0;
    for (int h = 0; h < NH && !e; h++) {
        int fd;
        if (!s->base[h][0] || (fd = pl_open_rel(s->env, s->base[h])) < 0)
            continue;        /* a controller that is not mounted */
        s->hcount = 0;
        s->path[0] = '\0';
        e = walk(s, h, fd, 0, 0);
    }
    if (e)
        return e;
    if (s->nent > 1)
        qsort_r(s->ent, s->nent, sizeof *s->ent, cmp_entry, s->names);
    if (s->gcap < s->ngroups + s->nent || !s->ng) {
        uint32_t cap = s->ngroups + s->nent + 16;
        group **a = realloc(s->g, cap * sizeof *a), **b;
        if (!a)
            return ENOMEM;
        s->g = a;
        if (!(b = realloc(s->ng, cap * sizeof *b)))
            return ENOMEM;
        s->ng = b;
        s->gcap = cap;
    }
    while (i < s->nent && n < MAX_GROUPS) {
        const char *path = s->names + s->ent[i].off;
        group *g = NULL;
        int c = 1;
        while (o < s->ngroups && (c = strcmp(s->g[o]->path, path)) < 0)
            group_free(s, s->g[o++]);
        if (o < s->ngroups && c == 0) {
            g = s->g[o++];
        } else if (!(g = group_new(path))) {
            e = ENOMEM;
            break;
        }
        memset(g->in, 0, sizeof g->in);
        for (; i < s->nent && strcmp(s->names + s->ent[i].off, path) == 0; i++) {
            int h = (int)s->ent[i].h;
            if (g->hino[h] != s->ent[i].ino)
                group_close_h(s, g, h);      /* recreated: its files are stale */
            g->hino[h] = s->ent[i].ino;
            g->in[h] = 1;
        }
        for (int h = 0; h < NH; h++)
            if (g->in[h]) {
                g->ino = g->hino[h];
                break;
            }
        s->ng[n++] = g;
    }
    while (o < s->ngroups)
        group_free(s, s->g[o++]);
    group **t = s->g;
    s->g = s->ng;
    s->ng = t;
    s->ngroups = n;
    return e;
}

static int cg_instances(void *state, pl_snapshot *snap)
{
    cstate *s = state;
    int e;
    pl_snap_clear(snap);
    if ((e = refresh(s)) != 0)
        return e;
    for (uint32_t i = 0; i < s->ngroups; i++)
        if (pl_snap_add_key(snap, s->g[i]->path, (uint32_t)s->g[i]->ino, s->g[i]->ino) < 0)
            return ENOMEM;
    return 0;
}

/* ---- reading and parsing -------------------------------------------------------------------- */

/* The contents of source file f of group g, or NULL (absent, unreadable). */
static const char *gread(cstate *s, group *g, int f)
{
    int h = fdef[f].h, e, was;
    pl_file *pf = &g->f[f];
    char rel[PATH_MAX + 128];
    if (!g->in[h] || g->absent[f])
        return NULL;
    was = pf->fd >= 0;
    rel[0] = '\0';
    if (!was)
        snprintf(rel, sizeof rel, "%s%s/%s", s->base[h], strcmp(g->path, "/") ? g->path : "",
                 fdef[f].name);
    e = pl_file_read(pf, s->env, rel);
    if (was && pf->fd < 0)
        s->nopen--;          /* pl_file_read closed it */
    if (e) {
        if (e == ENOENT)
            g->absent[f] = 1;
        return NULL;
    }
    if (!was) {
        if (s->nopen < s->budget) {
            s->nopen++;
        } else {
            close(pf->fd);   /* over the budget: reopen next time */
            pf->fd = -1;
        }
    }
    return pf->buf;
}

/* "some avg10=.. avg60=.. avg300=.. total=N" for kind "some" or "full". */
static int psi_total(const char *t, const char *kind, uint64_t *v)
{
    for (const char *p = t; p && *p; p = pl_next_line(p)) {
        const char *nl = strchr(p, '\n'), *q;
        if (!nl || strncmp(p, kind, 4) != 0 || p[4] != ' ')
            continue;
        for (q = p; q < nl && strncmp(q, " total=", 7) != 0; q++)
            ;
        return q < nl && pl_cg_num_eol(q + 7, v);
    }
    return 0;
}

/* io.stat: "MAJ:MIN rbytes=.. wbytes=.. rios=.. wios=.. dbytes=.. dios=.." summed
 * over devices; a line cut off or a garbage number spoils the sum: 0. */
static int io_stat(const char *t, uint64_t sum[5])
{
    static const char *const key[5] = { "rbytes=", "wbytes=", "rios=", "wios=", "dbytes=" };
    memset(sum, 0, 5 * sizeof *sum);
    for (const char *p = t, *nl; *p; p = nl + 1) {
        if (!(nl = strchr(p, '\n')))
            return 0;
        for (const char *q = memchr(p, ' ', (size_t)(nl - p)); q && q < nl;
             q = memchr(q, ' ', (size_t)(nl - q))) {
            q++;             /* at a key=value token */
            for (int k = 0; k < 5; k++) {
                size_t kl = strlen(key[k]);
                const char *r = q + kl;
                uint64_t v;
                if (strncmp(q, key[k], kl) != 0)
                    continue;
                if (pl_parse_u64(&r, &v) != 0 || (*r != ' ' && *r != '\n'))
                    return 0;
                sum[k] += v;
            }
        }
    }
    return 1;
}

/* v1 blkio: "MAJ:MIN Read N" ... summed over devices; the closing "Total N" is not. */
static int blkio(const char *t, uint64_t out[3])
{
    static const char *const op[3] = { "Read ", "Write ", "Discard " };
    memset(out, 0, 3 * sizeof *out);
    for (const char *p = t, *nl; *p; p = nl + 1) {
        const char *sp = strchr(p, ' ');
        if (!(nl = strchr(p, '\n')))
            return 0;
        if (sp && sp < nl && memchr(p, ':', (size_t)(sp - p)))
            for (int k = 0; k < 3; k++) {
                size_t l = strlen(op[k]);
                uint64_t v;
                if (strncmp(sp + 1, op[k], l) != 0)
                    continue;
                if (!pl_cg_num_eol(sp + 1 + l, &v))
                    return 0;
                out[k] += v;
            }
    }
    return 1;
}

static int want_any(const uint8_t *w, int a, int b)
{
    if (!w)
        return 1;
    for (int c = a; c <= b; c++)
        if (w[c])
            return 1;
    return 0;
}

static uint64_t ticks_hns(const cstate *s, uint64_t t)
{
    uint64_t h = (uint64_t)s->hz;
    return s->hns_per_tick ? t * s->hns_per_tick : t / h * 10000000u + t % h * 10000000u / h;
}

static void collect_group(cstate *s, group *g, const uint8_t *w, pl_snapshot *snap, uint32_t i)
{
    const char *t;
    uint64_t v, b, io[5];
    int unl;
#define SET(c, x) pl_snap_set(snap, i, (uint32_t)(c), (x))
    if (want_any(w, C_CPU, C_THRT)) {
        if ((t = gread(s, g, F_CPU_STAT)) != NULL) {
            if (pl_cg_kv(t, "usage_usec", &v)) SET(C_CPU, v * 10);
            if (pl_cg_kv(t, "user_usec", &v)) SET(C_USER, v * 10);
            if (pl_cg_kv(t, "system_usec", &v)) SET(C_SYS, v * 10);
            if (pl_cg_kv(t, "nr_throttled", &v)) SET(C_THR, v);
            if (pl_cg_kv(t, "nr_periods", &v)) {
                SET(C_PER, v);
                SET(C_THRP_B, v);
                if (pl_cg_kv(t, "nr_throttled", &b)) SET(C_THRP, b);
            }
            if (pl_cg_kv(t, "throttled_usec", &v)) SET(C_THRT, v * 10);
        } else {
            if ((t = gread(s, g, F_ACCT_USAGE)) != NULL && pl_cg_num_eol(t, &v))
                SET(C_CPU, v / 100);
            if (s->hz > 0 && (t = gread(s, g, F_ACCT_STAT)) != NULL) {
                if (pl_cg_kv(t, "user", &v)) SET(C_USER, ticks_hns(s, v));
                if (pl_cg_kv(t, "system", &v)) SET(C_SYS, ticks_hns(s, v));
            }
        }
    }
    if (want_any(w, C_QUOTA, C_QUOTA_B) && (t = gread(s, g, F_CPU_MAX)) != NULL &&
        strncmp(t, "max ", 4) != 0) {
        const char *q = t;
        if (pl_parse_u64(&q, &v) == 0 && *q == ' ' && pl_cg_num_eol(q + 1, &b) && b > 0) {
            SET(C_QUOTA, v);
            SET(C_QUOTA_B, b);
        }
    }
    if (want_any(w, C_MEM, C_MEMP_B)) {
        uint64_t cur = 0, lim = 0;
        int hc = 0, hl = 0;
        if ((t = gread(s, g, F_MEM_CUR)) != NULL)
            hc = pl_cg_num_eol(t, &cur);
        else if ((t = gread(s, g, F_V1_USAGE)) != NULL)
            hc = pl_cg_num_eol(t, &cur);
        if ((t = gread(s, g, F_MEM_MAX)) != NULL)
            hl = pl_cg_limit(t, &lim, &unl);
        else if ((t = gread(s, g, F_V1_LIMIT)) != NULL)
            hl = pl_cg_num_eol(t, &lim) && lim < V1_UNLIMITED;
        if (hc) SET(C_MEM, cur);
        if (hl) SET(C_LIMIT, lim);
        if (hc && hl) {
            SET(C_MEMP, cur);
            SET(C_MEMP_B, lim);
        }
    }
    if (want_any(w, C_SWAP, C_SWAP) && (t = gread(s, g, F_MEM_SWAP)) != NULL && pl_cg_num_eol(t, &v))
        SET(C_SWAP, v);
    if (want_any(w, C_ANON, C_PGMAJ)) {
        if ((t = gread(s, g, F_MEM_STAT)) != NULL) {
            if (pl_cg_kv(t, "anon", &v)) SET(C_ANON, v);
            if (pl_cg_kv(t, "file", &v)) SET(C_FILE, v);
            if (pl_cg_kv(t, "pgfault", &v)) SET(C_PGF, v);
            if (pl_cg_kv(t, "pgmajfault", &v)) SET(C_PGMAJ, v);
        } else if ((t = gread(s, g, F_V1_STAT)) != NULL) {
            if (pl_cg_kv(t, "total_rss", &v)) SET(C_ANON, v);
            if (pl_cg_kv(t, "total_cache", &v)) SET(C_FILE, v);
            if (pl_cg_kv(t, "total_pgfault", &v)) SET(C_PGF, v);
            if (pl_cg_kv(t, "total_pgmajfault", &v)) SET(C_PGMAJ, v);
        }
    }
    if (want_any(w, C_OOM, C_OOM)) {
        if ((t = gread(s, g, F_MEM_EVENTS)) != NULL || (t = gread(s, g, F_V1_OOM)) != NULL)
            if (pl_cg_kv(t, "oom_kill", &v))
                SET(C_OOM, v);
    }
    if (want_any(w, C_RBYTES, C_DBYTES)) {
        if ((t = gread(s, g, F_IO_STAT)) != NULL) {
            if (io_stat(t, io))
                for (int k = 0; k < 5; k++)
                    SET(C_RBYTES + k, io[k]);
        } else {
            uint64_t x[3];
            if ((t = gread(s, g, F_BLK_BYTES)) != NULL && blkio(t, x)) {
                SET(C_RBYTES, x[0]);
                SET(C_WBYTES, x[1]);
                SET(C_DBYTES, x[2]);
            }
            if ((t = gread(s, g, F_BLK_IOS)) != NULL && blkio(t, x)) {
                SET(C_RIOS, x[0]);
                SET(C_WIOS, x[1]);
            }
        }
    }
    if (want_any(w, C_TASKS, C_TASKS_MAX)) {
        if ((t = gread(s, g, F_PIDS_CUR)) != NULL || (t = gread(s, g, F_V1_PIDS_CUR)) != NULL)
            if (pl_cg_num_eol(t, &v))
                SET(C_TASKS, v);
        if ((t = gread(s, g, F_PIDS_MAX)) != NULL || (t = gread(s, g, F_V1_PIDS_MAX)) != NULL)
            if (pl_cg_limit(t, &v, &unl))
                SET(C_TASKS_MAX, v);
    }
    for (int k = 0; k < 3; k++) {
        int c = C_PSI_CPU_S + 2 * k;
        if (want_any(w, c, c + 1) && (t = gread(s, g, F_PSI_CPU + k)) != NULL) {
            if (psi_total(t, "some", &v)) SET(c, v * 10);
            if (psi_total(t, "full", &v)) SET(c + 1, v * 10);
        }
    }
#undef SET
}

static int cg_collect(void *state, const uint8_t *wanted, pl_snapshot *snap)
{
    cstate *s = state;
    int e = cg_instances(s, snap);
    if (e)
        return e;
    for (uint32_t i = 0; i < s->ngroups; i++)
        collect_group(s, s->g[i], wanted, snap, i);
    return 0;
}

static const pl_provider_ops ops = { cg_open, cg_close, cg_instances, cg_collect, NULL, NULL };

const pl_counterset_def pl_cgroup_def = {
    /* UUIDv5(perflib namespace, "Control Group") */
    { 0xac22ede2, 0x0c80, 0x50b0, { 0x9e, 0xd2, 0x88, 0x65, 0x1a, 0x63, 0xbc, 0x6d } },
    "Control Group",
    "CPU, memory, I/O, task and pressure figures of every control group, from the cgroup v2 "
    "files (cpu.stat, memory.current, io.stat, ...) with the v1 controllers as the fallback; "
    "costly: each collect walks the whole /sys/fs/cgroup tree.",
    PERF_COUNTERSET_MULTI_INSTANCES, 1, NC, counters, &ops, 20000, NULL,
};
