/* The registry's one door (issue 11, item 6), against the core ALONE: this
 * test links build/libperflib-core.a and not one provider object (see the
 * Makefile), so its registry starts empty; it publishes its own sets the way
 * a plug-in or an application would and collects them.  Assigned title
 * indexes are checked against values computed apart from perflib (FNV-1a-64
 * + fmix64 of the GUID bytes in Python), and against a second run of this
 * program that registers the same sets in another order. */
#include "ctest.h"
#include "ctest_door.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Three sets whose home slots differ, and two (C1, C2) that share one. */
static const pl_counterset_def set1 = DOOR_SET(0x7e570001, 0x0001, "Door One", PL_INDEX_ASSIGN);
static const pl_counterset_def set2 = DOOR_SET(0x7e570002, 0x0002, "Door Two", PL_INDEX_ASSIGN);
static const pl_counterset_def set3 = DOOR_SET(0x7e570003, 0x0003, "Door Three", PL_INDEX_ASSIGN);
static const pl_counterset_def c1 = DOOR_SET(0x7e57c011, 0x02e9, "Door C1", PL_INDEX_ASSIGN);
static const pl_counterset_def c2 = DOOR_SET(0x7e57c011, 0x05e7, "Door C2", PL_INDEX_ASSIGN);
/* the index each one's GUID alone gives (home slot x 1000 + 10^9) */
#define IDX1 1268745000u
#define IDX2 1832302000u
#define IDX3 1574059000u
#define IDXC 1223673000u

static const pl_counterset_def *const named[] = { &set1, &set2, &set3, &c1, &c2 };
static char self[4096];

static void test_empty_core(void)
{
    pl_env *env = pl_env_new("/nonexistent");
    pl_registry_sel sel;
    CHECK_EQ_U64(pl_registered_count(), 0);
    CHECK(pl_registered(0) == NULL);
    CHECK(env != NULL);
    if (!env)
        return;
    CHECK_EQ_U64(pl_env_counterset_count(env), 0);
    CHECK(pl_env_find(env, "Processor Information") == NULL);
    CHECK(pl_registry_parse(env, "Global", &sel) == 0 && sel.nsets == 0);
    pl_env_unref(env);
}

static void test_register_and_collect(void)
{
    const pl_counterset_def *def = NULL, *again = NULL, *cs;
    const pl_counter_def *c;
    pl_env *before = pl_env_new("/nonexistent"), *env;
    char msg[200];
    int help;
    CHECK(pl_register_counterset(&set1, &def, msg, sizeof msg) == 0);
    CHECK(def != NULL && def != &set1);              /* a copy that carries its index */
    if (!def || !before)
        return;
    CHECK_EQ_U64(def->index, IDX1);
    CHECK(def->counters == set1.counters && strcmp(def->name, "Door One") == 0);
    /* the same definition again is a no-op with the same answer */
    CHECK(pl_register_counterset(&set1, &again, NULL, 0) == 0 && again == def);
    CHECK_EQ_U64(pl_registered_count(), 1);
    CHECK(pl_registered(0) == def);
    /* environments made from now on have it; one made before does not */
    CHECK_EQ_U64(pl_env_counterset_count(before), 0);
    pl_env_unref(before);
    env = pl_env_new("/nonexistent");
    CHECK(env && pl_env_find(env, "door one") == def);
    if (!env)
        return;
    CHECK(pl_env_lookup_index(env, IDX1 + 4, &cs, &c, &help) == 0 && cs == def && c &&
          strcmp(c->name, "Events") == 0 && !help);
    /* collected like any built-in set */
    pl_query *q = pl_query_new(env);
    pl_sample *s = NULL;
    pl_add_status st;
    uint32_t idx;
    double v = 0;
    CHECK(q && pl_query_add_path(q, "\\Door One\\*", &st, &idx) == 0 && st == 0);
    CHECK(q && pl_query_collect(q, &s) == 0 && s && s->nblocks == 1);
    if (s && s->nblocks == 1 && s->blocks[0].ninst == 1 && s->blocks[0].ncounters == 2) {
        CHECK(pl_sample_format(s, &s->blocks[0], 0, 0, NULL, NULL, &v) == PL_VALID);
        CHECK_NEAR(v, DOOR_TICKS, 0);
        CHECK(pl_sample_format(s, &s->blocks[0], 0, 1, NULL, NULL, &v) == PL_VALID);
        CHECK_NEAR(v, (double)DOOR_EVENTS, 0);
    } else {
        CHECK(!"one block, one instance, two counters");
    }
    free(s);
    pl_query_free(q);
    pl_env_unref(env);
}

static void test_fixed_indexes(void)
{
    static const pl_counterset_def a = DOOR_SET(0x7e57f001, 1, "Door Fixed A", 5000);
    static const pl_counterset_def b = DOOR_SET(0x7e57f002, 2, "Door Fixed B", 5000);
    static const pl_counterset_def odd = DOOR_SET(0x7e57f003, 3, "Door Odd", 5500);
    static const pl_counterset_def high = DOOR_SET(0x7e57f004, 4, "Door High",
                                                   PL_INDEX_ASSIGNED_BASE + 7000);
    const pl_counterset_def *def = &a;
    char msg[200];
    CHECK(pl_register_counterset(&a, &def, msg, sizeof msg) == 0 && def == &a);
    CHECK(pl_register_counterset(&b, &def, msg, sizeof msg) == EEXIST && def == NULL);
    CHECK_STR(msg, "counterset 'Door Fixed B': title indexes 5000..5999 are taken by 'Door Fixed A'");
    CHECK(pl_register_counterset(&odd, NULL, msg, sizeof msg) == EINVAL);
    CHECK_STR(msg, "counterset 'Door Odd': title index 5500 is not a multiple of 1000");
    CHECK(pl_register_counterset(&high, NULL, msg, sizeof msg) == EINVAL);
    CHECK_STR(msg, "counterset 'Door High': title index 1000007000 is in the range perflib "
              "assigns (1000000000 and up); ask for PL_INDEX_ASSIGN");
    CHECK(pl_register_counterset(NULL, NULL, msg, sizeof msg) == EINVAL);
    CHECK_STR(msg, "a counterset needs a name, provider ops and its counters");
    /* ops that cannot open (neither open nor open_set) would be called through NULL */
    static const pl_provider_ops no_open = { NULL, NULL, NULL, NULL, NULL, NULL };
    pl_counterset_def closed = DOOR_SET(0x7e57f005, 5, "Door Closed", 6000);
    closed.ops = &no_open;
    CHECK(pl_register_counterset(&closed, NULL, msg, sizeof msg) == EINVAL);
    CHECK_STR(msg, "a counterset needs a name, provider ops and its counters");
    CHECK_EQ_U64(pl_registered_count(), 2);          /* Door One, Door Fixed A */
}

static void test_duplicates(void)
{
    static const pl_counterset_def same_guid = DOOR_SET(0x7e570001, 0x0001, "Door Other",
                                                        PL_INDEX_ASSIGN);
    static const pl_counterset_def same_name = DOOR_SET(0x7e57d001, 1, "DOOR one", 9000);
    char msg[200];
    CHECK(pl_register_counterset(&same_guid, NULL, msg, sizeof msg) == EEXIST);
    CHECK_STR(msg, "counterset 'Door Other': GUID 7e570001-0000-4000-8000-000000000001 is "
              "already registered by 'Door One'");
    CHECK(pl_register_counterset(&same_name, NULL, msg, sizeof msg) == EEXIST);
    CHECK_STR(msg, "counterset name 'DOOR one' is already registered");
    /* an environment's own sets pass the same checks */
    pl_env *env = pl_env_new("/nonexistent");
    CHECK(env != NULL);
    if (!env)
        return;
    CHECK(pl_env_register(env, &same_name) == EEXIST);
    CHECK(pl_env_register(env, &same_guid) == EINVAL);      /* no assigned index per env */
    CHECK_EQ_U64(pl_registered_count(), 2);
    pl_env_unref(env);
}

/* Registers the named sets in argument order and prints "name index". */
static int child(int argc, char **argv)
{
    for (int i = 0; i < argc; i++) {
        const pl_counterset_def *def = NULL;
        int k = atoi(argv[i]);
        if (k < 0 || k >= (int)(sizeof named / sizeof named[0]) ||
            pl_register_counterset(named[k], &def, NULL, 0) != 0)
            return 1;
        printf("%s %u\n", def->name, (unsigned)def->index);
    }
    return 0;
}

/* The other process's index for each named set, registered in `order`. */
static int run_child(const char *order, uint32_t out[5])
{
    char cmd[4200], name[64], line[128];
    unsigned idx;
    int n = 0;
    snprintf(cmd, sizeof cmd, "'%s' child %s", self, order);
    FILE *p = popen(cmd, "r");
    if (!p)
        return -1;
    memset(out, 0, 5 * sizeof *out);
    while (fgets(line, sizeof line, p)) {
        char *sp = strrchr(line, ' ');
        if (!sp || sscanf(sp + 1, "%u", &idx) != 1)
            continue;
        snprintf(name, sizeof name, "%.*s", (int)(sp - line), line);
        for (int k = 0; k < 5; k++)
            if (strcmp(named[k]->name, name) == 0)
                out[k] = idx, n++;
    }
    return pclose(p) == 0 ? n : -1;
}

static void test_stable_across_runs(void)
{
    const pl_counterset_def *d2 = NULL, *d3 = NULL, *dc1 = NULL, *dc2 = NULL;
    uint32_t other[5];
    /* here: 1 (already in), 2, 3, then C1 before C2 */
    CHECK(pl_register_counterset(&set2, &d2, NULL, 0) == 0);
    CHECK(pl_register_counterset(&set3, &d3, NULL, 0) == 0);
    CHECK(pl_register_counterset(&c1, &dc1, NULL, 0) == 0);
    CHECK(pl_register_counterset(&c2, &dc2, NULL, 0) == 0);
    if (!d2 || !d3 || !dc1 || !dc2)
        return;
    CHECK_EQ_U64(d2->index, IDX2);
    CHECK_EQ_U64(d3->index, IDX3);
    CHECK_EQ_U64(dc1->index, IDXC);                  /* its home slot */
    CHECK_EQ_U64(dc2->index, IDXC + PL_INDEX_SPAN);  /* taken: the next one up */
    /* another process, the other way round: the same indexes for 1, 2, 3 ... */
    CHECK(run_child("4 3 2 1 0", other) == 5);
    CHECK_EQ_U64(other[0], IDX1);
    CHECK_EQ_U64(other[1], IDX2);
    CHECK_EQ_U64(other[2], IDX3);
    /* ... and the documented limit: of two sets sharing a home slot, the
     * first registered keeps it */
    CHECK_EQ_U64(other[4], IDXC);
    CHECK_EQ_U64(other[3], IDXC + PL_INDEX_SPAN);
    /* one set alone gets the same index as among the others */
    CHECK(run_child("2", other) == 1);
    CHECK_EQ_U64(other[2], IDX3);
    CHECK(run_child("3", other) == 1);
    CHECK_EQ_U64(other[3], IDXC);
}

/* Environments take sets published after them when they sync; a set of an
 * environment's own keeps its place against a later registered one. */
static void test_sync(void)
{
    static const pl_counterset_def late = DOOR_SET(0x7e57e001, 1, "Door Late", PL_INDEX_ASSIGN);
    static const pl_counterset_def own = DOOR_SET(0x7e57e002, 2, "Door Own", 8000);
    static const pl_counterset_def clash = DOOR_SET(0x7e57e003, 3, "Door Clash", 8000);
    const pl_counterset_def *def = NULL;
    pl_env *env = pl_env_new("/nonexistent"), *mine = pl_env_new("/nonexistent");
    CHECK(env && mine);
    if (!env || !mine)
        return;
    uint32_t n = pl_env_counterset_count(env);
    CHECK_EQ_U64(n, pl_registered_count());
    CHECK(pl_env_register(mine, &own) == 0);
    CHECK(pl_register_counterset(&late, &def, NULL, 0) == 0 && def);
    CHECK(pl_register_counterset(&clash, NULL, NULL, 0) == 0);    /* 8000 is free here */
    CHECK(pl_env_find(env, "Door Late") == NULL);
    CHECK(pl_env_sync(env) == 0);
    CHECK_EQ_U64(pl_env_counterset_count(env), n + 2);
    CHECK(pl_env_find(env, "Door Late") == def && pl_env_find(env, "Door Clash") == &clash);
    CHECK(pl_env_sync(env) == 0 && pl_env_counterset_count(env) == n + 2);
    /* the environment with a set of its own at 8000 takes Door Late, not Door Clash */
    CHECK(pl_env_sync(mine) == EEXIST);
    CHECK_EQ_U64(pl_env_counterset_count(mine), n + 2);
    CHECK(pl_env_find(mine, "Door Late") == def && pl_env_find(mine, "Door Clash") == NULL);
    CHECK(pl_env_find(mine, "Door Own") == &own);
    pl_env_unref(env);
    pl_env_unref(mine);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "child") == 0)
        return child(argc - 2, argv + 2);
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return 1;
    self[n] = '\0';
    RUN(test_empty_core);
    RUN(test_register_and_collect);
    RUN(test_fixed_indexes);
    RUN(test_duplicates);
    RUN(test_stable_across_runs);
    RUN(test_sync);
    return CT_END();
}
