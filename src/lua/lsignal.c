/***
 * Signals for long-running scripts such as `perflua monitor`: a handler
 * records the signal, the script asks which arrived.  The handlers do not
 * restart system calls, so `perflib.sleep` returns early with EINTR and the
 * script can act at once (reload on HUP, stop on TERM and INT).
 * @module perflib
 */
#include "lpl.h"

#include <errno.h>
#include <signal.h>
#include <string.h>

static const struct { const char *name; int sig; } sigs[] = {
    { "HUP", SIGHUP }, { "INT", SIGINT }, { "TERM", SIGTERM }, { "USR1", SIGUSR1 },
    { "USR2", SIGUSR2 }, { "QUIT", SIGQUIT }, { "CHLD", SIGCHLD },
};
#define NSIGS (sizeof sigs / sizeof sigs[0])

static volatile sig_atomic_t arrived[NSIGS];

static void on_signal(int sig)
{
    for (size_t i = 0; i < NSIGS; i++)
        if (sigs[i].sig == sig)
            arrived[i] = 1;
}

static int sig_index(lua_State *L, int arg)
{
    const char *name = luaL_checkstring(L, arg);
    for (size_t i = 0; i < NSIGS; i++)
        if (strcmp(name, sigs[i].name) == 0)
            return (int)i;
    return luaL_argerror(L, arg, lua_pushfstring(L, "unknown signal '%s' (HUP, INT, TERM, USR1, USR2, "
                                                 "QUIT, CHLD)", name));
}

/***
 * Catches signals: from now on they are recorded instead of acting.
 * @function trap
 * @tparam string ... signal names: "HUP", "INT", "TERM", "USR1", "USR2", "QUIT", "CHLD"
 * @treturn[1] boolean true
 * @return[2] nil, message, errno
 */
int lpl_trap(lua_State *L)
{
    int n = lua_gettop(L);
    luaL_argcheck(L, n > 0, 1, "signal name expected");
    for (int a = 1; a <= n; a++)
        sig_index(L, a);                 /* all names checked before any is installed */
    for (int a = 1; a <= n; a++) {
        struct sigaction sa;
        int i = sig_index(L, a);
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = 0;                 /* no SA_RESTART: a sleep ends early */
        if (sigaction(sigs[i].sig, &sa, NULL) != 0)
            return lpl_fail(L, "sigaction", errno);
    }
    lua_pushboolean(L, 1);
    return 1;
}

/***
 * The trapped signals that arrived since the last call (each once).
 * @function trapped
 * @treturn table array of signal names, possibly empty
 */
int lpl_trapped(lua_State *L)
{
    int n = 0;
    lua_newtable(L);
    for (size_t i = 0; i < NSIGS; i++)
        if (arrived[i]) {
            arrived[i] = 0;
            lua_pushstring(L, sigs[i].name);
            lua_rawseti(L, -2, ++n);
        }
    return 1;
}

/* The name of a trapped TERM or INT that arrived and trapped() has not
 * reported yet, or NULL: the rule sandbox stops on it (not consumed). */
const char *lpl_stop_signal(void)
{
    for (size_t i = 0; i < NSIGS; i++)
        if ((sigs[i].sig == SIGTERM || sigs[i].sig == SIGINT) && arrived[i])
            return sigs[i].name;
    return NULL;
}

/***
 * Whether a trapped signal arrived that `trapped` has not reported yet (it
 * stays to be reported): a loop checks it before sleeping, so a signal that
 * came while it worked does not wait out the sleep.
 * @function signalled
 * @treturn boolean
 */
int lpl_signalled(lua_State *L)
{
    int any = 0;
    for (size_t i = 0; i < NSIGS; i++)
        any |= arrived[i] != 0;
    lua_pushboolean(L, any);
    return 1;
}
