/* PerfLib V1 PERF_DATA_BLOCKs (issue 11, item 1): the writer against a
 * layout built here byte by byte from winperf.h's structures (independent
 * of the writer), the reader on that hand-made block, round trips of real
 * fixture samples (every value formats as the original), the metadata form,
 * short buffers, and bad blocks: each the documented error with its offset
 * and rule, never a crash. */
#include "ctest.h"
#include "perflib.h"
#include "pl_v1.h"
#include "pl_le.h"

#include <errno.h>
#include <stdlib.h>

static const char *const FIX = "spec/fixtures/basic";

/* "V1Test": two instances, a 64-bit rate, a raw fraction with its base, a 32-bit number. */
static const pl_counter_def t_counters[] = {
    { 0, "Ops/sec", "", PERF_COUNTER_BULK_COUNT, PL_NO_ID, PERF_DETAIL_NOVICE, 0, 8, 0, 0, 0 },
    { 1, "% Used", "", PERF_RAW_FRACTION, 2, PERF_DETAIL_ADVANCED, 0, 8, 0, 0, 0 },
    { 2, "Used Base", "", PERF_RAW_BASE, PL_NO_ID, PERF_DETAIL_ADVANCED, 0, 8, 0, 0, 0 },
    { 3, "Level", "", PERF_COUNTER_RAWCOUNT, PL_NO_ID, PERF_DETAIL_EXPERT, -1, 4, 0, 0, 0 },
};
#define T_INDEX 96000u   /* clear of the built-in sets (59000-61000 are issue 17's) */

static int t_open(pl_env *env, void **state)
{
    (void)env;
    *state = NULL;
    return 0;
}
static void t_close(void *state) { (void)state; }
static int t_instances(void *state, pl_snapshot *snap)
{
    (void)state;
    pl_snap_clear(snap);
    return pl_snap_add(snap, "a", 7) < 0 || pl_snap_add(snap, "b\xc3\xa9", 9) < 0 ? ENOMEM : 0;
}
static int t_collect(void *state, const uint8_t *wanted, pl_snapshot *snap)
{
    (void)wanted;
    int e = t_instances(state, snap);
    for (uint32_t i = 0; !e && i < 2; i++) {
        pl_snap_set(snap, i, 0, 1000 + i);
        pl_snap_set(snap, i, 1, 30 + i);
        pl_snap_set(snap, i, 2, 120);
        pl_snap_set(snap, i, 3, 5 + i);
    }
    return e;
}
static const pl_provider_ops t_ops = { t_open, t_close, t_instances, t_collect, NULL, NULL };
static const pl_counterset_def t_set = {
    { 0x5a5a0101, 0x1111, 0x2222, { 1, 2, 3, 4, 5, 6, 7, 8 } }, "V1Test", "Test set.",
    PERF_COUNTERSET_MULTI_INSTANCES, 0, 4, t_counters, &t_ops, T_INDEX, NULL,
};

static pl_env *test_env(void)
{
    pl_env *env = pl_env_new("/nonexistent");
    CHECK(env != NULL);
    CHECK(pl_env_register(env, &t_set) == 0);
    return env;
}

static pl_sample *collect_path(pl_env *env, const char *path)
{
    pl_query *q = pl_query_new(env);
    pl_add_status st;
    uint32_t idx;
    pl_sample *s = NULL;
    CHECK(pl_query_add_path(q, path, &st, &idx) == 0 && st == 0);
    CHECK(pl_query_collect(q, &s) == 0 && s);
    pl_query_free(q);
    return s;
}

static uint8_t *write_v1(const pl_sample *s, const char *name, unsigned flags, size_t *n)
{
    *n = pl_v1_write(s, name, flags, NULL, 0);
    uint8_t *buf = malloc(*n);
    CHECK(buf && pl_v1_write(s, name, flags, buf, *n) == *n);
    return buf;
}

/* ---- the layout, by hand ------------------------------------------------ */

/* Hand-computed offsets of V1Test's block with system name "HOST":
 *   PERF_DATA_BLOCK 0..88, "HOST\0" 88..98, pad to 104 = HeaderLength
 *   PERF_OBJECT_TYPE 104..168, 4 definitions of 40: 168..328, DefinitionLength 224
 *   counter block: ByteLength 0, Ops/sec 8, % Used 16, its base 24, Level (4 bytes) 32, end 36 -> 40
 *   instance "a": definition 24 + name 4 = 28 -> 32, block 40 -> 72 bytes at 328
 *   instance "bé": 24 + 6 = 30 -> 32, block 40 -> 72 bytes at 400, ends at 472 */
enum { H_OBJ = 104, H_DEFS = 168, H_INST0 = 328, H_INST1 = 400, H_END = 472 };

static void put_utf16(uint8_t *p, const uint16_t *u, size_t n)
{
    for (size_t k = 0; k < n; k++)
        pl_w16(p + 2 * k, u[k]);
}

static void hand_def(uint8_t *p, uint32_t id, uint32_t type, uint32_t detail, int32_t scale, uint32_t size,
                     uint32_t off)
{
    pl_w32(p, 40);
    pl_w32(p + 4, T_INDEX + 2 + 2 * id);
    pl_w32(p + 12, T_INDEX + 3 + 2 * id);
    pl_w32(p + 20, (uint32_t)scale);
    pl_w32(p + 24, detail);
    pl_w32(p + 28, type);
    pl_w32(p + 32, size);
    pl_w32(p + 36, off);
}

static void hand_instance(uint8_t *p, uint32_t id, const uint16_t *name, uint32_t nunits, uint32_t k)
{
    pl_w32(p, 32);
    pl_w32(p + 12, id);
    pl_w32(p + 16, 24);
    pl_w32(p + 20, 2 * nunits);
    put_utf16(p + 24, name, nunits);
    uint8_t *b = p + 32;
    pl_w32(b, 40);
    pl_w64(b + 8, 1000 + k);
    pl_w64(b + 16, 30 + k);
    pl_w64(b + 24, 120);
    pl_w32(b + 32, 5 + k);
}

/* The block of a V1Test sample, built from the documented layout alone (no extension). */
static void hand_block(uint8_t *p, const pl_sample *s)
{
    static const uint16_t host[] = { 'H', 'O', 'S', 'T', 0 }, a[] = { 'a', 0 }, be[] = { 'b', 0xE9, 0 };
    const pl_block *b = &s->blocks[0];
    memset(p, 0, H_END);
    put_utf16(p, (const uint16_t[]){ 'P', 'E', 'R', 'F' }, 4);
    pl_w32(p + 8, 1);
    pl_w32(p + 12, 1);
    pl_w32(p + 16, 1);
    pl_w32(p + 20, H_END);
    pl_w32(p + 24, H_OBJ);
    pl_w32(p + 28, 1);
    pl_w32(p + 32, T_INDEX);
    pl_db_system_time(p + 36, s->time100ns);
    pl_w64(p + 56, (uint64_t)s->perf_time);
    pl_w64(p + 64, (uint64_t)s->perf_freq);
    pl_w64(p + 72, (uint64_t)s->time100ns);
    pl_w32(p + 80, 10);
    pl_w32(p + 84, 88);
    put_utf16(p + 88, host, 5);
    uint8_t *o = p + H_OBJ;
    pl_w32(o, H_END - H_OBJ);
    pl_w32(o + 4, 224);
    pl_w32(o + 8, 64);
    pl_w32(o + 12, T_INDEX);
    pl_w32(o + 20, T_INDEX + 1);
    pl_w32(o + 28, PERF_DETAIL_NOVICE);
    pl_w32(o + 32, 4);
    pl_w32(o + 40, 2);
    pl_w64(o + 48, (uint64_t)b->time);          /* no object clock: the result's read time */
    pl_w64(o + 56, (uint64_t)s->perf_freq);
    hand_def(p + H_DEFS, 0, PERF_COUNTER_BULK_COUNT, PERF_DETAIL_NOVICE, 0, 8, 8);
    hand_def(p + H_DEFS + 40, 1, PERF_RAW_FRACTION, PERF_DETAIL_ADVANCED, 0, 8, 16);
    hand_def(p + H_DEFS + 80, 2, PERF_RAW_BASE, PERF_DETAIL_ADVANCED, 0, 8, 24);
    hand_def(p + H_DEFS + 120, 3, PERF_COUNTER_RAWCOUNT, PERF_DETAIL_EXPERT, -1, 4, 32);
    hand_instance(p + H_INST0, 7, a, 2, 0);
    hand_instance(p + H_INST1, 9, be, 3, 1);
}

static void t_writer_matches_hand_layout(void)
{
    pl_env *env = test_env();
    pl_sample *s = collect_path(env, "\\V1Test(*)\\*");
    uint8_t hand[H_END];
    size_t n;
    hand_block(hand, s);
    uint8_t *w = write_v1(s, "HOST", 0, &n);
    /* the writer adds perflib's extension at the object's end: 2 keys (16), 6 presence flags
     * (8 with padding), the tail (24) */
    CHECK_EQ_U64(n, H_END + 48);
    CHECK_EQ_U64(pl_r32(w + 20), H_END + 48);
    CHECK_EQ_U64(pl_r32(w + H_OBJ), H_END + 48 - H_OBJ);
    CHECK(memcmp(w, hand, 20) == 0);
    CHECK(memcmp(w + 24, hand + 24, H_OBJ - 24) == 0);
    CHECK(memcmp(w + H_OBJ + 4, hand + H_OBJ + 4, H_END - H_OBJ - 4) == 0);
    for (size_t k = 0; k < H_END; k++)
        if (k != 20 && k != 21 && k != H_OBJ && k != H_OBJ + 1 && w[k] != hand[k]) {
            fprintf(stderr, "  first difference at byte %zu: %u, hand %u\n", k, w[k], hand[k]);
            break;
        }
    CHECK_EQ_U64(pl_r32(w + n - 4), PL_V1_EXT);
    CHECK_EQ_U64(pl_r32(w + n - 8), 48);
    CHECK_EQ_U64(pl_r32(w + n - 24), 6);        /* values: 2 instances x 3 result counters */
    CHECK_EQ_U64(pl_r32(w + n - 20), 2);        /* instances */
    CHECK_EQ_U64(pl_r64(w + n - 16), (uint64_t)s->blocks[0].time);
    CHECK(pl_v1_validate(w, n, NULL) == 0);
    free(w);
    free(s);
    pl_env_unref(env);
}

static void t_reads_hand_block(void)
{
    pl_env *env = test_env();
    pl_sample *s = collect_path(env, "\\V1Test(*)\\*"), *r = NULL;
    uint8_t hand[H_END];
    pl_db_error err = { 0, NULL };
    hand_block(hand, s);
    CHECK(pl_v1_validate(hand, sizeof hand, &err) == 0);
    CHECK(pl_v1_read(env, hand, sizeof hand, NULL, NULL, &r, &err) == 0 && r);
    if (r) {
        const pl_block *b = &r->blocks[0];
        double v;
        CHECK(r->foreign);
        CHECK_EQ_U64(r->nblocks, 1);
        CHECK(b->cs == &t_set);
        CHECK_EQ_U64(b->ncounters, 3);             /* the base went with its fraction */
        CHECK_EQ_U64(b->ninst, 2);
        CHECK_STR(pl_sample_inst_name(r, b, 1), "b\xc3\xa9");
        CHECK_EQ_U64(pl_sample_inst_id(r, b, 0), 7);
        CHECK(pl_sample_format(r, b, 1, 1, NULL, NULL, &v) == PL_VALID);
        CHECK_NEAR(v, 100.0 * 31 / 120, 1e-9);
        CHECK(pl_sample_format(r, b, 1, 2, NULL, NULL, &v) == PL_VALID);
        CHECK_NEAR(v, 0.6, 1e-12);                 /* 6 x 10^-1 */
        CHECK_EQ_U64(r->vals[b->vals_off].v, 1000);
        CHECK_EQ_U64(b->time, s->perf_time);       /* no extension: the block's clock */
    }
    free(r);
    free(s);
    pl_env_unref(env);
}

/* ---- round trips of real samples ---------------------------------------- */

static pl_sample *through_v1(pl_env *env, const pl_sample *s)
{
    size_t n;
    uint8_t *buf = write_v1(s, "fixture", 0, &n);
    pl_sample *r = NULL;
    pl_db_error err = { 0, NULL };
    int e = pl_v1_read(env, buf, n, NULL, NULL, &r, &err);
    if (e)
        fprintf(stderr, "  read: %s at %zu\n", err.rule, err.offset);
    CHECK(e == 0 && r);
    free(buf);
    return r;
}

/* Block b of s against s0 formats exactly as rb of r against r0. */
static size_t same_values(const pl_sample *s, const pl_block *b, const pl_sample *s0, const pl_sample *r,
                          const pl_block *rb, const pl_sample *r0)
{
    size_t n = (size_t)b->ninst * b->ncounters, bad = 0;
    double *v1 = calloc(n + 1, sizeof *v1), *v2 = calloc(n + 1, sizeof *v2);
    uint8_t *st1 = calloc(n + 1, 1), *st2 = calloc(n + 1, 1);
    CHECK(rb->cs == b->cs && rb->ncounters == b->ncounters && rb->ninst == b->ninst);
    if (rb->ninst == b->ninst && rb->ncounters == b->ncounters) {
        pl_sample_format_block(s, b, s0, NULL, v1, st1);
        pl_sample_format_block(r, rb, r0, NULL, v2, st2);
        for (size_t k = 0; k < n; k++)
            if (st1[k] != st2[k] || memcmp(&v1[k], &v2[k], sizeof v1[k]) != 0) {
                if (!bad++)
                    fprintf(stderr, "  %s value %zu: %g (%d), through V1 %g (%d)\n", b->cs->name, k, v1[k],
                            st1[k], v2[k], st2[k]);
            }
    }
    free(v1);
    free(v2);
    free(st1);
    free(st2);
    return bad;
}

static void t_round_trip_fixture_global(void)
{
    pl_env *env = pl_env_new(FIX);
    pl_query *q = pl_query_new(env);
    pl_registry_sel sel;
    uint32_t first, count, types[64], ntypes = 0, nvalid = 0;
    CHECK(pl_registry_parse(env, "Global", &sel) == 0);
    CHECK(pl_query_add_sets(q, &sel, &first, &count) == 0);
    pl_sample *s0 = NULL, *s1 = NULL;
    CHECK(pl_query_collect(q, &s0) == 0 && pl_query_collect(q, &s1) == 0);
    pl_sample *r0 = through_v1(env, s0), *r1 = through_v1(env, s1);
    uint32_t k2 = 0;
    for (uint32_t k = 0; r1 && k < s1->nblocks; k++) {
        const pl_block *b = &s1->blocks[k];
        if (b->shape == PERF_ERROR_RETURN)
            continue;                              /* no object, as Windows has it */
        CHECK(k2 < r1->nblocks);
        if (k2 >= r1->nblocks)
            break;
        const pl_block *rb = &r1->blocks[k2++];
        CHECK_EQ_U64(same_values(s1, b, s0, r1, rb, r0), 0);
        CHECK_EQ_U64(same_values(s1, b, NULL, r1, rb, NULL), 0);
        for (uint32_t c = 0; c < b->ncounters; c++) {
            uint32_t t = pl_sample_counter(s1, b, c)->type, j;
            for (j = 0; j < ntypes && types[j] != t; j++)
                ;
            if (j == ntypes && ntypes < 64)
                types[ntypes++] = t;
        }
        nvalid += (uint32_t)b->ninst;
    }
    CHECK(r1 && k2 == r1->nblocks);
    CHECK(ntypes >= 10);                           /* rates, timers, fractions, bases, elapsed... */
    CHECK(nvalid > 0);
    printf("  round trip: %u objects, %u counter types\n", k2, ntypes);
    free(r0);
    free(r1);
    free(s0);
    free(s1);
    pl_query_free(q);
    pl_env_unref(env);
}

/* "Keyed": one instance whose name changes between samples, its key (like a
 * process's start time) the same: the same instance, as a process that
 * execs is. */
static const char *keyed_name = "old";
static uint64_t keyed_ops;
static const pl_counter_def k_counters[] = {
    { 0, "Ops/sec", "", PERF_COUNTER_BULK_COUNT, PL_NO_ID, PERF_DETAIL_NOVICE, 0, 8, 0, 0, 0 },
};
static int k_instances(void *state, pl_snapshot *snap)
{
    (void)state;
    pl_snap_clear(snap);
    return pl_snap_add_key(snap, keyed_name, 3, 77) < 0 ? ENOMEM : 0;
}
static int k_collect(void *state, const uint8_t *wanted, pl_snapshot *snap)
{
    (void)wanted;
    int e = k_instances(state, snap);
    if (!e)
        pl_snap_set(snap, 0, 0, keyed_ops);
    return e;
}
static const pl_provider_ops k_ops = { t_open, t_close, k_instances, k_collect, NULL, NULL };
static const pl_counterset_def k_set = {
    { 0x5a5a0102, 0x1111, 0x2222, { 1, 2, 3, 4, 5, 6, 7, 8 } }, "Keyed", "Test set.",
    PERF_COUNTERSET_MULTI_INSTANCES, 0, 1, k_counters, &k_ops, T_INDEX + 1000, NULL,
};

static void t_instance_keys_travel(void)
{
    pl_env *env = test_env();
    CHECK(pl_env_register(env, &k_set) == 0);
    pl_query *q = pl_query_new(env);
    pl_add_status st;
    uint32_t idx;
    pl_sample *s0 = NULL, *s1 = NULL;
    double v, rv;
    CHECK(pl_query_add_path(q, "\\Keyed(*)\\*", &st, &idx) == 0 && st == 0);
    keyed_name = "old";
    keyed_ops = 100;
    CHECK(pl_query_collect(q, &s0) == 0);
    keyed_name = "new";
    keyed_ops = 300;
    CHECK(pl_query_collect(q, &s1) == 0);
    pl_sample *r0 = through_v1(env, s0), *r1 = through_v1(env, s1);
    CHECK(pl_sample_format(s1, &s1->blocks[0], 0, 0, s0, NULL, &v) == PL_VALID);
    CHECK(r0 && r1);
    if (r0 && r1) {
        CHECK_EQ_U64(pl_sample_inst_key(r1, &r1->blocks[0], 0), 77);
        CHECK_EQ_U64(pl_sample_format(r1, &r1->blocks[0], 0, 0, r0, NULL, &rv), PL_VALID);
        CHECK(memcmp(&v, &rv, sizeof v) == 0);
    }
    free(r0);
    free(r1);
    free(s0);
    free(s1);
    pl_query_free(q);
    pl_env_unref(env);
}

/* ---- bad blocks ---------------------------------------------------------- */

typedef struct bad_case {
    size_t at, width;                    /* the field to overwrite, 4 or 2 bytes */
    uint32_t value;
    size_t offset;                       /* the error's offset */
    const char *rule;                    /* a part of its rule */
} bad_case;

static const bad_case bad_cases[] = {
    { 0, 2, 'Q', 0, "Signature" },
    { 8, 4, 0x01000000, 8, "LittleEndian" },
    { 20, 4, H_END + 8, 20, "larger than the buffer" },                 /* lying size */
    { 20, 4, H_END - 4, 20, "multiple of 8" },                          /* odd alignment */
    { 24, 4, 90, 24, "HeaderLength" },
    { 28, 4, 100, 28, "NumObjectTypes" },
    { 80, 4, 11, 80, "system name" },
    { H_OBJ, 4, H_END - H_OBJ - 4, H_OBJ, "PERF_OBJECT_TYPE TotalByteLength" },
    { H_OBJ, 4, H_END - H_OBJ + 8, H_OBJ, "PERF_OBJECT_TYPE TotalByteLength" },
    { H_OBJ + 4, 4, 232, H_INST0, "DefinitionLength does not end" },
    { H_OBJ + 32, 4, 5, H_OBJ + 32, "NumCounters" },
    { H_OBJ + 40, 4, (uint32_t)-5, H_OBJ + 40, "NumInstances" },
    { H_OBJ + 40, 4, 3, H_END, "PERF_INSTANCE_DEFINITION does not fit" },
    { H_DEFS, 4, 8, H_DEFS, "PERF_COUNTER_DEFINITION ByteLength" },
    { H_DEFS + 120 + 36, 4, 40, H_DEFS + 120 + 36, "CounterOffset + CounterSize past" },
    { H_DEFS + 36, 4, 0xFFFFFFF8u, H_DEFS + 36, "CounterOffset + CounterSize past" },
    { H_INST0, 4, 36, H_INST0, "PERF_INSTANCE_DEFINITION ByteLength" },
    { H_INST0, 4, 4096, H_INST0, "PERF_INSTANCE_DEFINITION ByteLength" },
    { H_INST0 + 16, 4, 30, H_INST0 + 16, "instance name outside" },
    { H_INST0 + 20, 4, 3, H_INST0 + 16, "odd length" },
    { H_INST0 + 26, 2, 'x', H_INST0 + 24, "not terminated" },           /* unterminated name */
    { H_INST0 + 24, 2, 0xD800, H_INST0 + 24, "UTF-16" },
    { H_INST0 + 32, 4, 1000, H_INST0 + 32, "PERF_COUNTER_BLOCK ByteLength" },
    { H_INST0 + 32, 4, 36, H_INST0 + 32, "PERF_COUNTER_BLOCK ByteLength" },
};

static void t_bad_blocks(void)
{
    pl_env *env = test_env();
    pl_sample *s = collect_path(env, "\\V1Test(*)\\*"), *r = NULL;
    uint8_t hand[H_END];
    hand_block(hand, s);
    for (size_t k = 0; k < sizeof bad_cases / sizeof bad_cases[0]; k++) {
        const bad_case *c = &bad_cases[k];
        uint8_t *b = malloc(H_END);        /* exactly its size: ASan sees a read past it */
        pl_db_error err = { 0, NULL };
        memcpy(b, hand, H_END);
        if (c->width == 2)
            pl_w16(b + c->at, (uint16_t)c->value);
        else
            pl_w32(b + c->at, c->value);
        CHECK(pl_v1_validate(b, H_END, &err) == EINVAL);
        if (err.offset != c->offset || !err.rule || !strstr(err.rule, c->rule))
            fprintf(stderr, "  case %zu: %s at %zu, expected \"%s\" at %zu\n", k, err.rule ? err.rule : "-",
                    err.offset, c->rule, c->offset);
        CHECK_EQ_U64(err.offset, c->offset);
        CHECK(err.rule && strstr(err.rule, c->rule));
        err.rule = NULL;
        CHECK(pl_v1_read(env, b, H_END, NULL, NULL, &r, &err) == EINVAL && !r && err.rule);
        free(b);
    }
    free(s);
    pl_env_unref(env);
}

/* Every truncation and every byte flipped: an answer each time, never a read out of bounds. */
static void t_truncated_and_flipped(void)
{
    pl_env *env = test_env();
    pl_sample *s = collect_path(env, "\\V1Test(*)\\*"), *r;
    size_t n, ok = 0;
    uint8_t *w = write_v1(s, "HOST", 0, &n);
    for (size_t len = 0; len < n; len++) {
        uint8_t *b = malloc(len ? len : 1);
        memcpy(b, w, len);
        CHECK(pl_v1_validate(b, len, NULL) == EINVAL);
        free(b);
    }
    for (size_t k = 0; k < n; k++) {
        uint8_t *b = malloc(n);
        memcpy(b, w, n);
        b[k] ^= 0xA5;
        r = NULL;
        int v = pl_v1_validate(b, n, NULL), e = pl_v1_read(env, b, n, NULL, NULL, &r, NULL);
        CHECK(v == 0 || v == EINVAL);
        CHECK(e == 0 || e == EINVAL);
        CHECK(v == 0 || e == EINVAL);
        ok += e == 0;
        free(r);
        free(b);
    }
    CHECK(ok > 0);                              /* flipped values still read */
    free(w);
    free(s);
    pl_env_unref(env);
}

static void t_unknown_objects(void)
{
    pl_env *env = test_env();
    pl_sample *s = collect_path(env, "\\V1Test(*)\\*"), *r = NULL;
    uint8_t hand[H_END];
    pl_db_error err = { 0, NULL };
    hand_block(hand, s);
    pl_w32(hand + H_OBJ + 12, 123456);          /* another machine's object */
    CHECK(pl_v1_validate(hand, H_END, &err) == 0);
    CHECK(pl_v1_read(env, hand, H_END, NULL, NULL, &r, &err) == EINVAL && !r);
    CHECK_EQ_U64(err.offset, H_OBJ + 12);
    CHECK_STR(err.rule, "ObjectNameTitleIndex names no registered counterset");
    hand_block(hand, s);
    pl_w32(hand + H_DEFS + 4, T_INDEX + 2 + 2 * 400);
    CHECK(pl_v1_validate(hand, H_END, &err) == 0);
    CHECK(pl_v1_read(env, hand, H_END, NULL, NULL, &r, &err) == EINVAL && !r);
    CHECK_EQ_U64(err.offset, H_DEFS + 4);
    free(s);
    pl_env_unref(env);
}

/* A name of 1100 units with its NUL: longer than PERF_MAX_INSTANCE_NAME. */
static void t_overlong_name(void)
{
    size_t nb = 2 * 1101, il = (24 + nb + 7) & ~(size_t)7, total = 88 + 64 + 40 + il + 16;
    uint8_t *p = calloc(1, total);
    pl_db_error err = { 0, NULL };
    memcpy(p, "P\0E\0R\0F\0", 8);
    pl_w32(p + 8, 1);
    pl_w32(p + 12, 1);
    pl_w32(p + 20, (uint32_t)total);
    pl_w32(p + 24, 88);
    pl_w32(p + 28, 1);
    uint8_t *o = p + 88;
    pl_w32(o, (uint32_t)(total - 88));
    pl_w32(o + 4, 104);
    pl_w32(o + 8, 64);
    pl_w32(o + 32, 1);
    pl_w32(o + 40, 1);
    hand_def(o + 64, 3, PERF_COUNTER_RAWCOUNT, PERF_DETAIL_NOVICE, 0, 4, 8);
    uint8_t *i = o + 104;
    pl_w32(i, (uint32_t)il);
    pl_w32(i + 16, 24);
    pl_w32(i + 20, (uint32_t)nb);
    for (size_t k = 0; k < 1100; k++)
        pl_w16(i + 24 + 2 * k, 'x');
    pl_w32(i + il, 16);
    CHECK(pl_v1_validate(p, total, &err) == EINVAL);
    CHECK_EQ_U64(err.offset, 88 + 104 + 24);
    CHECK_STR(err.rule, "instance name longer than PERF_MAX_INSTANCE_NAME");
    pl_w16(i + 24 + 2 * 1000, 0);               /* 1000 units: fits */
    CHECK(pl_v1_validate(p, total, &err) == 0);
    free(p);
}

/* A short buffer: the size it needs, and not a byte written past it. */
static void t_short_buffer(void)
{
    pl_env *env = test_env();
    pl_sample *s = collect_path(env, "\\V1Test(*)\\*");
    size_t n = pl_v1_write(s, "HOST", 0, NULL, 0);
    static const size_t caps[] = { 0, 1, 50, 88, 104, 200, 400 };
    for (size_t k = 0; k < sizeof caps / sizeof caps[0]; k++) {
        uint8_t *b = malloc(n + 64);
        memset(b, 0xAB, n + 64);
        CHECK_EQ_U64(pl_v1_write(s, "HOST", 0, b, caps[k]), n);
        size_t j;
        for (j = caps[k]; j < n + 64 && b[j] == 0xAB; j++)
            ;
        CHECK_EQ_U64(j, n + 64);
        free(b);
    }
    free(s);
    pl_env_unref(env);
}

static void t_metadata(void)
{
    pl_env *env = test_env();
    pl_sample *s = collect_path(env, "\\V1Test(*)\\*"), *r = NULL;
    pl_db_error err = { 0, NULL };
    size_t n;
    uint8_t *w = write_v1(s, "HOST", PL_V1_METADATA, &n);
    CHECK_EQ_U64(n, H_INST0);                   /* definitions only */
    CHECK_EQ_U64((int32_t)pl_r32(w + H_OBJ + 40), PERF_METADATA_MULTIPLE_INSTANCES);
    CHECK_EQ_U64(pl_r32(w + H_OBJ), 224);
    CHECK(pl_v1_validate(w, n, &err) == 0);
    CHECK(pl_v1_read(env, w, n, NULL, NULL, &r, &err) == EINVAL && !r);
    CHECK_EQ_U64(err.offset, H_OBJ + 40);
    free(w);
    free(s);
    pl_env_unref(env);
    env = pl_env_new(FIX);
    s = collect_path(env, "\\Memory\\*");
    w = write_v1(s, NULL, PL_V1_METADATA, &n);
    CHECK_EQ_U64((int32_t)pl_r32(w + 88 + 40), PERF_METADATA_NO_INSTANCES);
    CHECK_EQ_U64(pl_r32(w + 24), 88);           /* no system name */
    CHECK(pl_v1_validate(w, n, NULL) == 0);
    free(w);
    free(s);
    pl_env_unref(env);
}

/* ---- parent references -------------------------------------------------- */

/* One sample of every path in paths (NULL-ended), in that order. */
static pl_sample *collect_paths(pl_env *env, const char *const *paths)
{
    pl_query *q = pl_query_new(env);
    pl_add_status st;
    uint32_t idx;
    pl_sample *s = NULL;
    for (; *paths; paths++)
        CHECK(pl_query_add_path(q, *paths, &st, &idx) == 0 && st == 0);
    CHECK(pl_query_collect(q, &s) == 0 && s);
    pl_query_free(q);
    return s;
}

/* The ParentObjectTitleIndex / ParentObjectInstance pairs of the object
 * with this title index, read off the bytes by winperf.h's offsets. */
static uint32_t parents_of(const uint8_t *w, uint32_t title, uint32_t *pt, uint32_t *pi, uint32_t cap)
{
    size_t o = pl_r32(w + 24);
    for (uint32_t k = 0; k < pl_r32(w + 28); k++, o += pl_r32(w + o)) {
        int32_t ninst = (int32_t)pl_r32(w + o + 40);
        if (pl_r32(w + o + 12) != title || ninst < 0)
            continue;
        size_t i = o + pl_r32(w + o + 4);
        for (int32_t j = 0; j < ninst && (uint32_t)j < cap; j++) {
            pt[j] = pl_r32(w + i + 4);
            pi[j] = pl_r32(w + i + 8);
            i += pl_r32(w + i);
            i += pl_r32(w + i);                /* its PERF_COUNTER_BLOCK */
        }
        return (uint32_t)ninst;
    }
    return 0;
}

/* proc-basic: Process instances in order process_api (pid 1) 0, kthreadd (2)
 * 1, bash (1162) 2, "we ird) (x" (20259) 3, cat (25423) 4, bash#1 (30473) 5,
 * _Total#1 6, trunc 7, _Total 8 (test_process.c); threads process_api/1,
 * /45, /46 (pid 1), kthreadd/2, bash/1162, cat/25423, bashthr/30480 (pid
 * 30473), so parents 0 0 0 1 2 4 5 of Process (title index 14000). */
static void t_thread_parents(void)
{
    static const uint32_t want[] = { 0, 0, 0, 1, 2, 4, 5 };
    static const char *const both[] = { "\\Thread(*)\\*", "\\Process(*)\\*", NULL };
    static const char *const alone[] = { "\\Thread(*)\\*", NULL };
    static const char *const no_pid[] = { "\\Process(*)\\*", "\\Thread(*)\\% Processor Time", NULL };
    const char *const *cases[] = { both, alone, no_pid };
    pl_env *env = pl_env_new("spec/fixtures/proc-basic");
    CHECK(env != NULL);
    for (int c = 0; c < 3; c++) {
        pl_sample *s = collect_paths(env, cases[c]);
        size_t n;
        uint8_t *w = write_v1(s, NULL, 0, &n);
        uint32_t pt[16] = { 0 }, pi[16] = { 0 };
        CHECK_EQ_U64(parents_of(w, 15000, pt, pi, 16), 7);
        for (int j = 0; j < 7; j++) {
            /* without Process in the block, or without the thread's pid: 0 0 */
            CHECK_EQ_U64(pt[j], c == 0 ? 14000 : 0);
            CHECK_EQ_U64(pi[j], c == 0 ? want[j] : 0);
        }
        CHECK_EQ_U64(parents_of(w, 14000, pt, pi, 16), c == 1 ? 0 : 9);
        CHECK(c == 1 || (pt[0] == 0 && pi[8] == 0));    /* Process has no parent */
        pl_sample *r = NULL;
        CHECK(pl_v1_read(env, w, n, NULL, NULL, &r, NULL) == 0 && r);   /* read as before */
        CHECK(r && r->nblocks == s->nblocks && r->blocks[c == 2].ninst == 7);
        free(r);
        free(w);
        free(s);
    }
    pl_env_unref(env);
}

/* The metadata form from the definitions alone: the bytes of the metadata
 * form of a collected sample but for the times (the data block's 36..80,
 * each object's PerfTime/PerfFreq at 48..64), and no provider runs. */
static int m_runs;
static int m_open(pl_env *env, void **state)
{
    m_runs++;
    return t_open(env, state);
}
static int m_collect(void *state, const uint8_t *wanted, pl_snapshot *snap)
{
    m_runs++;
    return t_collect(state, wanted, snap);
}
static const pl_provider_ops m_ops = { m_open, t_close, t_instances, m_collect, NULL, NULL };
static const pl_counterset_def m_set = {
    { 0x5a5a0303, 0x1111, 0x2222, { 1, 2, 3, 4, 5, 6, 7, 9 } }, "V1Counted", "Test set.",
    PERF_COUNTERSET_MULTI_INSTANCES, 0, 4, t_counters, &m_ops, T_INDEX + 2000, NULL,
};

static void zero_times(uint8_t *w)
{
    memset(w + 36, 0, 80 - 36);
    size_t o = pl_r32(w + 24);
    for (uint32_t k = 0; k < pl_r32(w + 28); k++, o += pl_r32(w + o))
        memset(w + o + 48, 0, 16);
}

static void t_metadata_without_collect(void)
{
    static const char *const paths[] = { "\\V1Counted(*)\\*", "\\Memory\\*", "\\Process(*)\\*",
                                         "\\V1Counted(a)\\Level", NULL };
    pl_env *env = pl_env_new(FIX);
    CHECK(env && pl_env_register(env, &m_set) == 0);
    pl_query *q = pl_query_new(env);
    pl_add_status st;
    uint32_t idx;
    for (const char *const *p = paths; *p; p++)
        CHECK(pl_query_add_path(q, *p, &st, &idx) == 0 && st == 0);
    size_t n = pl_v1_write_metadata(q, "HOST", NULL, 0);
    uint8_t *m = malloc(n);
    CHECK(m && pl_v1_write_metadata(q, "HOST", m, n) == n);
    CHECK_EQ_U64(m_runs, 0);                       /* nothing opened, nothing collected */
    CHECK(pl_v1_validate(m, n, NULL) == 0);
    CHECK_EQ_U64(pl_r32(m + 28), 4);
    pl_sample *s = NULL;
    CHECK(pl_query_collect(q, &s) == 0 && s);
    CHECK_EQ_U64(m_runs, 2);
    size_t n2;
    uint8_t *w = write_v1(s, "HOST", PL_V1_METADATA, &n2);
    CHECK_EQ_U64(n2, n);
    if (n2 == n) {
        zero_times(m);
        zero_times(w);
        CHECK(memcmp(m, w, n) == 0);
    }
    /* a short buffer: the size, nothing past cap written */
    uint8_t small[100];
    memset(small, 0xAB, sizeof small);
    CHECK_EQ_U64(pl_v1_write_metadata(q, "HOST", small, 90), n);
    CHECK(small[90] == 0xAB && small[99] == 0xAB);
    free(w);
    free(m);
    free(s);
    pl_query_free(q);
    pl_env_unref(env);
}

int main(void)
{
    RUN(t_writer_matches_hand_layout);
    RUN(t_reads_hand_block);
    RUN(t_round_trip_fixture_global);
    RUN(t_instance_keys_travel);
    RUN(t_bad_blocks);
    RUN(t_truncated_and_flipped);
    RUN(t_unknown_objects);
    RUN(t_overlong_name);
    RUN(t_short_buffer);
    RUN(t_metadata);
    RUN(t_thread_parents);
    RUN(t_metadata_without_collect);
    return CT_END();
}
