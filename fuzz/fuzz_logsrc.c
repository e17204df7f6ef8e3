/* libFuzzer target: a log read as a machine (pl_logsrc_open, the queries of
 * perflib.open_log), with definitions and data blocks that need not agree.
 * Inside a log a CRC keeps a fuzzer out of the payloads, so the input is a
 * run of records, each `type u8, length u16 (little-endian), payload`, which
 * this harness frames as a binary log with a valid header and CRCs.  The log
 * must be refused with a sentence, or give a machine on which a query of
 * every set, every instance and every counter collects until the end of the
 * log or a refused record (with a sentence), formatting every value against
 * the sample before (the bulk and the one-value paths agree; UBSan: no
 * overflow), never crashing or reading past a payload. */
#include "fuzz_common.h"
#include "logsrc.h"
#include "pl_blog.h"
#include "pl_le.h"

#include <errno.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_LOG (1u << 20)

/* The input framed as a binary log (version 2) into buf: its size. */
static size_t frame(const uint8_t *data, size_t size, uint8_t *buf)
{
    static const uint8_t magic[8] = { 0x89, 'P', 'L', 'B', 0x0D, 0x0A, 0x1A, 0x0A };
    memset(buf, 0, PL_BLOG_HEADER);
    memcpy(buf, magic, 8);
    pl_w16(buf + 8, PL_BLOG_VERSION);
    pl_w32(buf + 12, PL_BLOG_HEADER);
    memcpy(buf + 24, PL_VERSION, strlen(PL_VERSION));
    memcpy(buf + 40, "fuzz", 4);
    pl_w32(buf + 108, pl_crc32c(0, buf, 108));
    size_t out = PL_BLOG_HEADER, at = 0;
    while (size - at >= 3) {
        uint32_t type = data[at] & 1 ? PL_BLOG_DATA : PL_BLOG_METADATA;
        size_t len = pl_r16(data + at + 1);
        at += 3;
        if (len > size - at)
            len = size - at;
        size_t whole = PL_BLOG_RECORD_HEAD + ((len + 7u) & ~(size_t)7u);
        if (out + whole > MAX_LOG)
            break;
        uint8_t *h = buf + out;
        memset(h, 0, whole);
        memcpy(h + PL_BLOG_RECORD_HEAD, data + at, len);
        pl_w32(h, type);
        pl_w32(h + 4, (uint32_t)len);
        pl_w32(h + 8, pl_crc32c(0, data + at, len));
        pl_w32(h + 12, pl_crc32c(0, h, 12));
        out += whole;
        at += len;
    }
    return out;
}

/* A query of every counter of every set of env, collected to the end. */
static void read_all(pl_env *env)
{
    pl_query *q = pl_query_new(env);
    if (!q)
        return;
    for (uint32_t i = 0; i < pl_env_counterset_count(env); i++) {
        const pl_counterset_def *cs = pl_env_counterset(env, i);
        char guid[PL_GUID_STRLEN + 1];
        pl_guid_format(&cs->guid, guid);
        pl_spec_in in = { guid, cs->instance_type == PERF_COUNTERSET_MULTI_INSTANCES ? "*" : NULL, PL_NO_ID, "*",
                          PERF_WILDCARD_COUNTER, PERF_DETAIL_WIZARD };
        pl_add_status st;
        uint32_t ix;
        pl_query_add(q, &in, &st, &ix);
    }
    pl_sample *prev = NULL, *s = NULL;
    int e, n = 0;
    while (n++ < 10000 && (e = pl_query_collect(q, &s)) == 0) {
        fz_format_pair(s, prev ? prev : s);
        free(prev);
        prev = s;
    }
    if (e != ENODATA && e != ENOMEM && !pl_query_source_error(q))
        abort();                          /* a refused record says why */
    free(prev);
    pl_query_free(q);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static uint8_t *buf;
    if (!buf && !(buf = malloc(MAX_LOG)))
        return 0;
    if (!fz_env())                        /* the built-in sets registered, as in a process that reads logs */
        return 0;
    uint8_t *in = fz_copy(data, size);         /* exactly the input: a read past it is reported */
    if (!in)
        return 0;
    size_t n = frame(in, size, buf);
    free(in);
    const char *path = fz_memfd(buf, n);
    if (!path)
        return 0;
    pl_env *env = NULL;
    char msg[512] = "";
    int e = pl_logsrc_open(&path, 1, INT64_MIN, INT64_MAX, &env, msg, sizeof msg);
    if (e && !msg[0])
        abort();                          /* refused without a sentence */
    if (!e) {
        read_all(env);
        pl_env_unref(env);
    }
    return 0;
}
