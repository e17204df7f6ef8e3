/* libFuzzer target: an application provider's segment (appseg.h) on
 * untrusted bytes.  The header, every set record and, for each set that
 * passes, its instances (pl_appseg_take with the definition built from it)
 * must be taken or refused with a sentence (EPROTO), or be no such set
 * (ENOENT); what is taken has a name within PERF_MAX_INSTANCE_NAME and one
 * value per counter, each present.  The in-place reader (pl_appseg_take_live)
 * gets the same bytes, twice, and must agree with itself. */
#include "appseg.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void take_set(const uint8_t *buf, size_t len, size_t off)
{
    pl_snapshot snap;
    char msg[256];
    appseg_set s;
    memcpy(&s, buf + off, sizeof s);          /* an input copy may be unaligned at off */
    appseg_set *whole = malloc(s.rec.size);
    if (!whole)
        return;
    memcpy(whole, buf + off, s.rec.size);
    pl_appseg_def *d = pl_appseg_def_new(whole);
    free(whole);
    if (!d)
        return;
    pl_snap_init(&snap, &d->cs);
    int e = pl_appseg_take(buf, len, d, NULL, 1, &snap, msg, sizeof msg);
    if (e != 0 && e != EPROTO && e != ENOENT && e != ENOMEM)
        abort();
    if (e == EPROTO && !msg[0])
        abort();                              /* a refusal always says why */
    for (uint32_t i = 0; !e && i < snap.ninst; i++) {
        if (strlen(pl_snap_name(&snap, i)) >= PERF_MAX_INSTANCE_NAME)
            abort();
        for (uint32_t c = 0; c < d->cs.ncounters; c++)
            if (!snap.have[(size_t)i * d->cs.ncounters + c])
                abort();
    }
    /* in place, twice: the second read reuses the first walk (the cursor)
     * and must give the same instances and values */
    pl_appseg_cursor cur = { 0 };
    pl_snapshot live;
    pl_snap_init(&live, &d->cs);
    for (int k = 0; k < 2; k++) {
        uint32_t n0 = live.ninst;
        uint64_t v0 = live.ninst ? live.values[0] : 0;
        pl_snap_clear(&live);
        msg[0] = '\0';
        e = pl_appseg_take_live(buf, len, d, NULL, 1, &live, &cur, msg, sizeof msg);
        if (e != 0 && e != EPROTO && e != ENOENT && e != ENOMEM && e != EAGAIN)
            abort();
        if (e == EPROTO && !msg[0])
            abort();
        if (k == 1 && !e && (live.ninst != n0 || (n0 && live.values[0] != v0)))
            abort();
        for (uint32_t i = 0; !e && i < live.ninst; i++)
            if (strlen(pl_snap_name(&live, i)) >= PERF_MAX_INSTANCE_NAME)
                abort();
    }
    pl_appseg_cursor_free(&cur);
    pl_snap_free(&live);
    pl_snap_free(&snap);
    pl_appseg_def_free(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *buf = malloc(size ? size : 1);   /* exactly size bytes: one past is an ASan report */
    size_t used, off;
    char msg[256];
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    if (pl_appseg_check_header(buf, size, &used, msg, sizeof msg) == 0) {
        for (off = APPSEG_HDR_SIZE; off + sizeof(appseg_rec) + 8 <= used;) {
            appseg_rec r;
            memcpy(&r, buf + off, sizeof r);
            if (r.size % 8 || r.size < sizeof r + 8 || r.size > used - off)
                break;
            if (r.kind == APPSEG_KIND_SET && pl_appseg_check_set(buf, used, off, msg, sizeof msg) == 0)
                take_set(buf, size, off);
            off += r.size;
        }
    }
    free(buf);
    return 0;
}
