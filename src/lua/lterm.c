/***
 * The terminal layer of the live views (`perflua monitor --view`, `perflua
 * top`): ncurses on the alternate screen, wide-character aware.  Only what
 * the views need: rows of text with a style, the size, keys with a timeout.
 * The views lay their rows out in Lua (perflib.view, perflib.top); this
 * class only draws them.  One terminal at a time (ncurses has one screen).
 * Internal: perflib.core's, not re-exported by the facade nor in the reference.
 * @module perflib.core
 */
#define _XOPEN_SOURCE_EXTENDED 1
#define NCURSES_WIDECHAR 1
#include "lpl.h"

#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <math.h>
#include <ncursesw/curses.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>
#include <wchar.h>

#define LPL_TERM "perflib.Term"
#define TERM_MAXCOLS 512          /* wider rows are clipped: no allocation per row */

typedef struct lpl_term {
    SCREEN *scr;                  /* NULL once released */
} lpl_term;

/* The open screen and the LC_CTYPE it replaced, for atexit and release. */
static SCREEN *open_scr;
static char saved_ctype[64];

/* Styles: a colour (0: the terminal's own) and attributes; status_* are
 * the reversed bars of the header line in the colour of the worst state. */
static const struct style {
    const char *name;
    short fg;
    attr_t attr;
} styles[] = {
    { "normal", 0, A_NORMAL },          { "title", 0, A_BOLD },
    { "dim", 0, A_DIM },                { "ok", COLOR_GREEN, A_NORMAL },
    { "pending", COLOR_CYAN, A_NORMAL }, { "info", COLOR_BLUE, A_BOLD },
    { "warn", COLOR_YELLOW, A_BOLD },   { "crit", COLOR_RED, A_BOLD },
    { "status", 0, A_REVERSE },         { "status_ok", COLOR_GREEN, A_REVERSE },
    { "status_pending", COLOR_CYAN, A_REVERSE }, { "status_info", COLOR_BLUE, A_REVERSE | A_BOLD },
    { "status_warn", COLOR_YELLOW, A_REVERSE | A_BOLD }, { "status_crit", COLOR_RED, A_REVERSE | A_BOLD },
};
#define NSTYLES (sizeof styles / sizeof styles[0])

static void restore_ctype(void)
{
    if (saved_ctype[0])
        setlocale(LC_CTYPE, saved_ctype);
    saved_ctype[0] = '\0';
}

/* endwin exactly once per screen, from close, __gc or exit. */
static void release(lpl_term *t)
{
    if (!t->scr)
        return;
    set_term(t->scr);
    endwin();
    delscreen(t->scr);
    if (open_scr == t->scr)
        open_scr = NULL;
    t->scr = NULL;
    restore_ctype();
}

static void at_exit(void)
{
    if (open_scr) {                /* an os.exit or error with the screen up */
        set_term(open_scr);
        endwin();
        open_scr = NULL;
    }
}

/* Wide characters need a UTF-8 LC_CTYPE while the screen is up: the
 * environment's, else C.UTF-8 (Debian always has it). */
static void utf8_ctype(void)
{
    const char *cur = setlocale(LC_CTYPE, NULL);
    snprintf(saved_ctype, sizeof saved_ctype, "%s", cur ? cur : "C");
    if (setlocale(LC_CTYPE, "") && strcmp(nl_langinfo(CODESET), "UTF-8") == 0)
        return;
    if (!setlocale(LC_CTYPE, "C.UTF-8"))
        setlocale(LC_CTYPE, saved_ctype);
}

static void init_styles(void)
{
    if (!has_colors() || start_color() == ERR)
        return;
    use_default_colors();
    for (size_t i = 0; i < NSTYLES; i++)
        if (styles[i].fg)
            init_pair((short)(i + 1), styles[i].fg, -1);
}

/***
 * Takes over the terminal on standard output: the alternate screen, keys
 * without echo, no cursor.  Resizes arrive as the key "resize".
 * @function term.open
 * @treturn[1] Term
 * @return[2] nil, message, errno (ENOTTY: not a terminal; EBUSY: a Term is open)
 */
static int t_open(lua_State *L)
{
    static int registered;
    if (open_scr)
        return lpl_fail(L, "term.open: a terminal is already open", EBUSY);
    if (!isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO))
        return lpl_fail(L, "term.open", ENOTTY);
    const char *name = getenv("TERM");
    if (!name || !*name || strcmp(name, "dumb") == 0)
        return lpl_fail(L, "term.open: TERM is not set or dumb", ENOTTY);
    lpl_term *t = lua_newuserdata(L, sizeof *t);
    t->scr = NULL;
    luaL_setmetatable(L, LPL_TERM);
    utf8_ctype();
    t->scr = newterm(NULL, stdout, stdin);
    if (!t->scr) {
        restore_ctype();
        return lpl_fail(L, "term.open: no terminfo entry for TERM", ENOTTY);
    }
    open_scr = t->scr;
    if (!registered && atexit(at_exit) == 0)
        registered = 1;
    cbreak();
    noecho();
    nonl();
    keypad(stdscr, TRUE);
    nodelay(stdscr, TRUE);         /* getkey waits in poll(), not in ncurses */
    curs_set(0);
    set_escdelay(25);              /* Esc alone: do not wait a second for a sequence */
    init_styles();
    return 1;
}

static lpl_term *check_term(lua_State *L)
{
    lpl_term *t = luaL_checkudata(L, 1, LPL_TERM);
    if (!t->scr)
        luaL_argerror(L, 1, "attempt to use a closed terminal");
    set_term(t->scr);
    return t;
}

/***
 * A terminal screen; `perflib.core.term.open` gives one.
 * @type Term
 */
/***
 * The terminal's size now (after a "resize" key, the new one).
 * @function Term:size
 * @treturn integer rows
 * @treturn integer columns
 */
static int t_size(lua_State *L)
{
    check_term(L);
    lua_pushinteger(L, LINES);
    lua_pushinteger(L, COLS);
    return 2;
}

/* UTF-8 text to at most cols columns of wide characters in buf; a byte
 * that is not UTF-8 or a character with no width shows as '?'. */
static int to_wide(const char *s, size_t len, wchar_t *buf, int cols, int *width)
{
    mbstate_t st;
    int n = 0, used = 0;
    memset(&st, 0, sizeof st);
    while (len > 0 && n < cols) {
        unsigned char b = (unsigned char)*s;
        if (b >= 0x20 && b < 0x7f) {      /* printable ASCII, most of a row: one column */
            buf[n++] = (wchar_t)b;
            used++;
            s++;
            len--;
            continue;
        }
        wchar_t wc;
        size_t k = mbrtowc(&wc, s, len, &st);
        if (k == (size_t)-1 || k == (size_t)-2 || k == 0) {
            wc = L'?';
            k = 1;
            memset(&st, 0, sizeof st);
        }
        int w = wcwidth(wc);
        if (w < 0)
            wc = L'?', w = 1;
        if (used + w > cols)
            break;
        buf[n++] = wc;
        used += w;
        s += k;
        len -= k;
    }
    *width = used;
    return n;
}

static size_t check_style(lua_State *L, int i)
{
    const char *name = luaL_optstring(L, i, "normal");
    for (size_t k = 0; k < NSTYLES; k++)
        if (strcmp(styles[k].name, name) == 0)
            return k;
    return (size_t)luaL_argerror(L, i, lua_pushfstring(L, "unknown style '%s'", name));
}

/***
 * Draws one row (1 = top): the text clipped to the width, the rest of the
 * row cleared (a status style fills it).  Rows below the screen (it may
 * have shrunk since `size`) are not drawn.
 * @function Term:draw
 * @tparam integer row from 1
 * @tparam string text UTF-8, already escaped
 * @tparam[opt="normal"] string style "normal", "title", "dim", "ok", "pending", "info",
 * "warn", "crit", "status", "status_ok", "status_pending", "status_info", "status_warn", "status_crit"
 * @treturn boolean whether the row is on the screen
 */
static int t_draw(lua_State *L)
{
    check_term(L);
    lua_Integer row = luaL_checkinteger(L, 2);
    size_t len;
    const char *s = luaL_checklstring(L, 3, &len);
    size_t si = check_style(L, 4);
    const struct style *st = &styles[si];
    luaL_argcheck(L, row >= 1, 2, "row must be 1 or more");
    if (row > LINES) {
        lua_pushboolean(L, 0);
        return 1;
    }
    wchar_t buf[TERM_MAXCOLS];
    int cols = COLS < TERM_MAXCOLS ? COLS : TERM_MAXCOLS;
    int used;
    int n = to_wide(s, len, buf, cols, &used);
    attr_t a = st->attr | (st->fg && has_colors() ? COLOR_PAIR((short)(si + 1)) : 0);
    wmove(stdscr, (int)row - 1, 0);
    wclrtoeol(stdscr);
    wattrset(stdscr, (int)a);
    waddnwstr(stdscr, buf, n);
    /* a bar across the width; counted, not from the cursor, which a full row
     * has moved to the start of the next one */
    if (st->attr & A_REVERSE)
        while (used++ < COLS)
            waddch(stdscr, ' ');
    wattrset(stdscr, A_NORMAL);
    lua_pushboolean(L, 1);
    return 1;
}

/***
 * Shows what was drawn (only the changes reach the terminal).
 * @function Term:refresh
 * @treturn boolean true
 */
static int t_refresh(lua_State *L)
{
    check_term(L);
    wnoutrefresh(stdscr);
    doupdate();
    lua_pushboolean(L, 1);
    return 1;
}

/***
 * Clears the screen: the next refresh redraws all of it (after a resize).
 * @function Term:clear
 * @treturn boolean true
 */
static int t_clear(lua_State *L)
{
    check_term(L);
    werase(stdscr);
    clearok(stdscr, TRUE);
    lua_pushboolean(L, 1);
    return 1;
}

static void push_key(lua_State *L, int ch)
{
    static const struct { int code; const char *name; } keys[] = {
        { KEY_UP, "up" }, { KEY_DOWN, "down" }, { KEY_LEFT, "left" }, { KEY_RIGHT, "right" },
        { KEY_PPAGE, "pgup" }, { KEY_NPAGE, "pgdn" }, { KEY_HOME, "home" }, { KEY_END, "end" },
        { KEY_RESIZE, "resize" }, { KEY_ENTER, "enter" }, { '\r', "enter" }, { '\n', "enter" },
        { 27, "esc" }, { KEY_BACKSPACE, "backspace" },
    };
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (keys[i].code == ch) {
            lua_pushstring(L, keys[i].name);
            return;
        }
    if (ch > 32 && ch < 127) {
        char c = (char)ch;
        lua_pushlstring(L, &c, 1);
    } else
        lua_pushfstring(L, "key%d", ch);
}

/***
 * Waits up to `timeout` seconds for a key.  Keys: the character ("q", "?",
 * "j"), or "up", "down", "left", "right", "pgup", "pgdn", "home", "end",
 * "enter", "esc", "resize" (the terminal changed size), "key<code>".
 * A signal ends the wait early (nil).
 * @function Term:getkey
 * @tparam number timeout seconds (0: do not wait)
 * @treturn[1] string|nil the key, nil when none came
 * @return[2] nil, message, errno (EIO: the terminal is gone, hung up or closed)
 */
static int t_getkey(lua_State *L)
{
    check_term(L);
    lua_Number timeout = luaL_checknumber(L, 2);
    luaL_argcheck(L, timeout >= 0 && timeout <= 86400, 2, "timeout must be 0 to 86400 seconds");
    struct pollfd p = { .fd = STDIN_FILENO, .events = POLLIN, .revents = 0 };
    /* rounded up: a wait of 0.4 ms that polled 0 ms would spin until it is due */
    int r = poll(&p, 1, (int)ceil(timeout * 1000));
    if (r < 0 && errno != EINTR)
        return lpl_fail(L, "term.getkey", errno);
    int ch = wgetch(stdscr);               /* also KEY_RESIZE after a SIGWINCH */
    if (ch != ERR) {
        push_key(L, ch);
        return 1;
    }
    struct termios tio;
    if (r > 0 && ((p.revents & (POLLHUP | POLLERR | POLLNVAL)) || !(p.revents & POLLIN)))
        return lpl_fail(L, "term.getkey: the terminal is gone", EIO);
    if (r > 0 && tcgetattr(STDIN_FILENO, &tio) != 0)   /* readable, yet nothing: end of input */
        return lpl_fail(L, "term.getkey: the terminal is gone", errno == ENOTTY ? EIO : errno);
    lua_pushnil(L);
    return 1;
}

/***
 * Gives the terminal back (the screen as it was before open).  Idempotent;
 * also done by `__gc`, `__close` and at exit.
 * @function Term:close
 */
static int t_close(lua_State *L)
{
    release(luaL_checkudata(L, 1, LPL_TERM));
    return 0;
}

static int t_tostring(lua_State *L)
{
    lpl_term *t = luaL_checkudata(L, 1, LPL_TERM);
    lua_pushfstring(L, t->scr ? "perflib.Term: %p" : "perflib.Term (closed): %p", (void *)t);
    return 1;
}

/* Pushes the module table perflib.term: { open = } */
void lpl_open_term(lua_State *L)
{
    static const luaL_Reg meta[] = {
        { "__gc", t_close }, { "__close", t_close }, { "__tostring", t_tostring }, { NULL, NULL }
    };
    static const luaL_Reg methods[] = {
        { "size", t_size }, { "draw", t_draw }, { "refresh", t_refresh }, { "clear", t_clear },
        { "getkey", t_getkey }, { "close", t_close }, { NULL, NULL }
    };
    lpl_newclass(L, LPL_TERM, meta, methods);
    lua_newtable(L);
    lua_pushcfunction(L, t_open);
    lua_setfield(L, -2, "open");
    lua_createtable(L, (int)NSTYLES, 0);
    for (size_t i = 0; i < NSTYLES; i++) {
        lua_pushstring(L, styles[i].name);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    lua_setfield(L, -2, "styles");
}
