/* V1 plug-in answers without a host: the configuration file, the counter
 * definitions learned from a metadata answer, and data answers checked and
 * put into snapshots, against objects built by hand (v1objects.h). */
#include "ctest.h"
#include "plugin_impl.h"
#include "v1objects.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define FIRST 1000u

static char dir[64];

static const char *write_file(const char *name, const char *text)
{
    static char path[128];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
    return path;
}

static const char *const tp_conf =
    "[plugin]\nLibrary = libtp.so\nOpen = O\nCollect = C\nClose = X\nFirst Counter = 1000\n"
    "Collect Supports Metadata = 1\n"
    "[object Transfer]\nOffset = 0\nHelp = transfers\n"
    "Counter 2 = Bytes Sent\nHelp 2 = bytes sent\n"
    "Counter 4 = Available Bandwidth\nCounter 6 = Total Bandwidth\n"
    "[object Peer]\nOffset = 8\nCounter 10 = Bytes Served\n";

/* Transfer's definitions: Bytes Sent, Available Bandwidth (a fraction) and its base. */
static size_t transfer_defs(vb *b, int32_t ninst)
{
    size_t o = vb_object(b, FIRST, 3, ninst);
    vb_counter(b, FIRST + 2, PERF_COUNTER_RAWCOUNT, 4, 4);
    vb_counter(b, FIRST + 4, PERF_RAW_FRACTION, 4, 8);
    vb_counter(b, FIRST + 6, PERF_RAW_BASE, 4, 12);
    vb_end_defs(b, o);
    return o;
}

static void transfer_data(vb *b, uint32_t sent, uint32_t avail, uint32_t total)
{
    size_t o = transfer_defs(b, PERF_NO_INSTANCES);
    size_t k = vb_block(b, 12);
    vb_put32(b, k + 4, sent);
    vb_put32(b, k + 8, avail);
    vb_put32(b, k + 12, total);
    vb_end_object(b, o);
}

static size_t peer_defs(vb *b, int32_t ninst)
{
    size_t o = vb_object(b, FIRST + 8, 1, ninst);
    vb_counter(b, FIRST + 10, PERF_COUNTER_RAWCOUNT, 4, 4);
    vb_end_defs(b, o);
    return o;
}

static void peer_data(vb *b)
{
    size_t o = peer_defs(b, 2);
    vb_instance(b, "Peer1", PERF_NO_UNIQUE_ID);
    vb_put32(b, vb_block(b, 4) + 4, 15);
    vb_instance(b, "Peer2", PERF_NO_UNIQUE_ID);
    vb_put32(b, vb_block(b, 4) + 4, 30);
    vb_end_object(b, o);
}

static void metadata(vb *b)
{
    size_t o = transfer_defs(b, PERF_METADATA_NO_INSTANCES);
    vb_end_object(b, o);
    o = peer_defs(b, PERF_METADATA_MULTIPLE_INSTANCES);
    vb_end_object(b, o);
}

/* A plug-in record read from text and taught by a metadata answer. */
static int learned(plugin *pl, const char *conf, const vb *meta, char *msg, size_t size)
{
    char cmsg[200];
    memset(pl, 0, sizeof *pl);
    if (pl_plug_cfg_read(write_file("t.plugin", conf), &pl->cfg, cmsg, sizeof cmsg)) {
        snprintf(msg, size, "config: %s", cmsg);
        return EINVAL;
    }
    return pl_plug_learn(pl, meta->buf, meta->len, 2, 0, msg, size);
}

/* The Transfer/Peer plug-in, taught by its metadata answer. */
static void taught(plugin *pl)
{
    vb meta = { .len = 0 };
    char msg[256];
    metadata(&meta);
    CHECK_EQ_U64(learned(pl, tp_conf, &meta, msg, sizeof msg), 0);
}

static void drop(plugin *pl)
{
    for (uint32_t i = 0; i < pl->nobjs; i++)
        pl_plug_obj_free(&pl->objs[i]);
    pl_plug_cfg_free(&pl->cfg);
}

/* Takes one answer for object o: the errno, msg filled. */
static int take(plug_obj *o, const vb *b, uint32_t nobjs, int lax, pl_snapshot *snap, char *msg)
{
    pl_names nm;
    pl_names_init(&nm);
    pl_snap_clear(snap);
    int e = pl_plug_take(o, b->buf, b->len, nobjs, lax, &nm, snap, msg, 256);
    pl_names_free(&nm);
    return e;
}

static void test_learn_from_metadata(void)
{
    plugin pl;
    vb meta = { .len = 0 };
    char msg[256] = "";
    metadata(&meta);
    CHECK_EQ_U64(learned(&pl, tp_conf, &meta, msg, sizeof msg), 0);
    CHECK_EQ_U64(pl.nobjs, 2);
    plug_obj *t = &pl.objs[0], *p = &pl.objs[1];
    CHECK_STR(t->def.name, "Transfer");
    CHECK_STR(t->def.help, "transfers");
    CHECK_EQ_U64(t->def.instance_type, PERF_COUNTERSET_SINGLE_INSTANCE);
    CHECK_EQ_U64(t->def.ncounters, 3);
    CHECK_STR(t->counters[0].name, "Bytes Sent");
    CHECK_STR(t->counters[0].help, "bytes sent");
    CHECK_EQ_U64(t->counters[1].type, PERF_RAW_FRACTION);
    CHECK_EQ_U64(t->counters[1].base_id, 2);          /* the definition after it */
    CHECK_EQ_U64(t->counters[2].type, PERF_RAW_BASE);
    CHECK_EQ_U64(t->counters[0].size, 4);
    CHECK_EQ_U64(t->counters[0].detail, 100);
    CHECK_EQ_U64(t->def.index, PL_INDEX_ASSIGN);
    CHECK_STR(t->query, "1000");
    /* UUIDv8: version nibble 8, variant 10 */
    CHECK_EQ_U64(t->def.guid.d3 >> 12, 8);
    CHECK_EQ_U64(t->def.guid.d4[0] >> 6, 2);
    CHECK(!pl_guid_equal(&t->def.guid, &p->def.guid));
    CHECK_STR(p->def.name, "Peer");
    CHECK_EQ_U64(p->def.instance_type, PERF_COUNTERSET_MULTI_INSTANCES);
    CHECK_STR(p->query, "1008");
    /* the same names give the same GUID in another run */
    plugin again;
    pl_guid g = t->def.guid;
    CHECK_EQ_U64(learned(&again, tp_conf, &meta, msg, sizeof msg), 0);
    CHECK(pl_guid_equal(&again.objs[0].def.guid, &g));
    drop(&again);
    drop(&pl);
}

static void test_take_values(void)
{
    plugin pl;
    vb b = { .len = 0 };
    char msg[256];
    pl_snapshot snap;
    taught(&pl);
    pl_snap_init(&snap, &pl.objs[0].def);
    transfer_data(&b, 5, 20, 50);
    CHECK_EQ_U64(take(&pl.objs[0], &b, 1, 0, &snap, msg), 0);
    CHECK_EQ_U64(snap.ninst, 1);
    CHECK_EQ_U64(snap.values[0], 5);
    CHECK_EQ_U64(snap.values[1], 20);
    CHECK_EQ_U64(snap.values[2], 50);
    CHECK(snap.have[0] && snap.have[1] && snap.have[2]);
    CHECK_EQ_U64(snap.obj_freq, 10000000);
    pl_snap_free(&snap);

    pl_snap_init(&snap, &pl.objs[1].def);
    b.len = 0;
    peer_data(&b);
    CHECK_EQ_U64(take(&pl.objs[1], &b, 1, 0, &snap, msg), 0);
    CHECK_EQ_U64(snap.ninst, 2);
    CHECK_STR(pl_snap_name(&snap, 0), "Peer1");
    CHECK_STR(pl_snap_name(&snap, 1), "Peer2");
    CHECK_EQ_U64(snap.inst[0].id, 0);                  /* PERF_NO_UNIQUE_ID: by position */
    CHECK_EQ_U64(snap.inst[1].id, 1);
    CHECK_EQ_U64(snap.values[0], 15);
    CHECK_EQ_U64(snap.values[1], 30);
    pl_snap_free(&snap);
    drop(&pl);
}

static void expect_bad(plug_obj *o, const vb *b, uint32_t nobjs, int lax, const char *words)
{
    pl_snapshot snap;
    char msg[256] = "";
    pl_snap_init(&snap, &o->def);
    int e = take(o, b, nobjs, lax, &snap, msg);
    CHECK_EQ_U64(e, EPROTO);
    if (!strstr(msg, words))
        fprintf(stderr, "  message \"%s\" lacks \"%s\"\n", msg, words);
    CHECK(strstr(msg, words) != NULL);
    pl_snap_free(&snap);
}

static void test_bad_answers(void)
{
    plugin pl;
    vb b = { .len = 0 };
    char msg[256];
    taught(&pl);
    plug_obj *t = &pl.objs[0], *p = &pl.objs[1];

    transfer_data(&b, 1, 2, 3);           /* Transfer where Peer was asked */
    expect_bad(p, &b, 1, 0, "not asked for");
    expect_bad(t, &b, 2, 0, "malformed");  /* a count the bytes do not hold */

    b.len = 0;                            /* TotalByteLength past the buffer */
    transfer_data(&b, 1, 2, 3);
    vb_put32(&b, 0, (uint32_t)b.len + 8);
    expect_bad(t, &b, 1, 0, "malformed");

    b.len = 0;                            /* a counter's offset past its block */
    transfer_data(&b, 1, 2, 3);
    vb_put32(&b, 64 + 80 + 36, 16);
    expect_bad(t, &b, 1, 0, "CounterOffset");

    b.len = 0;                            /* a type other than the one it loaded with */
    transfer_data(&b, 1, 2, 3);
    vb_put32(&b, 64 + 28, PERF_COUNTER_LARGE_RAWCOUNT);
    expect_bad(t, &b, 1, 0, "not the counter");

    b.len = 0;                            /* metadata where data was asked */
    vb_end_object(&b, transfer_defs(&b, PERF_METADATA_NO_INSTANCES));
    expect_bad(t, &b, 1, 0, "metadata");

    b.len = 0;                            /* an instance name without its NUL */
    peer_data(&b);
    vb_put32(&b, 104 + 20, 10);           /* "Peer1" is 5 units: 10 bytes leave the NUL out */
    expect_bad(p, &b, 1, 0, "not terminated");

    b.len = 0;                            /* a name longer than its definition */
    peer_data(&b);
    vb_put32(&b, 104 + 20, 400);
    expect_bad(p, &b, 1, 0, "instance name outside");

    b.len = 0;                            /* the same object twice */
    transfer_data(&b, 1, 2, 3);
    transfer_data(&b, 1, 2, 3);
    expect_bad(t, &b, 2, 0, "twice");

    pl_snapshot snap;                     /* nothing at all: no data, not a failure */
    pl_snap_init(&snap, &t->def);
    b.len = 0;
    CHECK_EQ_U64(take(t, &b, 0, 0, &snap, msg), ENODATA);
    pl_snap_free(&snap);
    drop(&pl);
}

/* An instance definition of 28 bytes (24 + "P" and its NUL, unpadded): the
 * object is 140 bytes, not a multiple of 8.  Refused by the alignment test,
 * read right with it off. */
static void test_alignment_switch(void)
{
    plugin pl;
    vb b = { .len = 0 };
    char msg[256];
    pl_snapshot snap;
    taught(&pl);
    size_t o = peer_defs(&b, 1), i = b.len;
    memset(b.buf + i, 0, 36);
    vb_put32(&b, i, 28);                  /* ByteLength */
    vb_put32(&b, i + 12, 7);              /* UniqueID */
    vb_put32(&b, i + 16, 24);             /* NameOffset */
    vb_put32(&b, i + 20, 4);              /* NameLength: u"P" */
    b.buf[i + 24] = 'P';
    vb_put32(&b, i + 28, 8);              /* PERF_COUNTER_BLOCK ByteLength */
    vb_put32(&b, i + 32, 15);             /* Bytes Served at offset 4 */
    b.len += 36;
    vb_end_object(&b, o);
    CHECK_EQ_U64(b.len, 140);
    expect_bad(&pl.objs[1], &b, 1, 0, "multiple of 8");
    pl_snap_init(&snap, &pl.objs[1].def);
    CHECK_EQ_U64(take(&pl.objs[1], &b, 1, 1, &snap, msg), 0);
    CHECK_EQ_U64(snap.ninst, 1);
    CHECK_STR(pl_snap_name(&snap, 0), "P");
    CHECK_EQ_U64(snap.inst[0].id, 7);
    CHECK_EQ_U64(snap.values[0], 15);
    pl_snap_free(&snap);
    drop(&pl);
}

static void expect_learn_fails(const char *conf, const vb *meta, const char *words)
{
    plugin pl;
    char msg[256] = "";
    int e = learned(&pl, conf, meta, msg, sizeof msg);
    CHECK(e == EPROTO || e == EINVAL);
    if (!strstr(msg, words))
        fprintf(stderr, "  message \"%s\" lacks \"%s\"\n", msg, words);
    CHECK(strstr(msg, words) != NULL);
    drop(&pl);
}

static void test_learn_refuses(void)
{
    vb meta = { .len = 0 };
    metadata(&meta);
    /* a counter the file does not name */
    expect_learn_fails("[plugin]\nLibrary=l\nOpen=o\nCollect=c\nClose=x\n[object Transfer]\nOffset=0\n"
                       "Counter 2=Bytes Sent\nCounter 6=Total\n[object Peer]\nOffset=8\nCounter 10=B\n",
                       &meta, "has no name");
    /* an object the file does not name */
    expect_learn_fails("[plugin]\nLibrary=l\nOpen=o\nCollect=c\nClose=x\n[object Transfer]\nOffset=0\n"
                       "Counter 2=a\nCounter 4=b\nCounter 6=c\n",
                       &meta, "does not configure");
    /* a fraction without its base after it */
    vb m2 = { .len = 0 };
    size_t o = vb_object(&m2, FIRST, 2, PERF_METADATA_NO_INSTANCES);
    vb_counter(&m2, FIRST + 2, PERF_COUNTER_RAWCOUNT, 4, 4);
    vb_counter(&m2, FIRST + 4, PERF_RAW_FRACTION, 4, 8);
    vb_end_defs(&m2, o);
    vb_end_object(&m2, o);
    o = peer_defs(&m2, PERF_METADATA_MULTIPLE_INSTANCES);
    vb_end_object(&m2, o);
    expect_learn_fails(tp_conf, &m2, "not followed by its base");
    /* a size its type does not take */
    vb m3 = meta;
    vb_put32(&m3, 64 + 32, 8);
    expect_learn_fails(tp_conf, &m3, "CounterSize");
    /* text is not a number */
    vb m4 = meta;
    vb_put32(&m4, 64 + 28, PERF_COUNTER_TEXT);
    expect_learn_fails(tp_conf, &m4, "not a number");
    /* the same counter index twice in one object */
    vb m5 = meta;
    vb_put32(&m5, 64 + 40 + 4, FIRST + 2);
    expect_learn_fails(tp_conf, &m5, "twice");
}

static void expect_conf_fails(const char *text, const char *words)
{
    plug_cfg c;
    char msg[256] = "";
    CHECK_EQ_U64(pl_plug_cfg_read(write_file("bad.plugin", text), &c, msg, sizeof msg), EINVAL);
    if (!strstr(msg, words))
        fprintf(stderr, "  message \"%s\" lacks \"%s\"\n", msg, words);
    CHECK(strstr(msg, words) != NULL);
}

static void test_config_file(void)
{
    plug_cfg c;
    char msg[512] = "", line[400];
    CHECK_EQ_U64(pl_plug_cfg_read(write_file("tp.plugin", tp_conf), &c, msg, sizeof msg), 0);
    CHECK_STR(c.name, "tp");
    CHECK_STR(c.library, "libtp.so");
    CHECK_EQ_U64(c.first_counter, 1000);
    CHECK_EQ_U64(c.metadata, 1);
    CHECK_EQ_U64(c.nobjs, 2);
    CHECK_EQ_U64(c.objs[1].offset, 8);
    CHECK(pl_plug_cfg_object(&c, 1008) == &c.objs[1]);
    CHECK_STR(pl_plug_cfg_counter(&c, &c.objs[0], 1004)->name, "Available Bandwidth");
    pl_plug_cfg_free(&c);
    /* keys are Windows' value names without regard to case or spacing; a
     * value goes on on an indented line */
    CHECK_EQ_U64(pl_plug_cfg_read(write_file("x.plugin",
        "[plugin]\nlibrary = l\nOPEN = o\ncollect=c\nclose=x\ncollect   timeout = 250\nExport = a b\nExport = c\n"
        "[object T]\noffset = 0\nhelp = one\n  two\n"), &c, msg, sizeof msg), 0);
    CHECK_EQ_U64(c.collect_timeout_ms, 250);
    CHECK_EQ_U64(c.nexports, 2);
    CHECK_STR(c.exports[0], "a b");
    CHECK_STR(c.objs[0].help, "one two");
    pl_plug_cfg_free(&c);

    expect_conf_fails("[plugin]\nOpen=o\nCollect=c\nClose=x\n[object T]\nOffset=0\n", "needs Library");
    expect_conf_fails("[plugin]\nLibrary=l\nOpen=o\nCollect=c\nClose=x\nColect Timeout=3\n", "bad.plugin:6: [plugin] has no key 'Colect Timeout'");
    expect_conf_fails("[plugin]\nLibrary=l\nOpen=o\nCollect=c\nClose=x\n[object T]\nOffset=3\n", "Offset 3 is odd");
    expect_conf_fails("[plugin]\nLibrary=l\nOpen=o\nCollect=c\nClose=x\n[object T]\nOffset=0\nCounter 0=a\n", "share offset 0");
    expect_conf_fails("[plugin]\nLibrary=l\nOpen=o\nCollect=c\nClose=x\n[object T]\nOffset=0\n[object U]\nOffset=0\n", "share offset 0");
    expect_conf_fails("[plugin]\nLibrary=l\nOpen=o\nCollect=c\nClose=x\n[object T]\nOffset=0\nIndex=1500\n", "multiple of 1000");
    expect_conf_fails("[plugin]\nLibrary=l\nOpen=o\nCollect=c\nClose=x\nCollect Timeout=0\n", "from 1 to");
    expect_conf_fails("[plugin]\nLibrary=l\nOpen=o\nCollect=c\nClose=x\n[object T]\nOffset=0\n[other]\nx=1\n", "[other]");
    expect_conf_fails("Library=l\n", "before any [section]");
    expect_conf_fails("[plugin]\nthis is not a key\n", "bad.plugin:2:");
    memset(line, 'a', sizeof line);
    memcpy(line, "[plugin]\nHelp=", 14);
    line[sizeof line - 2] = '\n';
    line[sizeof line - 1] = '\0';
    expect_conf_fails(line, "longer than 199");
}

static void test_perflib_switches(void)
{
    perflib_cfg p;
    char msg[256];
    pl_perflib_cfg_default(&p);
    CHECK_EQ_U64(p.guards.test_level, 4);
    CHECK(p.guards.check_alignment && p.guards.check_buffers && p.guards.check_timeouts);
    CHECK_EQ_U64(pl_perflib_cfg_read(write_file("perflib.conf",
        "[perflib]\nConfiguration Flags = 0x7\nExtCounterTestLevel = 1\nFailure Limit = 5\n"), &p, msg, sizeof msg), 0);
    CHECK(!p.guards.check_alignment && !p.guards.check_buffers && !p.guards.check_timeouts);
    CHECK(p.never_disable);
    CHECK_EQ_U64(p.guards.test_level, 1);
    CHECK_EQ_U64(p.failure_limit, 5);
    pl_perflib_cfg_default(&p);
    CHECK_EQ_U64(pl_perflib_cfg_read(write_file("perflib.conf",
        "[perflib]\nSkip Alignment Test = yes\nDisable Performance Counters = 1\n"), &p, msg, sizeof msg), 0);
    CHECK(!p.guards.check_alignment && p.guards.check_buffers && p.disable_all && !p.never_disable);
    CHECK_EQ_U64(pl_perflib_cfg_read(write_file("perflib.conf", "[perflib]\nExtCounterTestLevel = 9\n"),
                                     &p, msg, sizeof msg), EINVAL);
    CHECK(strstr(msg, "ExtCounterTestLevel") != NULL);
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/pl-plugtake-XXXXXX");
    if (!mkdtemp(dir))
        return 2;
    RUN(test_config_file);
    RUN(test_perflib_switches);
    RUN(test_learn_from_metadata);
    RUN(test_take_values);
    RUN(test_bad_answers);
    RUN(test_alignment_switch);
    RUN(test_learn_refuses);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        return 2;
    return CT_END();
}
