/* Application segments are untrusted (issue 12, item 3): truncated,
 * garbage, lying and other-writable segments are refused with a sentence
 * and a good provider beside them still loads; a segment that shrinks under
 * the reader fails its counterset instead of faulting; two providers with
 * one GUID or one name: the first keeps it; changing records are left out;
 * random damage never makes the reader crash or read out of bounds (run
 * under ASan by make test). */
#include "ctest.h"
#include "appseg_helpers.h"

#include <fcntl.h>
#include <pthread.h>
#include <stddef.h>
#include <sys/stat.h>
#include <time.h>

static uint8_t *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf = malloc(1 << 20);
    *len = f && buf ? fread(buf, 1, 1 << 20, f) : 0;
    if (f)
        fclose(f);
    return buf;
}

static void put(const char *name, const void *buf, size_t len, mode_t mode)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", seg_dir_path, name);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    CHECK(fd >= 0 && write(fd, buf, len) == (ssize_t)len);
    if (fd >= 0) {
        fchmod(fd, mode);
        close(fd);
    }
}

/* The first set record of a segment, and its definition. */
static appseg_set *first_set(uint8_t *buf) { return (appseg_set *)(void *)(buf + APPSEG_HDR_SIZE); }

static void test_bad_segments_refused(void)
{
    HANDLE h = start_set(0xb0000001, "Trust Model", PERF_COUNTERSET_MULTI_INSTANCES);
    GUID g = set_guid(0xb0000001);
    size_t len;
    CHECK(h && PerfCreateInstanceUtf8(h, &g, "one", 1));
    uint8_t *good = slurp(PerfProviderSegmentPath(h), &len), *bad = malloc(len);
    CHECK(len > APPSEG_HDR_SIZE + sizeof(appseg_set));
    put("trunc.seg", good, 200, 0644);                       /* header says more than is there */
    for (size_t i = 0; i < len; i++)
        bad[i] = (uint8_t)(i * 7919u >> 3);
    put("garbage.seg", bad, len, 0644);
    memcpy(bad, good, len);
    first_set(bad)->guid.d1 = 0xb00000aa;
    snprintf(first_set(bad)->name, sizeof first_set(bad)->name, "Other Writable");
    put("openw.seg", bad, len, 0666);                         /* anyone could have written it */
    first_set(bad)->ncounters = 9999;
    put("liar.seg", bad, len, 0644);
    first_set(bad)->ncounters = 3;
    ((appseg_counter *)(first_set(bad) + 1))[2].offset = 4096;  /* beyond its counter area */
    put("offset.seg", bad, len, 0644);
    ((appseg_counter *)(first_set(bad) + 1))[2].offset = 16;
    ((appseg_hdr *)(void *)bad)->start_time += 1;            /* our pid, another process's start */
    put("reused.seg", bad, len, 0644);
    HANDLE h2 = start_set(0xb0000002, "Good After Bad", PERF_COUNTERSET_SINGLE_INSTANCE);
    GUID g2 = set_guid(0xb0000002);
    PPERF_COUNTERSET_INSTANCE i2 = h2 ? PerfCreateInstanceUtf8(h2, &g2, "_Default", 0) : NULL;
    CHECK(i2 && PerfSetULongLongCounterValue(h2, i2, 3, 42) == 0);

    pl_env *env = pl_env_new(NULL);
    CHECK(refused("200 were read"));                        /* trunc.seg: its header says more */
    CHECK(refused("not a perflib segment"));
    CHECK(refused("openw.seg refused: not a regular file owned"));
    CHECK(refused("9999 counters"));
    CHECK(refused("at offset 4096 of 24"));
    CHECK(pl_env_find(env, "Other Writable") == NULL);      /* refused, or dead (reused.seg) */
    CHECK(pl_env_find(env, "Trust Model") != NULL);
    pl_query *q = query_path(env, "\\Good After Bad\\Total");
    pl_sample *s = NULL;
    CHECK(q && pl_query_collect(q, &s) == 0);
    CHECK(s && s->blocks[0].status == PL_VALID && s->blocks[0].ninst == 1);
    CHECK(s && s->vals[s->blocks[0].vals_off].v == 42);
    free(s);
    pl_query_free(q);
    pl_env_unref(env);
    free(good);
    free(bad);
    PerfStopProvider(h);
    PerfStopProvider(h2);
}

/* A file segment (PERFLIB_APPSEG_FILE) shrinks under the reader: a status
 * with a sentence, no SIGBUS. */
static void test_shrinks_under_reader(void)
{
    setenv("PERFLIB_APPSEG_FILE", "1", 1);
    HANDLE h = start_set(0xb0000003, "Shrinking", PERF_COUNTERSET_MULTI_INSTANCES);
    unsetenv("PERFLIB_APPSEG_FILE");
    GUID g = set_guid(0xb0000003);
    pl_sample *s = NULL;
    CHECK(h && PerfCreateInstanceUtf8(h, &g, "a", 1));
    pl_env *env = pl_env_new(NULL);
    pl_query *q = query_path(env, "\\Shrinking(*)\\Active");
    CHECK(q && pl_query_collect(q, &s) == 0);
    CHECK(s && s->blocks[0].status == PL_VALID && s->blocks[0].ninst == 1);
    free(s);
    s = NULL;
    /* from here on the provider must not touch its mapping (its pages are gone) */
    CHECK(truncate(PerfProviderSegmentPath(h), 100) == 0);
    CHECK(q && pl_query_collect(q, &s) == 0);
    CHECK(s && s->blocks[0].status == PL_NO_DATA && s->blocks[0].ninst == 0);
    CHECK(s && s->blocks[0].err_msg && strstr(s->blocks[0].err_msg, "shorter than its header"));
    free(s);
    s = NULL;
    CHECK(truncate(PerfProviderSegmentPath(h), 700) == 0);     /* the header, half a set record */
    CHECK(q && pl_query_collect(q, &s) == 0);
    CHECK(s && s->blocks[0].status == PL_NO_DATA);
    CHECK(s && s->blocks[0].err_msg && strstr(s->blocks[0].err_msg, "were read"));
    free(s);
    pl_query_free(q);
    pl_env_unref(env);
    PerfStopProvider(h);
}

/* A memfd segment (the default) is sealed: it cannot shrink, so the reader
 * maps it; its directory entry may only be a link to /proc/<pid>/fd/<n>. */
static void test_memfd_sealed(void)
{
    HANDLE h = start_set(0xb0000008, "Sealed", PERF_COUNTERSET_MULTI_INSTANCES);
    GUID g = set_guid(0xb0000008);
    PPERF_COUNTERSET_INSTANCE in = h ? PerfCreateInstanceUtf8(h, &g, "a", 1) : NULL;
    pl_sample *s = NULL;
    char target[256];
    CHECK(in && PerfSetULongLongCounterValue(h, in, 3, 7) == 0);
    ssize_t k = h ? readlink(PerfProviderSegmentPath(h), target, sizeof target - 1) : -1;
    CHECK(k > 0 && strncmp(target, "/proc/", 6) == 0);
    errno = 0;
    CHECK(truncate(PerfProviderSegmentPath(h), 100) == -1 && errno == EPERM);
    pl_env *env = pl_env_new(NULL);
    pl_query *q = query_path(env, "\\Sealed(*)\\Total");
    CHECK(q && pl_query_collect(q, &s) == 0);
    CHECK(s && s->blocks[0].status == PL_VALID && s->blocks[0].ninst == 1 && s->vals[s->blocks[0].vals_off].v == 7);
    free(s);
    s = NULL;
    CHECK(PerfSetULongLongCounterValue(h, in, 3, 9) == 0);       /* read in place: the next collect sees it */
    CHECK(q && pl_query_collect(q, &s) == 0);
    CHECK(s && s->blocks[0].ninst == 1 && s->vals[s->blocks[0].vals_off].v == 9);
    free(s);
    pl_query_free(q);
    /* a link anywhere else is refused, a good set beside it still loads */
    size_t len;
    uint8_t *good = slurp(PerfProviderSegmentPath(h), &len);
    char elsewhere[128], link[256];
    snprintf(elsewhere, sizeof elsewhere, "%s.elsewhere", seg_dir_path);
    first_set(good)->guid.d1 = 0xb00000ab;
    snprintf(first_set(good)->name, sizeof first_set(good)->name, "Linked Elsewhere");
    FILE *f = fopen(elsewhere, "wb");
    CHECK(f && fwrite(good, 1, len, f) == len);
    if (f)
        fclose(f);
    snprintf(link, sizeof link, "%s/link.seg", seg_dir_path);
    CHECK(symlink(elsewhere, link) == 0);
    pl_env_unref(env);
    env = pl_env_new(NULL);
    CHECK(refused("link.seg refused: a symbolic link, and not to a provider's memfd"));
    CHECK(pl_env_find(env, "Linked Elsewhere") == NULL);
    CHECK(pl_env_find(env, "Sealed") != NULL);
    pl_env_unref(env);
    unlink(link);
    unlink(elsewhere);
    free(good);
    PerfStopProvider(h);
}

/* A mapped segment whose header claims more bytes in use than the memfd
 * has: the reader maps again, finds no more, and fails the set with a
 * sentence instead of reading past its mapping. */
static void test_memfd_lies_about_size(void)
{
    HANDLE h = start_set(0xb000000d, "Size Liar", PERF_COUNTERSET_MULTI_INSTANCES);
    GUID g = set_guid(0xb000000d);
    pl_sample *s = NULL;
    CHECK(h && PerfCreateInstanceUtf8(h, &g, "a", 1));
    pl_env *env = pl_env_new(NULL);
    pl_query *q = query_path(env, "\\Size Liar(*)\\Total");
    CHECK(q && pl_query_collect(q, &s) == 0 && s->blocks[0].status == PL_VALID);
    free(s);
    s = NULL;
    int fd = open(PerfProviderSegmentPath(h), O_RDWR);
    struct stat st;
    uint64_t lie = 0;
    CHECK(fd >= 0 && fstat(fd, &st) == 0);
    lie = (uint64_t)st.st_size + 4096;
    CHECK(pwrite(fd, &lie, sizeof lie, offsetof(appseg_hdr, size)) == (ssize_t)sizeof lie);
    CHECK(q && pl_query_collect(q, &s) == 0);
    CHECK(s && s->blocks[0].status == PL_NO_DATA && s->blocks[0].ninst == 0);
    CHECK(s && s->blocks[0].err_msg && strstr(s->blocks[0].err_msg, "says more bytes are in use than it has"));
    free(s);
    if (fd >= 0)
        close(fd);
    pl_query_free(q);
    pl_env_unref(env);
    PerfStopProvider(h);
}

/* Read in place while another thread creates, deletes and updates: every
 * instance read carries the values its own name says (i-<n> has Total n x 3
 * and Served n x 5), never another's from a record being reused.  Two runs:
 * the helpers' set (a 4-byte counter among them), and a set of 8-byte
 * counters in id order, which the reader copies whole per instance. */
static HANDLE start_contig(uint32_t d1, const char *name)
{
    struct {
        PERF_COUNTERSET_INFO info;
        PERF_COUNTER_INFO c[2];
    } t = { { set_guid(d1), { 0 }, 2, PERF_COUNTERSET_MULTI_INSTANCES },
            { { 1, PERF_COUNTER_LARGE_RAWCOUNT, 0, 8, PERF_DETAIL_NOVICE, 0, 0 },
              { 3, PERF_COUNTER_LARGE_RAWCOUNT, 0, 8, PERF_DETAIL_NOVICE, 0, 8 } } };
    static const char *const cn[] = { "Served", "Total" };
    PERFLIB_COUNTERSET_NAMES nm = { name, "contiguous", cn, NULL, NULL, NULL };
    return start_tmpl(d1, &t.info, sizeof t, &nm);
}

typedef struct churn_arg {
    HANDLE h;
    GUID g;
    int contig;
    unsigned slots, pause_us;        /* instances alive; a pause after each change once all are made */
    volatile int stop;
} churn_arg;

static void *churn(void *p)
{
    churn_arg *a = p;
    static PPERF_COUNTERSET_INSTANCE in[1000];
    char name[32];
    memset(in, 0, sizeof in);
    for (unsigned n = 0; !a->stop; n++) {
        unsigned k = n % a->slots;
        if (a->pause_us && n >= a->slots) {
            struct timespec ts = { 0, (long)a->pause_us * 1000 };
            nanosleep(&ts, NULL);
        }
        if (in[k])
            PerfDeleteInstance(a->h, in[k]);
        snprintf(name, sizeof name, "i-%u", n);
        in[k] = PerfCreateInstanceUtf8(a->h, &a->g, name, n);
        if (in[k]) {
            PerfSetULongLongCounterValue(a->h, in[k], 3, (ULONGLONG)n * 3);
            if (a->contig)
                PerfSetULongLongCounterValue(a->h, in[k], 1, (ULONGLONG)n * 5);
        }
    }
    return NULL;
}

static int churn_run(int contig, unsigned slots, unsigned pause_us)
{
    uint32_t d1 = 0xb0000009 + (uint32_t)contig + (pause_us ? 2 : 0);
    char name[32];
    snprintf(name, sizeof name, "Churn %x", (unsigned)d1);
    churn_arg a = { contig ? start_contig(d1, name) : start_set(d1, name, PERF_COUNTERSET_MULTI_INSTANCES),
                    set_guid(d1), contig, slots, pause_us, 0 };
    char path[64];
    snprintf(path, sizeof path, contig ? "\\%s(*)\\*" : "\\%s(*)\\Total", name);
    pthread_t t;
    pl_sample *s = NULL;
    int bad = 0, seen = 0;
    CHECK(a.h != NULL);
    pl_env *env = pl_env_new(NULL);
    pl_query *q = query_path(env, path);
    CHECK(q && pthread_create(&t, NULL, churn, &a) == 0);
    /* until enough instances were seen (the writer may start late on a
     * loaded machine), at least 5000 reads, at most 20 s */
    time_t end = time(NULL) + 20;
    for (int r = 0; q && (r < 5000 || seen <= 20000) && time(NULL) < end; r++) {
        if (pl_query_collect(q, &s) != 0)
            break;
        const pl_block *b = &s->blocks[0];
        for (uint32_t i = 0; i < b->ninst; i++) {
            unsigned n;
            size_t k = b->vals_off + (size_t)i * b->ncounters;
            if (!s->have[k])
                continue;
            seen++;
            if (sscanf(pl_sample_inst_name(s, b, i), "i-%u", &n) != 1 || s->inst[b->inst_off + i].id != n)
                bad++;
            for (uint32_t c = 0; c < b->ncounters; c++) {
                uint64_t v = s->vals[k + c].v, want = (uint64_t)n * (contig && c == 0 ? 5 : 3);
                bad += v != want && v != 0;  /* 0: created, its value not yet set */
            }
        }
        free(s);
        s = NULL;
    }
    a.stop = 1;
    if (q)
        pthread_join(t, NULL);
    CHECK(seen > 1000);
    pl_query_free(q);
    pl_env_unref(env);
    PerfStopProvider(a.h);
    return bad;
}

static void test_live_reads_under_churn(void)
{
    CHECK_EQ_U64(churn_run(0, 64, 0), 0);
    CHECK_EQ_U64(churn_run(1, 64, 0), 0);
    /* a change now and then among many instances: most reads reuse the walk,
     * and some changes fall in the middle of one (the generation check) */
    CHECK_EQ_U64(churn_run(1, 1000, 20), 0);
}

/* Two providers with one GUID: the first keeps it, the second is refused;
 * another GUID under a taken name is refused; a good one beside them loads. */
static void test_duplicates(void)
{
    HANDLE a = start_set(0xb0000004, "Dup Set", PERF_COUNTERSET_MULTI_INSTANCES);
    HANDLE b = start_set(0xb0000004, "Dup Set", PERF_COUNTERSET_MULTI_INSTANCES);
    GUID g = set_guid(0xb0000004);
    CHECK(a && b);
    CHECK(PerfCreateInstanceUtf8(a, &g, "from-a", 1) && PerfCreateInstanceUtf8(b, &g, "from-b", 2));
    pl_env *env = pl_env_new(NULL);
    CHECK(refused("counterset 'Dup Set' refused: pid "));
    pl_query *q = query_path(env, "\\Dup Set(*)\\Total");
    pl_sample *s = NULL;
    CHECK(q && pl_query_collect(q, &s) == 0);
    CHECK(s && s->blocks[0].status == PL_VALID && s->blocks[0].ninst == 1);   /* one provider's, not both */
    free(s);
    HANDLE c = start_set(0xb0000005, "Dup Set", PERF_COUNTERSET_MULTI_INSTANCES);
    HANDLE d = start_set(0xb0000006, "Dup Good", PERF_COUNTERSET_MULTI_INSTANCES);
    CHECK(c && d);
    pl_env_sync(env);
    CHECK(refused("counterset name 'Dup Set' is already registered"));
    CHECK(pl_env_find(env, "Dup Good") != NULL);
    CHECK(pl_guid_equal(&pl_env_find(env, "Dup Set")->guid, (const pl_guid *)(const void *)&g));
    pl_query_free(q);
    pl_env_unref(env);
    PerfStopProvider(a);
    PerfStopProvider(b);
    PerfStopProvider(c);
    PerfStopProvider(d);
}

/* Records being changed (odd seq, or head and tail unequal) are left out;
 * every damaged copy of a segment gives 0, ENOENT or EPROTO. */
static void test_records_checked(void)
{
    HANDLE h = start_set(0xb0000007, "Seq Set", PERF_COUNTERSET_MULTI_INSTANCES);
    GUID g = set_guid(0xb0000007);
    size_t len, used;
    pl_snapshot snap;
    char msg[256];
    CHECK(h && PerfCreateInstanceUtf8(h, &g, "x", 1) && PerfCreateInstanceUtf8(h, &g, "y", 2));
    uint8_t *buf = slurp(PerfProviderSegmentPath(h), &len), *copy = malloc(len);
    CHECK(pl_appseg_check_header(buf, len, &used, msg, sizeof msg) == 0);
    pl_appseg_def *d = pl_appseg_def_new(first_set(buf));
    CHECK(d != NULL);
    if (!d)
        return;
    pl_snap_init(&snap, &d->cs);
    CHECK(pl_appseg_take(buf, len, d, NULL, 1, &snap, msg, sizeof msg) == 0 && snap.ninst == 2);
    appseg_rec *x = (appseg_rec *)(void *)(buf + APPSEG_HDR_SIZE + first_set(buf)->rec.size);
    x->seq += 1;                                   /* odd: being created or deleted */
    pl_snap_clear(&snap);
    CHECK(pl_appseg_take(buf, len, d, NULL, 1, &snap, msg, sizeof msg) == 0 && snap.ninst == 1);
    CHECK_STR(pl_snap_name(&snap, 0), "y");
    x->seq += 1;                                   /* even again, but the tail still says before */
    pl_snap_clear(&snap);
    CHECK(pl_appseg_take(buf, len, d, NULL, 1, &snap, msg, sizeof msg) == 0 && snap.ninst == 1);
    x->seq -= 2;
    uint32_t state = 12345;
    for (int k = 0; k < 20000; k++) {
        memcpy(copy, buf, len);
        for (int m = 0; m < 1 + k % 4; m++) {
            state = state * 1103515245u + 12345u;
            copy[(state >> 8) % used] = (uint8_t)(state >> 3);
        }
        pl_snap_clear(&snap);
        int e = pl_appseg_take(copy, (k % 7) ? len : (state >> 4) % len, d, NULL, 1, &snap, msg, sizeof msg);
        CHECK(e == 0 || e == ENOENT || e == EPROTO);
    }
    pl_snap_free(&snap);
    pl_appseg_def_free(d);
    free(buf);
    free(copy);
    PerfStopProvider(h);
}

/* The in-place reader's cursor: a second read reuses the walk and loads only
 * values; a record that changes hands (the header's generation odd, then
 * even again, as the writer does it) is left out while it changes and read
 * under its new name after, never the old name with the new values. */
static void test_cursor_reuse(void)
{
    HANDLE h = start_contig(0xb000000b, "Cursor Set");
    GUID g = set_guid(0xb000000b);
    PPERF_COUNTERSET_INSTANCE x = h ? PerfCreateInstanceUtf8(h, &g, "x", 1) : NULL;
    PPERF_COUNTERSET_INSTANCE y = h ? PerfCreateInstanceUtf8(h, &g, "y", 2) : NULL;
    size_t len;
    char msg[256];
    CHECK(x && y && PerfSetULongLongCounterValue(h, x, 3, 30) == 0 && PerfSetULongLongCounterValue(h, y, 3, 40) == 0);
    uint8_t *buf = slurp(PerfProviderSegmentPath(h), &len);
    pl_appseg_def *d = pl_appseg_def_new(first_set(buf));
    CHECK(d && d->contig);
    if (!d)
        return;
    pl_appseg_cursor cur = { 0 };
    pl_snapshot snap;
    pl_snap_init(&snap, &d->cs);
    CHECK(pl_appseg_take_live(buf, len, d, NULL, 1, &snap, &cur, msg, sizeof msg) == 0 && snap.ninst == 2);
    CHECK(cur.valid && snap.values[1] == 30 && snap.values[3] == 40);
    appseg_rec *rx = (appseg_rec *)(void *)(buf + APPSEG_HDR_SIZE + first_set(buf)->rec.size);
    uint64_t *vx = (uint64_t *)(void *)((uint8_t *)rx + sizeof *rx + APPSEG_INST_HDR);
    vx[1] = 31;                                    /* a value update: the cursor serves */
    pl_snap_clear(&snap);
    CHECK(pl_appseg_take_live(buf, len, d, NULL, 1, &snap, &cur, msg, sizeof msg) == 0 && snap.ninst == 2);
    CHECK(snap.values[1] == 31 && strcmp(pl_snap_name(&snap, 0), "x") == 0);
    /* x's record changes hands as the writer does it: the header's generation
     * odd, the record's seq odd, the body, then both even again */
    appseg_hdr *hdr = (appseg_hdr *)(void *)buf;
    hdr->generation += 1;
    rx->seq += 1;
    memcpy((uint8_t *)rx + rx->name8_off, "z", 2);
    vx[1] = 99;
    pl_snap_clear(&snap);                          /* read in the middle: x is left out, y read */
    CHECK(pl_appseg_take_live(buf, len, d, NULL, 1, &snap, &cur, msg, sizeof msg) == 0 && snap.ninst == 1);
    CHECK(strcmp(pl_snap_name(&snap, 0), "y") == 0 && snap.values[1] == 40 && !cur.valid);
    rx->seq += 1;
    hdr->generation += 1001;                       /* even, and apart from the real writer's below */
    pl_snap_clear(&snap);
    CHECK(pl_appseg_take_live(buf, len, d, NULL, 1, &snap, &cur, msg, sizeof msg) == 0 && snap.ninst == 2);
    CHECK(strcmp(pl_snap_name(&snap, 0), "z") == 0 && snap.values[1] == 99);   /* walked again */
    CHECK(cur.valid);
    /* a new instance only the generation announces: the next read walks */
    PPERF_COUNTERSET_INSTANCE w = PerfCreateInstanceUtf8(h, &g, "w", 4);
    free(buf);
    buf = slurp(PerfProviderSegmentPath(h), &len);
    pl_snap_clear(&snap);
    CHECK(w && pl_appseg_take_live(buf, len, d, NULL, 1, &snap, &cur, msg, sizeof msg) == 0 && snap.ninst == 3);
    pl_appseg_cursor_free(&cur);
    pl_snap_free(&snap);
    pl_appseg_def_free(d);
    free(buf);
    PerfStopProvider(h);
}

int main(void)
{
    use_seg_dir();
    RUN(test_bad_segments_refused);
    RUN(test_shrinks_under_reader);
    RUN(test_memfd_sealed);
    RUN(test_memfd_lies_about_size);
    RUN(test_live_reads_under_churn);
    RUN(test_cursor_reuse);
    RUN(test_duplicates);
    RUN(test_records_checked);
    rm_seg_dir();
    return CT_END();
}
