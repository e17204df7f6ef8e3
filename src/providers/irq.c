/* SoftIRQ and Interrupts: one instance per row of /proc/softirqs (a softirq
 * vector: "TIMER", "NET_RX", ...) or of /proc/interrupts (an IRQ label: "24",
 * "LOC", ...), plus "_Total".  One read of the file per collect.
 *
 * The value of a row is the sum of its per-CPU cells.  Cells are 32-bit
 * (kernel %10u): each is unwrapped on its own into the row's 64-bit sum
 * (rule R2), so a wrap in one CPU's cell is never mistaken for a reset.  Rows
 * are kept for the life of the query, keyed by label: a row that leaves and
 * comes back (IRQ freed and requested again) continues from its old cells;
 * a CPU that goes offline keeps its past contribution in the sum.
 *
 * Interrupts: the instance name is the label alone (the chip and action
 * names after the cells describe the IRQ, they are not its identity: a
 * driver reload renames them).  ERR and MIS (x86) and Err (arm) carry one
 * machine-wide count: it is that row's value, unwrapped as a single cell,
 * and it is left out of _Total, which sums the per-CPU rows (the same sum
 * as Processor Information's per-CPU Interrupts/sec).  A row with fewer
 * cells than CPU columns, or a cell over 2^32-1, is malformed: the instance
 * is listed with no value.
 *
 * The file is a kernel source (cputab.h) read once per collect for these
 * sets and Processor Information's per-CPU sums.
 *
 * Instance ids: an IRQ number is its own id; a vector's id is its position
 * in the kernel's softirq enum (HI = 0 ... RCU = 9); other labels get
 * 0x80000000 | (FNV-1a of the label & 0x3FFFFFFF); _Total is 0xFFFFFFFE. */
#include "cputable.h"
#include "providers.h"
#include "pl_ksrc.h"
#include "pl_rowset.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define TOTAL_ID 0xFFFFFFFEu
#define LABEL_MAX PL_CPUTAB_LABEL

typedef struct irow {
    char label[LABEL_MAX];
    uint32_t id;
    int wide;                /* machine-wide single count (ERR, MIS) */
    uint64_t acc;            /* unwrapped sum of the cells */
    uint32_t ncpu;           /* size of last/known */
    uint32_t *last;
    uint8_t *known;
} irow;

typedef struct istate {
    pl_ksrc *src;            /* the machine's reader of the table */
    int soft;                /* /proc/softirqs: vector ids */
    irow *rows;
    uint32_t nrows, cap;
} istate;

static const char *const vectors[] = {
    "HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET", "SCHED", "HRTIMER", "RCU",
};

static uint32_t label_id(const char *l, size_t n, int soft)
{
    uint32_t h = 2166136261u;
    if (soft) {
        for (size_t v = 0; v < sizeof vectors / sizeof vectors[0]; v++)
            if (strlen(vectors[v]) == n && memcmp(vectors[v], l, n) == 0)
                return (uint32_t)v;
    } else if (n > 0 && n <= 9) {
        uint32_t x = 0;
        size_t i;
        for (i = 0; i < n && l[i] >= '0' && l[i] <= '9'; i++)
            x = x * 10 + (uint32_t)(l[i] - '0');
        if (i == n && x < 0x80000000u)
            return x;
    }
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)l[i]) * 16777619u;
    return 0x80000000u | (h & 0x3FFFFFFFu);
}

static void irq_close(void *state)
{
    istate *s = state;
    if (!s)
        return;
    for (uint32_t r = 0; r < s->nrows; r++) {
        free(s->rows[r].last);
        free(s->rows[r].known);
    }
    free(s->rows);
    free(s);
}

static int irq_open_src(pl_env *env, void **state, const pl_ksrc_def *def, int soft)
{
    istate *s = calloc(1, sizeof *s);
    if (!s)
        return ENOMEM;
    s->soft = soft;
    if (!(s->src = pl_ksrc_attach(env, def))) {
        free(s);
        return ENOMEM;
    }
    *state = s;
    return 0;
}

static int soft_open(pl_env *env, void **state) { return irq_open_src(env, state, &pl_ksrc_softirqs, 1); }
static int intr_open(pl_env *env, void **state) { return irq_open_src(env, state, &pl_ksrc_interrupts, 0); }

/* The row with this label (hint: its position last time), added if new. */
static irow *find_row(istate *s, const char *l, size_t n, uint32_t hint, int wide)
{
    irow *r;
    if (hint < s->nrows && s->rows[hint].label[n] == '\0' && memcmp(s->rows[hint].label, l, n) == 0)
        return &s->rows[hint];
    for (uint32_t i = 0; i < s->nrows; i++)
        if (s->rows[i].label[n] == '\0' && memcmp(s->rows[i].label, l, n) == 0)
            return &s->rows[i];
    if (s->nrows == s->cap) {
        uint32_t cap = s->cap ? s->cap * 2 : 32;
        irow *nr = realloc(s->rows, cap * sizeof *nr);
        if (!nr)
            return NULL;
        s->rows = nr;
        s->cap = cap;
    }
    r = &s->rows[s->nrows++];
    memset(r, 0, sizeof *r);
    memcpy(r->label, l, n);
    r->label[n] = '\0';
    r->id = label_id(l, n, s->soft);
    r->wide = wide;
    return r;
}

static int row_cpus(irow *r, uint32_t n)
{
    if (n <= r->ncpu)
        return 0;
    uint32_t *l = realloc(r->last, n * sizeof *l);
    if (!l)
        return ENOMEM;
    r->last = l;
    uint8_t *k = realloc(r->known, n);
    if (!k)
        return ENOMEM;
    r->known = k;
    memset(k + r->ncpu, 0, n - r->ncpu);
    r->ncpu = n;
    return 0;
}

/* Unwraps a row's cells into its sum: each cell on its own, a machine-wide
 * row's one count as a single cell. */
static int add_cells(irow *r, const pl_cputab *t, const pl_cputab_row *pr)
{
    const uint32_t *cell = t->cells + pr->first;
    uint32_t n = r->wide ? 1 : t->ncols;
    int e = row_cpus(r, r->wide ? 1 : t->maxcpu);
    if (e)
        return e;
    for (uint32_t c = 0; c < n; c++) {
        uint32_t cpu = r->wide ? 0 : t->cols[c];
        r->acc += pl_cputable_step(&r->last[cpu], &r->known[cpu], cell[c]);
    }
    return 0;
}

/* Lists the table's rows in file order with _Total last; with values,
 * unwraps every cell into its row's sum first. */
static int irq_read(istate *s, pl_snapshot *snap, int values)
{
    const pl_cputab *t;
    uint64_t total = 0;
    int e, ti;

    pl_snap_clear(snap);
    if ((e = pl_ksrc_get(s->src)) != 0) {
        snap->err_path = pl_ksrc_path(s->src);
        return e;
    }
    t = pl_ksrc_data(s->src);
    snap->time = pl_ksrc_time(s->src);      /* the instant Processor Information shares */
    for (uint32_t i = 0; i < t->nrows; i++) {
        const pl_cputab_row *pr = &t->rows[i];
        irow *r = find_row(s, pr->label, pr->len, i, pr->wide);
        int inst;
        if (!r)
            return ENOMEM;
        if ((inst = pl_snap_add(snap, r->label, r->id)) < 0)
            return ENOMEM;
        if (!values || pr->bad || (r->wide ? pr->ncells < 1 : pr->ncells != t->ncols))
            continue;        /* malformed: listed, no value */
        if ((e = add_cells(r, t, pr)))
            return e;
        pl_snap_set(snap, (uint32_t)inst, 0, r->acc);
    }
    ti = pl_snap_add(snap, "_Total", TOTAL_ID);
    if (ti < 0)
        return ENOMEM;
    if (values) {
        /* every row ever seen: a row that leaves does not make _Total fall */
        for (uint32_t i = 0; i < s->nrows; i++)
            if (!s->rows[i].wide)
                total += s->rows[i].acc;
        pl_snap_set(snap, (uint32_t)ti, 0, total);
    }
    return 0;
}

static int irq_instances(void *state, pl_snapshot *snap)
{
    return irq_read(state, snap, 0);
}

static int irq_collect(void *state, const uint8_t *wanted, pl_snapshot *snap)
{
    (void)wanted;            /* one counter: it is what a collect is for */
    return irq_read(state, snap, 1);
}

/* One counter each, made by the collect (per-cell unwrapping): PL_BY_HAND. */
#define SOFT_ROWS(R) \
    R(0, "Softirqs/sec", "Softirqs of this vector raised per second on all CPUs: the row of " \
      "/proc/softirqs summed over its per-CPU cells, each 32-bit cell unwrapped; _Total sums " \
      "every vector.", \
      PERF_COUNTER_BULK_COUNT, PL_NO_ID, PERF_DETAIL_NOVICE, 0, PL_U(COUNT, 1, COUNTER), PL_BY_HAND())
#define INTR_ROWS(R) \
    R(0, "Interrupts/sec", "Interrupts of this IRQ per second on all CPUs: the row of " \
      "/proc/interrupts summed over its per-CPU cells, each 32-bit cell unwrapped (ERR and " \
      "MIS: their one machine-wide count); _Total sums the per-CPU rows.", \
      PERF_COUNTER_BULK_COUNT, PL_NO_ID, PERF_DETAIL_NOVICE, 0, PL_U(COUNT, 1, COUNTER), PL_BY_HAND())

static const pl_counter_def soft_counters[] = { SOFT_ROWS(PL_ROW_COUNTER) };
static const pl_counter_def intr_counters[] = { INTR_ROWS(PL_ROW_COUNTER) };

static const pl_provider_ops soft_ops = { soft_open, irq_close, irq_instances, irq_collect, NULL, NULL };
static const pl_provider_ops intr_ops = { intr_open, irq_close, irq_instances, irq_collect, NULL, NULL };

const pl_counterset_def pl_softirq_def = {
    /* UUIDv5(perflib namespace, "SoftIRQ") */
    { 0x9a6a50a6, 0xc3a5, 0x57a7, { 0xbb, 0xa1, 0x8d, 0x30, 0xeb, 0xad, 0x7a, 0x26 } },
    "SoftIRQ",
    "Softirqs raised per vector (TIMER, NET_RX, BLOCK, ...) over all CPUs, from /proc/softirqs; "
    "the time spent in them is Processor Information's % DPC Time.",
    PERF_COUNTERSET_MULTI_INSTANCES, 0, 1, soft_counters, &soft_ops, 23000, NULL,
};

const pl_counterset_def pl_interrupts_def = {
    /* UUIDv5(perflib namespace, "Interrupts") */
    { 0x978e99b8, 0x6c1a, 0x5957, { 0x85, 0x6c, 0xf4, 0x69, 0xee, 0xd1, 0xad, 0xfb } },
    "Interrupts",
    "Interrupts per IRQ line or per named interrupt class (LOC, RES, CAL, ...) over all CPUs, "
    "from /proc/interrupts; instances are the row labels.",
    PERF_COUNTERSET_MULTI_INSTANCES, 0, 1, intr_counters, &intr_ops, 24000, NULL,
};
