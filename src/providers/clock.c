/* Clock (single instance): the kernel's NTP discipline, from adjtimex(2)
 * called with modes 0 (a read: ntp_adjtime changes nothing), as
 * node_exporter's timex collector gives it, and the wall-clock time (its
 * time collector) for clock-skew rules.
 *
 * adjtimex describes the kernel this process runs on, not a tree: an
 * environment whose root is not "/" (fixture trees, recorded machines)
 * has the instance and no values (no_data).  A failed adjtimex (a seccomp
 * filter) fails the set with its errno.  The PPS fields are 0 unless a PPS
 * source disciplines the clock.  Signed quantities (offset, frequencies)
 * are PERF_DOUBLE_RAW: counters are unsigned. */
#include "providers.h"
#include "pl_provider.h"
#include "pl_rowset.h"
#include "clock.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PERF_DOUBLE_RAW 0x00012000u   /* 8 bytes holding an IEEE double */
#define LRAW PERF_COUNTER_LARGE_RAWCOUNT
#define DBL PERF_DOUBLE_RAW
#define NOV PERF_DETAIL_NOVICE
#define ADV PERF_DETAIL_ADVANCED
#define SRC " (adjtimex(2), struct timex "

#define CLK_ROWS(R) \
    R(0, "Offset Seconds", "Time offset between the local clock and the reference, in " \
      "seconds; ns with STA_NANO, else us" SRC "offset).", DBL, PL_NO_ID, NOV, 0, \
      PL_U(SECONDS, 1, GAUGE), PL_BY_HAND()) \
    R(1, "Frequency Adjustment PPM", "Frequency offset of the local clock in parts per million " \
      "(a 16-bit binary fraction: freq / 65536)" SRC "freq).", DBL, PL_NO_ID, ADV, 0, \
      PL_U(RATIO, 1e-6, GAUGE), PL_BY_HAND()) \
    R(2, "Maximum Error Seconds", "Maximum error bound of the time, in us" SRC "maxerror).", \
      LRAW, PL_NO_ID, NOV, 0, PL_U(SECONDS, 1e-6, GAUGE), PL_BY_HAND()) \
    R(3, "Estimated Error Seconds", "Estimated error of the time, in us" SRC "esterror).", \
      LRAW, PL_NO_ID, NOV, 0, PL_U(SECONDS, 1e-6, GAUGE), PL_BY_HAND()) \
    R(4, "Status", "Clock status bits STA_PLL, STA_UNSYNC, STA_NANO ... (<sys/timex.h>)" \
      SRC "status).", LRAW, PL_NO_ID, ADV, 0, PL_U(NONE, 1, DISCRETE), PL_BY_HAND()) \
    R(5, "Synchronized", "1 when the kernel clock is synchronised: adjtimex does not return " \
      "TIME_ERROR and STA_UNSYNC is clear" SRC "status).", LRAW, PL_NO_ID, NOV, 0, \
      PL_U(NONE, 1, GAUGE), PL_BY_HAND()) \
    R(6, "Time Constant", "PLL time constant, the loop's bandwidth" SRC "constant).", LRAW, \
      PL_NO_ID, ADV, 0, PL_U(NONE, 1, GAUGE), PL_BY_HAND()) \
    R(7, "Tick Seconds", "Length of a clock tick, in us" SRC "tick).", LRAW, PL_NO_ID, ADV, 0, \
      PL_U(SECONDS, 1e-6, DISCRETE), PL_BY_HAND()) \
    R(8, "PPS Frequency PPM", "PPS frequency in parts per million, 0 without PPS" SRC "ppsfreq).", \
      DBL, PL_NO_ID, ADV, 0, PL_U(RATIO, 1e-6, GAUGE), PL_BY_HAND()) \
    R(9, "PPS Jitter Seconds", "PPS jitter in seconds; ns with STA_NANO, else us" SRC "jitter).", \
      DBL, PL_NO_ID, ADV, 0, PL_U(SECONDS, 1, GAUGE), PL_BY_HAND()) \
    R(10, "PPS Shift", "PPS calibration interval, as log2 of its seconds" SRC "shift).", LRAW, \
      PL_NO_ID, ADV, 0, PL_U(NONE, 1, GAUGE), PL_BY_HAND()) \
    R(11, "PPS Stability PPM", "PPS stability in parts per million" SRC "stabil).", DBL, \
      PL_NO_ID, ADV, 0, PL_U(RATIO, 1e-6, GAUGE), PL_BY_HAND()) \
    R(12, "PPS Jitter Limit Exceeded", "PPS signals whose jitter exceeded the limit" SRC \
      "jitcnt).", LRAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_BY_HAND()) \
    R(13, "PPS Calibration Intervals", "PPS calibration intervals" SRC "calcnt).", LRAW, \
      PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_BY_HAND()) \
    R(14, "PPS Calibration Errors", "PPS calibration errors" SRC "errcnt).", LRAW, PL_NO_ID, \
      ADV, 0, PL_U(COUNT, 1, COUNTER), PL_BY_HAND()) \
    R(15, "PPS Stability Limit Exceeded", "PPS calibrations whose stability exceeded the " \
      "limit" SRC "stbcnt).", LRAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_BY_HAND()) \
    R(16, "TAI Offset Seconds", "Offset of TAI from UTC in seconds, 0 until a daemon sets it" \
      SRC "tai).", LRAW, PL_NO_ID, ADV, 0, PL_U(SECONDS, 1, DISCRETE), PL_BY_HAND()) \
    R(17, "Precision Seconds", "Clock precision, in us" SRC "precision).", LRAW, PL_NO_ID, ADV, \
      0, PL_U(SECONDS, 1e-6, DISCRETE), PL_BY_HAND()) \
    R(18, "Current Time Seconds", "Wall-clock time in seconds since the epoch, for clock-skew " \
      "rules (clock_gettime(2) CLOCK_REALTIME).", DBL, PL_NO_ID, NOV, 0, \
      PL_U(SECONDS, 1, GAUGE), PL_BY_HAND()) \
    R(19, "Time Zone Offset Seconds", "Offset of the local time zone east of UTC in seconds, " \
      "daylight saving time included (localtime_r(3) tm_gmtoff: TZ, else /etc/localtime, read " \
      "once per process); the zone's abbreviation is the text fact time_zone.", DBL, PL_NO_ID, \
      NOV, 0, PL_U(SECONDS, 1, GAUGE), PL_BY_HAND())

static const pl_counter_def counters[] = { CLK_ROWS(PL_ROW_COUNTER) };
#define NC (sizeof counters / sizeof counters[0])
_Static_assert(NC == PL_CLK_N, "one row per PL_CLK_ index");

static void put_double(uint64_t v[], uint8_t has[], unsigned i, double d)
{
    memcpy(&v[i], &d, sizeof d);
    has[i] = 1;
}

/* A long field that must not be negative. */
static void put_long(uint64_t v[], uint8_t has[], unsigned i, long x)
{
    v[i] = x < 0 ? 0 : (uint64_t)x;
    has[i] = x >= 0;
}

void pl_timex_convert(const struct timex *tx, int state, uint64_t v[PL_CLK_N],
                      uint8_t has[PL_CLK_N])
{
    double sub = (tx->status & STA_NANO) ? 1e-9 : 1e-6;   /* offset and jitter units */
    memset(has, 0, PL_CLK_N);
    put_double(v, has, PL_CLK_OFFSET, (double)tx->offset * sub);
    put_double(v, has, PL_CLK_FREQ, (double)tx->freq / 65536.0);
    put_long(v, has, PL_CLK_MAXERR, tx->maxerror);
    put_long(v, has, PL_CLK_ESTERR, tx->esterror);
    put_long(v, has, PL_CLK_STATUS, tx->status);
    put_long(v, has, PL_CLK_SYNC, state != TIME_ERROR && !(tx->status & STA_UNSYNC));
    put_long(v, has, PL_CLK_CONSTANT, tx->constant);
    put_long(v, has, PL_CLK_TICK, tx->tick);
    put_double(v, has, PL_CLK_PPSFREQ, (double)tx->ppsfreq / 65536.0);
    put_double(v, has, PL_CLK_JITTER, (double)tx->jitter * sub);
    put_long(v, has, PL_CLK_SHIFT, tx->shift);
    put_double(v, has, PL_CLK_STABIL, (double)tx->stabil / 65536.0);
    put_long(v, has, PL_CLK_JITCNT, tx->jitcnt);
    put_long(v, has, PL_CLK_CALCNT, tx->calcnt);
    put_long(v, has, PL_CLK_ERRCNT, tx->errcnt);
    put_long(v, has, PL_CLK_STBCNT, tx->stbcnt);
    put_long(v, has, PL_CLK_TAI, tx->tai);
    put_long(v, has, PL_CLK_PRECISION, tx->precision);
}

int pl_clock_zone(time_t t, long *gmtoff, char *name, size_t size)
{
    struct tm tm;
    if (!localtime_r(&t, &tm))
        return EINVAL;
    *gmtoff = tm.tm_gmtoff;
    if (name && size) {
        size_t l = tm.tm_zone ? strnlen(tm.tm_zone, size - 1) : 0;
        memcpy(name, tm.tm_zone ? tm.tm_zone : "", l);
        name[l] = '\0';
    }
    return 0;
}

typedef struct clk_state {
    int live;                /* the env's root is "/": adjtimex is about it */
} clk_state;

static int clk_open(pl_env *env, void **state)
{
    clk_state *s = calloc(1, sizeof *s);
    if (!s)
        return ENOMEM;
    s->live = strcmp(pl_env_root(env), "/") == 0;
    *state = s;
    return 0;
}

static void clk_close(void *state) { free(state); }

/* Any of the counters [lo, hi) wanted (wanted NULL: all). */
static int any_wanted(const uint8_t *wanted, unsigned lo, unsigned hi)
{
    for (unsigned i = lo; i < hi; i++)
        if (!wanted || wanted[i])
            return 1;
    return 0;
}

static int clk_collect(void *state, const uint8_t *wanted, pl_snapshot *snap)
{
    const clk_state *s = state;
    struct timex tx;
    struct timespec now;
    uint64_t v[PL_CLK_N];
    uint8_t has[PL_CLK_N];
    int e, st;
    if ((e = pl_single_instance(state, snap)) != 0 || !s->live)
        return e;                    /* not this kernel's machine: no values */
    memset(has, 0, sizeof has);
    if (any_wanted(wanted, 0, PL_CLK_NOW)) {
        memset(&tx, 0, sizeof tx);   /* modes 0: read only */
        if ((st = adjtimex(&tx)) < 0) {
            snap->err_path = "adjtimex(2)";
            return errno;
        }
        pl_timex_convert(&tx, st, v, has);
    }
    if (any_wanted(wanted, PL_CLK_NOW, PL_CLK_N) && clock_gettime(CLOCK_REALTIME, &now) == 0) {
        long off;
        put_double(v, has, PL_CLK_NOW, (double)now.tv_sec + (double)now.tv_nsec * 1e-9);
        if ((!wanted || wanted[PL_CLK_TZ]) && pl_clock_zone(now.tv_sec, &off, NULL, 0) == 0)
            put_double(v, has, PL_CLK_TZ, (double)off);
    }
    for (unsigned i = 0; i < PL_CLK_N; i++)
        if (has[i] && (!wanted || wanted[i]))
            pl_snap_set(snap, 0, i, v[i]);
    return 0;
}

/* time_zone: the local zone's abbreviation now (node_exporter's label of
 * node_time_zone_offset_seconds); nothing for another root. */
static int clk_info(void *state, const char *instance, pl_info_fn emit, void *ud)
{
    const clk_state *s = state;
    char zone[16], val[64];
    long off;
    if (instance)
        return ENOENT;
    if (s->live && pl_clock_zone(time(NULL), &off, zone, sizeof zone) == 0 && zone[0]) {
        pl_fact_escape(zone, val, sizeof val);
        (void)emit(ud, "time_zone", val);
    }
    return 0;
}

static const pl_provider_ops clk_ops = {
    clk_open, clk_close, pl_single_instance, clk_collect, NULL, clk_info,
};

const pl_counterset_def pl_clock_def = {
    /* UUIDv5(perflib namespace, "Clock") */
    { 0x5459aeba, 0x2ff4, 0x5197, { 0xb1, 0x37, 0x33, 0x97, 0xb4, 0x76, 0x8b, 0x9c } },
    "Clock",
    "The kernel's NTP clock discipline from adjtimex(2) (offset, frequency, error bounds, "
    "status, PPS), the wall-clock time and the local time zone's offset; only for the machine perflib runs on (root \"/\"): "
    "another root has no values.",
    PERF_COUNTERSET_SINGLE_INSTANCE, 0, NC, counters, &clk_ops, 47000, NULL,
};
