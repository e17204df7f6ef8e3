/* Watchdog: one instance per /sys/class/watchdog/watchdogN (the id is N),
 * its attributes as Documentation/ABI/testing/sysfs-class-watchdog and
 * drivers/watchdog/watchdog_dev.c give them: timeout, pretimeout, timeleft,
 * bootstatus ("%u"), nowayout ("%d"), status ("0x%x", WDIOF_* bits), state
 * ("active"/"inactive").  identity, options ("0x%x"), fw_version and
 * pretimeout_governor are text facts (the info op).
 *
 * A driver without get_timeleft has no timeleft file, pretimeout exists
 * only with pretimeout support (4.12+), state and others since 4.10: a
 * missing file leaves its counter unset (no_data), an unreadable one
 * (EACCES) is no_access, a value that is not a whole number is no value.
 * No watchdog class (a VM without a watchdog device, as here) is zero
 * instances.  Files are read with one pread each and kept open; the class
 * is listed at each collect. */
#include "pl_provider.h"
#include "providers.h"
#include "pl_rowset.h"
#include "sysattr.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LRAW PERF_COUNTER_LARGE_RAWCOUNT
#define NOV PERF_DETAIL_NOVICE
#define ADV PERF_DETAIL_ADVANCED

enum { W_TIMEOUT, W_PRETIMEOUT, W_TIMELEFT, W_BOOTSTATUS, W_NOWAYOUT, W_STATUS, W_ACTIVE, NC };
enum { S_ROW, NSRC };
typedef struct wdrow {
    uint64_t v[NC];
    uint8_t st[NC];
} wdrow;

#define WD "/sys/class/watchdog/watchdogN/"
#define WD_ROWS(R) \
    R(W_TIMEOUT, "Timeout Seconds", "Seconds without a ping before the watchdog resets the " \
      "machine (" WD "timeout).", LRAW, PL_NO_ID, NOV, 0, PL_U(SECONDS, 1, DISCRETE), \
      PL_FIELD(S_ROW, W_TIMEOUT)) \
    R(W_PRETIMEOUT, "Pretimeout Seconds", "Seconds before the timeout at which the pretimeout " \
      "governor acts, 0 for none (" WD "pretimeout).", LRAW, PL_NO_ID, ADV, 0, \
      PL_U(SECONDS, 1, DISCRETE), PL_FIELD(S_ROW, W_PRETIMEOUT)) \
    R(W_TIMELEFT, "Time Left Seconds", "Seconds left before the watchdog fires, where the " \
      "driver can tell (" WD "timeleft).", LRAW, PL_NO_ID, NOV, 0, PL_U(SECONDS, 1, GAUGE), \
      PL_FIELD(S_ROW, W_TIMELEFT)) \
    R(W_BOOTSTATUS, "Boot Status", "Why the last boot happened, WDIOF_* bits (WDIOF_CARDRESET " \
      "0x20: a watchdog reset) (" WD "bootstatus).", LRAW, PL_NO_ID, ADV, 0, \
      PL_U(NONE, 1, DISCRETE), PL_FIELD(S_ROW, W_BOOTSTATUS)) \
    R(W_NOWAYOUT, "No Way Out", "1 when the watchdog cannot be stopped once started " \
      "(" WD "nowayout).", LRAW, PL_NO_ID, ADV, 0, PL_U(NONE, 1, DISCRETE), \
      PL_FIELD(S_ROW, W_NOWAYOUT)) \
    R(W_STATUS, "Status", "The driver's status, WDIOF_* bits (" WD "status, hex).", LRAW, \
      PL_NO_ID, ADV, 0, PL_U(NONE, 1, GAUGE), PL_FIELD(S_ROW, W_STATUS)) \
    R(W_ACTIVE, "Active", "1 when the watchdog runs (\"active\"), 0 when stopped " \
      "(\"inactive\") (" WD "state).", LRAW, PL_NO_ID, NOV, 0, PL_U(NONE, 1, GAUGE), \
      PL_FIELD(S_ROW, W_ACTIVE))

static const pl_counter_def counters[] = { WD_ROWS(PL_ROW_COUNTER) };
static const pl_feed feeds[] = { WD_ROWS(PL_ROW_FEED) };
static const pl_feed_src srcs[NSRC] = { PL_FEED_SRC_ST(NULL, wdrow) };
_Static_assert(sizeof counters / sizeof counters[0] == NC, "one row per counter");

#define CLASS "sys/class/watchdog"
static const char *const files[NC] = {
    "timeout", "pretimeout", "timeleft", "bootstatus", "nowayout", "status", "state",
};

_Static_assert(NC <= PL_NUMDEV_FILES, "a pl_numdev keeps every file");

/* The state is a pl_numclass of the class's watchdog<N> entries
 * (sysattr.h): each timer's files kept open. */
static int wd_open(pl_env *env, void **state)
{
    return pl_numclass_open(env, CLASS, "watchdog", state);
}

/* An attribute's value: a decimal, "0x" and hex (status), or the state
 * word.  1 with *v; 0 for anything else. */
static int value(int k, const char *buf, uint64_t *v)
{
    const char *p = buf;
    int64_t n;
    if (k == W_ACTIVE) {
        size_t len = strcspn(buf, "\n");
        if (buf[len] == '\n' && buf[len + 1] != '\0')
            return 0;
        if ((len == 6 && memcmp(buf, "active", 6) == 0) ||
            (len == 8 && memcmp(buf, "inactive", 8) == 0)) {
            *v = len == 6;
            return 1;
        }
        return 0;
    }
    if (k == W_STATUS) {
        uint64_t x = 0;
        int digits = 0;
        if (p[0] != '0' || (p[1] != 'x' && p[1] != 'X'))
            return 0;
        for (p += 2; isxdigit((unsigned char)*p); p++) {
            if (++digits > 16)
                return 0;
            x = x << 4 | (uint64_t)(*p <= '9' ? *p - '0' : (*p | 0x20) - 'a' + 10);
        }
        if (digits == 0 || (*p == '\n' ? p[1] != '\0' : *p != '\0'))
            return 0;
        *v = x;
        return 1;
    }
    if (pl_parse_i64_whole(buf, &n) || n < 0)
        return 0;
    *v = (uint64_t)n;
    return 1;
}

/* Reads the wanted attributes of d into r; EACCES ones are denied. */
static void read_dev(const pl_numclass *c, pl_numdev *d, uint32_t inst, const uint8_t *wanted,
                     wdrow *r, pl_snapshot *snap)
{
    char buf[64];
    memset(r->st, PL_NS_ABSENT, sizeof r->st);
    for (int k = 0; k < NC; k++) {
        int e;
        if (wanted && !wanted[k])
            continue;
        e = pl_numdev_read(c, d, k, files[k], buf, sizeof buf);
        if (e == EACCES)
            pl_snap_deny(snap, inst, (uint32_t)k);
        else if (e == 0 && value(k, buf, &r->v[k]))
            r->st[k] = PL_NS_OK;
    }
}

static int wd_collect(void *state, const uint8_t *wanted, pl_snapshot *snap)
{
    pl_numclass *c = state;
    pl_feed_in in;
    wdrow r;
    int e;
    if ((e = pl_numclass_list(c, snap)) != 0)
        return e;
    pl_feed_begin(&in, srcs, NSRC, NULL, snap, NULL);
    for (uint32_t i = 0; i < c->devs.n; i++) {
        read_dev(c, (pl_numdev *)c->devs.v + i, i, wanted, &r, snap);
        pl_feed_put(&in, S_ROW, &r);
        pl_feed_walk(&in, i, feeds, NC, wanted);
    }
    return 0;
}

/* identity, options, fw_version, pretimeout_governor of watchdogN, read
 * afresh (not the sampling path). */
static int wd_info(void *state, const char *instance, pl_info_fn emit, void *ud)
{
    static const char *const facts[] = { "identity", "options", "fw_version",
                                         "pretimeout_governor" };
    const pl_numclass *c = state;
    char rel[96];
    unsigned num;
    int fd;
    if (!instance || !pl_entry_number(instance, "watchdog", 1u << 20, &num))
        return ENOENT;
    snprintf(rel, sizeof rel, CLASS "/watchdog%u", num);
    if ((fd = pl_open_rel(c->env, rel)) < 0)
        return ENOENT;       /* no such timer */
    close(fd);
    for (size_t k = 0; k < sizeof facts / sizeof facts[0]; k++) {
        snprintf(rel, sizeof rel, CLASS "/watchdog%u/%s", num, facts[k]);
        if (pl_emit_file(c->env, rel, facts[k], emit, ud))
            return 0;        /* emit stopped the walk */
    }
    return 0;
}

static const pl_provider_ops wd_ops = { wd_open, pl_numclass_close, pl_numclass_list, wd_collect,
                                        NULL, wd_info };

const pl_counterset_def pl_watchdog_def = {
    /* UUIDv5(perflib namespace, "Watchdog") */
    { 0xfe83b2f0, 0xe0b7, 0x5a59, { 0xad, 0x37, 0x2e, 0xdb, 0x86, 0x9a, 0x8a, 0x6c } },
    "Watchdog",
    "Each hardware or software watchdog timer of /sys/class/watchdog: timeout, pretimeout, "
    "time left, boot and driver status, nowayout and whether it runs; identity, options, "
    "firmware version and pretimeout governor as text facts; no instances without watchdogs.",
    PERF_COUNTERSET_MULTI_INSTANCES, 0, NC, counters, &wd_ops, 48000, NULL,
};
