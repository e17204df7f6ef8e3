/* What the parts of the perflua host share: perflua.c (options, scripts,
 * subcommands) and repl.c (the interactive session). */
#ifndef PERFLUA_H
#define PERFLUA_H

#include <lua.h>

#define PROGNAME "perflua"

/* pcall with a traceback handler; Ctrl-C raises "interrupted!" in the
 * running chunk while it runs. */
int perflua_docall(lua_State *L, int narg, int nres);
/* "pname: msg" on stderr (pname NULL: msg alone). */
void perflua_message(const char *pname, const char *msg);
/* The read-eval-print loop, until Ctrl-D or Ctrl-C twice on an empty line. */
void perflua_repl(lua_State *L);

#endif
