/* The C floor of Clock: one adjtimex(2) with modes 0, one
 * clock_gettime(CLOCK_REALTIME) and its localtime_r (the time zone's
 * offset), the offset, frequencies and jitter made
 * doubles: what the provider does for `\Clock\*`, with nothing else.
 * Prints "floor Clock <ns> ..." for bench/collect.lua. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/timex.h>
#include <time.h>

#define FLOOR_NAME "floor_clock"
#define FLOOR_USAGE "[Clock]"
#include "floor_common.h"

static uint64_t bits(double d)
{
    uint64_t v;
    memcpy(&v, &d, sizeof v);
    return v;
}

static void collect_set(int set)
{
    struct timex tx;
    struct timespec now;
    double sub;
    (void)set;
    memset(&tx, 0, sizeof tx);
    if (adjtimex(&tx) < 0)
        return;
    sub = (tx.status & STA_NANO) ? 1e-9 : 1e-6;
    floor_keep(bits((double)tx.offset * sub));
    floor_keep(bits((double)tx.freq / 65536.0));
    floor_keep(bits((double)tx.ppsfreq / 65536.0));
    floor_keep(bits((double)tx.jitter * sub));
    floor_keep(bits((double)tx.stabil / 65536.0));
    {
        const long ints[] = { tx.maxerror, tx.esterror, tx.status, tx.constant, tx.tick,
                              tx.shift, tx.jitcnt, tx.calcnt, tx.errcnt, tx.stbcnt, tx.tai,
                              tx.precision };
        for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++)
            if (ints[i] >= 0)
                floor_keep((uint64_t)ints[i]);
    }
    if (clock_gettime(CLOCK_REALTIME, &now) == 0) {
        struct tm tm;
        floor_keep(bits((double)now.tv_sec + (double)now.tv_nsec * 1e-9));
        if (localtime_r(&now.tv_sec, &tm))
            floor_keep(bits((double)tm.tm_gmtoff));
    }
}

static const char *const set_names[] = { "Clock" };

int main(int argc, char **argv)
{
    floor_bench b = { .names = set_names, .nsets = 1 };
    floor_args(&b, argc, argv);
    b.want[0] = 1;
    printf("# floor_clock: adjtimex, %d round(s) of %.2f s\n", b.rounds, b.secs);
    floor_run(&b);
    return 0;
}
