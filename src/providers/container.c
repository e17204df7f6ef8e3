/* Container (one instance): the machine as the reading process's control
 * group sees it, so that a container sees its own 100 %.  % Processor Time
 * is CPU time over the CPUs it may use, and % Memory Used the working set
 * over the memory it may use; without limits these are the machine's.
 *
 * The group is the reader's (proc/self/cgroup: "0::/path" on v2, the
 * controller's line on v1), found in the tree through proc/self/mountinfo:
 * the mount of cgroup2 (or the v1 hierarchy with the controller) whose root
 * is a prefix of the path, so a container with its own cgroup namespace
 * ("0::/", its group mounted at /sys/fs/cgroup) and one without (the host's
 * path "/docker/<id>", the mount's root that same path) both find their
 * directory.  When the directory is not there after all, the mount point
 * itself stands for it.  Each file is tried as v2 first, then v1.
 *
 * Limits are the tightest of the group and its ancestors up to the mount
 * point (a parent's memory.max binds its children): the CPU limit is the
 * least of the online CPUs, the group's cpuset and the CFS quota over its
 * period (cpu.max; v1 cpu.cfs_quota_us / cpu.cfs_period_us, -1 for none),
 * in thousandths of a CPU; the memory limit the least memory.max (v1
 * memory.limit_in_bytes below 2^62), else MemTotal.  The working set is
 * memory.current less inactive_file (memory.stat; v1 usage_in_bytes and
 * total_inactive_file), as the kubelet counts it against the limit.
 *
 * % Processor Time is a PERF_100NSEC_MULTI_TIMER whose value is the CPU
 * time in 100 ns times 1000 and whose base the limit in thousandths of a
 * CPU: 100 x dCPU / (dt x CPUs) exactly, for a limit of 1.5 CPUs too.  A
 * file that is not there (no memory controller enabled, no swap
 * accounting) leaves its counters unset; the set fails only without a
 * cgroup at all (no proc/self/cgroup line or no mount), with that file. */
#include "providers.h"
#include "pl_provider.h"
#include "pl_rowset.h"
#include "cgparse.h"
#include "meminfo.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LRAW PERF_COUNTER_LARGE_RAWCOUNT
#define NOV PERF_DETAIL_NOVICE
#define ADV PERF_DETAIL_ADVANCED
#define MT PERF_100NSEC_MULTI_TIMER
#define V1_UNLIMITED (1ull << 62)
#define MAX_DEPTH 16             /* ancestors whose limits are read */
#define MAX_CPUS 8192

enum {
    C_CPU, C_USER, C_PRIV, C_CPU_BASE, C_CPU_LIMIT, C_CPU_SRC, C_THRT, C_THRP, C_MEM, C_WS,
    C_MEM_LIMIT, C_MEMP, C_MEMP_BASE, C_AVAIL, C_MEM_SRC, C_SWAP, C_OOM, C_TASKS, C_TASKS_MAX, NC
};

#define CT_ROWS(R) \
    R(C_CPU, "% Processor Time", "CPU time of the group as a share of the CPUs it may use " \
      "(cpu.stat usage_usec; v1 cpuacct.usage), 100 when it uses its whole limit.", MT, \
      C_CPU_BASE, NOV, 0, PL_U(SECONDS, 1e-10, COUNTER), PL_BY_HAND()) \
    R(C_USER, "% User Time", "User-mode CPU time as a share of the CPUs the group may use " \
      "(cpu.stat user_usec; v1 cpuacct.stat user).", MT, C_CPU_BASE, NOV, 0, \
      PL_U(SECONDS, 1e-10, COUNTER), PL_BY_HAND()) \
    R(C_PRIV, "% Privileged Time", "Kernel-mode CPU time as a share of the CPUs the group may " \
      "use (cpu.stat system_usec; v1 cpuacct.stat system).", MT, C_CPU_BASE, NOV, 0, \
      PL_U(SECONDS, 1e-10, COUNTER), PL_BY_HAND()) \
    R(C_CPU_BASE, "% Processor Time Base", "The CPU limit in thousandths of a CPU, the base of " \
      "the processor percentages.", PERF_COUNTER_MULTI_BASE, PL_NO_ID, NOV, 0, \
      PL_U(COUNT, 1e-3, DISCRETE), PL_BY_HAND()) \
    R(C_CPU_LIMIT, "Processor Limit", "CPUs the group may use: the least of the online CPUs, its " \
      "cpuset (cpuset.cpus.effective) and the CFS quota over its period on the group and its " \
      "ancestors (cpu.max; v1 cpu.cfs_quota_us).", LRAW, PL_NO_ID, NOV, -3, \
      PL_U(COUNT, 1e-3, DISCRETE), PL_BY_HAND()) \
    R(C_CPU_SRC, "Processor Limit Source", "What sets the CPU limit: 0 the online CPUs, 1 the " \
      "cpuset, 2 the CFS quota.", LRAW, PL_NO_ID, ADV, 0, PL_U(NONE, 1, DISCRETE), PL_BY_HAND()) \
    R(C_THRT, "% Throttled Time", "Time the group's tasks were held back by the quota, as a " \
      "share of wall-clock time (cpu.stat throttled_usec; v1 throttled_time).", \
      PERF_100NSEC_TIMER, PL_NO_ID, ADV, 0, PL_U(SECONDS, 1e-7, COUNTER), PL_BY_HAND()) \
    R(C_THRP, "Throttled Periods/sec", "Enforcement periods per second in which the group hit " \
      "its quota (cpu.stat nr_throttled).", PERF_COUNTER_BULK_COUNT, PL_NO_ID, ADV, 0, \
      PL_U(COUNT, 1, COUNTER), PL_BY_HAND()) \
    R(C_MEM, "Memory Usage Bytes", "Memory charged to the group, page cache included " \
      "(memory.current; v1 memory.usage_in_bytes).", LRAW, PL_NO_ID, ADV, 0, \
      PL_U(BYTES, 1, GAUGE), PL_BY_HAND()) \
    R(C_WS, "Working Set Bytes", "Memory Usage Bytes less the inactive page cache (memory.stat " \
      "inactive_file; v1 total_inactive_file): what counts against the limit.", LRAW, PL_NO_ID, \
      NOV, 0, PL_U(BYTES, 1, GAUGE), PL_BY_HAND()) \
    R(C_MEM_LIMIT, "Memory Limit Bytes", "Memory the group may use: the least memory.max of the " \
      "group and its ancestors (v1 memory.limit_in_bytes), else the machine's MemTotal.", LRAW, \
      PL_NO_ID, NOV, 0, PL_U(BYTES, 1, DISCRETE), PL_BY_HAND()) \
    R(C_MEMP, "% Memory Used", "Working Set Bytes as a percentage of Memory Limit Bytes.", \
      PERF_LARGE_RAW_FRACTION, C_MEMP_BASE, NOV, 0, PL_U(BYTES, 1, GAUGE), PL_BY_HAND()) \
    R(C_MEMP_BASE, "% Memory Used Base", "Memory Limit Bytes, the base of % Memory Used.", \
      PERF_LARGE_RAW_BASE, PL_NO_ID, NOV, 0, PL_U(BYTES, 1, DISCRETE), PL_BY_HAND()) \
    R(C_AVAIL, "Available Bytes", "Memory Limit Bytes less Working Set Bytes (0 when over): " \
      "what the group can still use before reclaim or the OOM killer.", LRAW, PL_NO_ID, NOV, 0, \
      PL_U(BYTES, 1, GAUGE), PL_BY_HAND()) \
    R(C_MEM_SRC, "Memory Limit Source", "What sets the memory limit: 0 the machine's MemTotal, " \
      "1 the cgroup.", LRAW, PL_NO_ID, ADV, 0, PL_U(NONE, 1, DISCRETE), PL_BY_HAND()) \
    R(C_SWAP, "Swap Usage Bytes", "Swap used by the group (memory.swap.current; v1 " \
      "memory.memsw.usage_in_bytes less usage_in_bytes).", LRAW, PL_NO_ID, ADV, 0, \
      PL_U(BYTES, 1, GAUGE), PL_BY_HAND()) \
    R(C_OOM, "OOM Kills", "Tasks of the group killed by the OOM killer (memory.events oom_kill; " \
      "v1 memory.oom_control, 4.13 and later).", LRAW, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), \
      PL_BY_HAND()) \
    R(C_TASKS, "Tasks", "Tasks (threads) in the group (pids.current).", LRAW, PL_NO_ID, ADV, 0, \
      PL_U(COUNT, 1, GAUGE), PL_BY_HAND()) \
    R(C_TASKS_MAX, "Tasks Limit", "Most tasks the group may hold: the least pids.max of the " \
      "group and its ancestors; no value when none sets one.", LRAW, PL_NO_ID, ADV, 0, \
      PL_U(COUNT, 1, DISCRETE), PL_BY_HAND())

static const pl_counter_def counters[] = { CT_ROWS(PL_ROW_COUNTER) };

/* The hierarchies: v2, and the v1 controllers the counters use. */
enum { H_V2, H_CPU, H_ACCT, H_MEM, H_PIDS, H_SET, NH };
static const char *const v1ctl[NH] = { NULL, "cpu", "cpuacct", "memory", "pids", "cpuset" };

/* The group's own files: the v2 name, the v1 one and its hierarchy. */
enum { F_CPUSTAT, F_ACCT, F_ACCTSTAT, F_V1CPUSTAT, F_MEMCUR, F_MEMSTAT, F_EVENTS, F_SWAP,
       F_PIDS, F_CPUSET, NF };
static const struct { const char *v2, *v1; unsigned char h1; } fdef[NF] = {
    { "cpu.stat", NULL, 0 },
    { NULL, "cpuacct.usage", H_ACCT },
    { NULL, "cpuacct.stat", H_ACCT },
    { NULL, "cpu.stat", H_CPU },
    { "memory.current", "memory.usage_in_bytes", H_MEM },
    { "memory.stat", "memory.stat", H_MEM },
    { "memory.events", "memory.oom_control", H_MEM },
    { "memory.swap.current", "memory.memsw.usage_in_bytes", H_MEM },
    { "pids.current", "pids.current", H_PIDS },
    { "cpuset.cpus.effective", "cpuset.effective_cpus", H_SET },
};

/* Limit files of every level: cpu.max (v1 quota + period), memory.max, pids.max. */
enum { L_CPU, L_CPU_PERIOD, L_MEM, L_PIDS, NL };
static const struct { const char *v2, *v1; unsigned char h1; } ldef[NL] = {
    { "cpu.max", "cpu.cfs_quota_us", H_CPU },
    { NULL, "cpu.cfs_period_us", H_CPU },
    { "memory.max", "memory.limit_in_bytes", H_MEM },
    { "pids.max", "pids.max", H_PIDS },
};

typedef struct hier {
    int ok;
    char dir[PATH_MAX];          /* below the env root: "sys/fs/cgroup/a/b" */
    size_t top;                  /* length of its mount point part */
} hier;

typedef struct ct_state {
    pl_env *env;
    pl_ksrc *mi;                 /* meminfo, for MemTotal */
    pl_file self;                /* proc/self/cgroup */
    char *seen;                  /* its text the hierarchies were found from */
    hier h[NH];
    pl_file f[NF][2];            /* [v2, v1] */
    pl_file lim[MAX_DEPTH][NL][2];
    unsigned char gone[NF][2];   /* not there (ENOENT): not tried again until the group moves */
    unsigned char lgone[MAX_DEPTH][NL][2];
    int online_fd;
    long hz;
} ct_state;

static void files_close(ct_state *s)
{
    for (int f = 0; f < NF; f++)
        for (int v = 0; v < 2; v++)
            pl_file_close(&s->f[f][v]);
    for (int d = 0; d < MAX_DEPTH; d++)
        for (int l = 0; l < NL; l++)
            for (int v = 0; v < 2; v++)
                pl_file_close(&s->lim[d][l][v]);
}

static void ct_close(void *state)
{
    ct_state *s = state;
    if (!s)
        return;
    files_close(s);
    pl_file_close(&s->self);
    if (s->online_fd >= 0)
        close(s->online_fd);
    free(s->seen);
    free(s);
}

static int ct_open(pl_env *env, void **state)
{
    ct_state *s = calloc(1, sizeof *s);
    if (!s)
        return ENOMEM;
    s->env = env;
    s->online_fd = -1;
    s->hz = pl_env_user_hz(env);
    pl_file_init(&s->self);
    for (int f = 0; f < NF; f++)
        for (int v = 0; v < 2; v++)
            pl_file_init(&s->f[f][v]);
    for (int d = 0; d < MAX_DEPTH; d++)
        for (int l = 0; l < NL; l++)
            for (int v = 0; v < 2; v++)
                pl_file_init(&s->lim[d][l][v]);
    if (!(s->mi = pl_ksrc_attach(env, &pl_ksrc_meminfo))) {
        ct_close(s);
        return ENOMEM;
    }
    *state = s;
    return 0;
}

/* ---- finding the group ---------------------------------------------------------- */

/* A mountinfo field into out (octal escapes undone), *p past it: its length, or -1. */
static int field(const char **p, char *out, size_t size)
{
    const char *q = *p;
    size_t n = 0;
    while (*q == ' ')
        q++;
    for (; *q && *q != ' ' && *q != '\n'; q++) {
        int c = (unsigned char)*q;
        if (c == '\\' && q[1] >= '0' && q[1] <= '3' && q[2] >= '0' && q[2] <= '7' && q[3] >= '0' &&
            q[3] <= '7') {
            c = (q[1] - '0') * 64 + (q[2] - '0') * 8 + (q[3] - '0');
            q += 3;
        }
        if (n + 1 >= size)
            return -1;
        out[n++] = (char)c;
    }
    out[n] = '\0';
    *p = q;
    return (int)n;
}

/* Whether the comma list has tok as a whole item. */
static int has_item(const char *list, size_t len, const char *tok)
{
    size_t tl = strlen(tok);
    for (const char *p = list, *end = list + len; p < end;) {
        const char *c = memchr(p, ',', (size_t)(end - p));
        size_t n = c ? (size_t)(c - p) : (size_t)(end - p);
        if (n == tl && memcmp(p, tok, tl) == 0)
            return 1;
        p += n + 1;
    }
    return 0;
}

/* The group's path in hierarchy h from proc/self/cgroup's text into out. */
static int group_path(const char *text, int h, char *out, size_t size)
{
    for (const char *p = text; p && *p; p = pl_next_line(p)) {
        const char *c1 = strchr(p, ':'), *nl = strchr(p, '\n'), *c2;
        if (!c1 || !nl || c1 > nl || !(c2 = memchr(c1 + 1, ':', (size_t)(nl - c1 - 1))))
            continue;
        int match = h == H_V2 ? (c1 - p == 1 && *p == '0' && c2 == c1 + 1)
                              : has_item(c1 + 1, (size_t)(c2 - c1 - 1), v1ctl[h]);
        size_t n = (size_t)(nl - c2 - 1);
        if (match && n > 0 && n < size && c2[1] == '/') {
            memcpy(out, c2 + 1, n);
            out[n] = '\0';
            return 1;
        }
    }
    return 0;
}

/* Sets h's directory from the mount of its hierarchy whose root holds path. */
static void place(ct_state *s, hier *h, int which, const char *path, const char *mountinfo)
{
    char root[PATH_MAX], mnt[PATH_MAX], fstype[64], skip[PATH_MAX], opts[1024];
    size_t best = 0;
    h->ok = 0;
    for (const char *p = mountinfo; p && *p; p = pl_next_line(p)) {
        const char *q = p, *dash = strstr(p, " - "), *nl = strchr(p, '\n');
        if (!dash || (nl && dash > nl))
            continue;
        int i, bad = 0;
        for (i = 0; i < 3 && !bad; i++)
            bad = field(&q, skip, sizeof skip) < 0;
        if (bad || field(&q, root, sizeof root) <= 0 || field(&q, mnt, sizeof mnt) <= 0)
            continue;
        q = dash + 3;
        if (field(&q, fstype, sizeof fstype) <= 0 || field(&q, skip, sizeof skip) < 0 ||
            field(&q, opts, sizeof opts) < 0)
            continue;
        if (which == H_V2 ? strcmp(fstype, "cgroup2") != 0
                          : strcmp(fstype, "cgroup") != 0 || !has_item(opts, strlen(opts), v1ctl[which]))
            continue;
        size_t rl = strcmp(root, "/") == 0 ? 0 : strlen(root);
        if (strncmp(path, root, rl) != 0 || (path[rl] != '/' && path[rl] != '\0'))
            continue;
        if (h->ok && rl < best)
            continue;        /* a mount of a deeper root is closer */
        const char *rest = path + rl;
        int n = snprintf(h->dir, sizeof h->dir, "%s%s", mnt + 1, strcmp(rest, "/") ? rest : "");
        if (n < 0 || (size_t)n >= sizeof h->dir)
            continue;
        h->top = strlen(mnt + 1);
        h->ok = 1;
        best = rl;
    }
    if (h->ok) {             /* the directory is not there: the mount point stands for it */
        char full[PATH_MAX + 256];
        snprintf(full, sizeof full, "%s%s", pl_env_root_prefix(s->env), h->dir);
        if (access(full, F_OK) != 0)
            h->dir[h->top] = '\0';
    }
}

/* Finds the hierarchies again when proc/self/cgroup changed: 0 or an errno. */
static int locate(ct_state *s, pl_snapshot *snap)
{
    int e = pl_file_read(&s->self, s->env, "proc/self/cgroup");
    if (e) {
        snap->err_path = "proc/self/cgroup";
        return e;
    }
    if (s->seen && strcmp(s->seen, s->self.buf) == 0)
        return 0;
    files_close(s);
    memset(s->gone, 0, sizeof s->gone);
    memset(s->lgone, 0, sizeof s->lgone);
    free(s->seen);
    if (!(s->seen = strdup(s->self.buf)))
        return ENOMEM;
    pl_file mi;
    pl_file_init(&mi);
    if ((e = pl_file_read(&mi, s->env, "proc/self/mountinfo")) != 0) {
        snap->err_path = "proc/self/mountinfo";
        free(s->seen);
        s->seen = NULL;
        return e;
    }
    int any = 0;
    char path[PATH_MAX];
    for (int h = 0; h < NH; h++) {
        s->h[h].ok = 0;
        if (group_path(s->seen, h, path, sizeof path))
            place(s, &s->h[h], h, path, mi.buf);
        any |= s->h[h].ok;
    }
    pl_file_close(&mi);
    if (!any) {              /* no group in a mounted hierarchy: nothing to re-base on */
        free(s->seen);
        s->seen = NULL;
        snap->err_path = "proc/self/cgroup";
        return ENOENT;
    }
    return 0;
}

/* ---- reading ---------------------------------------------------------------------- */

/* A kept file's text, or NULL (remembering a file that is not there). */
static const char *kept(ct_state *s, pl_file *pf, unsigned char *gone, const char *dir, size_t len,
                        const char *name)
{
    char rel[PATH_MAX + 64];
    rel[0] = '\0';
    if (*gone)
        return NULL;
    if (pf->fd < 0)
        snprintf(rel, sizeof rel, "%.*s/%s", (int)len, dir, name);
    int e = pl_file_read(pf, s->env, rel);
    if (e == ENOENT)
        *gone = 1;
    return e ? NULL : pf->buf;
}

/* The group's file f, v2 when it is there, else v1; *v1 says which. */
static const char *own(ct_state *s, int f, int *v1)
{
    const char *t = NULL;
    const hier *h = &s->h[H_V2];
    *v1 = 0;
    if (fdef[f].v2 && h->ok && (t = kept(s, &s->f[f][0], &s->gone[f][0], h->dir, strlen(h->dir),
                                         fdef[f].v2)) != NULL)
        return t;
    h = &s->h[fdef[f].h1];
    if (fdef[f].v1 && fdef[f].h1 && h->ok)
        t = kept(s, &s->f[f][1], &s->gone[f][1], h->dir, strlen(h->dir), fdef[f].v1);
    *v1 = t != NULL;
    return t;
}

/* One level's limit l (v: 0 v2, 1 v1) in its unit (thousandths of a CPU,
 * bytes, tasks): 1 with *out, 0 for none or a malformed file. */
static int level_limit(ct_state *s, int d, int l, int v, const char *dir, size_t len, uint64_t *out)
{
    const char *name = v ? ldef[l].v1 : ldef[l].v2;
    const char *t = kept(s, &s->lim[d][l][v], &s->lgone[d][l][v], dir, len, name);
    uint64_t a, b;
    int unl;
    if (!t)
        return 0;
    if (l == L_CPU && !v) {                  /* "max 100000" or "150000 100000" */
        const char *p = t;
        if (strncmp(p, "max ", 4) == 0 || pl_parse_u64(&p, &a) != 0 || *p != ' ' ||
            !pl_cg_num_eol(p + 1, &b) || b == 0)
            return 0;
    } else if (l == L_CPU) {                 /* cfs_quota_us: -1 for none; the period beside it */
        const char *pt = kept(s, &s->lim[d][L_CPU_PERIOD][1], &s->lgone[d][L_CPU_PERIOD][1], dir, len,
                              ldef[L_CPU_PERIOD].v1);
        if (!pl_cg_num_eol(t, &a) || !pt || !pl_cg_num_eol(pt, &b) || b == 0)
            return 0;
    } else if (l == L_MEM && v) {
        return pl_cg_num_eol(t, out) && *out < V1_UNLIMITED;
    } else {
        return pl_cg_limit(t, out, &unl);
    }
    *out = a > UINT64_MAX / 1000 ? UINT64_MAX / b : a * 1000 / b;
    if (*out == 0)
        *out = 1;            /* a quota under a thousandth of a CPU still binds */
    return 1;
}

/* The tightest limit l of the group and its ancestors up to the mount
 * point, in v2 and v1: 1 with *out, 0 when none sets one. */
static int tightest(ct_state *s, int l, uint64_t *out)
{
    int have = 0;
    for (int v = 0; v < 2; v++) {
        int h = v ? ldef[l].h1 : H_V2;
        if (!(v ? ldef[l].v1 : ldef[l].v2) || !s->h[h].ok)
            continue;
        const char *dir = s->h[h].dir;
        size_t len = strlen(dir), top = s->h[h].top;
        for (int d = 0; d < MAX_DEPTH; d++) {
            uint64_t x;
            if (level_limit(s, d, l, v, dir, len, &x) && (!have || x < *out)) {
                *out = x;
                have = 1;
            }
            if (len <= top)
                break;
            while (len > top && dir[len - 1] != '/')
                len--;           /* up one level: drop the last name and its '/' */
            if (len > top)
                len--;
        }
    }
    return have;
}

/* CPUs of a list ("0-3,8\n"): their number, 0 when malformed or empty. */
static uint64_t list_count(const char *t)
{
    uint32_t lo, hi;
    uint64_t n = 0;
    int r;
    while ((r = pl_cpulist_next(&t, MAX_CPUS, &lo, &hi)) == 1)
        n += hi - lo + 1;
    return r == 0 ? n : 0;
}

#define SET(c, x) pl_snap_set(snap, 0, (uint32_t)(c), (x))

/* The CPU limit, thousandths of a CPU: 1 with *milli and *src, 0 if unknown. */
static int cpu_limit(ct_state *s, uint64_t *milli, uint64_t *src)
{
    char buf[1024];
    uint64_t n, q;
    int have = 0, v1;
    const char *t;
    if (pl_read_once(&s->online_fd, s->env, "sys/devices/system/cpu/online", buf, sizeof buf) == 0 &&
        (n = list_count(buf)) > 0) {
        *milli = n * 1000;
        *src = 0;
        have = 1;
    }
    if ((t = own(s, F_CPUSET, &v1)) != NULL && (n = list_count(t)) > 0 && (!have || n * 1000 < *milli)) {
        *milli = n * 1000;
        *src = 1;
        have = 1;
    }
    if (tightest(s, L_CPU, &q) && (!have || q < *milli)) {
        *milli = q;
        *src = 2;
        have = 1;
    }
    return have;
}

static void collect_cpu(ct_state *s, pl_snapshot *snap)
{
    uint64_t milli, src, v;
    int v1;
    const char *t;
    if (cpu_limit(s, &milli, &src)) {
        SET(C_CPU_BASE, milli);
        SET(C_CPU_LIMIT, milli);
        SET(C_CPU_SRC, src);
    }
    /* CPU times in 100 ns x 1000 (the base is in thousandths): usec x 10^4 */
    if ((t = own(s, F_CPUSTAT, &v1)) != NULL) {
        if (pl_cg_kv(t, "usage_usec", &v)) SET(C_CPU, v * 10000);
        if (pl_cg_kv(t, "user_usec", &v)) SET(C_USER, v * 10000);
        if (pl_cg_kv(t, "system_usec", &v)) SET(C_PRIV, v * 10000);
        if (pl_cg_kv(t, "throttled_usec", &v)) SET(C_THRT, v * 10);
        if (pl_cg_kv(t, "nr_throttled", &v)) SET(C_THRP, v);
        return;
    }
    if ((t = own(s, F_ACCT, &v1)) != NULL && pl_cg_num_eol(t, &v))
        SET(C_CPU, v * 10);                  /* ns / 100 x 1000 */
    if ((t = own(s, F_ACCTSTAT, &v1)) != NULL && s->hz > 0) {
        uint64_t per = 10000000000ull / (uint64_t)s->hz;   /* 100 ns x 1000 per tick */
        if (pl_cg_kv(t, "user", &v)) SET(C_USER, v * per);
        if (pl_cg_kv(t, "system", &v)) SET(C_PRIV, v * per);
    }
    if ((t = own(s, F_V1CPUSTAT, &v1)) != NULL) {
        if (pl_cg_kv(t, "throttled_time", &v)) SET(C_THRT, v / 100);
        if (pl_cg_kv(t, "nr_throttled", &v)) SET(C_THRP, v);
    }
}

static void collect_mem(ct_state *s, pl_snapshot *snap)
{
    uint64_t cur = 0, inact, limit = 0, v, sw;
    int v1, v1s, hc = 0, hl;
    const char *t;
    if ((t = own(s, F_MEMCUR, &v1)) != NULL && (hc = pl_cg_num_eol(t, &cur)) != 0)
        SET(C_MEM, cur);
    if ((hl = tightest(s, L_MEM, &limit)) != 0) {
        SET(C_MEM_SRC, 1);
    } else if (pl_ksrc_get(s->mi) == 0) {
        const pl_meminfo *m = pl_ksrc_data(s->mi);
        if ((hl = m->st[PL_MI_TOTAL] == PL_NS_OK) != 0) {
            limit = m->v[PL_MI_TOTAL] * 1024;
            SET(C_MEM_SRC, 0);
        }
    }
    if (hl)
        SET(C_MEM_LIMIT, limit);
    if (hc && (t = own(s, F_MEMSTAT, &v1s)) != NULL &&
        pl_cg_kv(t, v1s ? "total_inactive_file" : "inactive_file", &inact)) {
        uint64_t ws = cur > inact ? cur - inact : 0;
        SET(C_WS, ws);
        if (hl && limit > 0) {
            SET(C_MEMP, ws);
            SET(C_MEMP_BASE, limit);
            SET(C_AVAIL, limit > ws ? limit - ws : 0);
        }
    }
    if ((t = own(s, F_SWAP, &v1s)) != NULL && pl_cg_num_eol(t, &sw)) {
        if (!v1s)
            SET(C_SWAP, sw);
        else if (hc && v1)           /* memsw counts memory and swap together */
            SET(C_SWAP, sw > cur ? sw - cur : 0);
    }
    if ((t = own(s, F_EVENTS, &v1)) != NULL && pl_cg_kv(t, "oom_kill", &v))
        SET(C_OOM, v);
}

static int want_any(const uint8_t *w, int a, int b)
{
    for (int c = a; c <= b; c++)
        if (!w || w[c])
            return 1;
    return 0;
}

static int ct_collect(void *state, const uint8_t *wanted, pl_snapshot *snap)
{
    ct_state *s = state;
    uint64_t v;
    int e, v1;
    const char *t;
    if ((e = pl_single_instance(state, snap)) != 0 || !want_any(wanted, 0, NC - 1))
        return e;
    if ((e = locate(s, snap)) != 0)
        return e;
    if (want_any(wanted, C_CPU, C_THRP))
        collect_cpu(s, snap);
    if (want_any(wanted, C_MEM, C_OOM))
        collect_mem(s, snap);
    if (want_any(wanted, C_TASKS, C_TASKS_MAX)) {
        if ((t = own(s, F_PIDS, &v1)) != NULL && pl_cg_num_eol(t, &v))
            SET(C_TASKS, v);
        if (tightest(s, L_PIDS, &v))
            SET(C_TASKS_MAX, v);
    }
    return 0;
}

static const pl_provider_ops ops = { ct_open, ct_close, pl_single_instance, ct_collect, NULL, NULL };

const pl_counterset_def pl_container_def = {
    /* UUIDv5(perflib namespace, "Container") */
    { 0x56afbc23, 0xf3b1, 0x56e0, { 0xab, 0x23, 0x2e, 0x04, 0xd1, 0xe2, 0x40, 0x10 } },
    "Container",
    "The machine as this process's control group sees it: CPU time over the CPUs it may use and "
    "memory over the memory it may use (its cgroup's quota, cpuset and limits, and its "
    "ancestors'), so that a container sees its own 100 %; the machine's CPUs and MemTotal "
    "without limits.",
    PERF_COUNTERSET_SINGLE_INSTANCE, 0, sizeof counters / sizeof counters[0], counters, &ops, 54000,
    NULL,
};
