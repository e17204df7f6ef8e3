/* Derived countersets from C alone (src/providers/derived.h, no Lua): a set
 * of formulas over PhysicalDisk on a temporary tree rewritten between two
 * collects, values worked out by hand; a nested set; statuses; errors; and
 * the definition outliving its owner's release while a query is open on it
 * (ASan watches that run). */
#include "ctest.h"
#include "ctest_snap.h"
#include "derived.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* vda and vdb: reads, sectors read, writes, sectors written. */
static int disks(const char *dir, const int a[4], const int b[4])
{
    char text[256];
    snprintf(text, sizeof text, " 254 0 vda %d 0 %d 0 %d 0 %d 0 0 0 0\n 254 16 vdb %d 0 %d 0 %d 0 %d 0 0 0 0\n",
             a[0], a[1], a[2], a[3], b[0], b[1], b[2], b[3]);
    return put(dir, "proc/diskstats", text);
}

/* The formatted value of instance inst, counter 0, of result index. */
static pl_status value(const pl_sample *s1, const pl_sample *s0, uint32_t index, const char *inst, double *v)
{
    const pl_block *b = &s1->blocks[index];
    for (uint32_t i = 0; i < b->ninst; i++)
        if (strcmp(pl_sample_inst_name(s1, b, i), inst) == 0)
            return pl_sample_format(s1, b, i, 0, s0, NULL, v);
    return PL_NO_INSTANCE;
}

static void test_derived(void)
{
    char dir[] = "/tmp/pl-derived-XXXXXX", msg[256];
    static const int a0[4] = { 100, 800, 50, 400 }, b0[4] = { 10, 80, 0, 0 };
    static const int a1[4] = { 200, 1800, 150, 3400 };
    const pl_derived_counter io[] = {
        { "Bytes/IO", "[\\PhysicalDisk(*)\\Disk Bytes/sec] / [\\PhysicalDisk(*)\\Disk Transfers/sec]", NULL,
          "bytes", NULL },
    };
    const pl_derived_counter kib[] = { { "KiB/IO", "[\\T Disk(*)\\Bytes/IO] / 1024", "Per transfer.", "KiB", NULL } };
    pl_derived *d = NULL, *n = NULL;
    pl_sample *s0 = NULL, *s1 = NULL;
    pl_add_status st;
    uint32_t i0, i1;
    double v = 0;
    if (!mkdtemp(dir)) {
        CHECK(0);
        return;
    }
    CHECK(put(dir, "sys/block/vda/device/vendor", "0x1af4\n"));
    CHECK(put(dir, "sys/block/vdb/device/vendor", "0x1af4\n"));
    CHECK(disks(dir, a0, b0));
    pl_env *env = pl_env_new(dir);
    CHECK(pl_derived_new(env, "T Disk", NULL, NULL, io, 1, &d, msg, sizeof msg) == 0);
    CHECK(pl_derived_new(env, "T Nested", NULL, NULL, kib, 1, &n, msg, sizeof msg) == 0);
    CHECK_STR(pl_derived_def(d)->counters[0].help,
              "[\\PhysicalDisk(*)\\Disk Bytes/sec] / [\\PhysicalDisk(*)\\Disk Transfers/sec] (unit: bytes)");
    CHECK_EQ_U64(pl_derived_def(d)->counters[0].type, 0x00012000u);
    pl_query *q = pl_query_new(env);
    CHECK(pl_query_add_path(q, "\\T Disk(*)\\Bytes/IO", &st, &i0) == 0 && st == PL_ADD_OK);
    CHECK(pl_query_add_path(q, "\\T Nested(vda)\\KiB/IO", &st, &i1) == 0 && st == PL_ADD_OK);
    CHECK(pl_query_collect(q, &s0) == 0);
    CHECK(value(s0, NULL, i0, "vda", &v) == PL_NO_DATA);            /* a rate's first sample: no value */
    CHECK(disks(dir, a1, b0));
    CHECK(pl_query_collect(q, &s1) == 0);
    CHECK(value(s1, s0, i0, "vda", &v) == PL_VALID);
    CHECK_NEAR(v, 10240.0, 1e-9);                  /* (1000 + 3000) x 512 / (100 + 100) */
    CHECK(value(s1, s0, i0, "_Total", &v) == PL_VALID);
    CHECK_NEAR(v, 10240.0, 1e-9);
    CHECK(value(s1, s0, i0, "vdb", &v) == PL_NO_DATA);             /* 0 / 0 */
    CHECK(value(s1, s0, i1, "vda", &v) == PL_VALID);
    CHECK_NEAR(v, 10.0, 1e-9);                     /* 10240 / 1024 */
    free(s0);
    free(s1);
    /* the owners release first: the open query keeps the definitions */
    pl_derived_free(n);
    pl_derived_free(d);
    CHECK(pl_query_collect(q, &s0) == 0);
    free(s0);
    pl_query_free(q);
    pl_env_unref(env);
    rm_tree(dir);
}

static void test_errors(void)
{
    char msg[256];
    pl_derived *d = (pl_derived *)1;
    pl_env *env = pl_env_new("spec/fixtures/basic");
    const pl_derived_counter bad[] = { { "X", "1 + * 2", NULL, NULL, NULL } };
    const pl_derived_counter wild[] = { { "X", "[\\Memory\\*]", NULL, NULL, NULL } };
    const pl_derived_counter none[] = { { "X", "[\\No Such Set\\X] + 1", NULL, NULL, NULL } };
    const pl_derived_counter twice[] = { { "X", "1", NULL, NULL, NULL }, { "x", "2", NULL, NULL, NULL } };
    const pl_derived_counter ok[] = { { "X", "[\\Memory\\Available Bytes] / 2", NULL, NULL, NULL } };
    CHECK(pl_derived_new(env, "T Bad", NULL, NULL, bad, 1, &d, msg, sizeof msg) == EINVAL);
    CHECK(d == NULL);
    CHECK_STR(msg, "counter 'X': formula at offset 4: '*' where an operand is expected");
    CHECK(pl_derived_new(env, "T Bad", NULL, NULL, wild, 1, &d, msg, sizeof msg) == EINVAL);
    CHECK(pl_derived_new(env, "T Bad", NULL, NULL, none, 1, &d, msg, sizeof msg) == ENOENT);
    CHECK_STR(msg, "path '\\No Such Set\\X' names no counter of this machine (no such counterset)");
    CHECK(pl_derived_new(env, "T Bad", NULL, NULL, twice, 2, &d, msg, sizeof msg) == EINVAL);
    CHECK(pl_derived_new(env, "Memory", NULL, NULL, ok, 1, &d, msg, sizeof msg) == EEXIST);
    CHECK(pl_derived_new(env, "T Ok", NULL, NULL, ok, 1, &d, msg, sizeof msg) == 0);
    CHECK(pl_derived_def(d)->instance_type == PERF_COUNTERSET_SINGLE_INSTANCE);
    CHECK(pl_derived_def(d)->index == 900000000u);
    CHECK(pl_env_find(env, "T Ok") == pl_derived_def(d));
    pl_env_unref(env);
    pl_derived_free(d);
}

int main(void)
{
    RUN(test_derived);
    RUN(test_errors);
    return CT_END();
}
