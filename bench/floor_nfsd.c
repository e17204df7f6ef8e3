/* The C floor of NFS Server: /proc/net/rpc/nfsd kept open, read whole,
 * every number of every line parsed (the provider keys on rc, fh, io, th,
 * net, rpc, proc3, proc4 and proc4ops): what the provider does for
 * `\NFS Server\*`, with nothing else.  Without the nfsd module (no file)
 * it prints a comment only.  Prints "floor NFS Server <ns> ..." for
 * bench/collect.lua. */
#include <stdint.h>
#include <stdio.h>

#define FLOOR_NAME "floor_nfsd"
#define FLOOR_USAGE "[NFS Server]"
#include "floor_common.h"

static rfile f;

static void collect_set(int set)
{
    (void)set;
    for (const char *p = rf_read(&f); p && *p; p = next_line(p)) {
        while (*p && *p != ' ' && *p != '\n')
            p++;         /* the line's tag */
        while (*p == ' ') {
            uint64_t v;
            p++;
            if (!num(&p, &v))
                break;
            floor_keep(v);
            sink += v;
        }
    }
}

static const char *const set_names[] = { "NFS Server" };

int main(int argc, char **argv)
{
    floor_bench b = { .names = set_names, .nsets = 1 };
    floor_args(&b, argc, argv);
    b.want[0] = 1;
    if (!rf_open(&f, "/proc/net/rpc/nfsd", 0)) {
        printf("# floor_nfsd: no /proc/net/rpc/nfsd (the nfsd module)\n");
        return 0;
    }
    printf("# floor_nfsd: %d round(s) of %.2f s\n", b.rounds, b.secs);
    floor_run(&b);
    return 0;
}
