/* The number lines of /sys/block/zramN: see zram.h. */
#include "zram.h"

int pl_zram_fields(const char *p, uint64_t *v, int max)
{
    int n = 0;
    for (;;) {
        uint64_t x = 0;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == '\0' || (*p == '\n' && p[1] == '\0'))
            return n;
        if (*p < '0' || *p > '9')
            return -1;
        for (; *p >= '0' && *p <= '9'; p++) {
            if (x > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
                return -1;
            x = x * 10 + (uint64_t)(*p - '0');
        }
        if (*p != ' ' && *p != '\t' && *p != '\n' && *p != '\0')
            return -1;
        if (n < max)
            v[n] = x;
        n += n < max;
    }
}
