/* NFS Client: one instance per NFS mount (fstype nfs or nfs4) of
 * /proc/self/mountstats, named by its mount point.  No NFS mount: zero
 * instances.
 *
 * A mount's block:
 *   device srv:/export mounted on /mnt/x with fstype nfs4 statvers=1.1
 *       bytes:  normalread normalwrite directread directwrite serverread serverwrite readpages writepages
 *       per-op statistics
 *               READ: ops trans timeouts bytes_sent bytes_recv queue_ms rtt_ms execute_ms [errors]
 * Per operation (the rows chosen: READ and WRITE in full, GETATTR, LOOKUP
 * and ACCESS calls and round trip) the counters sit on the mount, not on
 * "mount/OP" instances: a mount is what users alert on, and an op the
 * kernel does not list (LOOKUP on some NFSv4 paths) leaves its rows unset.
 * Every field is 64-bit in the kernel (unsigned long / ktime in ms), so no
 * unwrap is needed.  Times are ms, published in 100 ns (x 10000).
 *
 * Identity: mountstats carries no mount ID (R5 wants one); a mount is its
 * mount point, octal escapes (\040) decoded.  The same point mounted twice
 * (stacked mounts) is "#1", "#2" ... after the first, in file order, by the
 * rule of every set (pl_names).  The instance id is FNV-1a of the name &
 * 0x7FFFFFFF.  A mount without statistics (no statvers) is listed with its
 * values unset.  The last line is read with or without its newline. */
#include "pl_provider.h"
#include "providers.h"
#include "pl_names.h"
#include "pl_rowset.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define REL "proc/self/mountstats"
#define NAME_MAX_ 1024       /* PERF_MAX_INSTANCE_NAME */

enum {
    C_RBYTES, C_WBYTES, C_SRBYTES, C_SWBYTES, C_ROPS, C_WOPS, C_OPS,
    C_RRTT, C_RRTT_B, C_REXE, C_REXE_B, C_WRTT, C_WRTT_B, C_WEXE, C_WEXE_B,
    C_RETRANS, C_TIMEOUTS, C_ERRORS,
    C_RQUE, C_RQUE_B, C_WQUE, C_WQUE_B, C_RERR, C_WERR, C_RTMO, C_WTMO,
    C_GA_OPS, C_GA_RTT, C_GA_RTT_B, C_LK_OPS, C_LK_RTT, C_LK_RTT_B, C_AC_OPS, C_AC_RTT, C_AC_RTT_B,
    NC
};

#define BULK PERF_COUNTER_BULK_COUNT
#define NOV PERF_DETAIL_NOVICE
#define ADV PERF_DETAIL_ADVANCED

/* The per-op lines the rows read: READ and WRITE, and the metadata calls
 * whose latency users feel most (GETATTR, LOOKUP, ACCESS; the same names
 * for NFSv3 and NFSv4). */
enum { OP_RD, OP_WR, OP_GA, OP_LK, OP_AC, NOP };
static const char *const op_name[NOP] = { "READ", "WRITE", "GETATTR", "LOOKUP", "ACCESS" };

typedef struct mstat {
    uint64_t bytes[8];
    int nbytes;              /* 8 when the bytes: line parsed, else 0 */
    uint64_t op[NOP][9];     /* ops trans timeouts sent recv queue rtt execute [errors] */
    int nop[NOP];            /* numbers of those lines: 0, 8 or 9 */
    uint64_t ops, retrans, timeouts, errors;
    int nops, nerr;          /* op lines parsed; of those, with an errors field */
    int bad;                 /* an op line that did not parse */
} mstat;

/* A mount's parse as the walk reads it: the bytes: line and the op lines
 * (fields below their count are there). */
enum { S_BYTES, S_RD, S_WR, S_GA, S_LK, S_AC, NSRC };
_Static_assert(S_RD == 1 + OP_RD && S_AC == 1 + OP_AC, "source 1 + k is op line k");

#define OP_SRC(k) PL_FEED_SRC_N(NULL, mstat, op[k], nop[k])
static const pl_feed_src srcs[NSRC] = {
    PL_FEED_SRC_N(NULL, mstat, bytes, nbytes),
    OP_SRC(OP_RD), OP_SRC(OP_WR), OP_SRC(OP_GA), OP_SRC(OP_LK), OP_SRC(OP_AC),
};

/* Field f of an op line, in ms, as 100 ns. */
static int ms_hns(pl_feed_in *in, unsigned src, unsigned f, uint64_t *v)
{
    uint64_t ms;
    return pl_feed_field(in, src, f, &ms) && pl_mul_ok(ms, 10000, v);
}

static int rd_rtt(pl_feed_in *in, uint64_t *v) { return ms_hns(in, S_RD, 6, v); }
static int rd_exe(pl_feed_in *in, uint64_t *v) { return ms_hns(in, S_RD, 7, v); }
static int wr_rtt(pl_feed_in *in, uint64_t *v) { return ms_hns(in, S_WR, 6, v); }
static int wr_exe(pl_feed_in *in, uint64_t *v) { return ms_hns(in, S_WR, 7, v); }
static int rd_que(pl_feed_in *in, uint64_t *v) { return ms_hns(in, S_RD, 5, v); }
static int wr_que(pl_feed_in *in, uint64_t *v) { return ms_hns(in, S_WR, 5, v); }
static int ga_rtt(pl_feed_in *in, uint64_t *v) { return ms_hns(in, S_GA, 6, v); }
static int lk_rtt(pl_feed_in *in, uint64_t *v) { return ms_hns(in, S_LK, 6, v); }
static int ac_rtt(pl_feed_in *in, uint64_t *v) { return ms_hns(in, S_AC, 6, v); }

/* An op's mean time (field f's ms over ops) and its base. */
#define OP_AVG(R, id, name, src, fn, what) \
    R(id, name, what, PERF_AVERAGE_TIMER, id##_B, ADV, 0, PL_U(SECONDS, 1e-7, COUNTER), \
      PL_DERIVE(PL_BIT(src), fn)) \
    R(id##_B, name " Base", "Ops of that line, the base of " name ".", PERF_AVERAGE_BASE, PL_NO_ID, \
      ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(src, 0))
/* A metadata op: its calls per second and mean round trip. */
#define OP_META(R, id, op, src, fn) \
    R(id##_OPS, op " Operations/sec", op " requests sent to the server per second (mountstats " \
      "per-op " op " ops).", BULK, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(src, 0)) \
    OP_AVG(R, id##_RTT, "Avg. sec/" op " (RTT)", src, fn, "Mean round-trip time of a " op \
           " request (mountstats " op " rtt in ms over " op " ops).")
/* A count of the READ or WRITE line since the mount. */
#define OP_COUNT(R, id, name, src, f, what) \
    R(id, name, what, PERF_COUNTER_LARGE_RAWCOUNT, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), \
      PL_FIELD(src, f))

/* ids equal indexes: the rows are in id order and never renumbered */
#define NFS_ROWS(R) \
    R(C_RBYTES, "Read Bytes/sec", "Bytes read by applications per second, through the page cache " \
      "and with O_DIRECT (mountstats bytes: normalreadbytes + directreadbytes).", \
      BULK, PL_NO_ID, NOV, 0, PL_U(BYTES, 1, COUNTER), PL_SUM(S_BYTES, 0, 2)) \
    R(C_WBYTES, "Write Bytes/sec", "Bytes written by applications per second, through the page " \
      "cache and with O_DIRECT (mountstats bytes: normalwritebytes + directwritebytes).", \
      BULK, PL_NO_ID, NOV, 0, PL_U(BYTES, 1, COUNTER), PL_SUM(S_BYTES, 1, 3)) \
    R(C_SRBYTES, "Server Read Bytes/sec", "Bytes read from the server per second by READ " \
      "requests (mountstats bytes: serverreadbytes).", \
      BULK, PL_NO_ID, NOV, 0, PL_U(BYTES, 1, COUNTER), PL_FIELD(S_BYTES, 4)) \
    R(C_SWBYTES, "Server Write Bytes/sec", "Bytes sent to the server per second by WRITE " \
      "requests (mountstats bytes: serverwritebytes).", \
      BULK, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, COUNTER), PL_FIELD(S_BYTES, 5)) \
    R(C_ROPS, "Read Operations/sec", "READ requests sent to the server per second (mountstats " \
      "per-op READ ops).", \
      BULK, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_RD, 0)) \
    R(C_WOPS, "Write Operations/sec", "WRITE requests sent to the server per second (mountstats " \
      "per-op WRITE ops).", \
      BULK, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_WR, 0)) \
    R(C_OPS, "Operations/sec", "RPC requests of every kind per second (mountstats per-op ops " \
      "summed over all operations).", \
      BULK, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_BY_HAND()) \
    R(C_RRTT, "Avg. sec/Read (RTT)", "Mean round-trip time of a READ request, from sending to " \
      "the reply (mountstats READ rtt in ms over READ ops).", \
      PERF_AVERAGE_TIMER, C_RRTT_B, NOV, 0, PL_U(SECONDS, 1e-7, COUNTER), PL_DERIVE(PL_BIT(S_RD), rd_rtt)) \
    R(C_RRTT_B, "Avg. sec/Read (RTT) Base", "READ ops, the base of Avg. sec/Read (RTT).", \
      PERF_AVERAGE_BASE, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_RD, 0)) \
    R(C_REXE, "Avg. sec/Read (Execute)", "Mean time from queueing a READ request to its " \
      "completion, queueing included (mountstats READ execute in ms over READ ops).", \
      PERF_AVERAGE_TIMER, C_REXE_B, NOV, 0, PL_U(SECONDS, 1e-7, COUNTER), PL_DERIVE(PL_BIT(S_RD), rd_exe)) \
    R(C_REXE_B, "Avg. sec/Read (Execute) Base", "READ ops, the base of Avg. sec/Read (Execute).", \
      PERF_AVERAGE_BASE, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_RD, 0)) \
    R(C_WRTT, "Avg. sec/Write (RTT)", "Mean round-trip time of a WRITE request (mountstats WRITE " \
      "rtt in ms over WRITE ops).", \
      PERF_AVERAGE_TIMER, C_WRTT_B, NOV, 0, PL_U(SECONDS, 1e-7, COUNTER), PL_DERIVE(PL_BIT(S_WR), wr_rtt)) \
    R(C_WRTT_B, "Avg. sec/Write (RTT) Base", "WRITE ops, the base of Avg. sec/Write (RTT).", \
      PERF_AVERAGE_BASE, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_WR, 0)) \
    R(C_WEXE, "Avg. sec/Write (Execute)", "Mean time from queueing a WRITE request to its " \
      "completion (mountstats WRITE execute in ms over WRITE ops).", \
      PERF_AVERAGE_TIMER, C_WEXE_B, NOV, 0, PL_U(SECONDS, 1e-7, COUNTER), PL_DERIVE(PL_BIT(S_WR), wr_exe)) \
    R(C_WEXE_B, "Avg. sec/Write (Execute) Base", "WRITE ops, the base of Avg. sec/Write " \
      "(Execute).", \
      PERF_AVERAGE_BASE, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_WR, 0)) \
    R(C_RETRANS, "Retransmissions/sec", "Requests sent again per second, after a timeout or a " \
      "reconnect (mountstats per-op trans - ops, summed over all operations).", \
      BULK, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), PL_BY_HAND()) \
    R(C_TIMEOUTS, "Timeouts", "Major timeouts of requests on this mount since it was mounted " \
      "(mountstats per-op timeouts, summed).", \
      PERF_COUNTER_LARGE_RAWCOUNT, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_BY_HAND()) \
    R(C_ERRORS, "Errors", "Requests that completed with an error status since the mount " \
      "(mountstats per-op errors, summed; statvers 1.1, kernel 5.6 and later).", \
      PERF_COUNTER_LARGE_RAWCOUNT, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_BY_HAND()) \
    OP_AVG(R, C_RQUE, "Avg. sec/Read (Queue)", S_RD, rd_que, "Mean time a READ request waited " \
           "to be sent, a congested transport's sign (mountstats READ queue in ms over READ ops).") \
    OP_AVG(R, C_WQUE, "Avg. sec/Write (Queue)", S_WR, wr_que, "Mean time a WRITE request waited " \
           "to be sent (mountstats WRITE queue in ms over WRITE ops).") \
    OP_COUNT(R, C_RERR, "Read Errors", S_RD, 8, "READ requests that completed with an error " \
             "since the mount (mountstats READ errors, the 9th field, where the kernel writes it).") \
    OP_COUNT(R, C_WERR, "Write Errors", S_WR, 8, "WRITE requests that completed with an error " \
             "since the mount (mountstats WRITE errors, the 9th field, where the kernel writes it).") \
    OP_COUNT(R, C_RTMO, "Read Timeouts", S_RD, 2, "Major timeouts of READ requests since the " \
             "mount (mountstats READ timeouts).") \
    OP_COUNT(R, C_WTMO, "Write Timeouts", S_WR, 2, "Major timeouts of WRITE requests since the " \
             "mount (mountstats WRITE timeouts).") \
    OP_META(R, C_GA, "GETATTR", S_GA, ga_rtt) \
    OP_META(R, C_LK, "LOOKUP", S_LK, lk_rtt) \
    OP_META(R, C_AC, "ACCESS", S_AC, ac_rtt)

static const pl_counter_def counters[] = { NFS_ROWS(PL_ROW_COUNTER) };
static const pl_feed feeds[] = { NFS_ROWS(PL_ROW_FEED) };
_Static_assert(sizeof counters / sizeof counters[0] == NC, "one row per counter");


typedef struct nstate {
    pl_env *env;
    pl_file file;
    pl_names names;
    char name[NAME_MAX_ + 8];                /* the mount point */
    char uname[NAME_MAX_ + PL_NAMES_EXTRA];  /* made unique */
} nstate;

static void nfs_close(void *state)
{
    nstate *s = state;
    if (!s)
        return;
    pl_file_close(&s->file);
    pl_names_free(&s->names);
    pl_env_unref(s->env);
    free(s);
}

static int nfs_open(pl_env *env, void **state)
{
    nstate *s = calloc(1, sizeof *s);
    if (!s)
        return ENOMEM;
    s->env = pl_env_ref(env);
    pl_file_init(&s->file);
    pl_names_init(&s->names);
    *state = s;
    return 0;
}

/* "device D mounted on M with fstype T [statvers=V]": the kernel escapes
 * blanks in D and M (\040), so the line splits at single spaces.  1 with the
 * decoded mount point in out when T is nfs or nfs4, else 0; *stats: the
 * line has statvers=, so a statistics block follows. */
static int nfs_device(const char *p, const char *nl, char *out, size_t cap, int *stats)
{
    const char *tok[9];
    size_t len[9], n = 0;
    int nt = 0;
    for (const char *q = p; q < nl && nt < 9;) {
        const char *sp = memchr(q, ' ', (size_t)(nl - q));
        const char *end = sp ? sp : nl;
        tok[nt] = q;
        len[nt++] = (size_t)(end - q);
        q = end + 1;
    }
    if (nt < 8 || len[2] != 7 || memcmp(tok[2], "mounted", 7) != 0 || len[3] != 2 ||
        memcmp(tok[3], "on", 2) != 0 || len[5] != 4 || memcmp(tok[5], "with", 4) != 0 ||
        len[6] != 6 || memcmp(tok[6], "fstype", 6) != 0)
        return 0;
    if (!(len[7] == 3 && memcmp(tok[7], "nfs", 3) == 0) &&
        !(len[7] == 4 && memcmp(tok[7], "nfs4", 4) == 0))
        return 0;
    *stats = nt > 8 && len[8] > 9 && memcmp(tok[8], "statvers=", 9) == 0;
    for (const char *q = tok[4], *e = tok[4] + len[4]; q < e && n + 1 < cap; q++) {
        if (q[0] == '\\' && e - q >= 4 && q[1] >= '0' && q[1] <= '3' && q[2] >= '0' &&
            q[2] <= '7' && q[3] >= '0' && q[3] <= '7') {
            out[n++] = (char)((q[1] - '0') * 64 + (q[2] - '0') * 8 + (q[3] - '0'));
            q += 3;
        } else {
            out[n++] = *q;
        }
    }
    out[n] = '\0';
    return n > 0 && out[0] != '\0';
}

static uint32_t name_id(const char *s)
{
    uint32_t h = 2166136261u;
    while (*s)
        h = (h ^ (unsigned char)*s++) * 16777619u;
    return h & 0x7FFFFFFFu;
}

/* Adds the instance, "#k" after a name already taken. */
static int add_mount(nstate *s, pl_snapshot *snap)
{
    if (!pl_names_next(&s->names, s->name, strlen(s->name), s->uname))
        return -1;
    return pl_snap_add(snap, s->uname, name_id(s->uname));
}

/* Up to n numbers after p (blanks only); the count parsed. */
static int nums(const char *p, uint64_t *v, int n)
{
    int k = 0;
    while (k < n && pl_parse_u64(&p, &v[k]) == 0)
        k++;
    return k;
}



/* The mount's counters: the walk for the lines' fields, the sums over
 * every op by hand, only when every op line parsed (a partial sum is wrong). */
static void publish(pl_snapshot *snap, uint32_t i, const mstat *m, const uint8_t *wanted)
{
    pl_feed_in in;
    pl_feed_begin(&in, srcs, NSRC, NULL, snap, NULL);
    for (unsigned k = 0; k < NSRC; k++)
        pl_feed_put(&in, k, m);
    pl_feed_walk(&in, i, feeds, NC, wanted);
    if (m->nops > 0 && !m->bad) {
        pl_snap_set(snap, i, C_OPS, m->ops);
        pl_snap_set(snap, i, C_RETRANS, m->retrans);
        pl_snap_set(snap, i, C_TIMEOUTS, m->timeouts);
        if (m->nerr == m->nops)
            pl_snap_set(snap, i, C_ERRORS, m->errors);
    }
}

static int nfs_read(nstate *s, pl_snapshot *snap, const uint8_t *wanted, int values)
{
    const char *p, *nl;
    int inst = -1, stats = 0, perop = 0;
    mstat m;
    int e;

    pl_snap_clear(snap);
    e = pl_file_read(&s->file, s->env, REL);
    if (e) {
        snap->err_path = REL;
        return e;
    }
    if (pl_names_begin(&s->names, 8) != 0)
        return ENOMEM;
    memset(&m, 0, sizeof m);
    for (p = s->file.buf; *p; p = nl + 1) {
        if (!(nl = strchr(p, '\n')))     /* pl_file_read ends every line with one */
            break;
        if (strncmp(p, "device ", 7) == 0) {
            if (inst >= 0 && stats && values)
                publish(snap, (uint32_t)inst, &m, wanted);
            inst = -1;
            if (nfs_device(p, nl, s->name, NAME_MAX_, &stats)) {
                if ((inst = add_mount(s, snap)) < 0)
                    return ENOMEM;
                memset(&m, 0, sizeof m);
                perop = 0;
            }
            continue;
        }
        if (inst < 0 || !values || !stats)
            continue;
        const char *q = p, *colon;
        while (*q == ' ' || *q == '\t')
            q++;
        if (strncmp(q, "bytes:", 6) == 0) {
            m.nbytes = nums(q + 6, m.bytes, 8) == 8 ? 8 : 0;
        } else if (strncmp(q, "per-op statistics", 17) == 0) {
            perop = 1;
        } else if (perop && (colon = memchr(q, ':', (size_t)(nl - q))) != NULL) {
            uint64_t v[9];
            int n = nums(colon + 1, v, 9);
            if (n < 8) {
                m.bad = 1;
                continue;
            }
            for (unsigned k = 0; k < NOP; k++) {
                size_t len = strlen(op_name[k]);
                if ((size_t)(colon - q) == len && memcmp(q, op_name[k], len) == 0) {
                    memcpy(m.op[k], v, sizeof v);
                    m.nop[k] = n;
                }
            }
            m.nops++;
            m.ops += v[0];
            m.retrans += v[1] > v[0] ? v[1] - v[0] : 0;
            m.timeouts += v[2];
            if (n == 9) {
                m.errors += v[8];
                m.nerr++;
            }
        }
    }
    if (inst >= 0 && stats && values)
        publish(snap, (uint32_t)inst, &m, wanted);
    return 0;
}

static int nfs_instances(void *state, pl_snapshot *snap)
{
    return nfs_read(state, snap, NULL, 0);
}

static int nfs_collect(void *state, const uint8_t *wanted, pl_snapshot *snap)
{
    return nfs_read(state, snap, wanted, 1);   /* one file holds every counter */
}

static const pl_provider_ops ops = { nfs_open, nfs_close, nfs_instances, nfs_collect, NULL, NULL };

const pl_counterset_def pl_nfs_def = {
    /* UUIDv5(perflib namespace, "NFS Client") */
    { 0xf91a3fe3, 0x1a22, 0x5d25, { 0xa3, 0xe3, 0xbf, 0x25, 0xa3, 0x5d, 0xd0, 0xad } },
    "NFS Client",
    "Traffic, operations and latency of each NFS mount, from /proc/self/mountstats; no "
    "NFS mount, no instance.",
    PERF_COUNTERSET_MULTI_INSTANCES, 0, NC, counters, &ops, 25000, NULL,
};
