/***
 * An HTTP server of this machine's counters, on libmicrohttpd: what
 * `perflua serve` runs.  Prometheus scrapes `/metrics` (its text format, or
 * OpenMetrics when its Accept header asks); other perflib hosts read
 * `/api/v1/countersets` (the metadata, JSON) and post counter paths to
 * `/api/v1/query` for a data block (V2, or V1 with `?format=v1`); `/healthz`
 * and `/readyz` answer probes.
 *
 * The server runs in its own threads and never calls into Lua: it has its
 * own machine (the registered countersets: built-in, plug-ins, application
 * providers, textfiles; not sets `perflib.define` made, whose functions live
 * in a Lua state), and scrapes that arrive while one is being collected
 * share it.  Access: loopback addresses only, unless a bearer token or TLS
 * is configured; a token, when set, is required on every request.
 * @module perflib
 */
#include "lpl.h"
#include "pl_expose.h"
#include "pl_datablock.h"
#include "pl_v1.h"
#include "pl_codes.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* libmicrohttpd is opened at the first perflib.serve, not linked: a program
 * that never serves never loads it, nor GnuTLS and p11-kit behind it, whose
 * exit-time destructor deadlocks a program run with a preloaded
 * AddressSanitizer (as the specs run perflua); one without the library gets
 * an error from perflib.serve instead of failing to load. */
static struct mhd_api {
    struct MHD_Daemon *(*start_daemon)(unsigned int, uint16_t, MHD_AcceptPolicyCallback, void *,
                                       MHD_AccessHandlerCallback, void *, ...);
    void (*stop_daemon)(struct MHD_Daemon *);
    const union MHD_DaemonInfo *(*get_daemon_info)(struct MHD_Daemon *, enum MHD_DaemonInfoType, ...);
    struct MHD_Response *(*create_response_from_buffer)(size_t, void *, enum MHD_ResponseMemoryMode);
    enum MHD_Result (*add_response_header)(struct MHD_Response *, const char *, const char *);
    enum MHD_Result (*queue_response)(struct MHD_Connection *, unsigned int, struct MHD_Response *);
    void (*destroy_response)(struct MHD_Response *);
    const char *(*lookup_connection_value)(struct MHD_Connection *, enum MHD_ValueKind, const char *);
    enum MHD_Result (*is_feature_supported)(enum MHD_FEATURE);
} M;

#define MSYM(f) { "MHD_" #f, offsetof(struct mhd_api, f) }
static const struct { const char *name; size_t off; } msyms[] = {
    MSYM(start_daemon), MSYM(stop_daemon), MSYM(get_daemon_info), MSYM(create_response_from_buffer),
    MSYM(add_response_header), MSYM(queue_response), MSYM(destroy_response), MSYM(lookup_connection_value),
    MSYM(is_feature_supported),
};

/* NULL once libmicrohttpd is open, else why not (tried once). */
static const char *open_mhd(void)
{
    static pthread_mutex_t once = PTHREAD_MUTEX_INITIALIZER;
    static int tried;
    static const char *why = "libmicrohttpd not loaded";
    pthread_mutex_lock(&once);
    if (!tried) {
        tried = 1;
        void *h = dlopen("libmicrohttpd.so.12", RTLD_NOW | RTLD_LOCAL);
        why = h ? NULL : "cannot load libmicrohttpd.so.12: install libmicrohttpd12";
        for (size_t i = 0; h && !why && i < sizeof msyms / sizeof msyms[0]; i++) {
            void *f = dlsym(h, msyms[i].name);
            if (!f)
                why = "libmicrohttpd.so.12 lacks a function perflib needs";
            else
                memcpy((char *)&M + msyms[i].off, &f, sizeof f);   /* object to function pointer, as POSIX allows */
        }
    }
    pthread_mutex_unlock(&once);
    return why;
}

#define SERVER_MT "perflib.Server"
#define MAX_BODY_DEFAULT 65536u
#define MAX_CLIENTS_DEFAULT 64u
#define TIMEOUT_DEFAULT 10u
#define MAX_SPECS 64u
#define NCODES 6
#define NPOSTED 8

static const unsigned codes[NCODES] = { 200, 400, 401, 404, 405, 413 };

typedef struct server {
    struct MHD_Daemon *d;
    pl_env *env;
    pthread_mutex_t lock;            /* everything below */
    pthread_cond_t cv;
    pl_query *q;                     /* the configured collection */
    uint32_t built_for;              /* env's set count when q was built */
    char *specs[MAX_SPECS];          /* collection strings ("Global") and counter paths */
    uint32_t nspecs;
    uint64_t want, done;             /* scrapes asked for, and answered by the last collect */
    int busy;
    struct {                         /* the queries of recent posted bodies, kept open: a
                                        remote reader posts the same body at every collect */
        char *body;
        size_t len;
        pl_query *q;
        uint64_t used;
    } posted[NPOSTED];
    uint64_t posts;
    pl_sample *last;                 /* the last collect */
    pl_expose_cache *names;          /* metric names of env's definitions */
    pl_text text[2];                 /* last rendered, per format */
    uint64_t text_of[2];             /* the collect each was rendered from */
    double last_seconds;
    uint64_t scrapes, collect_errors, requests[NCODES + 1];
    char *token;
    size_t max_body;
    uint16_t port;
    int ready, closed;
} server;

/* Per request: a posted body, bounded. */
typedef struct upload {
    char *p;
    size_t len;
    int too_big;
} upload;

/* ---- collection ---------------------------------------------------------------------- */

/* (Re)builds the query when the machine's sets changed: new providers and
 * textfiles join a "Global" collection without a restart. */
static int build_query(server *s)
{
    uint32_t n;
    pl_env_sync(s->env);
    n = pl_env_counterset_count(s->env);
    if (s->q && n == s->built_for)
        return 0;
    pl_query *q = pl_query_new(s->env);
    if (!q)
        return ENOMEM;
    for (uint32_t i = 0; i < s->nspecs; i++) {
        pl_registry_sel sel;
        pl_add_status st;
        uint32_t first, count, idx;
        if (s->specs[i][0] != '\\' && pl_registry_parse(s->env, s->specs[i], &sel) == 0)
            pl_query_add_sets(q, &sel, &first, &count);
        else
            pl_query_add_path(q, s->specs[i], &st, &idx);   /* one that does not resolve now may later */
    }
    pl_query_free(s->q);
    s->q = q;
    s->built_for = n;
    return 0;
}

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* One collect for every scrape waiting when it starts (called locked; unlocks
 * while collecting). */
static void collect_locked(server *s)
{
    uint64_t target = s->want;
    pl_sample *smp = NULL;
    s->busy = 1;
    pthread_mutex_unlock(&s->lock);
    double t0 = now_seconds();
    int e = build_query(s);
    if (!e)
        e = pl_query_collect(s->q, &smp);
    double t1 = now_seconds();
    pthread_mutex_lock(&s->lock);
    if (!e) {
        free(s->last);
        s->last = smp;
        s->ready = 1;
    } else {
        s->collect_errors++;
    }
    s->last_seconds = t1 - t0;
    s->scrapes++;
    s->done = target;
    s->busy = 0;
    pthread_cond_broadcast(&s->cv);
}

/* The process's own numbers, as Prometheus' client libraries name them. */
static void put_process(pl_text *t, int fmt, const server *s)
{
    struct rusage ru;
    struct rlimit rl;
    long rss = 0, vsz = 0, pages = sysconf(_SC_PAGESIZE);
    unsigned fds = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%ld %ld", &vsz, &rss) != 2)
            vsz = rss = 0;
        fclose(f);
    }
    DIR *dp = opendir("/proc/self/fd");
    for (struct dirent *de; dp && (de = readdir(dp)) != NULL;)
        fds += de->d_name[0] != '.';
    if (dp)
        closedir(dp);
    getrusage(RUSAGE_SELF, &ru);
    getrlimit(RLIMIT_NOFILE, &rl);
    double cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec +
                 ((double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_usec) / 1e6;
    pl_expose_family(t, fmt, "process_cpu_seconds_total", "counter", "Total user and system CPU time spent in seconds.");
    pl_text_printf(t, "process_cpu_seconds_total %.6f\n", cpu);
    pl_expose_family(t, fmt, "process_resident_memory_bytes", "gauge", "Resident memory size in bytes.");
    pl_text_printf(t, "process_resident_memory_bytes %ld\n", rss * pages);
    pl_expose_family(t, fmt, "process_virtual_memory_bytes", "gauge", "Virtual memory size in bytes.");
    pl_text_printf(t, "process_virtual_memory_bytes %ld\n", vsz * pages);
    pl_expose_family(t, fmt, "process_open_fds", "gauge", "Number of open file descriptors.");
    pl_text_printf(t, "process_open_fds %u\n", fds);
    pl_expose_family(t, fmt, "process_max_fds", "gauge", "Maximum number of open file descriptors.");
    pl_text_printf(t, "process_max_fds %llu\n", (unsigned long long)rl.rlim_cur);
    pl_expose_family(t, fmt, "perflib_serve_scrapes_total", "counter", "Collects made for /metrics (shared by the "
                     "scrapes that arrived while one ran).");
    pl_text_printf(t, "perflib_serve_scrapes_total %llu\n", (unsigned long long)s->scrapes);
    pl_expose_family(t, fmt, "perflib_serve_collect_errors_total", "counter", "Collects that failed as a whole.");
    pl_text_printf(t, "perflib_serve_collect_errors_total %llu\n", (unsigned long long)s->collect_errors);
    pl_expose_family(t, fmt, "perflib_serve_collect_duration_seconds", "gauge", "How long the last collect took.");
    pl_text_printf(t, "perflib_serve_collect_duration_seconds %.9f\n", s->last_seconds);
    pl_expose_family(t, fmt, "perflib_serve_requests_total", "counter", "Requests answered, by status code.");
    for (unsigned i = 0; i < NCODES; i++)
        pl_text_printf(t, "perflib_serve_requests_total{code=\"%u\"} %llu\n", codes[i],
                       (unsigned long long)s->requests[i]);
}

/* The /metrics text of a fresh collect, copied: NULL with *code set when none. */
static char *scrape(server *s, int fmt, size_t *len, unsigned *code)
{
    char *out = NULL;
    pthread_mutex_lock(&s->lock);
    uint64_t my = ++s->want;
    while (s->done < my && !s->closed) {
        if (!s->busy)
            collect_locked(s);
        else
            pthread_cond_wait(&s->cv, &s->lock);
    }
    if (s->last && s->text_of[fmt] != s->done) {
        s->text[fmt].len = 0;
        s->text[fmt].oom = 0;
        pl_expose(s->last, fmt, s->names, &s->text[fmt]);
        s->text_of[fmt] = s->done;
    }
    if (s->last && !s->text[fmt].oom) {
        pl_text t = { 0 };
        pl_text_put(&t, s->text[fmt].p, s->text[fmt].len);
        put_process(&t, fmt, s);
        pl_expose_end(fmt, &t);
        out = t.oom ? (free(t.p), NULL) : t.p;
        *len = t.len;
    }
    *code = out ? MHD_HTTP_OK : MHD_HTTP_SERVICE_UNAVAILABLE;
    pthread_mutex_unlock(&s->lock);
    return out;
}

/* A query of the posted paths (one a line), new: NULL with a sentence in msg. */
static pl_query *posted_query(server *s, const upload *up, char *msg, size_t size)
{
    char *body = strndup(up->p ? up->p : "", up->len);
    uint32_t line = 0, added = 0;
    pl_query *q = body ? pl_query_new(s->env) : NULL;
    for (char *save = NULL, *l = q ? strtok_r(body, "\r\n", &save) : NULL; l; l = strtok_r(NULL, "\r\n", &save)) {
        pl_add_status st = PL_ADD_OK;
        uint32_t idx;
        line++;
        if (pl_query_add_path(q, l, &st, &idx) != 0 || (st != PL_ADD_OK && st != PL_ADD_DUPLICATE)) {
            /* the status as a number is PerfAddCounters' Win32 code, as it always was */
            snprintf(msg, size, "line %u: '%.200s' names no counter here (status %u)\n", (unsigned)line, l,
                     (unsigned)pl_add_status_win32(st));
            pl_query_free(q);
            q = NULL;
            break;
        }
        added++;
    }
    if (q && added == 0) {
        snprintf(msg, size, "post counter paths, one a line\n");
        pl_query_free(q);
        q = NULL;
    } else if (!q && !msg[0]) {
        snprintf(msg, size, "out of memory\n");
    }
    free(body);
    return q;
}

/* The kept query of this body, or a new one kept in the least recently used
 * place (called locked): NULL with a sentence in msg. */
static pl_query *kept_query(server *s, const upload *up, char *msg, size_t size)
{
    uint32_t lru = 0;
    s->posts++;
    for (uint32_t i = 0; i < NPOSTED; i++) {
        if (s->posted[i].q && s->posted[i].len == up->len && memcmp(s->posted[i].body, up->p, up->len) == 0) {
            s->posted[i].used = s->posts;
            return s->posted[i].q;
        }
        if (s->posted[i].used < s->posted[lru].used)
            lru = i;
    }
    pl_query *q = posted_query(s, up, msg, size);
    char *body = q ? malloc(up->len ? up->len : 1) : NULL;
    if (!body) {
        pl_query_free(q);
        return NULL;
    }
    memcpy(body, up->p, up->len);
    pl_query_free(s->posted[lru].q);
    free(s->posted[lru].body);
    s->posted[lru].body = body;
    s->posted[lru].len = up->len;
    s->posted[lru].q = q;
    s->posted[lru].used = s->posts;
    return q;
}

/* A data block of one collect of the posted paths: NULL with a sentence in msg. */
static void *query_block(server *s, const upload *up, int v1, size_t *len, char *msg, size_t size)
{
    void *buf = NULL;
    pl_sample *smp = NULL;
    pthread_mutex_lock(&s->lock);
    pl_env_sync(s->env);
    pl_query *q = kept_query(s, up, msg, size);
    if (q && pl_query_collect(q, &smp) != 0)
        snprintf(msg, size, "the collect failed\n");
    if (smp) {
        *len = v1 ? pl_v1_write(smp, "perflib", 0, NULL, 0) : pl_db_size(smp, 1);
        buf = malloc(*len ? *len : 1);
        if (buf)
            *len = v1 ? pl_v1_write(smp, "perflib", 0, buf, *len) : pl_db_write(smp, 1, buf, *len);
    }
    free(smp);
    pthread_mutex_unlock(&s->lock);
    return buf;
}

/* ---- HTTP ---------------------------------------------------------------------------- */

static void count(server *s, unsigned code)
{
    unsigned i = 0;
    while (i < NCODES && codes[i] != code)
        i++;
    pthread_mutex_lock(&s->lock);
    s->requests[i]++;
    pthread_mutex_unlock(&s->lock);
}

static enum MHD_Result answer(struct MHD_Connection *c, server *s, unsigned code, const char *type, void *body,
                              size_t len, enum MHD_ResponseMemoryMode mode)
{
    struct MHD_Response *r = M.create_response_from_buffer(len, body, mode);
    if (!r)
        return MHD_NO;
    M.add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
    if (code == MHD_HTTP_UNAUTHORIZED)
        M.add_response_header(r, MHD_HTTP_HEADER_WWW_AUTHENTICATE, "Bearer realm=\"perflib\"");
    if (code == MHD_HTTP_METHOD_NOT_ALLOWED)
        M.add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, POST");
    enum MHD_Result ok = M.queue_response(c, code, r);
    M.destroy_response(r);
    count(s, code);
    return ok;
}

static enum MHD_Result say(struct MHD_Connection *c, server *s, unsigned code, const char *text)
{
    return answer(c, s, code, "text/plain; charset=utf-8", (void *)(uintptr_t)text, strlen(text),
                  MHD_RESPMEM_MUST_COPY);
}

/* The token, compared in time that does not depend on where it differs. */
static int authorized(struct MHD_Connection *c, const server *s)
{
    if (!s->token)
        return 1;
    const char *h = M.lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
    size_t n = strlen(s->token);
    if (!h || strncmp(h, "Bearer ", 7) != 0 || strlen(h + 7) != n)
        return 0;
    unsigned char diff = 0;
    for (size_t i = 0; i < n; i++)
        diff |= (unsigned char)(h[7 + i] ^ s->token[i]);
    return diff == 0;
}

static int wants_openmetrics(struct MHD_Connection *c)
{
    const char *a = M.lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT);
    return a && strstr(a, "application/openmetrics-text") != NULL;
}

static enum MHD_Result on_get(struct MHD_Connection *c, server *s, const char *url)
{
    if (strcmp(url, "/metrics") == 0) {
        int fmt = wants_openmetrics(c) ? PL_EXPOSE_OPENMETRICS : PL_EXPOSE_TEXT;
        size_t len = 0;
        unsigned code;
        char *text = scrape(s, fmt, &len, &code);
        if (!text)
            return say(c, s, code, "no collect has succeeded yet\n");
        return answer(c, s, code, fmt ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
                                       : "text/plain; version=0.0.4; charset=utf-8", text, len, MHD_RESPMEM_MUST_FREE);
    }
    if (strcmp(url, "/healthz") == 0)
        return say(c, s, MHD_HTTP_OK, "ok\n");
    if (strcmp(url, "/readyz") == 0) {
        pthread_mutex_lock(&s->lock);
        int ready = s->ready;
        pthread_mutex_unlock(&s->lock);
        return say(c, s, ready ? MHD_HTTP_OK : MHD_HTTP_SERVICE_UNAVAILABLE, ready ? "ready\n" : "not yet\n");
    }
    if (strcmp(url, "/api/v1/countersets") == 0) {
        pl_text t = { 0 };
        pthread_mutex_lock(&s->lock);
        pl_env_sync(s->env);
        pl_expose_metadata(s->env, &t);
        pthread_mutex_unlock(&s->lock);
        if (t.oom || !t.p)
            return free(t.p), say(c, s, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n");
        return answer(c, s, MHD_HTTP_OK, "application/json", t.p, t.len, MHD_RESPMEM_MUST_FREE);
    }
    if (strcmp(url, "/api/v1/query") == 0)
        return say(c, s, MHD_HTTP_METHOD_NOT_ALLOWED, "POST counter paths, one a line\n");
    return say(c, s, MHD_HTTP_NOT_FOUND, "not found: /metrics, /healthz, /readyz, /api/v1/countersets, "
                                         "/api/v1/query\n");
}

static enum MHD_Result on_query(struct MHD_Connection *c, server *s, const upload *up)
{
    const char *f = M.lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "format");
    char msg[512] = "";
    size_t len = 0;
    if (f && strcmp(f, "v1") != 0 && strcmp(f, "v2") != 0)
        return say(c, s, MHD_HTTP_BAD_REQUEST, "format is v1 or v2\n");
    void *block = query_block(s, up, f && strcmp(f, "v1") == 0, &len, msg, sizeof msg);
    if (!block)
        return say(c, s, msg[0] ? MHD_HTTP_BAD_REQUEST : MHD_HTTP_INTERNAL_SERVER_ERROR, msg[0] ? msg : "out of memory\n");
    return answer(c, s, MHD_HTTP_OK, "application/octet-stream", block, len, MHD_RESPMEM_MUST_FREE);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                                  const char *version, const char *data, size_t *data_size, void **con_cls)
{
    server *s = cls;
    upload *up = *con_cls;
    (void)version;
    if (strcmp(method, "POST") == 0) {
        if (!up) {                       /* the headers: refuse at once, or start the body */
            if (!authorized(c, s))
                return say(c, s, MHD_HTTP_UNAUTHORIZED, "a bearer token is required\n");
            up = calloc(1, sizeof *up);
            *con_cls = up;
            return up ? MHD_YES : MHD_NO;
        }
        if (*data_size) {                /* a piece of it */
            if (!up->too_big && up->len + *data_size <= s->max_body) {
                char *p = realloc(up->p, up->len + *data_size);
                if (!p)
                    return MHD_NO;
                memcpy(p + up->len, data, *data_size);
                up->p = p;
                up->len += *data_size;
            } else {
                up->too_big = 1;         /* read on, keep nothing */
            }
            *data_size = 0;
            return MHD_YES;
        }
    }
    if (!authorized(c, s))
        return say(c, s, MHD_HTTP_UNAUTHORIZED, "a bearer token is required\n");
    if (strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0)
        return on_get(c, s, url);
    if (strcmp(method, "POST") != 0)
        return say(c, s, MHD_HTTP_METHOD_NOT_ALLOWED, "GET or POST\n");
    if (up->too_big)
        return say(c, s, MHD_HTTP_CONTENT_TOO_LARGE, "the body is larger than max_body\n");
    if (strcmp(url, "/api/v1/query") != 0)
        return say(c, s, MHD_HTTP_NOT_FOUND, "POST goes to /api/v1/query\n");
    return on_query(c, s, up);
}

static void on_done(void *cls, struct MHD_Connection *c, void **con_cls, enum MHD_RequestTerminationCode toe)
{
    upload *up = *con_cls;
    (void)cls, (void)c, (void)toe;
    if (up) {
        free(up->p);
        free(up);
        *con_cls = NULL;
    }
}

/* ---- configuration ---------------------------------------------------------------------- */

/* "ADDR:PORT", "[ADDR6]:PORT" or ":PORT" (loopback) into a socket address. */
static int parse_listen(const char *s, struct sockaddr_storage *ss, int *loopback)
{
    char host[128];
    const char *colon = strrchr(s, ':');
    char *end;
    if (!colon || (size_t)(colon - s) >= sizeof host)
        return EINVAL;
    long port = strtol(colon + 1, &end, 10);
    if (*end || colon[1] == '\0' || port < 0 || port > 65535)
        return EINVAL;
    memcpy(host, s, (size_t)(colon - s));
    host[colon - s] = '\0';
    memset(ss, 0, sizeof *ss);
    if (host[0] == '[' && host[strlen(host) - 1] == ']') {
        struct sockaddr_in6 *a = (struct sockaddr_in6 *)(void *)ss;
        host[strlen(host) - 1] = '\0';
        if (inet_pton(AF_INET6, host + 1, &a->sin6_addr) != 1)
            return EINVAL;
        a->sin6_family = AF_INET6;
        a->sin6_port = htons((uint16_t)port);
        *loopback = IN6_IS_ADDR_LOOPBACK(&a->sin6_addr);
        return 0;
    }
    struct sockaddr_in *a = (struct sockaddr_in *)(void *)ss;
    if (inet_pton(AF_INET, host[0] ? host : "127.0.0.1", &a->sin_addr) != 1)
        return EINVAL;
    a->sin_family = AF_INET;
    a->sin_port = htons((uint16_t)port);
    *loopback = (ntohl(a->sin_addr.s_addr) >> 24) == 127;
    return 0;
}

static server *check_server(lua_State *L)
{
    server *s = luaL_checkudata(L, 1, SERVER_MT);
    if (s->closed)
        luaL_argerror(L, 1, "the server is closed");
    return s;
}

static void server_release(server *s)
{
    if (s->closed)
        return;
    pthread_mutex_lock(&s->lock);
    s->closed = 1;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->lock);
    if (s->d)
        M.stop_daemon(s->d);       /* joins its threads: nothing runs below */
    s->d = NULL;
    pl_query_free(s->q);
    for (uint32_t i = 0; i < NPOSTED; i++) {
        pl_query_free(s->posted[i].q);
        free(s->posted[i].body);
    }
    free(s->last);
    pl_expose_cache_free(s->names);
    for (int f = 0; f < 2; f++)
        pl_text_free(&s->text[f]);
    for (uint32_t i = 0; i < s->nspecs; i++)
        free(s->specs[i]);
    if (s->token) {
        memset(s->token, 0, strlen(s->token));
        free(s->token);
    }
    pl_env_unref(s->env);
    pthread_cond_destroy(&s->cv);
    pthread_mutex_destroy(&s->lock);
}

/* The string field k of the options table at 1, or NULL. */
static const char *opt_string(lua_State *L, const char *k)
{
    lua_getfield(L, 1, k);
    const char *v = lua_isnil(L, -1) ? NULL : lua_tostring(L, -1);
    if (!lua_isnil(L, -1) && (!v || lua_type(L, -1) != LUA_TSTRING))
        luaL_argerror(L, 1, lua_pushfstring(L, "%s must be a string", k));
    lua_pop(L, 1);
    return v;                            /* the table keeps it alive */
}

static unsigned opt_uint(lua_State *L, const char *k, unsigned def, unsigned lo, unsigned hi)
{
    lua_getfield(L, 1, k);
    int isnum = 0;
    lua_Integer v = lua_isnil(L, -1) ? (lua_Integer)def : lua_tointegerx(L, -1, &isnum);
    if (!lua_isnil(L, -1) && (!isnum || v < (lua_Integer)lo || v > (lua_Integer)hi))
        luaL_argerror(L, 1, lua_pushfstring(L, "%s must be an integer from %d to %d", k, (int)lo, (int)hi));
    lua_pop(L, 1);
    return (unsigned)v;
}

/* The collection: opts.collect (strings: "Global", "238 2" ...) then opts.paths. */
static void opt_specs(lua_State *L, server *s)
{
    static const char *const keys[] = { "collect", "paths" };
    for (int k = 0; k < 2; k++) {
        lua_getfield(L, 1, keys[k]);
        if (!lua_isnil(L, -1) && !lua_istable(L, -1))
            luaL_argerror(L, 1, lua_pushfstring(L, "%s must be a list of strings", keys[k]));
        int list = lua_istable(L, -1);
        for (lua_Integer i = 1; list && lua_rawgeti(L, -1, i) != LUA_TNIL; i++) {
            if (lua_type(L, -1) != LUA_TSTRING)
                luaL_argerror(L, 1, lua_pushfstring(L, "%s[%d] must be a string", keys[k], (int)i));
            if (s->nspecs == MAX_SPECS)
                luaL_argerror(L, 1, lua_pushfstring(L, "at most %d collections and paths", (int)MAX_SPECS));
            s->specs[s->nspecs] = strdup(lua_tostring(L, -1));
            if (!s->specs[s->nspecs])
                luaL_error(L, "out of memory");
            s->nspecs++;
            lua_pop(L, 1);
        }
        lua_pop(L, list ? 2 : 1);        /* the list and its ending nil, or the nil field */
    }
    if (s->nspecs == 0 && !(s->specs[s->nspecs++] = strdup("Global")))
        luaL_error(L, "out of memory");
}

/***
 * Starts a server in threads of its own.
 * @function serve
 * @tparam table opts `listen` ("127.0.0.1:9464" default; port 0 takes a free
 * one), `collect` (list of collection strings, default {"Global"}), `paths`
 * (list of counter paths), `token` (bearer token every request must carry),
 * `tls_cert`, `tls_key` (PEM text: HTTPS), `max_clients` (64), `max_body`
 * (bytes of a posted body, 65536), `timeout` (seconds a connection may idle, 10)
 * @return a `perflib.Server` (`port`, `stats`, `close`), or nil, message, errno
 */
static int l_serve(lua_State *L)
{
    static const char *const keys[] = { "listen", "collect", "paths", "token", "tls_cert", "tls_key", "max_clients",
                                        "max_body", "timeout", NULL };
    struct sockaddr_storage ss;
    int loopback = 0;
    luaL_checktype(L, 1, LUA_TTABLE);
    lpl_check_keys(L, 1, keys, "perflib.serve");
    const char *listen = opt_string(L, "listen"), *token = opt_string(L, "token");
    const char *cert = opt_string(L, "tls_cert"), *key = opt_string(L, "tls_key");
    unsigned max_clients = opt_uint(L, "max_clients", MAX_CLIENTS_DEFAULT, 1, 10000);
    unsigned max_body = opt_uint(L, "max_body", MAX_BODY_DEFAULT, 0, 64u << 20);
    unsigned timeout = opt_uint(L, "timeout", TIMEOUT_DEFAULT, 1, 3600);
    if (parse_listen(listen ? listen : "127.0.0.1:9464", &ss, &loopback) != 0)
        return luaL_argerror(L, 1, "listen must be ADDR:PORT or [ADDR6]:PORT");
    if (!cert != !key)
        return luaL_argerror(L, 1, "tls_cert and tls_key go together");
    if (token && (!*token || strpbrk(token, " \t\r\n")))
        return luaL_argerror(L, 1, "token must be a non-empty string without spaces");
    if (!loopback && !token && !cert)
        return luaL_argerror(L, 1, "a non-loopback listen address needs a token or TLS (tls_cert, tls_key)");
    const char *why = open_mhd();
    if (why)
        return lpl_fail(L, lua_pushfstring(L, "perflib.serve: %s", why), ENOENT);
    if (cert && M.is_feature_supported(MHD_FEATURE_TLS) != MHD_YES)
        return lpl_fail(L, "perflib.serve: this libmicrohttpd has no TLS", ENOTSUP);
    server *s = lua_newuserdatauv(L, sizeof *s, 0);
    int ud = lua_gettop(L);
    memset(s, 0, sizeof *s);
    s->closed = 1;                       /* until started: __gc has nothing to do */
    luaL_setmetatable(L, SERVER_MT);
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->cv, NULL);
    s->max_body = max_body;
    s->env = pl_env_new(NULL);
    s->names = pl_expose_cache_new();
    s->token = token ? strdup(token) : NULL;
    s->closed = 0;
    if (!s->env || !s->names || (token && !s->token))
        return lpl_fail(L, "perflib.serve", ENOMEM);
    opt_specs(L, s);
    /* MHD's threads inherit the signal mask: they leave signals to the Lua thread */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    unsigned flags = MHD_USE_AUTO_INTERNAL_THREAD | (cert ? MHD_USE_TLS : 0) |
                     (ss.ss_family == AF_INET6 ? MHD_USE_IPv6 : 0);
    errno = 0;
    s->d = M.start_daemon(flags, 0, NULL, NULL, on_request, s, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
                            MHD_OPTION_THREAD_POOL_SIZE, (unsigned)2, MHD_OPTION_CONNECTION_LIMIT, max_clients,
                            MHD_OPTION_CONNECTION_TIMEOUT, timeout, MHD_OPTION_CONNECTION_MEMORY_LIMIT,
                            (size_t)65536, MHD_OPTION_NOTIFY_COMPLETED, on_done, s,
                            cert ? MHD_OPTION_HTTPS_MEM_CERT : MHD_OPTION_END, cert, MHD_OPTION_HTTPS_MEM_KEY, key,
                            MHD_OPTION_END);
    int e = errno ? errno : EADDRINUSE;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (!s->d) {
        server_release(s);
        return lpl_fail(L, lua_pushfstring(L, "perflib.serve: cannot listen on %s", listen ? listen : "127.0.0.1:9464"),
                        e);
    }
    const union MHD_DaemonInfo *di = M.get_daemon_info(s->d, MHD_DAEMON_INFO_BIND_PORT);
    s->port = di ? di->port : 0;
    lua_pushvalue(L, ud);
    return 1;
}

/***
 * A running HTTP server; @{serve} starts one.
 * @type Server
 */
/***
 * The port the server listens on (the one the system chose for port 0).
 * @function Server:port
 * @treturn int the port
 */
static int s_port(lua_State *L)
{
    lua_pushinteger(L, check_server(L)->port);
    return 1;
}

/***
 * What it has done: `scrapes`, `collect_errors`, `requests` (by status code), `ready`.
 * @function Server:stats
 * @treturn table `{scrapes = n, collect_errors = n, ready = boolean, requests = {[code] = n}}`
 */
static int s_stats(lua_State *L)
{
    server *s = check_server(L);
    pthread_mutex_lock(&s->lock);
    lua_createtable(L, 0, 4);
    lua_pushinteger(L, (lua_Integer)s->scrapes);
    lua_setfield(L, -2, "scrapes");
    lua_pushinteger(L, (lua_Integer)s->collect_errors);
    lua_setfield(L, -2, "collect_errors");
    lua_pushboolean(L, s->ready);
    lua_setfield(L, -2, "ready");
    lua_createtable(L, 0, NCODES);
    for (unsigned i = 0; i < NCODES; i++) {
        lua_pushinteger(L, (lua_Integer)s->requests[i]);
        lua_rawseti(L, -2, codes[i]);
    }
    lua_setfield(L, -2, "requests");
    pthread_mutex_unlock(&s->lock);
    return 1;
}

/***
 * Stops the server (waits for its threads; idempotent, also at `__close` and collection).
 * @function Server:close
 */
static int s_close(lua_State *L)
{
    server_release(luaL_checkudata(L, 1, SERVER_MT));
    return 0;
}

static int s_tostring(lua_State *L)
{
    server *s = luaL_checkudata(L, 1, SERVER_MT);
    if (s->closed)
        lua_pushstring(L, SERVER_MT " (closed)");
    else
        lua_pushfstring(L, SERVER_MT " (port %d)", (int)s->port);
    return 1;
}

void lpl_open_server(lua_State *L)
{
    static const luaL_Reg meta[] = { { "__gc", s_close }, { "__close", s_close }, { "__tostring", s_tostring },
                                     { NULL, NULL } };
    static const luaL_Reg methods[] = { { "port", s_port }, { "stats", s_stats }, { "close", s_close },
                                        { NULL, NULL } };
    lpl_newclass(L, SERVER_MT, meta, methods);
}

int lpl_serve(lua_State *L)
{
    return l_serve(L);
}
