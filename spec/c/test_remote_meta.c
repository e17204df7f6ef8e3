/* A remote machine's metadata (src/providers/remote.c) read from C alone:
 * this machine's own /api/v1/countersets text (pl_expose_metadata) reads
 * back whole, and hand-written answers that are not perflib's are refused
 * with a sentence naming the set and field at fault, never half taken. */
#include "ctest.h"
#include "pl_expose.h"
#include "remote.h"

#include <errno.h>
#include <string.h>

/* One set around the counters text c (JSON objects). */
#define SET(name, counters) "{\"countersets\":[{\"name\":\"" name "\",\"guid\":\"146c2676-5548-53f3-b7e0-" \
    "d4bd5161f27f\",\"help\":\"h\",\"instance_type\":\"single\",\"index\":1000,\"costly\":false,\"counters\":[" \
    counters "]}]}"
#define CTR(id, type, base, unit, size) "{\"id\":" id ",\"name\":\"c" id "\",\"help\":\"\",\"type\":" type \
    ",\"base_id\":" base ",\"detail\":100,\"scale\":0,\"size\":" size ",\"unit\":\"" unit "\",\"unit_scale\":1," \
    "\"semantics\":\"gauge\"}"
/* A set with no counters, by name and GUID */
#define SET_BODY(name, guid) "{\"name\":\"" name "\",\"guid\":\"" guid "\",\"help\":\"\"," \
    "\"instance_type\":\"multiple\",\"index\":2000,\"costly\":true,\"counters\":[]}"
/* PERF_COUNTER_RAWCOUNT (65536), PERF_RAW_FRACTION (537003008) and PERF_RAW_BASE (1073939459) */
#define RAW "65536"

static int check(const char *json, uint32_t *n, char *msg, size_t size)
{
    msg[0] = '\0';
    return pl_remote_check_metadata(json, strlen(json), n, msg, size);
}

static void test_own_metadata(void)
{
    pl_env *env = pl_env_new(NULL);
    pl_text t = { 0 };
    char msg[256];
    uint32_t n = 0;
    CHECK(env && pl_expose_metadata(env, &t) == 0);
    CHECK_EQ_U64(pl_remote_check_metadata(t.p, t.len, &n, msg, sizeof msg), 0);
    CHECK_EQ_U64(n, pl_env_counterset_count(env));
    pl_text_free(&t);
    pl_env_unref(env);
}

static void test_good_by_hand(void)
{
    char msg[256];
    uint32_t n = 0;
    CHECK_EQ_U64(check(SET("S", CTR("0", "537003008", "1", "ratio", "4") "," CTR("1", "1073939459", "null", "none",
                                                                               "4")), &n, msg, sizeof msg), 0);
    CHECK_EQ_U64(n, 1);
    CHECK_EQ_U64(check("{\"countersets\":[]}", &n, msg, sizeof msg), 0);
    CHECK_EQ_U64(n, 0);
}

/* json is refused with EPROTO and a sentence that holds want. */
static void refused(const char *json, const char *want)
{
    char msg[256];
    uint32_t n = 77;
    int e = check(json, &n, msg, sizeof msg);
    CHECK_EQ_U64(e, EPROTO);
    CHECK_EQ_U64(n, 77);                 /* nothing written on failure */
    if (!strstr(msg, want)) {
        ct_failed_checks++;
        fprintf(stderr, "  sentence \"%s\" lacks \"%s\"\n", msg, want);
    }
}

static void test_refused(void)
{
    refused("not json", "the metadata is not perflib's");
    refused("{\"sets\":[]}", "no countersets array");
    refused("{\"countersets\":[],\"countersets\":[]}", "the metadata is not perflib's");   /* duplicate key */
    refused(SET("S", CTR("0", RAW, "null", "count", "4") "," CTR("0", RAW, "null", "count", "4")),
            "counter id 0 twice");
    refused(SET("S", CTR("0", RAW, "null", "furlongs", "4")), "units are not perflib's");
    refused(SET("S", CTR("0", RAW, "null", "count", "5")), "units are not perflib's");
    refused(SET("S", CTR("0", "12345", "null", "count", "4")), "units are not perflib's");   /* no such type */
    refused(SET("S", CTR("999", RAW, "null", "count", "4")), "'id' is not an integer in [0, 498]");
    refused(SET("S", CTR("-1", RAW, "null", "count", "4")), "'id' is not an integer");
    refused(SET("a\\\\b", CTR("0", RAW, "null", "count", "4")), "are not perflib's");   /* a '\' in the name */
    refused(SET("", CTR("0", RAW, "null", "count", "4")), "'name' is not a string");
    refused(SET("S", "42"), "a counter is not an object");
    refused("{\"countersets\":[{\"name\":\"S\",\"guid\":\"nope\",\"instance_type\":\"single\",\"counters\":[]}]}",
            "its guid, instance_type, name or counters are not perflib's");
    refused("{\"countersets\":[{\"name\":\"S\",\"guid\":\"146c2676-5548-53f3-b7e0-d4bd5161f27f\","
            "\"instance_type\":\"single\",\"index\":7,\"counters\":[]}]}", "'index' is not an integer");
    /* two sets of one name */
    refused("{\"countersets\":[" SET_BODY("S", "{aaaaaaaa-5548-53f3-b7e0-d4bd5161f27f}") ","
            SET_BODY("s", "{bbbbbbbb-5548-53f3-b7e0-d4bd5161f27f}") "]}", "clashes with another of its sets");
}

int main(void)
{
    RUN(test_own_metadata);
    RUN(test_good_by_hand);
    RUN(test_refused);
    return CT_END();
}
