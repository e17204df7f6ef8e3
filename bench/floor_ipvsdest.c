/* The C floor of IPVS Backend: /proc/net/ip_vs kept open, pread from 0
 * until 0 (a seq_file), the three header lines skipped, each service line's
 * address taken and each real server line's address, weight, active and
 * inactive connections parsed, the backend found by a hash of its service's
 * and its own address text: what the provider does for
 * `\IPVS Backend(*)\*`, with nothing else.  Prints "floor IPVS Backend
 * <ns> ..." for bench/collect.lua.
 *
 * IPVS_FLOOR_FILE names another file of the same layout (a fixture, where
 * the machine has no ip_vs module); the default is /proc/net/ip_vs. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define FLOOR_NAME "floor_ipvsdest"
#define FLOOR_USAGE "[IPVS Backend]"
#include "floor_common.h"

#define TAB (1u << 16)

static rfile f;
static uint64_t key_of[TAB];         /* the hash of a backend's key per bucket, 0 empty */
static uint64_t vals[TAB][3];

static uint64_t fnv(uint64_t h, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211u;
    return h;
}

static uint32_t bucket(uint64_t h)
{
    uint32_t b = (uint32_t)h & (TAB - 1);
    while (key_of[b] && key_of[b] != h)
        b = (b + 1) & (TAB - 1);
    key_of[b] = h;
    return b;
}

static void collect_set(int set)
{
    const char *p = rf_read(&f);
    uint64_t svc = 0;
    int line = 0;
    (void)set;
    for (; *p; line++) {
        const char *eol = strchr(p, '\n'), *s;
        if (!eol)
            break;
        while (*p == ' ')
            p++;
        if (line >= 3 && p[0] == '-' && p[1] == '>') {
            uint64_t v[3];
            p += 2;
            while (*p == ' ')
                p++;
            for (s = p; *p != ' ' && p < eol; p++)
                ;
            uint32_t b = bucket(fnv(svc, s, (size_t)(p - s)) | 1);
            while (*p == ' ')
                p++;
            while (*p != ' ' && p < eol)                 /* the forwarding method */
                p++;
            for (int k = 0; k < 3; k++) {
                char *end;
                v[k] = strtoull(p, &end, 10);
                p = end;
            }
            memcpy(vals[b], v, sizeof v);
            floor_keep(v[0] + v[1] + v[2]);
        } else if (line >= 3) {
            for (s = p; *p != ' ' && p < eol; p++)       /* protocol */
                ;
            while (*p == ' ')
                p++;
            for (; *p != ' ' && p < eol; p++)            /* address:port or mark */
                ;
            svc = fnv(14695981039346656037u, s, (size_t)(p - s));
        }
        p = eol + 1;
    }
}

static const char *const set_names[] = { "IPVS Backend" };

int main(int argc, char **argv)
{
    floor_bench b = { .names = set_names, .nsets = 1 };
    const char *path = getenv("IPVS_FLOOR_FILE");
    floor_args(&b, argc, argv);
    b.want[0] = 1;
    if (!path)
        path = "/proc/net/ip_vs";
    if (!rf_open(&f, path, 0)) {
        printf("# floor_ipvsdest: no %s\n", path);
        return 0;
    }
    printf("# floor_ipvsdest: %d round(s) of %.2f s\n", b.rounds, b.secs);
    floor_run(&b);
    return 0;
}
