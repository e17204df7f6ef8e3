/* NVMe Controller (one instance per /sys/class/nvme/nvmeN, named nvmeN, id
 * N): node_exporter's nvme collector.  The controller's state as a code of
 * the kernel's enum nvme_ctrl_state (drivers/nvme/host/nvme.h; the text of
 * the state attribute, nvme_sysfs_show_state in drivers/nvme/host/core.c):
 * 0 new, 1 live, 2 resetting, 3 connecting, 4 deleting, 5 deleting (no IO),
 * 6 dead; Live (1 when live); queue_count and sqsize where the kernel has
 * them.  model, serial, firmware_rev, transport, address, subsysnqn and
 * cntrltype (5.18+) are text facts (node_nvme_info).  A state text not in
 * the list is no value, never a guess; a missing attribute leaves its
 * counter unset; no NVMe class: zero instances. */
#include "pl_provider.h"
#include "providers.h"
#include "pl_rowset.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RAW PERF_COUNTER_LARGE_RAWCOUNT

enum { C_STATE, C_LIVE, C_QUEUES, C_SQSIZE, NC };
typedef struct nrow {
    uint64_t v[NC];
    uint8_t st[NC];
} nrow;
enum { S_ROW, NSRC };

#define NV_ROWS(R) \
    R(C_STATE, "State", "Controller state as enum nvme_ctrl_state: 0 new, 1 live, 2 resetting, " \
      "3 connecting, 4 deleting, 5 deleting (no IO), 6 dead (sysfs state).", RAW, PL_NO_ID, \
      PERF_DETAIL_NOVICE, 0, PL_U(NONE, 1, DISCRETE), PL_FIELD(S_ROW, C_STATE)) \
    R(C_LIVE, "Live", "1 when the controller is live, 0 otherwise (sysfs state).", RAW, \
      PL_NO_ID, PERF_DETAIL_NOVICE, 0, PL_U(NONE, 1, GAUGE), PL_FIELD(S_ROW, C_LIVE)) \
    R(C_QUEUES, "Queue Count", "I/O and admin queues of the controller (sysfs queue_count).", \
      RAW, PL_NO_ID, PERF_DETAIL_ADVANCED, 0, PL_U(COUNT, 1, DISCRETE), \
      PL_FIELD(S_ROW, C_QUEUES)) \
    R(C_SQSIZE, "Submission Queue Size", "Entries of each submission queue (sysfs sqsize).", \
      RAW, PL_NO_ID, PERF_DETAIL_ADVANCED, 0, PL_U(COUNT, 1, DISCRETE), \
      PL_FIELD(S_ROW, C_SQSIZE))

static const pl_counter_def counters[] = { NV_ROWS(PL_ROW_COUNTER) };
static const pl_feed feeds[] = { NV_ROWS(PL_ROW_FEED) };
static const pl_feed_src srcs[NSRC] = { PL_FEED_SRC_ST(NULL, nrow) };

/* The state texts in enum order (drivers/nvme/host/core.c). */
static const char *const states[] = {
    "new", "live", "resetting", "connecting", "deleting", "deleting (no IO)", "dead",
};

enum { FD_STATE, FD_QUEUES, FD_SQSIZE, NFD };
static const char *const files[NFD] = { "state", "queue_count", "sqsize" };
static const char *const facts[] = {
    "model", "serial", "firmware_rev", "transport", "address", "subsysnqn", "cntrltype",
};

typedef struct ndev {
    unsigned num;            /* first: a pl_numbered record */
    int fd[NFD];
    char name[24];
} ndev;

typedef struct nv_state {
    pl_env *env;
    pl_numbered devs;
} nv_state;

static void dev_init(void *rec)
{
    ndev *d = rec;
    for (int k = 0; k < NFD; k++)
        d->fd[k] = -1;
    snprintf(d->name, sizeof d->name, "nvme%u", d->num);
}

static void dev_close(void *rec)
{
    ndev *d = rec;
    for (int k = 0; k < NFD; k++) {
        if (d->fd[k] >= 0)
            close(d->fd[k]);
        d->fd[k] = -1;
    }
}

static int nv_open(pl_env *env, void **state)
{
    nv_state *s = calloc(1, sizeof *s);
    if (!s)
        return ENOMEM;
    s->env = pl_env_ref(env);
    pl_numbered_init(&s->devs, sizeof(ndev));
    *state = s;
    return 0;
}

static void nv_close(void *state)
{
    nv_state *s = state;
    if (!s)
        return;
    pl_numbered_free(&s->devs, dev_close);
    pl_env_unref(s->env);
    free(s);
}

/* One pread of attribute name of controller num (fd kept in *fd). */
static int read_attr(nv_state *s, unsigned num, int *fd, const char *name, char *buf, size_t size)
{
    char rel[80] = "";
    if (*fd == -1)   /* not yet open; PL_FD_ABSENT: not there */
        snprintf(rel, sizeof rel, "sys/class/nvme/nvme%u/%s", num, name);
    return pl_read_attr(fd, s->env, rel, buf, size);
}

static int list_devs(nv_state *s, pl_snapshot *snap)
{
    int e;
    pl_snap_clear(snap);
    if ((e = pl_numbered_list(&s->devs, s->env, "sys/class/nvme", "nvme", 1u << 20, dev_init,
                              dev_close)) != 0)
        return e;
    for (uint32_t i = 0; i < s->devs.n; i++) {
        ndev *d = (ndev *)s->devs.v + i;
        if (pl_snap_add(snap, d->name, d->num) < 0)
            return ENOMEM;
    }
    return 0;
}

static int nv_instances(void *state, pl_snapshot *snap)
{
    return list_devs(state, snap);
}

static void read_state(nv_state *s, ndev *d, nrow *r)
{
    char buf[64];
    if (read_attr(s, d->num, &d->fd[FD_STATE], files[FD_STATE], buf, sizeof buf))
        return;
    buf[strcspn(buf, "\n")] = '\0';
    for (unsigned k = 0; k < sizeof states / sizeof states[0]; k++)
        if (!strcmp(buf, states[k])) {
            r->v[C_STATE] = k;
            r->v[C_LIVE] = k == 1;
            r->st[C_STATE] = r->st[C_LIVE] = PL_NS_OK;
            return;
        }
    r->st[C_STATE] = r->st[C_LIVE] = PL_NS_BAD;     /* a state this code does not know */
}

static void read_num(nv_state *s, ndev *d, int k, nrow *r, int c)
{
    char buf[32];
    int64_t n;
    if (read_attr(s, d->num, &d->fd[k], files[k], buf, sizeof buf) ||
        pl_parse_i64_whole(buf, &n) || n < 0)
        return;
    r->v[c] = (uint64_t)n;
    r->st[c] = PL_NS_OK;
}

static int nv_collect(void *state, const uint8_t *wanted, pl_snapshot *snap)
{
    nv_state *s = state;
    pl_feed_in in;
    nrow r;
    int e;
    if ((e = list_devs(s, snap)) != 0)
        return e;
    pl_feed_begin(&in, srcs, NSRC, NULL, snap, NULL);
    for (uint32_t i = 0; i < s->devs.n; i++) {
        ndev *d = (ndev *)s->devs.v + i;
        memset(r.st, PL_NS_ABSENT, sizeof r.st);
        read_state(s, d, &r);
        read_num(s, d, FD_QUEUES, &r, C_QUEUES);
        read_num(s, d, FD_SQSIZE, &r, C_SQSIZE);
        pl_feed_put(&in, S_ROW, &r);
        pl_feed_walk(&in, i, feeds, NC, wanted);
    }
    return 0;
}

static int nv_info(void *state, const char *instance, pl_info_fn emit, void *ud)
{
    nv_state *s = state;
    char buf[512], val[512];
    unsigned num;
    int e, any = 0;
    if (!instance || !pl_entry_number(instance, "nvme", 1u << 20, &num))
        return ENOENT;
    for (unsigned k = 0; k < sizeof facts / sizeof facts[0]; k++) {
        int fd = -1;
        e = read_attr(s, num, &fd, facts[k], buf, sizeof buf);
        if (fd >= 0)
            close(fd);
        if (e)
            continue;
        any = 1;
        pl_fact_escape(buf, val, sizeof val);
        if (val[0] && emit(ud, facts[k], val))
            return 0;
    }
    if (!any) {
        int fd = -1;
        e = read_attr(s, num, &fd, "state", buf, sizeof buf);
        if (fd >= 0)
            close(fd);
        return e == ENOENT ? ENOENT : 0;
    }
    return 0;
}

static const pl_provider_ops nv_ops = { nv_open, nv_close, nv_instances, nv_collect, NULL,
                                        nv_info };

const pl_counterset_def pl_nvme_def = {
    /* UUIDv5(perflib namespace, "NVMe Controller") */
    { 0xf0a972de, 0x4133, 0x5463, { 0xb3, 0xba, 0xe0, 0x41, 0xa8, 0x16, 0x75, 0xd0 } },
    "NVMe Controller",
    "NVMe controllers (/sys/class/nvme/nvme*): state as a code and live or not, queue count "
    "and submission queue size; model, serial, firmware, transport, address, subsystem NQN "
    "and controller type as text facts; no instances without NVMe.",
    PERF_COUNTERSET_MULTI_INSTANCES, 0, NC, counters, &nv_ops, 58000, NULL,
};
