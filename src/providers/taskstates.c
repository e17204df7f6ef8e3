/* Task States (costly, one instance): how many processes are in each
 * scheduler state, the state letter of /proc/[pid]/stat field 3 (what ps
 * shows as STAT), with the threads they hold and the kernel threads among
 * them, as node_exporter's processes collector and PCP's proc.runq count
 * them.  It reads through the machine's process table (ptshare.h), so a
 * query that also collects Process lists /proc and reads each stat once.
 *
 * The letters are those of fs/proc/array.c's task_state_array: R S D T t
 * X Z P I since 4.14 (I, idle kernel threads, is new there; before it
 * they showed as D); 3.9 to 3.13 also had x (dead), K (wakekill) and W
 * (waking), and 2.6 W for paging: those count under Other States.  A
 * process that exits while the table is read is left out; a stat that is
 * malformed too (it cannot name a state).  Only a read that fails for
 * another reason (out of file descriptors) fails the collection. */
#include "providers.h"
#include "pl_provider.h"
#include "pl_rowset.h"
#include "ptshare.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define LRAW PERF_COUNTER_LARGE_RAWCOUNT
#define NOV PERF_DETAIL_NOVICE
#define ADV PERF_DETAIL_ADVANCED

enum {
    C_PROCS, C_RUN, C_SLEEP, C_DISK, C_STOP, C_TRACE, C_ZOMBIE, C_DEAD, C_IDLE, C_PARKED, C_OTHER,
    C_THREADS, C_KTHREADS, NC
};

#define STATE_ROW(R, id, name, what, detail) \
    R(id, name, "Processes " what " (/proc/[pid]/stat state).", LRAW, PL_NO_ID, detail, 0, \
      PL_U(COUNT, 1, GAUGE), PL_BY_HAND())

#define TS_ROWS(R) \
    R(C_PROCS, "Processes", "Processes whose /proc/[pid]/stat was read, kernel threads " \
      "included: the sum of the state counters.", LRAW, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, GAUGE), \
      PL_BY_HAND()) \
    STATE_ROW(R, C_RUN, "Running", "running or runnable, state R", NOV) \
    STATE_ROW(R, C_SLEEP, "Sleeping", "in an interruptible sleep, state S", NOV) \
    STATE_ROW(R, C_DISK, "Disk Sleep", "in an uninterruptible sleep (mostly I/O), state D; they " \
              "count in the load average", NOV) \
    STATE_ROW(R, C_STOP, "Stopped", "stopped by a signal, state T", ADV) \
    STATE_ROW(R, C_TRACE, "Tracing Stop", "stopped by a tracer, state t", ADV) \
    STATE_ROW(R, C_ZOMBIE, "Zombie", "that exited and were not reaped by their parent, state Z", NOV) \
    STATE_ROW(R, C_DEAD, "Dead", "being torn down, state X (or x on 3.9-3.13)", ADV) \
    STATE_ROW(R, C_IDLE, "Idle", "that are idle kernel threads, state I (4.14 and later)", ADV) \
    STATE_ROW(R, C_PARKED, "Parked", "that are parked kernel threads, state P", ADV) \
    STATE_ROW(R, C_OTHER, "Other States", "in a state older kernels had (K wakekill, W waking or " \
              "paging)", ADV) \
    R(C_THREADS, "Threads", "Threads of the processes counted (/proc/[pid]/stat num_threads, " \
      "summed).", LRAW, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, GAUGE), PL_BY_HAND()) \
    R(C_KTHREADS, "Kernel Threads", "Processes that are kernel threads (PF_KTHREAD in " \
      "/proc/[pid]/stat flags).", LRAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, GAUGE), PL_BY_HAND())

static const pl_counter_def counters[] = { TS_ROWS(PL_ROW_COUNTER) };

/* The state is the machine's process table itself: nothing of its own. */
static void ts_close(void *state)
{
    (void)state;
}

static int ts_open(pl_env *env, void **state)
{
    return (*state = pl_ptshare_attach(env)) != NULL ? 0 : ENOMEM;
}

/* The counter of a state letter. */
static unsigned state_counter(char c)
{
    switch (c) {
    case 'R': return C_RUN;
    case 'S': return C_SLEEP;
    case 'D': return C_DISK;
    case 'T': return C_STOP;
    case 't': return C_TRACE;
    case 'Z': return C_ZOMBIE;
    case 'X': case 'x': return C_DEAD;
    case 'I': return C_IDLE;
    case 'P': return C_PARKED;
    default: return C_OTHER;
    }
}

static int ts_collect(void *state, const uint8_t *wanted, pl_snapshot *snap)
{
    pl_ptshare *sh = state;
    uint64_t n[NC] = { 0 };
    uint64_t lack = 0;       /* counters a stat without the field leaves unknown */
    int e;
    if ((e = pl_single_instance(state, snap)) != 0)
        return e;
    int any = 0;
    for (unsigned c = 0; c < NC; c++)
        any |= !wanted || wanted[c];
    if (!any)
        return 0;
    uint32_t need = PS_BIT(PS_THREADS) | PS_BIT(PS_FLAGS);
    if ((e = pl_ptshare_list(sh, snap)) != 0)
        return e;
    for (uint32_t i = 0; i < pl_ptshare_count(sh); i++) {
        pl_ptproc *p = pl_ptshare_proc(sh, i);
        e = pl_ptshare_stat(sh, p, need, 0);
        if (e == EINVAL || (e && pl_pt_outcome(e) != PL_PT_FAILED))
            continue;        /* exited meanwhile, or a stat that names no state */
        if (e) {
            snap->err_path = "proc/[pid]/stat";
            return e;
        }
        n[C_PROCS]++;
        n[state_counter(p->ps.state)]++;
        if (p->ps.have & PS_BIT(PS_THREADS))
            n[C_THREADS] += p->ps.v[PS_THREADS];
        else
            lack |= 1u << C_THREADS;
        if (!(p->ps.have & PS_BIT(PS_FLAGS)))
            lack |= 1u << C_KTHREADS;
        else if (p->ps.v[PS_FLAGS] & PL_PF_KTHREAD)
            n[C_KTHREADS]++;
    }
    for (unsigned c = 0; c < NC; c++)
        if ((!wanted || wanted[c]) && !(lack & (1u << c)))
            pl_snap_set(snap, 0, c, n[c]);
    return 0;
}

static const pl_provider_ops ops = { ts_open, ts_close, pl_single_instance, ts_collect, NULL, NULL };

const pl_counterset_def pl_taskstates_def = {
    /* UUIDv5(perflib namespace, "Task States") */
    { 0x82321587, 0x36c7, 0x55eb, { 0xbb, 0x14, 0xce, 0xdc, 0x99, 0x3c, 0xa3, 0xe5 } },
    "Task States",
    "Processes by scheduler state (running, sleeping, disk sleep, stopped, zombie ...), with their "
    "threads and the kernel threads among them, from each /proc/[pid]/stat.",
    PERF_COUNTERSET_SINGLE_INSTANCE, 1, sizeof counters / sizeof counters[0], counters, &ops, 53000,
    NULL,
};
