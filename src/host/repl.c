/* perflua's REPL: lua.c's read-eval-print loop (incomplete(), addreturn,
 * multiline) on libedit, with what an everyday session needs:
 *   - Ctrl-C cancels the line being typed (or the unfinished statement);
 *     twice in a row on an empty line, or Ctrl-D, ends the session;
 *   - every entered line is appended to ~/.perflua_history at once, so a
 *     crash loses nothing (the file is cut to its last HISTORY_MAX lines at
 *     start);
 *   - Tab completes names, methods and counter paths inside strings, and
 *     results print with units: both are perflib.repl's (Lua), so they are
 *     tested without a terminal; help() is the global it installs. */
#include <errno.h>
#include <locale.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lua.h>
#include <lauxlib.h>
#include <lualib.h>

#include "perflib.h"                    /* PL_VERSION */
#include "perflua.h"

#define PROMPT        "> "
#define PROMPT2       ">> "
#define MAXINPUT      512               /* line limit without libedit */
#define HISTORY_FILE  ".perflua_history"
#define HISTORY_MAX   1000

#define LINE_EOF        0               /* pushline: Ctrl-D */
#define LINE_OK         1
#define LINE_INTERRUPT  2               /* Ctrl-C at the prompt */

static int interrupted_empty;           /* the last Ctrl-C came on an empty line */

/* {======================================================================
** Line editing: libedit unless built with -DPERFLUA_NO_EDITLINE
** ======================================================================= */
#if !defined(PERFLUA_NO_EDITLINE)
#include <editline/readline.h>

static char history_path[4096];
static lua_State *replL = NULL;         /* libedit callbacks carry no state */
static volatile sig_atomic_t sigint_seen;
static int interrupted;                 /* the last read ended with Ctrl-C */

static void on_sigint(int sig) {
    (void)sig;
    sigint_seen = 1;
}

static sigset_t wait_mask;              /* the mask while waiting: SIGINT let in */

/* libedit reads through this: a SIGINT comes back as the byte 3, which runs
 * on_ctrl_c with the line's state up to date (libedit's own signal handling
 * would kill the process, its default action).  SIGINT is blocked while
 * libedit works and let in only inside ppoll, so one that arrives between
 * two reads is seen at the next instead of lost. */
static int getc_interruptible(FILE *f) {
    unsigned char c;
    struct pollfd p = { fileno(f), POLLIN, 0 };
    for (;;) {
        if (sigint_seen) {
            sigint_seen = 0;
            return 3;
        }
        int r = ppoll(&p, 1, NULL, &wait_mask);
        if (r < 0 && errno == EINTR)
            continue;                   /* SIGINT (seen above), SIGWINCH and the like */
        if (r < 0)
            return EOF;
        ssize_t n = read(fileno(f), &c, 1);
        if (n == 1)
            return c;
        if (n < 0 && errno == EINTR)
            continue;
        return EOF;
    }
}

static int on_ctrl_c(int count, int key) {
    (void)count; (void)key;
    interrupted = 1;
    interrupted_empty = rl_end == 0;
    rl_done = 1;                        /* readline returns NULL */
    return 0;
}

static int read_line(char **b, const char *prompt) {
    struct sigaction sa, old;
    sigset_t block, saved;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;          /* no SA_RESTART: ppoll returns EINTR */
    sigemptyset(&sa.sa_mask);
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigprocmask(SIG_BLOCK, &block, &saved);
    wait_mask = saved;
    sigdelset(&wait_mask, SIGINT);
    sigaction(SIGINT, &sa, &old);
    interrupted = 0;
    sigint_seen = 0;
    *b = readline(prompt);
    sigaction(SIGINT, &old, NULL);
    sigprocmask(SIG_SETMASK, &saved, NULL);
    if (*b != NULL)
        return LINE_OK;
    return interrupted ? LINE_INTERRUPT : LINE_EOF;
}

/* Each line reaches the file as it is entered. */
static void save_line(const char *line) {
    add_history(line);
    if (history_path[0] != '\0')
        (void)append_history(1, history_path);
}

#define free_line(b) free(b)

/* The byte offset of character k of the UTF-8 text s: libedit counts
 * characters, Lua bytes. */
static size_t byte_offset(const char *s, int k) {
    size_t i = 0;
    for (; s[i] != '\0' && k > 0; k--)
        for (i++; ((unsigned char)s[i] & 0xC0) == 0x80; i++)
            ;
    return i;
}

/* perflib.repl.complete(line, word start, cursor) into the registry. */
static int collect_completions(lua_State *L) {
    const char *line = luaL_checkstring(L, 1);
    int start = (int)luaL_checkinteger(L, 2), end = (int)luaL_checkinteger(L, 3);
    lua_getglobal(L, "require");
    lua_pushliteral(L, "perflib.repl");
    lua_call(L, 1, 1);
    lua_getfield(L, -1, "complete");
    lua_pushstring(L, line);
    lua_pushinteger(L, (lua_Integer)byte_offset(line, start));
    lua_pushinteger(L, (lua_Integer)byte_offset(line, end));
    lua_call(L, 3, 1);
    return 1;
}

static char *complete_next(const char *text, int state) {
    static lua_Integer next_i;
    lua_State *L = replL;
    int top = lua_gettop(L);
    char *r = NULL;
    (void)text;
    if (state == 0)
        next_i = 1;
    if (lua_getfield(L, LUA_REGISTRYINDEX, "perflua.completions") == LUA_TTABLE
        && lua_rawgeti(L, -1, next_i++) == LUA_TSTRING)
        r = strdup(lua_tostring(L, -1));
    lua_settop(L, top);
    return r;
}

static char **complete(const char *text, int start, int end) {
    lua_State *L = replL;
    rl_attempted_completion_over = 1;   /* no file-name fallback */
    lua_pushcfunction(L, collect_completions);
    lua_pushstring(L, rl_line_buffer ? rl_line_buffer : "");
    lua_pushinteger(L, start);
    lua_pushinteger(L, end);
    if (lua_pcall(L, 3, 1, 0) != LUA_OK || !lua_istable(L, -1)) {
        lua_pop(L, 1);
        lua_newtable(L);                /* a broken completer completes nothing */
    }
    lua_setfield(L, LUA_REGISTRYINDEX, "perflua.completions");
    return rl_completion_matches(text, complete_next);
}

static void editline_init(lua_State *L) {
    const char *home = getenv("HOME");
    static char wordbreak[] = " \t\n\"'><=;+-*/%^~#&|{}()[],\\";   /* not . or : */
    if (replL != NULL) return;
    replL = L;
    rl_readline_name = PROGNAME;        /* for "perflua:" lines in ~/.editrc */
    rl_catch_signals = 0;
    rl_getc_function = getc_interruptible;
    rl_attempted_completion_function = complete;
    rl_basic_word_break_characters = wordbreak;
    rl_completer_word_break_characters = wordbreak;
    rl_completion_append_character = '\0';
    rl_initialize();
    rl_add_defun("perflua-interrupt", on_ctrl_c, 3);
    using_history();
    stifle_history(HISTORY_MAX);
    if (home == NULL || home[0] == '\0') return;
    if ((size_t)snprintf(history_path, sizeof history_path, "%s/%s", home, HISTORY_FILE)
        >= sizeof history_path) {
        history_path[0] = '\0';
        return;
    }
    (void)read_history(history_path);   /* a missing file is normal */
    (void)history_truncate_file(history_path, HISTORY_MAX);
}
#else
static int read_line(char **b, const char *prompt) {
    static char buffer[MAXINPUT];
    fputs(prompt, stdout);
    fflush(stdout);
    *b = buffer;
    return fgets(buffer, MAXINPUT, stdin) != NULL ? LINE_OK : LINE_EOF;
}
#define save_line(line) ((void)(line))
#define free_line(b) ((void)(b))
static void editline_init(lua_State *L) { (void)L; }
#endif
/* }====================================================================== */

static const char *get_prompt(lua_State *L, int firstline) {
    if (lua_getglobal(L, firstline ? "_PROMPT" : "_PROMPT2") == LUA_TNIL)
        return firstline ? PROMPT : PROMPT2;
    else {
        const char *p = luaL_tolstring(L, -1, NULL);
        lua_remove(L, -2);
        return p;
    }
}

#define EOFMARK  "<eof>"
#define MARKLEN  (sizeof(EOFMARK) / sizeof(char) - 1)

/* A syntax error ending in "<eof>" means the statement is unfinished. */
static int incomplete(lua_State *L, int status) {
    if (status == LUA_ERRSYNTAX) {
        size_t lmsg;
        const char *msg = lua_tolstring(L, -1, &lmsg);
        if (lmsg >= MARKLEN && strcmp(msg + lmsg - MARKLEN, EOFMARK) == 0) {
            lua_pop(L, 1);
            return 1;
        }
    }
    return 0;
}

/* Reads a line onto the stack: LINE_OK, or LINE_EOF / LINE_INTERRUPT with
 * nothing pushed. */
static int pushline(lua_State *L, int firstline) {
    char *b = NULL;
    size_t l;
    const char *prmt = get_prompt(L, firstline);
    int readstatus = read_line(&b, prmt);
    lua_pop(L, 1);                      /* the prompt */
    if (readstatus != LINE_OK) return readstatus;
    l = strlen(b);
    if (l > 0 && b[l - 1] == '\n') b[--l] = '\0';
    if (firstline && b[0] == '=')       /* 5.2 style "=expr" */
        lua_pushfstring(L, "return %s", b + 1);
    else
        lua_pushlstring(L, b, l);
    free_line(b);
    return LINE_OK;
}

/* Try the line as 'return <line>;' first, so expressions echo. */
static int addreturn(lua_State *L) {
    const char *line = lua_tostring(L, -1);
    const char *retline = lua_pushfstring(L, "return %s;", line);
    int status = luaL_loadbuffer(L, retline, strlen(retline), "=stdin");
    if (status == LUA_OK) {
        lua_remove(L, -2);
        if (line[0] != '\0') save_line(line);
    }
    else
        lua_pop(L, 2);
    return status;
}

/* Read continuation lines until the chunk compiles or fails for good;
 * -1 when Ctrl-C cancelled the statement. */
static int multiline(lua_State *L) {
    for (;;) {
        size_t len;
        const char *line = lua_tolstring(L, 1, &len);
        int status = luaL_loadbuffer(L, line, len, "=stdin");
        int more;
        if (!incomplete(L, status))
            more = LINE_EOF;
        else if ((more = pushline(L, 0)) == LINE_INTERRUPT) {
            save_line(line);            /* the part typed is kept in the history */
            interrupted_empty = 0;      /* a statement was cancelled: not a way out */
            return -1;
        }
        if (more != LINE_OK) {
            save_line(line);
            return status;
        }
        lua_pushliteral(L, "\n");
        lua_insert(L, -2);
        lua_concat(L, 3);
    }
}

/* A chunk on the stack and its load status; -1 for a cancelled line or
 * statement, -2 at the end of input. */
static int loadline(lua_State *L) {
    int status, got;
    lua_settop(L, 0);
    got = pushline(L, 1);
    if (got == LINE_EOF) return -2;
    if (got == LINE_INTERRUPT) return -1;
    if ((status = addreturn(L)) != LUA_OK)
        status = multiline(L);
    if (status == -1) {
        lua_settop(L, 0);
        return -1;
    }
    lua_remove(L, 1);
    return status;
}

/* perflib.repl.print (values with units), else plain print. */
static void l_print(lua_State *L) {
    int n = lua_gettop(L);
    if (n == 0) return;
    luaL_checkstack(L, LUA_MINSTACK, "too many results to print");
    lua_getglobal(L, "require");
    lua_pushliteral(L, "perflib.repl");
    if (lua_pcall(L, 1, 1, 0) == LUA_OK && lua_istable(L, -1) && lua_getfield(L, -1, "print") == LUA_TFUNCTION)
        lua_remove(L, -2);
    else {
        lua_settop(L, n);
        lua_getglobal(L, "print");
    }
    lua_insert(L, 1);
    if (lua_pcall(L, n, 0, 0) != LUA_OK)
        perflua_message(NULL, lua_pushfstring(L, "error calling 'print' (%s)", lua_tostring(L, -1)));
}

/* The globals a session starts with: perflib, and help from perflib.repl. */
static void session_globals(lua_State *L) {
    lua_getglobal(L, "require");
    lua_pushliteral(L, "perflib.repl");
    if (perflua_docall(L, 1, 1) != LUA_OK) {
        perflua_message(NULL, lua_tostring(L, -1));     /* the REPL still runs */
        lua_pop(L, 1);
        return;
    }
    if (lua_getfield(L, -1, "install") == LUA_TFUNCTION && perflua_docall(L, 0, 0) != LUA_OK) {
        perflua_message(NULL, lua_tostring(L, -1));
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
}

static void print_banner(void) {
    printf("perflib %s on %s \xe2\x80\x94 `perflib` is preloaded; help() for help, Tab completes, "
           "Ctrl-D exits\n", PL_VERSION, LUA_VERSION);
    fflush(stdout);
}

void perflua_repl(lua_State *L) {
    int status, empty_interrupts = 0;
    print_banner();
    session_globals(L);
    setlocale(LC_CTYPE, "");            /* for libedit's UTF-8 handling only */
    editline_init(L);
    while ((status = loadline(L)) != -2) {
        if (status == -1) {             /* Ctrl-C: the line is dropped */
            fputs("\n", stdout);
            if (interrupted_empty && ++empty_interrupts >= 2)
                break;
            if (interrupted_empty)
                fputs("(Ctrl-C again or Ctrl-D to exit)\n", stdout);
            else
                empty_interrupts = 0;
            fflush(stdout);
            continue;
        }
        empty_interrupts = 0;
        if (status == LUA_OK) status = perflua_docall(L, 0, LUA_MULTRET);
        if (status == LUA_OK) l_print(L);
        else {
            perflua_message(NULL, lua_tostring(L, -1));
            lua_pop(L, 1);
        }
    }
    lua_settop(L, 0);
    fputs("\n", stdout);
    fflush(stdout);
}
