/* Child processes, syslog and the terminal check for the rule notifier and
 * the monitor (perflib.rules.notify, perflib.monitor): spawn, wait, kill,
 * syslog and isatty.  Never a shell: argv goes to posix_spawnp as is.
 * Documented with the other functions of perflib.core (see lperflib.c). */
#include "lpl.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <syslog.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* The string at stack index i, raising when it has a NUL byte inside
 * (the C side would silently cut it there). */
static const char *check_cstring(lua_State *L, int i, int arg, const char *what)
{
    size_t len;
    const char *s = lua_tolstring(L, i, &len);
    if (s == NULL || strlen(s) != len)
        luaL_argerror(L, arg, lua_pushfstring(L, "%s must be a string without NUL bytes", what));
    return s;
}

/* Length of the name part of "NAME=value", or 0 when malformed. */
static size_t env_name_len(const char *s)
{
    const char *eq = strchr(s, '=');
    return eq && eq != s ? (size_t)(eq - s) : 0;
}

/* Collects the env table at index t as "NAME=value" strings into a new
 * sequence table pushed on the stack (anchoring the strings).  Accepts
 * array items "NAME=value" and NAME = value pairs (string or number). */
static int collect_env(lua_State *L, int t, int arg)
{
    int out, n = 0;
    lua_newtable(L);
    out = lua_gettop(L);
    lua_pushnil(L);
    while (lua_next(L, t)) {
        if (lua_type(L, -2) == LUA_TNUMBER) {
            const char *s;
            if (lua_type(L, -1) != LUA_TSTRING)
                luaL_argerror(L, arg, "env items must be \"NAME=value\" strings");
            s = check_cstring(L, -1, arg, "an env item");
            if (env_name_len(s) == 0)
                luaL_argerror(L, arg, lua_pushfstring(L, "env item '%s' is not NAME=value", s));
            lua_pushvalue(L, -1);
        } else if (lua_type(L, -2) == LUA_TSTRING) {
            const char *k = check_cstring(L, -2, arg, "an env name");
            if (*k == '\0' || strchr(k, '='))
                luaL_argerror(L, arg, lua_pushfstring(L, "bad env name '%s'", k));
            if (lua_type(L, -1) != LUA_TSTRING && lua_type(L, -1) != LUA_TNUMBER)
                luaL_argerror(L, arg, lua_pushfstring(L, "env value of '%s' must be a string", k));
            lua_pushvalue(L, -1);
            check_cstring(L, -1, arg, "an env value");
            lua_pop(L, 1);
            lua_pushfstring(L, "%s=%s", k, lua_tostring(L, -1));
        } else {
            luaL_argerror(L, arg, "env keys must be names or 1..n");
        }
        lua_rawseti(L, out, ++n);
        lua_pop(L, 1);
    }
    return n;
}

/* Does environ entry e name a variable that one of the n added strings sets? */
static int overridden(lua_State *L, int added, int n, const char *e)
{
    size_t len = env_name_len(e);
    for (int k = 1; k <= n; k++) {
        const char *a;
        lua_rawgeti(L, added, k);
        a = lua_tostring(L, -1);
        lua_pop(L, 1);
        if (len > 0 && strncmp(a, e, len + 1) == 0)
            return 1;
    }
    return 0;
}

/* Opens path for appending as fd in the child's file actions. */
static int add_output(posix_spawn_file_actions_t *fa, int fd, const char *path)
{
    return posix_spawn_file_actions_addopen(fa, fd, path, O_WRONLY | O_CREAT | O_APPEND, 0644);
}

static const char *opt_path(lua_State *L, int o, const char *key)
{
    const char *s = NULL;
    if (lua_getfield(L, o, key) != LUA_TNIL) {
        if (lua_type(L, -1) != LUA_TSTRING)
            luaL_argerror(L, 3, lua_pushfstring(L, "'%s' must be a path", key));
        s = check_cstring(L, -1, 3, key);
    }
    lua_pop(L, 1);              /* still anchored: opts holds it */
    return s;
}

/***
 * Starts a program as a child process, without a shell.
 * `argv[1]` is the program: a path when it contains a '/', else looked up
 * in `PATH` (as `execvp`).  Each element arrives as one argument, literally:
 * spaces, quotes and `$` mean nothing.  The child's stdin is /dev/null;
 * stdout and stderr are inherited unless `opts` redirects them; descriptors
 * above 2 are closed; signal mask and dispositions are reset to defaults.
 * The child leads a new process group (its pid), so @{kill} reaches what it
 * starts in turn, and a Ctrl-C on the monitor's terminal does not.
 * @function spawn
 * @tparam {string,...} argv program and arguments (at least one)
 * @tparam[opt] table env variables ADDED to the inherited environment
 *   (replacing same-named ones): items `"NAME=value"` and/or `NAME = value`
 * @tparam[opt] table opts `inherit = false` starts from an empty environment
 *   instead; `stdout = path`, `stderr = path` append output to files
 * @treturn[1] int pid (reap it with @{wait})
 * @return[2] nil when the program cannot be started
 * @treturn[2] string message naming the program
 * @treturn[2] int errno
 */
int lpl_spawn(lua_State *L)
{
    static const char *const keys[] = { "inherit", "stdout", "stderr", NULL };
    int argc, nenv = 0, added = 0, inherit = 1, e;
    const char *out = NULL, *err = NULL;
    const char **argv, **envp;
    size_t nenviron = 0, k = 0;
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    sigset_t mask;
    pid_t pid;

    luaL_checktype(L, 1, LUA_TTABLE);
    if (!lua_isnoneornil(L, 2))
        luaL_checktype(L, 2, LUA_TTABLE);
    if (!lua_isnoneornil(L, 3)) {
        luaL_checktype(L, 3, LUA_TTABLE);
        lpl_check_keys(L, 3, keys, "spawn");
        lua_getfield(L, 3, "inherit");
        inherit = lua_isnil(L, -1) || lua_toboolean(L, -1);
        lua_pop(L, 1);
        out = opt_path(L, 3, "stdout");
        err = opt_path(L, 3, "stderr");
    }
    lua_settop(L, 3);

    argc = (int)luaL_len(L, 1);
    luaL_argcheck(L, argc >= 1, 1, "argv must name a program");
    argv = lua_newuserdatauv(L, ((size_t)argc + 1) * sizeof *argv, 0);   /* 4 */
    for (int i = 1; i <= argc; i++) {
        lua_rawgeti(L, 1, i);
        if (lua_type(L, -1) != LUA_TSTRING)
            luaL_argerror(L, 1, lua_pushfstring(L, "argv[%d] must be a string", i));
        size_t len;
        argv[i - 1] = lua_tolstring(L, -1, &len);
        if (strlen(argv[i - 1]) != len)
            luaL_argerror(L, 1, lua_pushfstring(L, "argv[%d] contains a NUL byte", i));
        lua_pop(L, 1);          /* anchored by argv table */
    }
    argv[argc] = NULL;
    luaL_argcheck(L, argv[0][0] != '\0', 1, "argv[1] must not be empty");

    if (!lua_isnil(L, 2)) {
        nenv = collect_env(L, 2, 2);                                  /* 5 */
        added = lua_gettop(L);
    }
    if (inherit)
        while (environ && environ[nenviron])
            nenviron++;
    envp = lua_newuserdatauv(L, (nenviron + (size_t)nenv + 1) * sizeof *envp, 0);
    for (size_t i = 0; i < nenviron; i++)
        if (!overridden(L, added, nenv, environ[i]))
            envp[k++] = environ[i];
    for (int i = 1; i <= nenv; i++) {
        lua_rawgeti(L, added, i);
        envp[k++] = lua_tostring(L, -1);
        lua_pop(L, 1);          /* anchored by the added table */
    }
    envp[k] = NULL;

    if ((e = posix_spawn_file_actions_init(&fa)) != 0)
        return lpl_fail(L, "spawn", e);
    if ((e = posix_spawnattr_init(&attr)) != 0) {
        posix_spawn_file_actions_destroy(&fa);
        return lpl_fail(L, "spawn", e);
    }
    e = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    if (e == 0 && out)
        e = add_output(&fa, 1, out);
    if (e == 0 && err)
        e = add_output(&fa, 2, err);
#if defined(__GLIBC__) && defined(__GLIBC_MINOR__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 34)
    if (e == 0)
        e = posix_spawn_file_actions_addclosefrom_np(&fa, 3);
#endif
    sigemptyset(&mask);
    if (e == 0)
        e = posix_spawnattr_setsigmask(&attr, &mask);
    sigfillset(&mask);
    sigdelset(&mask, SIGKILL);
    sigdelset(&mask, SIGSTOP);
    if (e == 0)
        e = posix_spawnattr_setsigdefault(&attr, &mask);
    if (e == 0)
        e = posix_spawnattr_setpgroup(&attr, 0);
    if (e == 0)
        e = posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF
                                            | POSIX_SPAWN_SETPGROUP);
    if (e == 0)
        e = posix_spawnp(&pid, argv[0], &fa, &attr, (char *const *)(void *)argv,
                         (char *const *)(void *)envp);
    posix_spawnattr_destroy(&attr);
    posix_spawn_file_actions_destroy(&fa);
    if (e != 0)
        return lpl_fail(L, lua_pushfstring(L, "spawn %s", argv[0]), e);
    lua_pushinteger(L, pid);
    return 1;
}

/***
 * Waits for a child started by @{spawn} and reaps it.
 * @function wait
 * @int pid
 * @tparam[opt] string|boolean nohang `"nohang"` (or true): do not block
 * @treturn[1] string "exited"
 * @treturn[1] int exit code
 * @treturn[2] string "signaled"
 * @treturn[2] int signal number
 * @treturn[3] boolean false with nohang while the child still runs
 * @return[4] nil when waitpid fails (ECHILD: not our child or already reaped;
 *   EINTR: a signal interrupted a blocking wait)
 * @treturn[4] string message
 * @treturn[4] int errno
 */
int lpl_wait(lua_State *L)
{
    lua_Integer pid = luaL_checkinteger(L, 1);
    int nohang = 0, st = 0;
    pid_t r;
    luaL_argcheck(L, pid > 0 && pid == (pid_t)pid, 1, "pid must be a positive process id");
    if (lua_type(L, 2) == LUA_TBOOLEAN)
        nohang = lua_toboolean(L, 2);
    else if (!lua_isnoneornil(L, 2)) {
        static const char *const opts[] = { "nohang", NULL };
        nohang = luaL_checkoption(L, 2, NULL, opts) == 0;
    }
    r = waitpid((pid_t)pid, &st, nohang ? WNOHANG : 0);
    if (r < 0)
        return lpl_fail(L, "wait", errno);
    if (r == 0) {
        lua_pushboolean(L, 0);
        return 1;
    }
    if (WIFEXITED(st)) {
        lua_pushliteral(L, "exited");
        lua_pushinteger(L, WEXITSTATUS(st));
    } else if (WIFSIGNALED(st)) {
        lua_pushliteral(L, "signaled");
        lua_pushinteger(L, WTERMSIG(st));
    } else {                    /* not reported without WUNTRACED/WCONTINUED */
        lua_pushliteral(L, "unknown");
        lua_pushinteger(L, st);
    }
    return 2;
}

/***
 * Signals the process group of a child started by @{spawn} (the child and
 * whatever it started that stayed in its group).
 * @function kill
 * @int pid the child's pid (its group id)
 * @tparam[opt="TERM"] string sig "TERM", "KILL", "INT" or "HUP"
 * @treturn[1] boolean true
 * @return[2] nil when the group is gone (ESRCH) or not ours (EPERM)
 * @treturn[2] string message
 * @treturn[2] int errno
 */
int lpl_kill(lua_State *L)
{
    static const char *const names[] = { "TERM", "KILL", "INT", "HUP", NULL };
    static const int nums[] = { SIGTERM, SIGKILL, SIGINT, SIGHUP };
    lua_Integer pid = luaL_checkinteger(L, 1);
    int sig = nums[luaL_checkoption(L, 2, "TERM", names)];
    /* 1 would signal init's group; -1 every process we may signal */
    luaL_argcheck(L, pid > 1 && pid == (pid_t)pid, 1, "pid must be a child's process id");
    if (kill(-(pid_t)pid, sig) != 0)
        return lpl_fail(L, "kill", errno);
    lua_pushboolean(L, 1);
    return 1;
}

/***
 * Is a descriptor a terminal that is still there?  After a hangup (the
 * terminal window closed, the ssh session ended) the descriptor stays open
 * but every terminal request fails with EIO.
 * @function isatty
 * @int[opt=1] fd
 * @treturn[1] boolean true
 * @treturn[2] boolean false: not a terminal (ENOTTY), hung up (EIO), closed (EBADF)
 * @treturn[2] string message
 * @treturn[2] int errno
 */
int lpl_isatty(lua_State *L)
{
    lua_Integer fd = luaL_optinteger(L, 1, 1);
    struct termios t;
    luaL_argcheck(L, fd >= 0 && fd <= 0x7fffffff, 1, "fd must be a descriptor number");
    if (tcgetattr((int)fd, &t) == 0) {
        lua_pushboolean(L, 1);
        return 1;
    }
    lua_pushboolean(L, 0);
    lua_pushfstring(L, "isatty: %s", strerror(errno));
    lua_pushinteger(L, errno);
    return 3;
}

/* One socket to the syslog daemon, kept open between messages (glibc's
 * syslog() cannot say whether a message arrived: this one can). */
static int log_fd = -1, log_stream;
static char log_path[sizeof(((struct sockaddr_un *)0)->sun_path)];

static void log_close(void)
{
    if (log_fd >= 0)
        close(log_fd);
    log_fd = -1;
}

/* Connects to the socket at path (datagram, else stream as rsyslog may
 * offer); 0 or an errno. */
static int log_connect(const char *path)
{
    static const int types[] = { SOCK_DGRAM, SOCK_STREAM };
    struct sockaddr_un sa;
    int e = 0;
    log_close();
    memset(&sa, 0, sizeof sa);
    sa.sun_family = AF_UNIX;
    if (strlen(path) >= sizeof sa.sun_path)
        return ENAMETOOLONG;
    strcpy(sa.sun_path, path);
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        int fd = socket(AF_UNIX, types[i] | SOCK_CLOEXEC, 0);
        if (fd < 0)
            return errno;
        if (connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0) {
            log_fd = fd;
            log_stream = types[i] == SOCK_STREAM;
            strcpy(log_path, path);
            return 0;
        }
        e = errno;
        close(fd);
        if (e != EPROTOTYPE)
            break;
    }
    return e;
}

/* Sends one formatted record; 0 or an errno.  Never blocks: a daemon that
 * does not keep up is a failure (EAGAIN), not a stalled monitor. */
static int log_send(const char *rec, size_t len)
{
    /* a stream record ends with a NUL (as glibc sends it) */
    ssize_t n = send(log_fd, rec, len + (size_t)log_stream, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n < 0)
        return errno;
    return (size_t)n == len + (size_t)log_stream ? 0 : EMSGSIZE;
}

/***
 * Writes one message to the system log (facility user, with the pid), on
 * a socket of its own kept open between calls.  Unlike syslog(3) it says
 * when the message did not arrive: no daemon listening, a daemon that does
 * not keep up (EAGAIN), a message too long for it.
 * The message is logged as is (never used as a format).
 * @function syslog
 * @string priority "emerg", "alert", "crit", "err" (or "error"),
 *   "warning" (or "warn"), "notice", "info" or "debug"
 * @string message
 * @tparam[opt="perflib"] string ident tag of the message (up to 63 bytes)
 * @tparam[opt="/dev/log"] string socket path of the daemon's socket
 * @treturn[1] boolean true
 * @return[2] nil when the message could not be delivered
 * @treturn[2] string message naming the socket
 * @treturn[2] int errno
 */
int lpl_syslog(lua_State *L)
{
    static const char *const names[] = {
        "emerg", "alert", "crit", "err", "error", "warning", "warn", "notice", "info", "debug", NULL
    };
    static const int levels[] = {
        LOG_EMERG, LOG_ALERT, LOG_CRIT, LOG_ERR, LOG_ERR, LOG_WARNING, LOG_WARNING,
        LOG_NOTICE, LOG_INFO, LOG_DEBUG
    };
    int level = levels[luaL_checkoption(L, 1, NULL, names)], e;
    size_t len;
    const char *msg = luaL_checklstring(L, 2, &len);
    const char *ident = luaL_optstring(L, 3, "perflib");
    const char *path = luaL_optstring(L, 4, "/dev/log");
    char stamp[32];
    time_t now = time(NULL);
    struct tm tm;
    luaL_argcheck(L, *ident != '\0' && strlen(ident) < 64 && !strpbrk(ident, "[]: \n"), 3,
                  "ident must be 1 to 63 bytes without brackets, colons or spaces");
    luaL_argcheck(L, *path != '\0' && strlen(path) < sizeof log_path, 4, "socket path too long");
    luaL_argcheck(L, strlen(msg) == len, 2, "message contains a NUL byte");
    if (localtime_r(&now, &tm) == NULL || strftime(stamp, sizeof stamp, "%b %e %H:%M:%S", &tm) == 0)
        stamp[0] = '\0';
    /* RFC 3164 as syslog(3) writes it: <PRI>TIMESTAMP IDENT[PID]: MSG */
    lua_pushfstring(L, "<%d>%s %s[%d]: ", LOG_USER | level, stamp, ident, (int)getpid());
    lua_pushvalue(L, 2);
    lua_concat(L, 2);
    {
        const char *rec = lua_tolstring(L, -1, &len);
        e = log_fd >= 0 && strcmp(path, log_path) == 0 ? log_send(rec, len) : ENOTCONN;
        if (e != 0 && e != EAGAIN && e != EMSGSIZE) {     /* first use, or the daemon restarted */
            e = log_connect(path);
            if (e == 0)
                e = log_send(rec, len);
        }
    }
    if (e != 0)
        return lpl_fail(L, lua_pushfstring(L, "syslog %s", path), e);
    lua_pushboolean(L, 1);
    return 1;
}
