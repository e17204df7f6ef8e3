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
#include "sysattr.h"

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

_Static_assert(NFD <= PL_NUMDEV_FILES, "a pl_numdev keeps every file");

/* The state is a pl_numclass of sys/class/nvme's nvme<N> entries
 * (sysattr.h): each controller's files kept open. */
static int nv_open(pl_env *env, void **state)
{
    return pl_numclass_open(env, "sys/class/nvme", "nvme", state);
}

/* One read of attribute name of controller num, not kept (the info op). */
static int read_fact(const pl_numclass *c, unsigned num, const char *name, char *buf, size_t size)
{
    pl_numdev d;
    int e;
    d.num = num;
    d.fd[0] = -1;
    e = pl_numdev_read(c, &d, 0, name, buf, size);
    if (d.fd[0] >= 0)
        close(d.fd[0]);
    return e;
}

static void read_state(const pl_numclass *c, pl_numdev *d, nrow *r)
{
    char buf[64];
    if (pl_numdev_read(c, d, FD_STATE, files[FD_STATE], buf, sizeof buf))
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

static void read_num(const pl_numclass *cl, pl_numdev *d, int k, nrow *r, int c)
{
    char buf[32];
    int64_t n;
    if (pl_numdev_read(cl, d, k, files[k], buf, sizeof buf) ||
        pl_parse_i64_whole(buf, &n) || n < 0)
        return;
    r->v[c] = (uint64_t)n;
    r->st[c] = PL_NS_OK;
}

static int nv_collect(void *state, const uint8_t *wanted, pl_snapshot *snap)
{
    pl_numclass *c = state;
    pl_feed_in in;
    nrow r;
    int e;
    if ((e = pl_numclass_list(c, snap)) != 0)
        return e;
    pl_feed_begin(&in, srcs, NSRC, NULL, snap, NULL);
    for (uint32_t i = 0; i < c->devs.n; i++) {
        pl_numdev *d = (pl_numdev *)c->devs.v + i;
        memset(r.st, PL_NS_ABSENT, sizeof r.st);
        read_state(c, d, &r);
        read_num(c, d, FD_QUEUES, &r, C_QUEUES);
        read_num(c, d, FD_SQSIZE, &r, C_SQSIZE);
        pl_feed_put(&in, S_ROW, &r);
        pl_feed_walk(&in, i, feeds, NC, wanted);
    }
    return 0;
}

static int nv_info(void *state, const char *instance, pl_info_fn emit, void *ud)
{
    const pl_numclass *c = state;
    char buf[512], val[512];
    unsigned num;
    int any = 0;
    if (!instance || !pl_entry_number(instance, "nvme", 1u << 20, &num))
        return ENOENT;
    for (unsigned k = 0; k < sizeof facts / sizeof facts[0]; k++) {
        if (read_fact(c, num, facts[k], buf, sizeof buf))
            continue;
        any = 1;
        pl_fact_escape(buf, val, sizeof val);
        if (val[0] && emit(ud, facts[k], val))
            return 0;
    }
    if (!any && read_fact(c, num, "state", buf, sizeof buf) == ENOENT)
        return ENOENT;       /* no such controller */
    return 0;
}

static const pl_provider_ops nv_ops = { nv_open, pl_numclass_close, pl_numclass_list, nv_collect,
                                        NULL, nv_info };

const pl_counterset_def pl_nvme_def = {
    /* UUIDv5(perflib namespace, "NVMe Controller") */
    { 0xf0a972de, 0x4133, 0x5463, { 0xb3, 0xba, 0xe0, 0x41, 0xa8, 0x16, 0x75, 0xd0 } },
    "NVMe Controller",
    "NVMe controllers (/sys/class/nvme/nvme*): state as a code and live or not, queue count "
    "and submission queue size; model, serial, firmware, transport, address, subsystem NQN "
    "and controller type as text facts; no instances without NVMe.",
    PERF_COUNTERSET_MULTI_INSTANCES, 0, NC, counters, &nv_ops, 58000, NULL,
};
