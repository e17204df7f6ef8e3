/* Issue 16: a collect refilled into a kept buffer allocates nothing.
 *
 * Every malloc, calloc and realloc of the process is counted: through
 * glibc's __libc_* entry points in a plain build, and through the
 * sanitizer's allocation hooks under ASan (which owns malloc there).  After
 * a first collect (the providers open their files, the buffer grows), each
 * further pl_query_collect_with into the same pl_membuf must allocate
 * nothing, and its values must still be the machine's. */
#include "ctest.h"
#include "perflib.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static unsigned long allocs;

#if defined(__SANITIZE_ADDRESS__)
/* libasan's (gcc ships no header for it) */
int __sanitizer_install_malloc_and_free_hooks(void (*m)(const volatile void *, size_t),
                                              void (*f)(const volatile void *));
static void on_malloc(const volatile void *p, size_t n)
{
    (void)p;
    (void)n;
    allocs++;
}
static void on_free(const volatile void *p) { (void)p; }
static void count_allocs(void) { __sanitizer_install_malloc_and_free_hooks(on_malloc, on_free); }
#else
/* the executable's malloc comes first: count, then glibc's own */
void *__libc_malloc(size_t n);
void *__libc_calloc(size_t k, size_t n);
void *__libc_realloc(void *p, size_t n);
void *malloc(size_t n);
void *calloc(size_t k, size_t n);
void *realloc(void *p, size_t n);
void *malloc(size_t n) { allocs++; return __libc_malloc(n); }
void *calloc(size_t k, size_t n) { allocs++; return __libc_calloc(k, n); }
void *realloc(void *p, size_t n) { allocs++; return __libc_realloc(p, n); }
static void count_allocs(void) { }
#endif

#define FIX "spec/fixtures/basic"

static pl_query *query_of(pl_env *env, const char *const *paths, unsigned n)
{
    pl_query *q = pl_query_new(env);
    for (unsigned i = 0; q && i < n; i++) {
        pl_add_status st = PL_ADD_OK;
        CHECK(pl_query_add_path(q, paths[i], &st, NULL) == 0);
        CHECK(st == PL_ADD_OK);
    }
    return q;
}

/* The raw value of counter c of instance 0 in block k. */
static uint64_t raw(const pl_sample *s, uint32_t k, uint32_t c)
{
    const pl_block *b = &s->blocks[k];
    CHECK(b->shape != PERF_ERROR_RETURN && b->ninst >= 1 && c < b->ncounters);
    return b->shape == PERF_ERROR_RETURN ? 0 : s->vals[b->vals_off + c].v;
}

/* Collects into mb n times; the allocations of the last n - 1. */
static unsigned long refills(pl_query *q, pl_membuf *mb, int n, pl_sample **last)
{
    unsigned long start = allocs, before = 0;
    for (int i = 0; i < n; i++) {
        if (i == 1)
            before = allocs;
        CHECK(pl_query_collect_with(q, pl_membuf_alloc, mb, last) == 0);
    }
    CHECK(before > start);       /* the counter sees the first one's (the buffer grew) */
    return allocs - before;
}

/* One set with one value: \System\Threads of the fixture (loadavg 3/102). */
static void test_one_set(void)
{
    pl_env *env = pl_env_new(FIX);
    static const char *const paths[] = { "\\System\\Threads" };
    pl_query *q = query_of(env, paths, 1);
    pl_membuf mb = { 0 };
    pl_sample *s = NULL;
    CHECK_EQ_U64(refills(q, &mb, 50, &s), 0);
    if (s) {
        CHECK_EQ_U64(s->seq, 50);           /* every collect made a sample */
        CHECK_EQ_U64(s->nblocks, 1);
        CHECK_EQ_U64(raw(s, 0, 0), 102);    /* loadavg's nr_threads */
        CHECK((void *)s == mb.mem);         /* refilled in place */
    }
    free(mb.mem);
    pl_query_free(q);
    pl_env_unref(env);
}

/* Several sets, kernel sources shared between them, a wildcard set. */
static void test_several_sets(void)
{
    pl_env *env = pl_env_new(FIX);
    static const char *const paths[] = {
        "\\Memory\\Available Bytes", "\\System\\Threads", "\\System\\Processor Queue Length",
        "\\Processor(*)\\% Processor Time",
    };
    pl_query *q = query_of(env, paths, 4);
    pl_membuf mb = { 0 };
    pl_sample *s = NULL;
    CHECK_EQ_U64(refills(q, &mb, 20, &s), 0);
    if (s && s->nblocks == 4) {
        CHECK_EQ_U64(raw(s, 0, 0), 23781276ull * 1024);     /* MemAvailable 23781276 kB */
        CHECK_EQ_U64(raw(s, 1, 0), 102);
        CHECK_EQ_U64(raw(s, 2, 0), 3 - 1);                   /* 3 running, less the reader */
        CHECK(s->blocks[3].ninst >= 2);                     /* the CPUs and _Total */
    }
    free(mb.mem);
    pl_query_free(q);
    pl_env_unref(env);
}

/* An empty set (Hardware Sensors where there is no hwmon class): the
 * sample still has its block, no instance, and the one clock read. */
static void test_empty_set(void)
{
    pl_env *env = pl_env_new(FIX);
    static const char *const paths[] = { "\\Hardware Sensors(*)\\*" };
    pl_query *q = query_of(env, paths, 1);
    pl_membuf mb = { 0 };
    pl_sample *s = NULL;
    int64_t before, after;
    CHECK_EQ_U64(refills(q, &mb, 50, &s), 0);
    pl_now(&before, NULL, NULL);
    CHECK(pl_query_collect_with(q, pl_membuf_alloc, &mb, &s) == 0);
    pl_now(&after, NULL, NULL);
    if (s) {
        CHECK_EQ_U64(s->nblocks, 1);
        CHECK_EQ_U64(s->blocks[0].ninst, 0);
        CHECK(s->blocks[0].shape == PERF_COUNTERSET && s->blocks[0].status == PL_VALID);
        CHECK(s->blocks[0].err == 0 && s->blocks[0].err_msg == NULL);
        /* a one-set query's instants are its set's, read between ours */
        CHECK(s->perf_time == s->blocks[0].time);
        CHECK(s->perf_time >= before && s->perf_time <= after);
        CHECK_EQ_U64(s->perf_freq, 10000000);
    }
    free(mb.mem);
    pl_query_free(q);
    pl_env_unref(env);
}

static void *no_memory(void *ud, size_t size)
{
    (void)ud;
    (void)size;
    return NULL;
}

/* An allocator that fails: ENOMEM and no sample, and the next collect works. */
static void test_alloc_fails(void)
{
    pl_env *env = pl_env_new(FIX);
    static const char *const paths[] = { "\\System\\Threads" };
    pl_query *q = query_of(env, paths, 1);
    pl_membuf mb = { 0 };
    pl_sample *s = (pl_sample *)&mb;
    CHECK(pl_query_collect_with(q, no_memory, NULL, &s) == ENOMEM);
    CHECK(s == NULL);
    CHECK(pl_query_collect_with(q, pl_membuf_alloc, &mb, &s) == 0);
    if (s)
        CHECK_EQ_U64(raw(s, 0, 0), 102);
    free(mb.mem);
    pl_query_free(q);
    pl_env_unref(env);
}

int main(void)
{
    count_allocs();
    RUN(test_one_set);
    RUN(test_several_sets);
    RUN(test_empty_set);
    RUN(test_alloc_fails);
    return CT_END();
}
