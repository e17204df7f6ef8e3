/* Small one-line files of /proc as kernel sources (pl_ksrc.h):
 *   /proc/uptime    "12345.67 23456.78\n": seconds since boot, idle seconds
 *   /proc/loadavg   "0.38 0.45 0.50 2/345 6789\n"
 * Each value's st is PL_NS_ABSENT when the line has no such token,
 * PL_NS_BAD when the token is not a whole number of the expected form. */
#ifndef PL_PROC_MISC_H
#define PL_PROC_MISC_H

#include "pl_ksrc.h"
#include "netsnmp.h"

enum { PL_UPTIME_UP, PL_UPTIME_IDLE, PL_UPTIME_N };

typedef struct pl_uptime {
    uint64_t v[PL_UPTIME_N];     /* 100 ns units; up is at most INT64_MAX */
    uint8_t st[PL_UPTIME_N];
} pl_uptime;

/* loads x 100; running and threads from "running/threads"; the last pid */
enum { PL_LOAD_1, PL_LOAD_5, PL_LOAD_15, PL_LOAD_RUNNING, PL_LOAD_THREADS, PL_LOAD_LASTPID,
       PL_LOAD_N };

typedef struct pl_loadavg {
    uint64_t v[PL_LOAD_N];
    uint8_t st[PL_LOAD_N];
} pl_loadavg;

extern const pl_ksrc_def pl_ksrc_uptime, pl_ksrc_loadavg;

/* The pure parsers (buf[len] is '\0'): always 0. */
int pl_parse_uptime(const char *buf, size_t len, void *out);
int pl_parse_loadavg(const char *buf, size_t len, void *out);

#endif
