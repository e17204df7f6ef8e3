/* Thread (costly): one instance per /proc/[pid]/task/[tid].
 *
 * Instances use the Windows parent/instance form "process/tid": the comm of
 * the process (its leader thread's stat comm) and the thread id, e.g.
 * "bash/1234"; the instance id is the tid and the key the thread's start
 * time, so a reused tid is a new thread.  Costly because it is O(threads):
 * one task/ listing per process and one stat per thread, plus task status
 * when Context Switches/sec is asked for.  Descriptors are kept within the
 * budget shared with Process (proctable.c); /proc is listed through the
 * machine's process table (ptshare.h): once per generation with Process.
 * Threads and processes that vanish while being read (ENOENT, ESRCH) or are
 * hidden (EACCES, EPERM) are left out; any other errno (EMFILE ...) fails
 * the collection; a stat without comm, state or start time is left out.  instances() is a
 * collection of no counter: the same names.  There is no _Total:
 * Process(_Total) has the sums. */
#include "pl_provider.h"
#include "pl_rowset.h"
#include "providers.h"
#include "proctable.h"
#include "ptshare.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum {
    X_PROC, X_USER, X_PRIV, X_CTXSW, X_ELAP, X_PRIOC, X_PRIOB, X_STATE, X_WAIT, X_PID,
    X_TID, X_CPU, NC
};

#define T100 PERF_100NSEC_TIMER
#define RAW PERF_COUNTER_RAWCOUNT
#define NOV PERF_DETAIL_NOVICE
#define ADV PERF_DETAIL_ADVANCED

#define THR_ROWS(R) \
    R(0, "% Processor Time", "Share of one CPU's time the thread ran, user and kernel mode " \
        "(task stat 14 utime + 15 stime).", \
      T100, PL_NO_ID, NOV, 0, PL_U(SECONDS, 1e-7, COUNTER), PL_BY_HAND()) \
    R(1, "% User Time", "Share of one CPU's time the thread ran in user mode (task stat 14 " \
        "utime).", \
      T100, PL_NO_ID, NOV, 0, PL_U(SECONDS, 1e-7, COUNTER), PL_BY_HAND()) \
    R(2, "% Privileged Time", "Share of one CPU's time the thread ran in the kernel (task " \
        "stat 15 stime).", \
      T100, PL_NO_ID, NOV, 0, PL_U(SECONDS, 1e-7, COUNTER), PL_BY_HAND()) \
    R(3, "Context Switches/sec", "Context switches of the thread per second, voluntary and " \
        "forced (task status voluntary_ctxt_switches + nonvoluntary_ctxt_switches).", \
      PERF_COUNTER_BULK_COUNT, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), PL_BY_HAND()) \
    R(4, "Elapsed Time", "Seconds since the thread started (task stat 22 starttime against " \
        "/proc/uptime).", \
      PERF_ELAPSED_TIME, PL_NO_ID, NOV, 0, PL_U(SECONDS, 1e-7, DISCRETE), PL_BY_HAND()) \
    R(5, "Priority Current", "Effective scheduling priority on the kernel's 0-139 scale " \
        "(task stat 18 + 100), priority inheritance included; lower is more urgent.", \
      RAW, PL_NO_ID, NOV, 0, PL_U(NONE, 1, GAUGE), PL_BY_HAND()) \
    R(6, "Priority Base", "Priority the thread's policy gives it on the same scale: 120 + " \
        "nice (stat 19) for normal threads, 99 - rt_priority (stat 40) for SCHED_FIFO and " \
        "SCHED_RR; unset for SCHED_DEADLINE.", \
      RAW, PL_NO_ID, NOV, 0, PL_U(NONE, 1, GAUGE), PL_BY_HAND()) \
    R(7, "Thread State", "Windows thread state of task stat 3: 2 running or runnable (R), " \
        "5 waiting (S, D, I, T, t, P), 4 terminated (Z, X).", \
      RAW, PL_NO_ID, NOV, 0, PL_U(NONE, 1, GAUGE), PL_BY_HAND()) \
    R(8, "Thread Wait Reason", "Linux state of task stat 3: 0 runnable, 1 interruptible " \
        "sleep, 2 uninterruptible wait (mostly I/O), 3 stopped or traced, 4 idle kernel " \
        "thread, 5 parked, 6 exiting.", \
      RAW, PL_NO_ID, ADV, 0, PL_U(NONE, 1, GAUGE), PL_BY_HAND()) \
    R(9, "ID Process", "Id of the thread's process (the /proc/[pid] directory).", \
      RAW, PL_NO_ID, NOV, 0, PL_U(NONE, 1, DISCRETE), PL_BY_HAND()) \
    R(10, "ID Thread", "The thread id (the task/[tid] directory).", \
      RAW, PL_NO_ID, NOV, 0, PL_U(NONE, 1, DISCRETE), PL_BY_HAND()) \
    R(32, "Processor", "The CPU the thread last ran on (task stat 39).", \
      RAW, PL_NO_ID, ADV, 0, PL_U(NONE, 1, GAUGE), PL_BY_HAND())

static const pl_counter_def counters[NC] = { THR_ROWS(PL_ROW_COUNTER) };

#define B(f) PS_BIT(PS_##f)
static const uint32_t cfields[NC] = {
    [X_PROC] = B(UTIME) | B(STIME), [X_USER] = B(UTIME), [X_PRIV] = B(STIME),
    [X_ELAP] = B(START), [X_PRIOC] = B(PRIO), [X_PRIOB] = B(NICE) | B(RTPRIO) | B(POLICY),
    [X_CPU] = B(CPU),
};
#undef B

#define BIT(c) ((uint64_t)1 << (c))

typedef struct tent {
    uint32_t tid;            /* first: the table's id */
    uint32_t known;
    uint64_t start;          /* task stat 22 */
    int fd[2];               /* task stat, task status */
} tent;

typedef struct tproc {
    uint32_t pid;            /* first: the table's id */
    int taskfd;              /* /proc/[pid]/task, kept */
    pl_etab thr;             /* tent by tid */
    uint32_t *tids, ntids, tcap;
} tproc;

typedef struct tstate {
    pl_ptshare *sh;          /* the machine's process table: its listing is ours */
    pl_ptbase *b;            /* its /proc, clock, buffers and pids */
    pl_etab procs;           /* tproc by pid */
} tstate;

/* ---- entries ------------------------------------------------------------------------ */

static void thr_init(void *ud, void *ve, uint32_t id)
{
    tent *t = ve;
    (void)ud;
    (void)id;
    t->fd[0] = t->fd[1] = -1;
}

static void thr_retire(void *ud, void *ve)
{
    tent *t = ve;
    (void)ud;
    pl_pt_close(&t->fd[0]);
    pl_pt_close(&t->fd[1]);
    t->known = 0;
}

static void proc_init(void *ud, void *ve, uint32_t id)
{
    tproc *p = ve;
    (void)ud;
    (void)id;
    p->taskfd = -1;
    pl_etab_init(&p->thr, sizeof(tent));
}

static void proc_retire(void *ud, void *ve)
{
    tproc *p = ve;
    (void)ud;
    pl_pt_close(&p->taskfd);
    pl_etab_free(&p->thr, thr_retire, NULL);
    free(p->tids);
    p->tids = NULL;
    p->ntids = p->tcap = 0;
}

static void t_close(void *state)
{
    tstate *s = state;
    if (!s)
        return;
    pl_etab_free(&s->procs, proc_retire, s);
    free(s);                 /* the base is the machine's */
}

static int t_open(pl_env *env, void **state)
{
    tstate *s = calloc(1, sizeof *s);
    if (!s)
        return ENOMEM;
    if (!(s->sh = pl_ptshare_attach(env))) {
        free(s);
        return ENOMEM;
    }
    s->b = pl_ptshare_base(s->sh);
    pl_etab_init(&s->procs, sizeof(tproc));
    *state = s;
    return 0;
}

/* Lists p's threads into p->tids: through the kept task/ fd, or opened once.
 * 0 or errno (pl_pt_outcome says what it means). */
static int list_threads(tstate *s, tproc *p)
{
    int fd = p->taskfd, e;
    p->ntids = 0;
    if (fd < 0) {
        char rel[40], *q = pl_utoa(rel, p->pid);
        strcpy(q, "/task");
        fd = openat(s->b->procfd, rel, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
            return errno;
        if (pl_pt_budget_take())
            p->taskfd = fd;
    }
    e = pl_pt_list_ids(fd, &s->b->db, &p->tids, &p->ntids, &p->tcap);
    if (p->taskfd < 0)
        close(fd);
    else if (e)
        pl_pt_close(&p->taskfd);
    return e;
}

/* "pid/task/tid/<leaf>" */
static const char *rel_of(const tproc *p, const tent *t, int k, char *rel)
{
    char *q;
    if (t->fd[k] >= 0)
        return NULL;
    q = pl_utoa(rel, p->pid);
    memcpy(q, "/task/", 6);
    q = pl_utoa(q + 6, t->tid);
    strcpy(q, k ? "/status" : "/stat");
    return rel;
}

static int read_file(tstate *s, const tproc *p, tent *t, int k)
{
    char rel[48];
    return pl_pt_read(s->b->procfd, rel_of(p, t, k, rel), &t->fd[k], &s->b->rb);
}

/* task stat of t into ps: 0, EINVAL for a malformed one, else the errno of
 * the read.  A kept fd that fails (the thread exited) is dropped and the path
 * opened afresh: the tid may live on in a new thread. */
static int read_stat(tstate *s, const tproc *p, tent *t, uint32_t need, pl_pstat *ps)
{
    int err;
    if (t->fd[0] >= 0 && read_file(s, p, t, 0) != 0)
        thr_retire(NULL, t);
    if (t->fd[0] < 0 && (err = read_file(s, p, t, 0)) != 0) {
        thr_retire(NULL, t);
        return err;
    }
    if (pl_pt_parse_stat(s->b->rb.buf, s->b->rb.len, need, ps) || !(ps->have & PS_BIT(PS_START)))
        return EINVAL;
    if (t->known && t->start != ps->v[PS_START])
        pl_pt_close(&t->fd[1]);   /* a reused tid: another thread */
    t->start = ps->v[PS_START];
    t->known = 1;
    return 0;
}

static const pl_ptkey status_keys[] = {
    PL_PTKEY("voluntary_ctxt_switches", 0), PL_PTKEY("nonvoluntary_ctxt_switches", 0),
};

/* Task state letter -> Windows thread state, and -> the Linux wait reason. */
static int thread_state(char c, uint64_t *win, uint64_t *why)
{
    switch (c) {
    case 'R': *win = 2; *why = 0; return 1;
    case 'S': *win = 5; *why = 1; return 1;
    case 'D': *win = 5; *why = 2; return 1;
    case 'T': case 't': *win = 5; *why = 3; return 1;
    case 'I': *win = 5; *why = 4; return 1;
    case 'P': *win = 5; *why = 5; return 1;
    case 'Z': case 'X': case 'x': *win = 4; *why = 6; return 1;
    default: return 0;
    }
}

/* The tables are cold after the kernel's work of a whole collect, and each
 * process costs a chain of misses (process, its thread ids, its threads):
 * start the next ones' loads while the syscalls of this one run. */
static void prefetch_ahead(const pl_etab *t, uint32_t i)
{
    if (i + 3 < t->n)
        __builtin_prefetch(t->v[i + 3]);
    if (i + 2 < t->n) {
        const tproc *q = t->v[i + 2];
        __builtin_prefetch(q->thr.id);
        __builtin_prefetch(q->thr.v);
    }
    if (i + 1 < t->n) {
        const tproc *q = t->v[i + 1];
        for (uint32_t k = 0; k < q->thr.n && k < 4; k++)
            __builtin_prefetch(q->thr.v[k]);
    }
}

/* ---- collection -------------------------------------------------------------------- */

typedef struct tcol {
    uint8_t wl[NC];          /* wanted counters */
    unsigned nw;
    int clock, want_status;  /* Elapsed Time, Context Switches/sec wanted */
    uint32_t need;           /* stat fields */
    char comm[PL_COMM_MAX];  /* the process's name: its leader's comm */
    uint32_t comm_len;
    int have_comm;
} tcol;

#define ST(f) ((ps->have & PS_BIT(PS_##f)) != 0)
#define PUT(c, x) (v[c] = (x), *have |= BIT(c))
static void stat_values(const tstate *s, const tproc *p, const tent *t, const pl_pstat *ps,
                        int clock, uint64_t *v, uint64_t *have)
{
    uint64_t w8, why;
    if (ST(UTIME) && ST(STIME))
        PUT(X_PROC, pl_pt_hns(ps->v[PS_UTIME] + ps->v[PS_STIME], s->b->per_tick, s->b->hz));
    if (ST(UTIME))
        PUT(X_USER, pl_pt_hns(ps->v[PS_UTIME], s->b->per_tick, s->b->hz));
    if (ST(STIME))
        PUT(X_PRIV, pl_pt_hns(ps->v[PS_STIME], s->b->per_tick, s->b->hz));
    if (clock)               /* the clock is read after every stat: pl_pt_elapsed_clock */
        PUT(X_ELAP, pl_pt_hns(t->start, s->b->per_tick, s->b->hz));
    if (ST(PRIO) && (int64_t)ps->v[PS_PRIO] >= -100 && (int64_t)ps->v[PS_PRIO] <= 39)
        PUT(X_PRIOC, (uint64_t)((int64_t)ps->v[PS_PRIO] + 100));
    if (ST(POLICY)) {
        uint64_t pol = ps->v[PS_POLICY];
        if ((pol == 1 || pol == 2) && ST(RTPRIO) && ps->v[PS_RTPRIO] >= 1 &&
            ps->v[PS_RTPRIO] <= 99)
            PUT(X_PRIOB, 99 - ps->v[PS_RTPRIO]);
        else if ((pol == 0 || pol == 3 || pol == 5) && ST(NICE) &&
                 (int64_t)ps->v[PS_NICE] >= -20 && (int64_t)ps->v[PS_NICE] <= 19)
            PUT(X_PRIOB, (uint64_t)(120 + (int64_t)ps->v[PS_NICE]));
    }
    if (thread_state(ps->state, &w8, &why)) {
        PUT(X_STATE, w8);
        PUT(X_WAIT, why);
    }
    PUT(X_PID, p->pid);
    PUT(X_TID, t->tid);
    if (ST(CPU))
        PUT(X_CPU, ps->v[PS_CPU]);
}
#undef ST
#undef PUT

/* One thread: 0 (published, or left out when gone, hidden or malformed), or
 * the errno that fails the collection. */
static int one_thread(tstate *s, const tproc *p, tent *t, tcol *c, pl_snapshot *snap)
{
    pl_pstat ps;
    uint64_t v[NC], have = 0, kv[2];
    uint32_t kh, n;
    char name[PL_COMM_MAX + 16], *q;
    int e = read_stat(s, p, t, c->need, &ps), inst;
    if (e == EINVAL)
        return 0;
    if (pl_pt_outcome(e) == PL_PT_FAILED) {
        snap->err_path = "proc/[pid]/task/[tid]/stat";
        return e;
    }
    if (e)
        return 0;            /* gone, or hidden from us */
    if (t->tid == p->pid) {
        memcpy(c->comm, ps.comm, ps.comm_len);
        c->comm_len = ps.comm_len;
        c->have_comm = 1;
    }
    /* process name / tid; a thread whose leader is unreadable uses its own comm */
    n = c->have_comm ? c->comm_len : ps.comm_len;
    memcpy(name, c->have_comm ? c->comm : ps.comm, n);
    q = name + n;
    *q++ = '/';
    *pl_utoa(q, t->tid) = '\0';
    stat_values(s, p, t, &ps, c->clock, v, &have);
    if (c->want_status) {
        e = read_file(s, p, t, 1);
        if (pl_pt_outcome(e) == PL_PT_FAILED) {
            snap->err_path = "proc/[pid]/task/[tid]/status";
            return e;
        }
        if (e == 0) {        /* else gone meanwhile or hidden: its switches unset */
            pl_pt_scan_keys(s->b->rb.buf, s->b->rb.len, status_keys, 2, kv, &kh);
            if (kh == 3) {
                v[X_CTXSW] = kv[0] + kv[1];
                have |= BIT(X_CTXSW);
            }
        }
    }
    if ((inst = pl_snap_add_key(snap, name, t->tid, t->start)) < 0)
        return ENOMEM;
    for (unsigned k = 0; k < c->nw; k++)
        if (have & BIT(c->wl[k]))
            pl_snap_set(snap, (uint32_t)inst, c->wl[k], v[c->wl[k]]);
    return 0;
}

/* The threads of one process, its leader (tid == pid) first: its comm names
 * the others.  0 or the errno that fails the collection. */
static int one_proc(tstate *s, tproc *p, tcol *c, pl_snapshot *snap)
{
    uint32_t lead = 0;
    int e = list_threads(s, p);
    if (pl_pt_outcome(e) == PL_PT_FAILED) {
        snap->err_path = "proc/[pid]/task";
        return e;
    }
    /* gone or hidden: no threads, and their fds close */
    if ((e = pl_etab_sync(&p->thr, p->tids, p->ntids, thr_init, thr_retire, NULL)) != 0)
        return e;
    while (lead < p->thr.n && *(uint32_t *)p->thr.v[lead] < p->pid)
        lead++;
    if (lead == p->thr.n || *(uint32_t *)p->thr.v[lead] != p->pid)
        lead = UINT32_MAX;
    c->have_comm = 0;
    for (uint32_t k = 0; k < p->thr.n; k++) {
        /* k-th in the order leader, then the others by tid */
        uint32_t j = lead == UINT32_MAX ? k : k == 0 ? lead : k - 1 < lead ? k - 1 : k;
        if ((e = one_thread(s, p, p->thr.v[j], c, snap)) != 0)
            return e;
    }
    return 0;
}

static int t_collect(void *state, const uint8_t *wanted, pl_snapshot *snap)
{
    tstate *s = state;
    tcol c;
    int e;

    pl_snap_clear(snap);
    memset(&c, 0, sizeof c);
    c.need = PS_BIT(PS_START);
    for (unsigned x = 0; x < NC; x++)
        if (!wanted || wanted[x]) {
            c.wl[c.nw++] = (uint8_t)x;
            c.need |= cfields[x];
            c.clock |= x == X_ELAP;
            c.want_status |= x == X_CTXSW;
        }
    if ((e = pl_ptshare_list(s->sh, snap)) != 0)   /* one listing with Process */
        return e;
    if ((e = pl_etab_sync(&s->procs, s->b->ids, s->b->nids, proc_init, proc_retire, s)) != 0)
        return e;
    for (uint32_t i = 0; i < s->procs.n; i++) {
        prefetch_ahead(&s->procs, i);
        if ((e = one_proc(s, s->procs.v[i], &c, snap)) != 0)
            return e;
    }
    return c.clock ? pl_pt_elapsed_clock(s->b, snap, X_ELAP) : 0;
}

/* Metadata: the instances of a collection of no counter, so that names and
 * ids come from the one source (task stat) by the one rule. */
static int t_instances(void *state, pl_snapshot *snap)
{
    static const uint8_t none[NC];
    return t_collect(state, none, snap);
}

static const pl_provider_ops ops = { t_open, t_close, t_instances, t_collect, NULL, NULL };

const pl_counterset_def pl_thread_def = {
    /* UUIDv5 of "Thread" in the perflib namespace */
    { 0x0adf2b76, 0xb505, 0x59cc, { 0xbb, 0xdd, 0xc8, 0x74, 0x66, 0xa1, 0x9b, 0x03 } },
    "Thread",
    "Processor time, priorities, state and context switches of each thread of each process, "
    "from /proc/[pid]/task/[tid]/stat and status; costly: it reads one file per thread.",
    PERF_COUNTERSET_MULTI_INSTANCES, 1, NC, counters, &ops, 15000, NULL,
};
