/* Binary logs (issue 15 item 2): the CRC-32C against its check value, the
 * file header byte by byte, round trips of fixture samples (each DATA
 * payload is the sample's own data block, each sample reads back with its
 * values, presence flags and time), metadata written once and again only for
 * a set the log had not described, torn tails cut at every byte, a bit flip
 * at every byte (refused, or the same bytes read back), foreign files, a file
 * that grows past RLIMIT_FSIZE while written (the "disk" fills) and rotation
 * at a size limit.  The core alone: no Lua. */
#include "ctest.h"
#include "ct_tmp.h"
#include "perflib.h"
#include "pl_blog.h"
#include "pl_le.h"
#include "pl_v1.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *const FIX = "spec/fixtures/basic";

static uint8_t *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    uint8_t *b = NULL;
    *n = 0;
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    b = malloc((size_t)len + 1);
    if (b && fread(b, 1, (size_t)len, f) == (size_t)len)
        *n = (size_t)len;
    fclose(f);
    return b;
}

static void spit(const char *path, const void *b, size_t n)
{
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (f) {
        CHECK(fwrite(b, 1, n, f) == n);
        fclose(f);
    }
}

/* A query of the fixture: % Processor Time of every CPU (+ Memory when asked). */
static pl_query *fixture_query(pl_env *env, int memory)
{
    pl_query *q = pl_query_new(env);
    pl_add_status st = PL_ADD_OK;
    uint32_t ix = 0;
    CHECK(pl_query_add_path(q, "\\Processor Information(*)\\% Processor Time", &st, &ix) == 0 && st == 0);
    if (memory)
        CHECK(pl_query_add_path(q, "\\Memory\\Available Bytes", &st, &ix) == 0 && st == 0);
    return q;
}

/* The METADATA payload of one set, by pl_logenc.h's layout: the 8-byte head,
 * per set 16 (GUID) + 12 + 2 + name + 4 + help, per counter 36 + 2 + name +
 * 4 + help. */
static size_t defs_size(const pl_counterset_def *cs)
{
    size_t n = 8 + 16 + 12 + 2 + strlen(cs->name) + 4 + strlen(cs->help ? cs->help : "");
    for (uint32_t c = 0; c < cs->ncounters; c++)
        n += 36 + 2 + strlen(cs->counters[c].name) + 4 + strlen(cs->counters[c].help ? cs->counters[c].help : "");
    return n;
}

/* The bytes of a fixture log of k samples of fixture_query(env, 0): the
 * 112-byte header, a METADATA record (16 + its payload padded to 8) and k
 * DATA records of 16 + 472 bytes (the block of 3 instances). */
static size_t fixture_bytes(pl_env *env, int k)
{
    return 112 + 16 + ((defs_size(pl_env_find(env, "Processor Information")) + 7u) & ~(size_t)7u)
           + (size_t)k * 488;
}

/* Writes n samples of q to path (a new file): 0 or the write's errno. */
static int write_samples(const char *path, pl_query *q, int n, pl_sample **keep)
{
    pl_blog_writer *w = NULL;
    char msg[256];
    unlink(path);
    int e = pl_blog_open(path, NULL, &w, msg, sizeof msg);
    for (int i = 0; !e && i < n; i++) {
        pl_sample *s = NULL;
        CHECK(pl_query_collect(q, &s) == 0);
        e = pl_blog_write(w, s, msg, sizeof msg);
        if (keep)
            keep[i] = s;
        else
            free(s);
    }
    CHECK(pl_blog_close(w) == 0);
    return e;
}

/* A fixture log of n samples at tmp(name), its bytes, and the env and query that wrote it. */
typedef struct fixlog {
    pl_env *env;
    pl_query *q;
    uint8_t *b;
    size_t n;
} fixlog;

static fixlog fixture_log(const char *name, int n)
{
    fixlog f;
    f.env = pl_env_new(FIX);
    f.q = fixture_query(f.env, 0);
    CHECK(write_samples(tmp(name), f.q, n, NULL) == 0);
    f.b = slurp(tmp(name), &f.n);
    CHECK(f.b != NULL);
    return f;
}

static void fixlog_free(fixlog *f)
{
    free(f->b);
    pl_query_free(f->q);
    pl_env_unref(f->env);
}

static void t_crc(void)
{
    CHECK_EQ_U64(pl_crc32c(0, "123456789", 9), 0xE3069283u);      /* the published check value */
    CHECK_EQ_U64(pl_crc32c(pl_crc32c(0, "1234", 4), "56789", 5), 0xE3069283u);
    CHECK_EQ_U64(pl_crc32c(0, "", 0), 0);
    /* 1000 bytes at every start offset 0..7 (the 8-byte steps unaligned),
     * against the CRC computed bit by bit from its definition */
    uint8_t buf[1008];
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = (uint8_t)(i * 131u + 7u);
    for (size_t start = 0; start < 8; start++) {
        uint32_t c = 0xFFFFFFFFu;
        for (size_t i = start; i < start + 1000; i++) {
            c ^= buf[i];
            for (int k = 0; k < 8; k++)
                c = (c >> 1) ^ (0x82F63B78u & (0u - (c & 1u)));
        }
        CHECK_EQ_U64(pl_crc32c(0, buf + start, 1000), ~c);
    }
}

/* Header and records byte by byte; each payload is exactly the sample's block. */
static void t_layout_and_round_trip(void)
{
    pl_env *env = pl_env_new(FIX);
    pl_query *q = fixture_query(env, 0);
    pl_sample *s[3] = { NULL, NULL, NULL };
    const char *p = tmp("a.blg");
    CHECK(write_samples(p, q, 3, s) == 0);
    size_t n;
    uint8_t *b = slurp(p, &n);
    CHECK(b && n > PL_BLOG_HEADER);
    CHECK(b[0] == 0x89 && !memcmp(b + 1, "PLB\r\n\x1a\n", 7));
    CHECK_EQ_U64(pl_r16(b + 8), 2);
    CHECK_EQ_U64(pl_r32(b + 12), 112);
    CHECK_STR((const char *)b + 24, PL_VERSION);
    char host[65] = "";
    gethostname(host, 64);
    CHECK(!strncmp((const char *)b + 40, host, 64));
    CHECK_EQ_U64(pl_r32(b + 108), pl_crc32c(0, b, 108));
    /* records: METADATA, then 3 DATA; sizes 16 + payload padded to 8 */
    size_t off = 112, sz[3];
    const pl_counterset_def *cs = pl_env_find(env, "Processor Information");
    CHECK_EQ_U64(pl_r32(b + off), PL_BLOG_METADATA);
    CHECK_EQ_U64(pl_r32(b + off + 4), defs_size(cs));
    pl_defs *d = NULL;
    CHECK(pl_defs_read(b + off + 16, pl_r32(b + off + 4), &d, NULL) == 0);
    CHECK(d && d->nsets == 1 && pl_defs_same(&d->sets[0], cs) && !strcmp(d->sets[0].help, cs->help));
    CHECK(d && !strcmp(d->sets[0].counters[3].help, cs->counters[3].help));
    pl_defs_free(d);
    off += 16 + ((pl_r32(b + off + 4) + 7u) & ~7u);
    for (int i = 0; i < 3; i++) {
        sz[i] = pl_db_size(s[i], 1);
        uint8_t *blk = malloc(sz[i]);
        pl_db_write(s[i], 1, blk, sz[i]);
        CHECK_EQ_U64(pl_r32(b + off), PL_BLOG_DATA);
        CHECK_EQ_U64(pl_r32(b + off + 4), sz[i]);
        CHECK_EQ_U64(pl_r32(b + off + 8), pl_crc32c(0, blk, sz[i]));
        CHECK_EQ_U64(pl_r32(b + off + 12), pl_crc32c(0, b + off, 12));
        CHECK(off + 16 + sz[i] <= n && !memcmp(b + off + 16, blk, sz[i]));
        off += 16 + ((sz[i] + 7u) & ~(size_t)7u);
        free(blk);
    }
    CHECK_EQ_U64(off, n);
    CHECK_EQ_U64(n, fixture_bytes(env, 3));
    /* the reader: every sample back with its values, flags and time */
    pl_blog_reader r;
    pl_db_error err = { 0, NULL };
    pl_blog_record rec;
    CHECK(pl_blog_read_open(p, &r, &err) == 0);
    CHECK_EQ_U64(r.nrecords, 4);
    CHECK_EQ_U64(r.ndata, 3);
    CHECK_EQ_U64(r.torn, 0);
    CHECK_STR(r.info.host, host);
    CHECK(pl_blog_next(&r, INT64_MIN, INT64_MAX, &rec) == 1 && rec.type == PL_BLOG_METADATA && rec.offset == 112);
    for (int i = 0; i < 3; i++) {
        pl_sample *x = NULL;
        CHECK(pl_blog_next(&r, INT64_MIN, INT64_MAX, &rec) == 1 && rec.type == PL_BLOG_DATA);
        CHECK(rec.time == s[i]->time100ns);
        CHECK(pl_db_read(env, rec.data, rec.len, NULL, NULL, &x, &err) == 0);
        CHECK(x && x->nblocks == s[i]->nblocks && x->time100ns == s[i]->time100ns && x->seq == s[i]->seq);
        const pl_block *ob = &s[i]->blocks[0], *xb = x ? &x->blocks[0] : ob;
        CHECK_EQ_U64(xb->ninst, ob->ninst);
        for (size_t v = 0; x && v < (size_t)ob->ninst * ob->ncounters; v++) {
            CHECK_EQ_U64(x->vals[xb->vals_off + v].v, s[i]->vals[ob->vals_off + v].v);
            CHECK_EQ_U64(x->have[xb->vals_off + v], s[i]->have[ob->vals_off + v]);
        }
        free(x);
    }
    CHECK(pl_blog_next(&r, INT64_MIN, INT64_MAX, &rec) == 0);
    /* time range: only the second sample's time, and metadata (always given) */
    pl_blog_rewind(&r);
    int data = 0, meta = 0;
    while (pl_blog_next(&r, s[1]->time100ns, s[1]->time100ns, &rec) == 1) {
        meta += rec.type == PL_BLOG_METADATA;
        data += rec.type == PL_BLOG_DATA && rec.time == s[1]->time100ns;
    }
    CHECK(meta == 1 && data == 1);
    pl_blog_read_close(&r);
    pl_blog_read_close(&r);                                       /* idempotent */
    for (int i = 0; i < 3; i++)
        free(s[i]);
    free(b);
    pl_query_free(q);
    pl_env_unref(env);
}

static int count_type(const char *path, uint32_t type)
{
    pl_blog_reader r;
    pl_db_error err = { 0, NULL };
    pl_blog_record rec;
    int k = 0;
    if (pl_blog_read_open(path, &r, &err) != 0)
        return -1;
    while (pl_blog_next(&r, INT64_MIN, INT64_MAX, &rec) == 1)
        k += rec.type == type;
    pl_blog_read_close(&r);
    return k;
}

/* Metadata once; a set the log has not described gets a new record; appending
 * in a later session describes again (each session's first sample). */
static void t_metadata_when_sets_change(void)
{
    pl_env *env = pl_env_new(FIX);
    pl_query *q1 = fixture_query(env, 0), *q2 = fixture_query(env, 1);
    const char *p = tmp("m.blg");
    pl_blog_writer *w = NULL;
    char msg[256];
    unlink(p);
    CHECK(pl_blog_open(p, NULL, &w, msg, sizeof msg) == 0);
    pl_sample *s = NULL;
    for (int i = 0; i < 3; i++) {
        CHECK(pl_query_collect(i < 2 ? q1 : q2, &s) == 0);
        CHECK(pl_blog_write(w, s, msg, sizeof msg) == 0);
        free(s);
    }
    CHECK(pl_query_collect(q2, &s) == 0);                       /* nothing new: no metadata */
    CHECK(pl_blog_write(w, s, msg, sizeof msg) == 0);
    free(s);
    CHECK(pl_query_collect(q1, &s) == 0);                       /* a set gone: nothing either */
    CHECK(pl_blog_write(w, s, msg, sizeof msg) == 0);
    free(s);
    CHECK(pl_blog_close(w) == 0);
    CHECK_EQ_U64(count_type(p, PL_BLOG_METADATA), 2);
    CHECK_EQ_U64(count_type(p, PL_BLOG_DATA), 5);
    CHECK(pl_blog_open(p, NULL, &w, msg, sizeof msg) == 0);     /* append: a new session */
    CHECK(pl_query_collect(q1, &s) == 0);
    CHECK(pl_blog_write(w, s, msg, sizeof msg) == 0);
    free(s);
    CHECK(pl_blog_close(w) == 0);
    CHECK_EQ_U64(count_type(p, PL_BLOG_METADATA), 3);
    CHECK_EQ_U64(count_type(p, PL_BLOG_DATA), 6);
    pl_query_free(q1);
    pl_query_free(q2);
    pl_env_unref(env);
}

/* Cut at every length between the last record's start and its end: the
 * reader gives the whole records before it and says torn; appending cuts it
 * off and goes on. */
static void t_torn_tail(void)
{
    fixlog f = fixture_log("t.blg", 2);
    const char *p = tmp("t.blg"), *c = tmp("cut.blg");
    uint8_t *b = f.b;
    size_t n = f.n;
    pl_blog_reader r;
    pl_db_error err = { 0, NULL };
    CHECK(pl_blog_read_open(p, &r, &err) == 0);
    uint64_t last = 0;
    pl_blog_record rec;
    while (pl_blog_next(&r, INT64_MIN, INT64_MAX, &rec) == 1)
        last = rec.offset;                                         /* the last record's head */
    pl_blog_read_close(&r);
    int bad = 0;
    for (size_t cut = (size_t)last + 1; cut < n; cut++) {
        spit(c, b, cut);
        if (pl_blog_read_open(c, &r, &err) != 0) {
            bad++;
            continue;
        }
        bad += r.ndata != 1 || r.torn != last || r.end != last || !r.torn_rule;
        pl_blog_read_close(&r);
    }
    CHECK_EQ_U64(bad, 0);
    /* zeros where a crash extended the file */
    uint8_t *z = calloc(1, n + 4096);
    memcpy(z, b, n);
    spit(c, z, n + 4096);
    CHECK(pl_blog_read_open(c, &r, &err) == 0 && r.ndata == 2 && r.torn == n);
    pl_blog_read_close(&r);
    /* appending cuts the torn tail and goes on */
    spit(c, b, n - 5);
    pl_blog_writer *w = NULL;
    char msg[256];
    pl_sample *s = NULL;
    CHECK(pl_blog_open(c, NULL, &w, msg, sizeof msg) == 0);
    CHECK_EQ_U64(pl_blog_size(w), last);
    CHECK(pl_query_collect(f.q, &s) == 0 && pl_blog_write(w, s, msg, sizeof msg) == 0);
    free(s);
    CHECK(pl_blog_close(w) == 0);
    CHECK(pl_blog_read_open(c, &r, &err) == 0 && r.ndata == 2 && r.torn == 0 && r.nrecords == 4);
    pl_blog_read_close(&r);
    free(z);
    fixlog_free(&f);
}

/* A bit flipped in every byte in turn: refused (EINVAL with an offset within
 * the file), torn, or every payload read back byte for byte the original. */
static void t_bit_flips(void)
{
    fixlog f = fixture_log("f.blg", 2);
    const char *c = tmp("flip.blg");
    uint8_t *b = f.b;
    size_t n = f.n;
    int wrong = 0, refused = 0;
    for (size_t i = 0; i < n; i++) {
        b[i] ^= (uint8_t)(1u << (i % 8));
        spit(c, b, n);
        b[i] ^= (uint8_t)(1u << (i % 8));
        pl_blog_reader r;
        pl_db_error err = { 0, NULL };
        pl_blog_record rec;
        if (pl_blog_read_open(c, &r, &err) != 0) {
            refused++;
            wrong += err.offset > n || !err.rule;
            continue;
        }
        while (pl_blog_next(&r, INT64_MIN, INT64_MAX, &rec) == 1)
            wrong += rec.offset + 16 + rec.len > n || memcmp(b + rec.offset + 16, rec.data, rec.len) != 0;
        pl_blog_read_close(&r);
    }
    CHECK_EQ_U64(wrong, 0);
    CHECK(refused > 0);
    fixlog_free(&f);
}

/* Middle corruption names the record's offset; foreign files are refused. */
static void t_corrupt_and_foreign(void)
{
    fixlog f = fixture_log("c.blg", 3);
    const char *c = tmp("bad.blg");
    uint8_t *b = f.b;
    size_t n = f.n;
    size_t meta = 16 + ((pl_r32(b + 112 + 4) + 7u) & ~7u);
    size_t first = 112 + meta;                                    /* the first DATA record */
    b[first + 16 + 20] ^= 1;                                      /* inside its block */
    spit(c, b, n);
    pl_blog_reader r;
    pl_db_error err = { 0, NULL };
    CHECK(pl_blog_read_open(c, &r, &err) == EINVAL);
    CHECK_EQ_U64(err.offset, first);
    CHECK_STR(err.rule, "record CRC does not match");
    pl_blog_writer *w = NULL;
    char msg[256];
    CHECK(pl_blog_open(c, NULL, &w, msg, sizeof msg) == EINVAL && w == NULL);
    CHECK(strstr(msg, "record CRC does not match") != NULL);
    b[first + 16 + 20] ^= 1;
    /* another host's log is read, never appended to */
    spit(c, b, n);
    pl_blog_opts o = { "elsewhere", 0, 0, 0, 0 };
    CHECK(pl_blog_open(c, &o, &w, msg, sizeof msg) == EINVAL);
    CHECK(strstr(msg, "a log of host") != NULL);
    /* an empty file, a text file, a JSON line, a short magic */
    spit(c, "", 0);
    CHECK(pl_blog_read_open(c, &r, &err) == EINVAL && strstr(err.rule, "empty"));
    spit(c, "time,value\n1,2\n", 15);
    CHECK(pl_blog_read_open(c, &r, &err) == EINVAL && strstr(err.rule, "magic"));
    const char *json = "{\"t\":1795535397.5,\"v\":{\"\\\\Memory\\\\Available Bytes\":1}}\n"
                       "{\"t\":1795535398.5,\"v\":{\"\\\\Memory\\\\Available Bytes\":2}}\n"
                       "{\"t\":1795535399.5,\"v\":{\"\\\\Memory\\\\Available Bytes\":3}}\n";
    spit(c, json, strlen(json));
    CHECK(pl_blog_read_open(c, &r, &err) == EINVAL && strstr(err.rule, "magic"));
    CHECK(pl_blog_open(c, NULL, &w, msg, sizeof msg) == EINVAL && strstr(msg, "magic"));
    spit(c, b, 60);
    CHECK(pl_blog_read_open(c, &r, &err) == EINVAL && strstr(err.rule, "header truncated"));
    CHECK(pl_blog_read_open(tmp("missing.blg"), &r, &err) == ENOENT);
    fixlog_free(&f);
}

/* The file may not grow past 64 KiB (RLIMIT_FSIZE, as a full disk): the write
 * that does not fit fails with EFBIG and the file ends at its last whole
 * record, which all read back.  In a child: the limit stays there. */
static void t_disk_full(void)
{
    const char *p = tmp("full.blg");
    unlink(p);
    pid_t pid = fork();
    if (pid == 0) {
        signal(SIGXFSZ, SIG_IGN);
        struct rlimit rl = { 65536, 65536 };
        setrlimit(RLIMIT_FSIZE, &rl);
        pl_env *env = pl_env_new(FIX);
        pl_query *q = fixture_query(env, 0);
        pl_blog_writer *w = NULL;
        char msg[256];
        int e = pl_blog_open(p, NULL, &w, msg, sizeof msg), k = 0;
        for (; !e && k < 100000; k++) {
            pl_sample *s = NULL;
            pl_query_collect(q, &s);
            e = pl_blog_write(w, s, msg, sizeof msg);
            free(s);
        }
        _exit(e == EFBIG && pl_blog_size(w) <= 65536 && pl_blog_close(w) == 0 ? 0 : 1);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    pl_blog_reader r;
    pl_db_error err = { 0, NULL };
    struct stat sb;
    CHECK(stat(p, &sb) == 0 && sb.st_size <= 65536);
    CHECK(pl_blog_read_open(p, &r, &err) == 0);
    CHECK(r.torn == 0 && r.end == (uint64_t)sb.st_size && r.ndata > 10);
    pl_blog_read_close(&r);
}

/* Past max_bytes a new file name_001.blg, then _002, each a whole log. */
static void t_rotation(void)
{
    pl_env *env = pl_env_new(FIX);
    pl_query *q = fixture_query(env, 0);
    const char *p = tmp("r.blg");
    unlink(p);
    unlink(tmp("r_001.blg"));
    unlink(tmp("r_002.blg"));
    /* max_bytes: three samples a file and 100 bytes to spare (a fourth DATA
     * record takes 488) */
    size_t three = fixture_bytes(env, 3);
    pl_blog_opts o = { NULL, three + 100, 1, 0, 0 };
    pl_blog_writer *w = NULL;
    char msg[256];
    CHECK(pl_blog_open(p, &o, &w, msg, sizeof msg) == 0);
    for (int i = 0; i < 9; i++) {
        pl_sample *s = NULL;
        CHECK(pl_query_collect(q, &s) == 0 && pl_blog_write(w, s, msg, sizeof msg) == 0);
        free(s);
        CHECK(pl_blog_size(w) <= three + 100);
    }
    CHECK_STR(pl_blog_path(w), tmp("r_002.blg"));
    CHECK(pl_blog_close(w) == 0);
    /* each file: the header, its own METADATA record and three DATA records */
    const char *names[3] = { "r.blg", "r_001.blg", "r_002.blg" };
    for (int i = 0; i < 3; i++) {
        struct stat sb;
        CHECK_EQ_U64(count_type(tmp(names[i]), PL_BLOG_METADATA), 1);
        CHECK_EQ_U64(count_type(tmp(names[i]), PL_BLOG_DATA), 3);
        CHECK(stat(tmp(names[i]), &sb) == 0 && (size_t)sb.st_size == three);
    }
    pl_query_free(q);
    pl_env_unref(env);
}

/* A second writer of the same log is refused while the first has it; rotation
 * steps over a _001 an earlier run filled and never writes into a refused one. */
static void t_two_writers_and_full_rotations(void)
{
    pl_env *env = pl_env_new(FIX);
    pl_query *q = fixture_query(env, 0);
    const char *p = tmp("w.blg");
    pl_blog_writer *a = NULL, *b = NULL;
    char msg[256];
    unlink(p);
    CHECK(pl_blog_open(p, NULL, &a, msg, sizeof msg) == 0);
    CHECK(pl_blog_open(p, NULL, &b, msg, sizeof msg) == EWOULDBLOCK && b == NULL);
    CHECK(strstr(msg, "another writer has it open") != NULL);
    CHECK(pl_blog_close(a) == 0);
    CHECK(pl_blog_open(p, NULL, &b, msg, sizeof msg) == 0);     /* free again */
    CHECK(pl_blog_close(b) == 0);
    /* x_001.blg full from an earlier run (3 samples, see t_rotation),
     * x_002.blg another host's: the writer goes from x.blg to x_001 (no room)
     * to x_002 (refused: the write fails, x_002 untouched) */
    const char *x = tmp("x.blg"), *x1 = tmp("x_001.blg"), *x2 = tmp("x_002.blg");
    unlink(x);
    CHECK(write_samples(x1, q, 3, NULL) == 0);
    pl_blog_opts other = { "elsewhere", 0, 0, 0, 0 };
    unlink(x2);
    CHECK(pl_blog_open(x2, &other, &a, msg, sizeof msg) == 0 && pl_blog_close(a) == 0);
    pl_blog_opts o = { NULL, fixture_bytes(env, 3) + 100, 0, 0, 0 };
    CHECK(pl_blog_open(x, &o, &a, msg, sizeof msg) == 0);
    int e = 0, k = 0;
    for (; k < 4 && !e; k++) {
        pl_sample *s = NULL;
        CHECK(pl_query_collect(q, &s) == 0);
        e = pl_blog_write(a, s, msg, sizeof msg);
        free(s);
    }
    CHECK(e == EINVAL && k == 4);                                /* the fourth went to rotate */
    CHECK(strstr(msg, "a log of host 'elsewhere'") != NULL);
    CHECK_EQ_U64(count_type(x, PL_BLOG_DATA), 3);
    CHECK_EQ_U64(count_type(x1, PL_BLOG_DATA), 3);
    CHECK_EQ_U64(count_type(x2, PL_BLOG_DATA), 0);
    pl_sample *s = NULL;
    CHECK(pl_query_collect(q, &s) == 0);
    CHECK(pl_blog_write(a, s, msg, sizeof msg) == EBADF);        /* no file to write into */
    free(s);
    CHECK(pl_blog_close(a) == 0);
    CHECK_EQ_U64(count_type(x2, PL_BLOG_DATA), 0);
    pl_query_free(q);
    pl_env_unref(env);
}

/* max_seconds 60: a file takes the samples of 60 s from its first; the sample
 * times are set here (t0, +30 s, +90 s, +100 s, +160 s): +90 s starts _001
 * (90 >= 60), +100 s joins it (10 s after its first), +160 s starts _002
 * (70 s after +90 s).  An existing file is judged by its own first sample. */
static void t_rotation_by_time(void)
{
    pl_env *env = pl_env_new(FIX);
    pl_query *q = fixture_query(env, 0);
    const char *p = tmp("t60.blg"), *p1 = tmp("t60_001.blg"), *p2 = tmp("t60_002.blg");
    unlink(p);
    unlink(p1);
    unlink(p2);
    pl_blog_opts o = { NULL, 0, 0, 60, 0 };
    pl_blog_writer *w = NULL;
    char msg[256];
    CHECK(pl_blog_open(p, &o, &w, msg, sizeof msg) == 0);
    static const int64_t at[5] = { 0, 30, 90, 100, 160 };
    pl_sample *s = NULL;
    CHECK(pl_query_collect(q, &s) == 0);
    int64_t t0 = s ? s->time100ns : 0;
    for (int i = 0; s && i < 5; i++) {
        s->time100ns = t0 + at[i] * 10000000;
        CHECK(pl_blog_write(w, s, msg, sizeof msg) == 0);
    }
    CHECK_STR(pl_blog_path(w), p2);
    CHECK(pl_blog_close(w) == 0);
    CHECK_EQ_U64(count_type(p, PL_BLOG_DATA), 2);
    CHECK_EQ_U64(count_type(p1, PL_BLOG_DATA), 2);
    CHECK_EQ_U64(count_type(p2, PL_BLOG_DATA), 1);
    /* a sample at t0 + 61 s appended to t60.blg (first sample t0: 61 >= 60) goes
     * on to _001, whose first sample (+90 s) it does not pass by 60 s: written there */
    CHECK(pl_blog_open(p, &o, &w, msg, sizeof msg) == 0);
    if (s) {
        s->time100ns = t0 + 61 * 10000000;
        CHECK(pl_blog_write(w, s, msg, sizeof msg) == 0);
    }
    CHECK_STR(pl_blog_path(w), p1);
    CHECK(pl_blog_close(w) == 0);
    CHECK_EQ_U64(count_type(p1, PL_BLOG_DATA), 3);
    free(s);
    pl_query_free(q);
    pl_env_unref(env);
}

/* Definitions read back strictly: every cut is refused with an offset inside
 * the buffer, and each rule by its name. */
static void t_defs_bad(void)
{
    pl_env *env = pl_env_new(FIX);
    const pl_counterset_def *cs = pl_env_find(env, "Processor Information");
    size_t n = pl_defs_write(&cs, 1, NULL, 0);
    CHECK_EQ_U64(n, defs_size(cs));
    uint8_t *b = malloc(n);
    CHECK(pl_defs_write(&cs, 1, b, n) == n);
    pl_defs *d = NULL;
    pl_db_error err = { 0, NULL };
    int bad = 0;
    for (size_t cut = 0; cut < n; cut++) {
        err.rule = NULL;
        bad += pl_defs_read(b, cut, &d, &err) != EINVAL || d != NULL || !err.rule || err.offset > cut;
    }
    CHECK_EQ_U64(bad, 0);
    /* the first counter starts after the set's head, name and help */
    size_t c0 = 8 + 16 + 12 + 2 + strlen(cs->name) + 4 + strlen(cs->help);
    uint8_t *x = malloc(n);
    struct {
        size_t off;
        uint32_t v;
        const char *rule;
    } cases[] = {
        { 0, 0x31444C50u, "not perflib definitions (magic)" },
        { 4, 5000, "more than 4096 sets" },
        { 8 + 16, 7, "an unknown instance type" },
        { 8 + 24, 0, "a set with no counters or more than 4096" },
        { c0 + 4, 0x12345678u, "a counter type winperf.h does not define" },
        { c0 + 20, 2, "a counter size that is not 4 or 8" },
        { c0 + 8, 0xFFFFFFF0u, "a base id that names no counter of the set" },
        { c0 + 24, 0x01000000u, "reserved bytes of a counter that are not 0" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        memcpy(x, b, n);
        pl_w32(x + cases[i].off, cases[i].v);
        err.rule = NULL;
        CHECK(pl_defs_read(x, n, &d, &err) == EINVAL && d == NULL);
        CHECK_STR(err.rule ? err.rule : "", cases[i].rule);
    }
    /* two counters with one id: the second's id set to the first's */
    size_t c1 = c0 + 36 + 2 + strlen(cs->counters[0].name) + 4 + strlen(cs->counters[0].help);
    memcpy(x, b, n);
    pl_w32(x + c1, cs->counters[0].id);
    CHECK(pl_defs_read(x, n, &d, &err) == EINVAL);
    CHECK_STR(err.rule, "two counters of a set with one id");
    /* a byte after the end */
    uint8_t *y = malloc(n + 1);
    memcpy(y, b, n);
    y[n] = 0;
    CHECK(pl_defs_read(y, n + 1, &d, &err) == EINVAL);
    CHECK_STR(err.rule, "bytes after the last set");
    free(y);
    free(x);
    free(b);
    pl_env_unref(env);
}

/* A version 1 log (METADATA a V1 metadata block) is read, never appended to. */
static void t_version1(void)
{
    pl_env *env = pl_env_new(FIX);
    pl_query *q = fixture_query(env, 0);
    pl_sample *s = NULL;
    CHECK(pl_query_collect(q, &s) == 0);
    size_t mn = pl_v1_write(s, "h", PL_V1_METADATA, NULL, 0), dn = pl_db_size(s, 1);
    size_t total = 112 + 16 + ((mn + 7u) & ~(size_t)7u) + 16 + ((dn + 7u) & ~(size_t)7u);
    uint8_t *b = calloc(1, total);
    memcpy(b, "\x89PLB\r\n\x1a\n", 8);
    pl_w16(b + 8, 1);
    pl_w32(b + 12, 112);
    memcpy(b + 40, "h", 1);
    pl_w32(b + 108, pl_crc32c(0, b, 108));
    uint8_t *m = b + 112, *dd = m + 16 + ((mn + 7u) & ~(size_t)7u);
    pl_v1_write(s, "h", PL_V1_METADATA, m + 16, mn);
    pl_db_write(s, 1, dd + 16, dn);
    uint8_t *heads[2] = { m, dd };
    uint32_t types[2] = { 1, 2 };
    size_t lens[2] = { mn, dn };
    for (int i = 0; i < 2; i++) {
        pl_w32(heads[i], types[i]);
        pl_w32(heads[i] + 4, (uint32_t)lens[i]);
        pl_w32(heads[i] + 8, pl_crc32c(0, heads[i] + 16, lens[i]));
        pl_w32(heads[i] + 12, pl_crc32c(0, heads[i], 12));
    }
    const char *p = tmp("v1.blg");
    spit(p, b, total);
    pl_blog_reader r;
    pl_db_error err = { 0, NULL };
    CHECK(pl_blog_read_open(p, &r, &err) == 0 && r.info.version == 1 && r.ndata == 1 && r.nrecords == 2);
    pl_blog_read_close(&r);
    pl_blog_opts o = { "h", 0, 0, 0, 0 };
    pl_blog_writer *w = NULL;
    char msg[256];
    CHECK(pl_blog_open(p, &o, &w, msg, sizeof msg) == EINVAL && w == NULL);
    CHECK(strstr(msg, "a version 1 log: perflib") != NULL);
    free(b);
    free(s);
    pl_query_free(q);
    pl_env_unref(env);
}

/* Circular (max_files 2): twelve samples, three a file, make r, _001, _002 and
 * _003; starting _002 removes r, starting _003 removes _001. */
static void t_circular(void)
{
    pl_env *env = pl_env_new(FIX);
    pl_query *q = fixture_query(env, 0);
    const char *names[4] = { "c.blg", "c_001.blg", "c_002.blg", "c_003.blg" };
    for (int i = 0; i < 4; i++)
        unlink(tmp(names[i]));
    pl_blog_opts o = { NULL, fixture_bytes(env, 3) + 100, 0, 0, 2 };
    pl_blog_writer *w = NULL;
    char msg[256];
    CHECK(pl_blog_open(tmp("c.blg"), &o, &w, msg, sizeof msg) == 0);
    for (int i = 0; i < 12; i++) {
        pl_sample *s = NULL;
        CHECK(pl_query_collect(q, &s) == 0 && pl_blog_write(w, s, msg, sizeof msg) == 0);
        free(s);
    }
    CHECK_STR(pl_blog_path(w), tmp("c_003.blg"));
    CHECK(pl_blog_close(w) == 0);
    struct stat sb;
    CHECK(stat(tmp("c.blg"), &sb) != 0 && stat(tmp("c_001.blg"), &sb) != 0);
    CHECK_EQ_U64(count_type(tmp("c_002.blg"), PL_BLOG_DATA), 3);
    CHECK_EQ_U64(count_type(tmp("c_003.blg"), PL_BLOG_DATA), 3);
    pl_query_free(q);
    pl_env_unref(env);
}

int main(void)
{
    ct_tmp_init("test_blog");
    RUN(t_crc);
    RUN(t_layout_and_round_trip);
    RUN(t_metadata_when_sets_change);
    RUN(t_torn_tail);
    RUN(t_bit_flips);
    RUN(t_corrupt_and_foreign);
    RUN(t_disk_full);
    RUN(t_rotation);
    RUN(t_two_writers_and_full_rotations);
    RUN(t_rotation_by_time);
    RUN(t_defs_bad);
    RUN(t_version1);
    RUN(t_circular);
    ct_tmp_remove();
    return CT_END();
}
