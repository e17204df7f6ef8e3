/* Clock (clock.c): the kernel's NTP discipline as adjtimex(2) reports it.
 * The conversion of one struct timex into the set's raw values is pure,
 * so the C test checks it on hand-built values. */
#ifndef PL_CLOCK_H
#define PL_CLOCK_H

#include <stdint.h>
#include <stddef.h>
#include <sys/timex.h>
#include <time.h>

/* Counter indexes of the Clock set, in row order. */
enum {
    PL_CLK_OFFSET, PL_CLK_FREQ, PL_CLK_MAXERR, PL_CLK_ESTERR, PL_CLK_STATUS, PL_CLK_SYNC,
    PL_CLK_CONSTANT, PL_CLK_TICK, PL_CLK_PPSFREQ, PL_CLK_JITTER, PL_CLK_SHIFT, PL_CLK_STABIL,
    PL_CLK_JITCNT, PL_CLK_CALCNT, PL_CLK_ERRCNT, PL_CLK_STBCNT, PL_CLK_TAI, PL_CLK_PRECISION,
    PL_CLK_NOW, PL_CLK_TZ, PL_CLK_N
};

/* Raw values of tx, the state adjtimex returned (TIME_OK ... TIME_ERROR):
 * v[i] with has[i] 1, or has[i] 0 when the field cannot be a value (a
 * negative count).  Doubles (offset, frequencies, jitter, stability, the
 * time) are stored as their bits.  Offset and PPS jitter are ns with
 * STA_NANO, else us; frequencies are ppm with a 16-bit binary fraction. */
void pl_timex_convert(const struct timex *tx, int state, uint64_t v[PL_CLK_N],
                      uint8_t has[PL_CLK_N]);

/* The local time zone at t (localtime_r: TZ, else /etc/localtime, read by
 * the C library once per process): its offset east of UTC in seconds into
 * *gmtoff and its abbreviation ("CET", "UTC") into name (NULL: not wanted),
 * cut to size.  0, or EINVAL
 * when t cannot be converted. */
int pl_clock_zone(time_t t, long *gmtoff, char *name, size_t size);

#endif
