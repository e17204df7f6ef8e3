/* libFuzzer target: a V1 plug-in's Collect answer (pl_plug_take) on
 * untrusted bytes, against seed 002's Transfer (single instance, a fraction
 * and its base) and Peer (multi-instance) definitions learned once from a
 * metadata answer built by hand.  The first byte picks the object (bit 0),
 * the alignment switch (bit 1) and the object count (bits 2-3); the rest is
 * the answer.  An answer must be taken whole or refused with a sentence
 * (EPROTO) or be no data; what is taken has one value per counter and
 * instance, each present, and the instance names are unique. */
#include "plugin_impl.h"
#include "../spec/c/v1objects.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char conf[] =
    "[plugin]\nLibrary = none.so\nOpen = O\nCollect = C\nClose = X\nFirst Counter = 1000\n"
    "[object Transfer]\nOffset = 0\nCounter 2 = Bytes Sent\nCounter 4 = Available Bandwidth\n"
    "Counter 6 = Total Bandwidth\n[object Peer]\nOffset = 8\nCounter 10 = Bytes Served\n";

static plugin *learned(void)
{
    static plugin pl;
    static int done;
    char path[] = "/tmp/fuzz-plugin-XXXXXX", msg[256];
    vb meta = { .len = 0 };
    if (done)
        return done > 0 ? &pl : NULL;
    done = -1;
    int fd = mkstemp(path);
    if (fd < 0 || write(fd, conf, sizeof conf - 1) != (ssize_t)(sizeof conf - 1)) {
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    close(fd);
    int e = pl_plug_cfg_read(path, &pl.cfg, msg, sizeof msg);
    unlink(path);
    if (e)
        return NULL;
    size_t o = vb_object(&meta, 1000, 3, PERF_METADATA_NO_INSTANCES);
    vb_counter(&meta, 1002, PERF_COUNTER_RAWCOUNT, 4, 4);
    vb_counter(&meta, 1004, PERF_RAW_FRACTION, 4, 8);
    vb_counter(&meta, 1006, PERF_RAW_BASE, 4, 12);
    vb_end_defs(&meta, o);
    vb_end_object(&meta, o);
    o = vb_object(&meta, 1008, 1, PERF_METADATA_MULTIPLE_INSTANCES);
    vb_counter(&meta, 1010, PERF_COUNTER_LARGE_RAWCOUNT, 8, 8);
    vb_end_defs(&meta, o);
    vb_end_object(&meta, o);
    if (pl_plug_learn(&pl, meta.buf, meta.len, 2, 0, msg, sizeof msg) != 0)
        abort();
    done = 1;
    return &pl;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    plugin *pl = learned();
    if (!pl || size < 1)
        return 0;
    const plug_obj *o = &pl->objs[data[0] & 1];
    int lax = (data[0] >> 1) & 1;
    uint32_t nobjs = (data[0] >> 2) & 3;
    size_t len = size - 1;
    uint8_t *buf = malloc(len ? len : 1);     /* exact size: ASan sees every over-read */
    if (!buf)
        return 0;
    memcpy(buf, data + 1, len);
    pl_snapshot snap;
    pl_names nm;
    char msg[256] = "";
    pl_snap_init(&snap, &o->def);
    pl_names_init(&nm);
    int e = pl_plug_take(o, buf, len, nobjs, lax, &nm, &snap, msg, sizeof msg);
    if (e == EPROTO && !msg[0])
        abort();                          /* a refusal says why */
    if (e && e != EPROTO && e != ENODATA && e != ENOMEM)
        abort();
    if (e == 0) {
        uint32_t nc = o->def.ncounters;
        if (!o->multi && snap.ninst != 1)
            abort();
        for (size_t v = 0; v < (size_t)snap.ninst * nc; v++)
            if (snap.have[v] != 1)
                abort();
        for (uint32_t i = 0; i < snap.ninst; i++)
            for (uint32_t j = 0; j < i; j++)
                if (strcmp(pl_snap_name(&snap, i), pl_snap_name(&snap, j)) == 0)
                    abort();
    }
    pl_names_free(&nm);
    pl_snap_free(&snap);
    free(buf);
    return 0;
}
