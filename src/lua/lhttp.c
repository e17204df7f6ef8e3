/***
 * HTTP sending for alert actions (perflib.rules.webhook): POST requests on
 * libcurl's multi interface.  Nothing here blocks longer than the caller
 * allows: `post` only starts a transfer, `poll` advances every transfer for
 * at most the time it is given and returns those that ended.  Each transfer
 * has a connect and a total timeout; a response body is kept up to a bound
 * and the transfer stops there (never read unbounded).
 * @module perflib.core
 */
#include "lpl.h"

#include <curl/curl.h>
#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define LPL_HTTP "perflib.HttpClient"
#define MAX_INFLIGHT 256                 /* transfers at once per client */
#define MAX_BODY_LIMIT (1 << 20)         /* the largest response body bound a caller may ask */

/* libcurl is opened at the first perflib.http(), not linked: a program that
 * sends nothing never loads it (nor GnuTLS and p11-kit behind it, whose
 * exit-time destructor deadlocks a program run with a preloaded
 * AddressSanitizer, as the specs run perflua), and one without libcurl
 * installed gets an error from perflib.http() instead of failing to load. */
static struct curl_api {
    CURLcode (*global_init)(long);
    CURL *(*easy_init)(void);
    CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
    CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
    void (*easy_cleanup)(CURL *);
    const char *(*easy_strerror)(CURLcode);
    struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
    void (*slist_free_all)(struct curl_slist *);
    CURLM *(*multi_init)(void);
    CURLMcode (*multi_add_handle)(CURLM *, CURL *);
    CURLMcode (*multi_remove_handle)(CURLM *, CURL *);
    CURLMcode (*multi_perform)(CURLM *, int *);
    CURLMcode (*multi_poll)(CURLM *, struct curl_waitfd[], unsigned, int, int *);
    CURLMsg *(*multi_info_read)(CURLM *, int *);
    CURLMcode (*multi_cleanup)(CURLM *);
} C;

#define SYM(f) { "curl_" #f, offsetof(struct curl_api, f) }
static const struct { const char *name; size_t off; } syms[] = {
    SYM(global_init), SYM(easy_init), SYM(easy_setopt), SYM(easy_getinfo), SYM(easy_cleanup),
    SYM(easy_strerror), SYM(slist_append), SYM(slist_free_all), SYM(multi_init),
    SYM(multi_add_handle), SYM(multi_remove_handle), SYM(multi_perform), SYM(multi_poll),
    SYM(multi_info_read), SYM(multi_cleanup),
};

/* NULL once libcurl is open and initialised, else why not (kept: tried once). */
static const char *open_curl(void)
{
    static int tried;
    static const char *why = "libcurl not loaded";
    static const char *const libs[] = { "libcurl-gnutls.so.4", "libcurl.so.4", "libcurl.so" };
    if (tried)
        return why;
    tried = 1;
    void *h = NULL;
    for (size_t i = 0; i < sizeof libs / sizeof libs[0] && !h; i++)
        h = dlopen(libs[i], RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return why = "cannot load libcurl (libcurl-gnutls.so.4, libcurl.so.4): install libcurl3-gnutls";
    for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
        void *f = dlsym(h, syms[i].name);
        if (!f)
            return why = "libcurl is older than 7.66 (no curl_multi_poll)";
        memcpy((char *)&C + syms[i].off, &f, sizeof f);   /* object to function pointer, as POSIX allows */
    }
    if (C.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
        return why = "curl_global_init failed";
    return why = NULL;
}

typedef struct xfer {
    CURL *easy;
    struct curl_slist *headers;
    char *buf;                           /* response body, up to cap bytes */
    size_t len, cap;
    int truncated;                       /* more arrived than cap: stopped there */
    lua_Integer id;
    char err[CURL_ERROR_SIZE];
    struct xfer *next;
} xfer;

typedef struct lpl_http {
    CURLM *multi;                        /* NULL once closed */
    xfer *list;
    int count;
    lua_Integer next_id;
} lpl_http;

static lpl_http *check_http(lua_State *L)
{
    lpl_http *h = luaL_checkudata(L, 1, LPL_HTTP);
    if (!h->multi)
        luaL_argerror(L, 1, "HTTP client is closed");
    return h;
}

static size_t on_body(char *data, size_t size, size_t n, void *ud)
{
    xfer *x = ud;
    size_t total = size * n, room = x->cap - x->len;
    size_t take = total < room ? total : room;
    memcpy(x->buf + x->len, data, take);
    x->len += take;
    if (take < total) {
        x->truncated = 1;
        return 0;                        /* stops the transfer: the rest is never read */
    }
    return total;
}

static void xfer_free(lpl_http *h, xfer *x)
{
    C.multi_remove_handle(h->multi, x->easy);
    C.easy_cleanup(x->easy);
    C.slist_free_all(x->headers);
    free(x->buf);
    free(x);
}

static void unlink_xfer(lpl_http *h, xfer *x)
{
    for (xfer **p = &h->list; *p; p = &(*p)->next)
        if (*p == x) {
            *p = x->next;
            h->count--;
            return;
        }
}

/* Milliseconds from an options field that must be a positive number of seconds. */
static long opt_ms(lua_State *L, int t, const char *key, double def)
{
    int isnum = 1;
    double s = lua_getfield(L, t, key) == LUA_TNIL ? def : lua_tonumberx(L, -1, &isnum);
    if (!isnum || !(s > 0 && s <= 86400))
        luaL_error(L, "bad option '%s' (seconds in (0, 86400] expected)", key);
    lua_pop(L, 1);
    long ms = (long)(s * 1000.0);
    return ms > 0 ? ms : 1;
}

/* Headers from opts.headers: a list of "Name: value" lines without CR or LF. */
static struct curl_slist *opt_headers(lua_State *L, int t, int *oom)
{
    struct curl_slist *list = NULL;
    *oom = 0;
    if (lua_getfield(L, t, "headers") == LUA_TNIL) {
        lua_pop(L, 1);
        return NULL;
    }
    if (!lua_istable(L, -1))
        luaL_error(L, "bad option 'headers' (a list of \"Name: value\" strings expected)");
    lua_Integer n = luaL_len(L, -1);
    for (lua_Integer i = 1; i <= n; i++) {
        lua_geti(L, -1, i);
        const char *s = lua_tostring(L, -1);
        if (lua_type(L, -1) != LUA_TSTRING || strpbrk(s, "\r\n") || !strchr(s, ':')) {
            C.slist_free_all(list);
            luaL_error(L, "bad header %d (a \"Name: value\" string without CR or LF expected)", (int)i);
        }
        struct curl_slist *grown = C.slist_append(list, s);
        lua_pop(L, 1);
        if (!grown) {
            C.slist_free_all(list);
            *oom = 1;
            lua_pop(L, 1);
            return NULL;
        }
        list = grown;
    }
    lua_pop(L, 1);
    return list;
}

static int setup(xfer *x, const char *url, const char *body, size_t blen, long conn_ms, long total_ms)
{
    CURL *e = x->easy;
    int bad = 0;
    bad |= C.easy_setopt(e, CURLOPT_URL, url) != CURLE_OK;
    bad |= C.easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https") != CURLE_OK;
    bad |= C.easy_setopt(e, CURLOPT_NOSIGNAL, 1L) != CURLE_OK;
    if (body) {                          /* a POST; else a GET */
        bad |= C.easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)blen) != CURLE_OK;
        bad |= C.easy_setopt(e, CURLOPT_COPYPOSTFIELDS, body) != CURLE_OK;
    }
    bad |= C.easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, conn_ms) != CURLE_OK;
    bad |= C.easy_setopt(e, CURLOPT_TIMEOUT_MS, total_ms) != CURLE_OK;
    bad |= C.easy_setopt(e, CURLOPT_HTTPHEADER, x->headers) != CURLE_OK;
    bad |= C.easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body) != CURLE_OK;
    bad |= C.easy_setopt(e, CURLOPT_WRITEDATA, x) != CURLE_OK;
    bad |= C.easy_setopt(e, CURLOPT_ERRORBUFFER, x->err) != CURLE_OK;
    bad |= C.easy_setopt(e, CURLOPT_PRIVATE, x) != CURLE_OK;
    bad |= C.easy_setopt(e, CURLOPT_USERAGENT, "perflib/" PL_VERSION) != CURLE_OK;
    return bad;
}

/* Starts a request: a POST of body (blen bytes), or a GET when body is
 * NULL; its options table is at index o. */
static int start(lua_State *L, lpl_http *h, const char *url, const char *body, size_t blen, int o)
{
    lua_settop(L, o);
    if (lua_isnil(L, o)) {
        lua_newtable(L);
        lua_replace(L, o);
    } else {
        luaL_checktype(L, o, LUA_TTABLE);
    }
    static const char *const keys[] = { "headers", "timeout", "connect_timeout", "max_body", NULL };
    lpl_check_keys(L, o, keys, body ? "post" : "get");
    long total_ms = opt_ms(L, o, "timeout", 10.0);
    long conn_ms = opt_ms(L, o, "connect_timeout", (double)total_ms / 1000.0);
    int isint = 1;
    lua_Integer cap = lua_getfield(L, o, "max_body") == LUA_TNIL ? 4096 : lua_tointegerx(L, -1, &isint);
    luaL_argcheck(L, isint && cap >= 0 && cap <= MAX_BODY_LIMIT, o, "max_body must be an integer 0 .. 1048576");
    lua_pop(L, 1);
    if (h->count >= MAX_INFLIGHT) {
        luaL_pushfail(L);
        lua_pushfstring(L, "too many HTTP transfers in flight (%d)", MAX_INFLIGHT);
        lua_pushinteger(L, EAGAIN);
        return 3;
    }
    int oom;
    struct curl_slist *headers = opt_headers(L, o, &oom);
    xfer *x = calloc(1, sizeof *x);
    char *buf = malloc((size_t)cap + 1);
    CURL *e = C.easy_init();
    if (oom || !x || !buf || !e) {
        C.slist_free_all(headers);
        free(x);
        free(buf);
        if (e)
            C.easy_cleanup(e);
        return lpl_fail(L, "post", ENOMEM);
    }
    x->easy = e;
    x->headers = headers;
    x->buf = buf;
    x->cap = (size_t)cap;
    if (setup(x, url, body, blen, conn_ms, total_ms) != 0
        || C.multi_add_handle(h->multi, e) != CURLM_OK) {
        C.easy_cleanup(e);
        C.slist_free_all(headers);
        free(buf);
        free(x);
        luaL_pushfail(L);
        lua_pushfstring(L, "libcurl refused the request to %s", url);
        lua_pushinteger(L, EINVAL);
        return 3;
    }
    x->id = ++h->next_id;
    x->next = h->list;
    h->list = x;
    h->count++;
    lua_pushinteger(L, x->id);
    return 1;
}

/***
 * Starts an HTTP POST; it runs as `poll` is called.
 * @function HttpClient:post
 * @string url an http:// or https:// URL
 * @string body the request body
 * @tparam[opt] table opts `headers` (list of "Name: value"), `timeout` (total seconds,
 *   default 10), `connect_timeout` (seconds, default the total), `max_body` (bytes of the
 *   response kept, default 4096, at most 1 MiB: the transfer stops there)
 * @treturn[1] integer the transfer's id
 * @return[2] fail, message, errno (too many transfers, out of memory, a URL libcurl refuses)
 */
static int http_post(lua_State *L)
{
    lpl_http *h = check_http(L);
    const char *url = luaL_checkstring(L, 2);
    size_t blen;
    const char *body = luaL_checklstring(L, 3, &blen);
    return start(L, h, url, body, blen, 4);
}

/***
 * Starts an HTTP GET, as `post` without a body.
 * @function HttpClient:get
 * @string url an http:// or https:// URL
 * @tparam[opt] table opts as for `post`
 * @treturn[1] integer the transfer's id
 * @return[2] fail, message, errno
 */
static int http_get(lua_State *L)
{
    lpl_http *h = check_http(L);
    return start(L, h, luaL_checkstring(L, 2), NULL, 0, 3);
}

/* Pushes { id, status, body, truncated, error } for a finished transfer. */
static void push_result(lua_State *L, xfer *x, CURLcode code)
{
    long status = 0;
    C.easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &status);
    lua_createtable(L, 0, 5);
    lua_pushinteger(L, x->id);
    lua_setfield(L, -2, "id");
    lua_pushinteger(L, status);
    lua_setfield(L, -2, "status");
    lua_pushlstring(L, x->buf, x->len);
    lua_setfield(L, -2, "body");
    lua_pushboolean(L, x->truncated);
    lua_setfield(L, -2, "truncated");
    /* a body past its bound stops the transfer on purpose: not a failure */
    if (code != CURLE_OK && !(code == CURLE_WRITE_ERROR && x->truncated)) {
        lua_pushstring(L, x->err[0] ? x->err : C.easy_strerror(code));
        lua_setfield(L, -2, "error");
    }
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Moves finished transfers into the results table at the top; returns how many. */
static int collect_done(lua_State *L, lpl_http *h, int n)
{
    CURLMsg *m;
    int left;
    while ((m = C.multi_info_read(h->multi, &left)) != NULL) {
        if (m->msg != CURLMSG_DONE)
            continue;
        char *p = NULL;
        C.easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, &p);
        xfer *x = (xfer *)(void *)p;
        CURLcode code = m->data.result;  /* m is invalid after remove_handle */
        if (!x)
            continue;
        push_result(L, x, code);
        lua_rawseti(L, -2, ++n);
        unlink_xfer(h, x);
        xfer_free(h, x);
    }
    return n;
}

/***
 * Advances every transfer, for at most `wait` seconds (default 0: one step,
 * no waiting), and returns those that ended.
 * @function HttpClient:poll
 * @number[opt=0] wait seconds to wait at most (0 .. 60)
 * @treturn table list of `{ id =, status = HTTP status or 0, body = kept response body,
 *   truncated = boolean, error = libcurl's message when the transfer failed }`
 */
static int http_poll(lua_State *L)
{
    lpl_http *h = check_http(L);
    double wait = luaL_optnumber(L, 2, 0);
    luaL_argcheck(L, wait >= 0 && wait <= 60, 2, "wait must be 0 .. 60 seconds");
    double deadline = now_s() + wait;
    int n = 0, running = 0;
    lua_newtable(L);
    for (;;) {
        if (C.multi_perform(h->multi, &running) != CURLM_OK)
            break;
        n = collect_done(L, h, n);
        double left = deadline - now_s();
        if (running == 0 || left <= 0)
            break;
        int ms = (int)(left * 1000.0);
        if (C.multi_poll(h->multi, NULL, 0, ms > 0 ? ms : 1, NULL) != CURLM_OK)
            break;
    }
    return 1;
}

/***
 * Transfers started and not yet returned by `poll`.
 * @function HttpClient:pending
 * @treturn integer
 */
static int http_pending(lua_State *L)
{
    lpl_http *h = luaL_checkudata(L, 1, LPL_HTTP);
    lua_pushinteger(L, h->multi ? h->count : 0);
    return 1;
}

/***
 * Stops a transfer that has not ended.
 * @function HttpClient:cancel
 * @int id
 * @treturn boolean whether it was running
 */
static int http_cancel(lua_State *L)
{
    lpl_http *h = check_http(L);
    lua_Integer id = luaL_checkinteger(L, 2);
    for (xfer *x = h->list; x; x = x->next)
        if (x->id == id) {
            unlink_xfer(h, x);
            xfer_free(h, x);
            lua_pushboolean(L, 1);
            return 1;
        }
    lua_pushboolean(L, 0);
    return 1;
}

/* Idempotent: __gc, __close and close. */
static int http_close(lua_State *L)
{
    lpl_http *h = luaL_checkudata(L, 1, LPL_HTTP);
    if (h->multi) {
        while (h->list) {
            xfer *x = h->list;
            h->list = x->next;
            xfer_free(h, x);
        }
        h->count = 0;
        C.multi_cleanup(h->multi);
        h->multi = NULL;
    }
    return 0;
}

/***
 * A new HTTP client (a libcurl multi handle) for POST requests that run
 * without blocking.
 * @function http
 * @treturn[1] HttpClient
 * @return[2] fail, message, errno
 */
int lpl_new_http(lua_State *L)
{
    const char *why = open_curl();
    if (why) {
        luaL_pushfail(L);
        lua_pushstring(L, why);
        lua_pushinteger(L, ENOSYS);
        return 3;
    }
    lpl_http *h = lua_newuserdatauv(L, sizeof *h, 0);
    memset(h, 0, sizeof *h);
    luaL_setmetatable(L, LPL_HTTP);
    h->multi = C.multi_init();
    if (!h->multi)
        return lpl_fail(L, "curl_multi_init", ENOMEM);
    return 1;
}

void lpl_open_http(lua_State *L)
{
    static const luaL_Reg meta[] = {
        { "__gc", http_close }, { "__close", http_close }, { NULL, NULL }
    };
    static const luaL_Reg methods[] = {
        { "post", http_post }, { "get", http_get }, { "poll", http_poll }, { "pending", http_pending },
        { "cancel", http_cancel }, { "close", http_close }, { NULL, NULL }
    };
    lpl_newclass(L, LPL_HTTP, meta, methods);
}
