/* GPU Engine (51000) and GPU Process Memory (52000), both costly: each
 * process's GPU use from the fdinfo of its DRM files
 * (Documentation/gpu/drm-usage-stats.rst, 5.19 on; drm.h parses one).
 *
 * The walk: the machine's process listing (ptshare.h, shared with Process
 * and Thread), then per process its fd/ directory; an fd whose link is
 * below /dev/dri/ has its fdinfo read, and counts only when the fdinfo has
 * drm-driver (a kernel before usage stats writes none: no values, not
 * zeros).  Several fds of a process may share one client (dup, fork, the
 * same render node opened by two libraries): each (device, drm-client-id)
 * counts once per process.  A process whose fd/ is not ours to read
 * (another user's, without CAP_SYS_PTRACE) or that exits is left out.
 *
 * Instances: "pid_<pid>_<device>_<engine>" (GPU Engine) and
 * "pid_<pid>_<device>" (GPU Process Memory), id the pid, key the process's
 * start time; the device is the DRM card whose PCI slot is the fdinfo's
 * drm-pdev ("card0"), else the pdev, else the driver's name.
 *
 * Engine busy time is drm-engine-<name> in ns (kept in 100 ns) over
 * drm-engine-capacity-<name> engines (1 when absent): a multi-timer.  xe
 * gives drm-cycles-/drm-total-cycles- instead: busy cycles over the GPU's
 * timestamp cycles times the capacity, a sample fraction; its clients'
 * cycles are summed and their total-cycles (one clock) taken once, the
 * largest.  Memory: drm-total-<region> (else the older drm-memory-<region>)
 * summed over regions local to the GPU (vram*, local*, stolen-local*) as
 * Dedicated Usage and over the others (system*, gtt, cpu ...) as Shared
 * Usage, as Windows' GPU Process Memory splits them. */
#include "providers.h"
#include "pl_provider.h"
#include "pl_rowset.h"
#include "ptshare.h"
#include "gpu.h"
#include "drm.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LRAW PERF_COUNTER_LARGE_RAWCOUNT
#define NOV PERF_DETAIL_NOVICE
#define ADV PERF_DETAIL_ADVANCED

/* ---- rows ----------------------------------------------------------------------- */
enum { E_RUN, E_CAP, E_CYCLES, E_CYCLE_BASE, NE };
enum { M_DEDICATED, M_SHARED, M_TOTAL, M_RESIDENT, M_SHAREDOBJ, NM };
#define NFIELD 5             /* the larger of NE and NM */
_Static_assert((int)NE <= NFIELD && (int)NM <= NFIELD, "acc_row holds both sets' fields");
typedef struct acc_row {
    uint64_t v[NFIELD];
    uint8_t st[NFIELD];
} acc_row;
enum { S_ROW, NSRC };
static const pl_feed_src srcs[NSRC] = { PL_FEED_SRC_ST(NULL, acc_row) };

#define ENG_ROWS(R) \
    R(0, "Running Time", "Time the process's clients kept the engine busy, in 100 ns (fdinfo " \
      "drm-engine-<engine> in ns).", LRAW, PL_NO_ID, ADV, 0, PL_U(SECONDS, 1e-7, COUNTER), \
      PL_FIELD(S_ROW, E_RUN)) \
    R(1, "Utilization Percentage", "Share of the engine class's capacity the process kept busy " \
      "(fdinfo drm-engine-<engine> ns over drm-engine-capacity-<engine> engines).", \
      PERF_100NSEC_MULTI_TIMER, 2, NOV, 0, PL_U(SECONDS, 1e-7, COUNTER), PL_FIELD(S_ROW, E_RUN)) \
    R(2, "Utilization Percentage Base", "Engines of the class (fdinfo " \
      "drm-engine-capacity-<engine>, 1 when absent).", PERF_COUNTER_MULTI_BASE, PL_NO_ID, NOV, 0, \
      PL_U(COUNT, 1, DISCRETE), PL_FIELD(S_ROW, E_CAP)) \
    R(3, "Cycle Utilization Percentage", "Share of the engine class's cycles the process kept " \
      "busy, for drivers that count cycles (xe: fdinfo drm-cycles-<engine> over " \
      "drm-total-cycles-<engine> x capacity).", PERF_SAMPLE_FRACTION, 4, NOV, 0, \
      PL_U(COUNT, 1, COUNTER), PL_FIELD(S_ROW, E_CYCLES)) \
    R(4, "Cycle Utilization Percentage Base", "GPU timestamp cycles x engines of the class " \
      "(fdinfo drm-total-cycles-<engine> x drm-engine-capacity-<engine>).", PERF_SAMPLE_BASE, \
      PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_ROW, E_CYCLE_BASE))

#define BROW(...) PL_GPU_BYTES_ROW(__VA_ARGS__)
#define PMEM_ROWS(R) \
    BROW(R, 0, "Dedicated Usage", "GPU-local memory (vram, local) of the process's clients, " \
         "bytes (fdinfo drm-total-<region>, else drm-memory-<region>).", M_DEDICATED, NOV) \
    BROW(R, 1, "Shared Usage", "System memory (system, gtt, cpu) of the process's clients, " \
         "bytes (fdinfo drm-total-<region>, else drm-memory-<region>).", M_SHARED, NOV) \
    BROW(R, 2, "Total Committed", "Dedicated Usage + Shared Usage: every region's fdinfo " \
         "drm-total-<region> (else drm-memory-<region>) summed, bytes.", M_TOTAL, NOV) \
    BROW(R, 3, "Resident Usage", "Memory of the process's clients resident in its region, " \
         "bytes (fdinfo drm-resident-<region>).", M_RESIDENT, ADV) \
    BROW(R, 4, "Shared Objects Usage", "Memory of buffers the process's clients share with " \
         "other clients, bytes (fdinfo drm-shared-<region>).", M_SHAREDOBJ, ADV)

static const pl_counter_def eng_counters[] = { ENG_ROWS(PL_ROW_COUNTER) };
static const pl_feed eng_feeds[] = { ENG_ROWS(PL_ROW_FEED) };
static const pl_counter_def pmem_counters[] = { PMEM_ROWS(PL_ROW_COUNTER) };
static const pl_feed pmem_feeds[] = { PMEM_ROWS(PL_ROW_FEED) };
#define NENG (sizeof eng_counters / sizeof eng_counters[0])
#define NPMEM (sizeof pmem_counters / sizeof pmem_counters[0])

/* ---- state ---------------------------------------------------------------------- */
#define MAXACC 64            /* instances of one process */
#define MAXCLIENT 64         /* clients of one process */
#define MAXCARD 16
#define DEVNAME PL_DRM_NAME

typedef struct acc {
    char dev[DEVNAME], eng[PL_DRM_NAME];     /* eng "" in GPU Process Memory */
    acc_row r;
} acc;

typedef struct client {
    char dev[DEVNAME];
    uint64_t id;
} client;

typedef struct fd_state {
    pl_env *env;
    pl_ptshare *sh;
    int engines;             /* 1: GPU Engine, 0: GPU Process Memory */
    const pl_feed *feeds;
    uint32_t nc;
    pl_rbuf db;              /* directory entries */
    uint32_t *fds, nfds, fdcap;
    pl_drm_fdinfo fi;
    acc acc[MAXACC];
    uint32_t nacc;
    client cl[MAXCLIENT];
    uint32_t ncl;
    struct { char pdev[PL_DRM_NAME], card[DEVNAME]; } map[MAXCARD];   /* pdev -> name */
    uint32_t nmap;
    uint64_t map_gen;        /* the walk the map was last made in */
    uint64_t walks;
    char buf[16384];         /* one fdinfo */
} fd_state;

static int fd_open(pl_env *env, void **state, int engines)
{
    fd_state *s = calloc(1, sizeof *s);
    if (!s)
        return ENOMEM;
    if (!(s->sh = pl_ptshare_attach(env))) {
        free(s);
        return ENOMEM;
    }
    s->env = pl_env_ref(env);
    s->engines = engines;
    s->feeds = engines ? eng_feeds : pmem_feeds;
    s->nc = engines ? NENG : NPMEM;
    *state = s;
    return 0;
}

static int eng_open(pl_env *env, void **state)
{
    return fd_open(env, state, 1);
}

static int pmem_open(pl_env *env, void **state)
{
    return fd_open(env, state, 0);
}

static void fd_close(void *state)
{
    fd_state *s = state;
    if (!s)
        return;
    pl_rbuf_free(&s->db);
    free(s->fds);
    pl_env_unref(s->env);
    free(s);
}

/* ---- devices -------------------------------------------------------------------- */
/* The PCI slot of each DRM card, made again at most once per walk (when a
 * pdev is not in it: a card came). */
static void map_cards(fd_state *s)
{
    char path[512], target[512];
    DIR *d;
    struct dirent *e;
    unsigned n;
    s->nmap = 0;
    s->map_gen = s->walks;
    snprintf(path, sizeof path, "%ssys/class/drm", pl_env_root_prefix(s->env));
    if (!(d = opendir(path)))
        return;
    while ((e = readdir(d)) && s->nmap < MAXCARD) {
        ssize_t k;
        const char *b;
        if (!pl_entry_number(e->d_name, "card", 1u << 16, &n))
            continue;
        snprintf(path, sizeof path, "%ssys/class/drm/card%u/device", pl_env_root_prefix(s->env), n);
        if ((k = readlink(path, target, sizeof target - 1)) < 0)
            continue;
        target[k] = '\0';
        b = strrchr(target, '/');
        b = b ? b + 1 : target;
        if (strlen(b) >= PL_DRM_NAME)
            continue;
        strcpy(s->map[s->nmap].pdev, b);
        snprintf(s->map[s->nmap].card, sizeof s->map[0].card, "card%u", n);
        s->nmap++;
    }
    closedir(d);
}

/* The device's name for the fdinfo in s->fi, into out (DEVNAME bytes):
 * the card of its pdev, else the pdev (kept in the map, so that a device
 * without a card, such as an accelerator with only a render node, does not
 * list the class again each walk), else the driver. */
static void device_name(fd_state *s, char *out)
{
    if (!s->fi.pdev[0]) {
        snprintf(out, DEVNAME, "%s", s->fi.driver);
        pl_name_sanitize(out);
        return;
    }
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t i = 0; i < s->nmap; i++)
            if (strcmp(s->map[i].pdev, s->fi.pdev) == 0) {
                strcpy(out, s->map[i].card);
                return;
            }
        if (pass || s->map_gen == s->walks)
            break;
        map_cards(s);
    }
    snprintf(out, DEVNAME, "%s", s->fi.pdev);
    pl_name_sanitize(out);
    if (s->nmap < MAXCARD) {
        strcpy(s->map[s->nmap].pdev, s->fi.pdev);
        strcpy(s->map[s->nmap++].card, out);
    }
}

/* ---- accumulation ----------------------------------------------------------------- */
static acc *acc_get(fd_state *s, const char *dev, const char *eng)
{
    for (uint32_t i = 0; i < s->nacc; i++)
        if (!strcmp(s->acc[i].dev, dev) && !strcmp(s->acc[i].eng, eng))
            return &s->acc[i];
    if (s->nacc >= MAXACC)
        return NULL;
    acc *a = &s->acc[s->nacc++];
    memset(a, 0, sizeof *a);
    strcpy(a->dev, dev);
    strcpy(a->eng, eng);
    return a;
}

/* Adds v to field k (a sum that would wrap leaves it unset: BAD). */
static void add(acc_row *r, int k, uint64_t v)
{
    if (r->st[k] == PL_NS_BAD)
        return;
    if (r->st[k] == PL_NS_OK && !pl_add_ok(r->v[k], v, &r->v[k])) {
        r->st[k] = PL_NS_BAD;
        return;
    }
    if (r->st[k] != PL_NS_OK)
        r->v[k] = v;
    r->st[k] = PL_NS_OK;
}

static void most(acc_row *r, int k, uint64_t v)
{
    if (r->st[k] != PL_NS_OK || v > r->v[k])
        r->v[k] = v;
    r->st[k] = PL_NS_OK;
}

static void add_engines(fd_state *s, const char *dev)
{
    for (uint32_t i = 0; i < s->fi.neng; i++) {
        const pl_drm_engine *g = &s->fi.eng[i];
        uint64_t cap = g->st[PL_DRM_CAPACITY] == PL_NS_OK && g->v[PL_DRM_CAPACITY] ? g->v[PL_DRM_CAPACITY] : 1;
        int ns = g->st[PL_DRM_NS] == PL_NS_OK;
        int cyc = g->st[PL_DRM_CYCLES] == PL_NS_OK && g->st[PL_DRM_TOTAL_CYCLES] == PL_NS_OK;
        acc *a;
        if ((!ns && !cyc) || !(a = acc_get(s, dev, g->name)))
            continue;        /* a capacity line alone is no engine time */
        most(&a->r, E_CAP, cap);
        if (ns)
            add(&a->r, E_RUN, g->v[PL_DRM_NS]);   /* ns: kept in 100 ns at the end */
        if (cyc) {
            uint64_t base;
            add(&a->r, E_CYCLES, g->v[PL_DRM_CYCLES]);
            if (pl_mul_ok(g->v[PL_DRM_TOTAL_CYCLES], cap, &base))
                most(&a->r, E_CYCLE_BASE, base);
        }
    }
}

/* GPU-local regions: amdgpu's vram, i915's local0 and stolen-local0, xe's vram0. */
static int local_region(const char *name)
{
    return !strncmp(name, "vram", 4) || !strncmp(name, "local", 5) || !strncmp(name, "stolen-local", 12);
}

static void add_memory(fd_state *s, const char *dev)
{
    acc *a = acc_get(s, dev, "");
    if (!a)
        return;
    for (uint32_t i = 0; i < s->fi.nreg; i++) {
        const pl_drm_region *g = &s->fi.reg[i];
        int tk = g->st[PL_DRM_TOTAL] == PL_NS_OK ? PL_DRM_TOTAL
               : g->st[PL_DRM_MEMORY] == PL_NS_OK ? PL_DRM_MEMORY : -1;
        if (tk >= 0) {
            add(&a->r, local_region(g->name) ? M_DEDICATED : M_SHARED, g->v[tk]);
            add(&a->r, M_TOTAL, g->v[tk]);
        }
        if (g->st[PL_DRM_RESIDENT] == PL_NS_OK)
            add(&a->r, M_RESIDENT, g->v[PL_DRM_RESIDENT]);
        if (g->st[PL_DRM_SHARED] == PL_NS_OK)
            add(&a->r, M_SHAREDOBJ, g->v[PL_DRM_SHARED]);
    }
    /* a part with no region of its kind is 0 once the other part was seen */
    if (a->r.st[M_TOTAL] == PL_NS_OK)
        for (int k = M_DEDICATED; k <= M_SHARED; k++)
            if (a->r.st[k] == PL_NS_ABSENT)
                add(&a->r, k, 0);
}

/* 1 when the client of s->fi on dev was counted already in this process. */
static int seen_client(fd_state *s, const char *dev)
{
    if (!s->fi.has_client)
        return 0;            /* no id: every fd is its own */
    for (uint32_t i = 0; i < s->ncl; i++)
        if (s->cl[i].id == s->fi.client && !strcmp(s->cl[i].dev, dev))
            return 1;
    if (s->ncl < MAXCLIENT) {
        strcpy(s->cl[s->ncl].dev, dev);
        s->cl[s->ncl++].id = s->fi.client;
    }
    return 0;
}

/* ---- the walk -------------------------------------------------------------------- */
/* fdinfo rel below procfd into s->buf and s->fi: 1 for a DRM client. */
static int read_fdinfo(fd_state *s, int procfd, const char *rel)
{
    int fd = openat(procfd, rel, O_RDONLY | O_CLOEXEC);
    ssize_t n;
    if (fd < 0)
        return 0;
    n = read(fd, s->buf, sizeof s->buf - 1);
    close(fd);
    if (n <= 0)
        return 0;
    s->buf[n] = '\0';
    pl_parse_drm_fdinfo(s->buf, (size_t)n, &s->fi);
    return s->fi.drm;
}

/* The DRM clients of process pid into s->acc: 0, or ENOMEM. */
static int scan_process(fd_state *s, int procfd, uint32_t pid)
{
    char rel[64], target[64], dev[DEVNAME];
    int dfd, e;
    snprintf(rel, sizeof rel, "%u/fd", pid);
    if ((dfd = openat(procfd, rel, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
        return 0;            /* gone, or not ours to read */
    e = pl_pt_list_ids(dfd, &s->db, &s->fds, &s->nfds, &s->fdcap);
    for (uint32_t i = 0; !e && i < s->nfds; i++) {
        ssize_t k;
        snprintf(rel, sizeof rel, "%u", s->fds[i]);
        k = readlinkat(dfd, rel, target, sizeof target - 1);
        if (k < 9 || memcmp(target, "/dev/dri/", 9) != 0)
            continue;
        snprintf(rel, sizeof rel, "%u/fdinfo/%u", pid, s->fds[i]);
        if (!read_fdinfo(s, procfd, rel))
            continue;
        device_name(s, dev);
        if (seen_client(s, dev))
            continue;
        if (s->engines)
            add_engines(s, dev);
        else
            add_memory(s, dev);
    }
    close(dfd);
    return e == ENOMEM ? ENOMEM : 0;
}

/* The process's instances (from s->acc), with their values when values. */
static int add_instances(fd_state *s, pl_ptproc *p, pl_feed_in *in, const uint8_t *wanted,
                         pl_snapshot *snap, int values)
{
    char name[128];
    uint64_t start = 0;
    if (pl_ptshare_stat(s->sh, p, PS_BIT(PS_START), 0) != 0)
        return 0;            /* exited meanwhile */
    start = p->ps.v[PS_START];
    for (uint32_t i = 0; i < s->nacc; i++) {
        int k;
        if (s->engines)
            snprintf(name, sizeof name, "pid_%u_%s_%s", p->pid, s->acc[i].dev, s->acc[i].eng);
        else
            snprintf(name, sizeof name, "pid_%u_%s", p->pid, s->acc[i].dev);
        pl_name_sanitize(name);
        if ((k = pl_snap_add_key(snap, name, p->pid, start)) < 0)
            return ENOMEM;
        if (values) {
            if (s->engines)
                s->acc[i].r.v[E_RUN] /= 100;
            for (int f = 0; f < NFIELD; f++)
                if (s->acc[i].r.st[f] == PL_NS_BAD)
                    s->acc[i].r.st[f] = PL_NS_ABSENT;
            pl_feed_put(in, S_ROW, &s->acc[i].r);
            pl_feed_walk(in, (uint32_t)k, s->feeds, s->nc, wanted);
        }
    }
    return 0;
}

static int fd_read(void *state, const uint8_t *wanted, pl_snapshot *snap, int values)
{
    fd_state *s = state;
    pl_feed_in in;
    int e, procfd;
    pl_snap_clear(snap);
    if ((e = pl_ptshare_list(s->sh, snap)) != 0)
        return e;
    s->walks++;
    procfd = pl_ptshare_base(s->sh)->procfd;
    pl_feed_begin(&in, srcs, NSRC, NULL, snap, NULL);
    for (uint32_t i = 0; i < pl_ptshare_count(s->sh); i++) {
        pl_ptproc *p = pl_ptshare_proc(s->sh, i);
        s->nacc = s->ncl = 0;
        if ((e = scan_process(s, procfd, p->pid)) != 0)
            return e;
        if (s->nacc && (e = add_instances(s, p, &in, wanted, snap, values)) != 0)
            return e;
    }
    return 0;
}

PL_READ_OPS(eng_r, eng_open, fd_close, fd_read);
PL_READ_OPS(pmem_r, pmem_open, fd_close, fd_read);

const pl_counterset_def pl_gpu_engine_def = {
    /* UUIDv5(perflib namespace, its name) */
    { 0x7ded1a79, 0xae9a, 0x5d60, { 0x9c, 0x8d, 0x9a, 0x13, 0x39, 0x87, 0x69, 0x21 } },
    "GPU Engine",
    "Busy time of each process on each GPU engine class (render, copy, video, gfx, compute ...) "
    "from the fdinfo of its DRM files (/proc/PID/fdinfo/N, drm-engine-*, drm-cycles-*); "
    "costly: a walk of every process's fds.",
    PERF_COUNTERSET_MULTI_INSTANCES, 1, NENG, eng_counters, &eng_r_ops, 51000, NULL,
};

const pl_counterset_def pl_gpu_process_memory_def = {
    /* UUIDv5(perflib namespace, its name) */
    { 0xab1c3d7d, 0x13e3, 0x500a, { 0x9b, 0x25, 0x00, 0x16, 0x28, 0x24, 0xd5, 0xa4 } },
    "GPU Process Memory",
    "GPU memory of each process on each GPU from the fdinfo of its DRM files (/proc/PID/fdinfo/"
    "N, drm-total-*, drm-memory-*, drm-resident-*, drm-shared-*); costly: a walk of every "
    "process's fds.",
    PERF_COUNTERSET_MULTI_INSTANCES, 1, NPMEM, pmem_counters, &pmem_r_ops, 52000, NULL,
};
