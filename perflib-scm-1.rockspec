rockspec_format = "3.0"
package = "perflib"
version = "scm-1"
source = {
  url = "git+file://./",
}
description = {
  summary = "Linux performance counters for Lua 5.4, the Windows PerfLib way",
  detailed = [[
Countersets with stable GUIDs and typed counters filled from /proc and /sys,
query handles with wildcard counter paths, timestamped raw samples, and
formatted values (rates, percentages, fractions) computed in C with an
explicit status instead of a wrong number.
]],
  license = "MIT",
}
dependencies = {
  "lua >= 5.4, < 5.5",
}
-- Built by the Makefile (rock-build, rock-install): the C module perflib.core,
-- the Lua facade and the perflua host, which embeds the facade and Debian's
-- lua-argparse and lua-dkjson (/usr/share/lua/5.4/argparse.lua and dkjson.lua,
-- read at build time). Neither is a dependency here: the offline build with
-- Debian's luarocks cannot resolve rocks, and plain Lua finds Debian's.
build = {
  type = "make",
  build_target = "rock-build",
  install_target = "rock-install",
  build_variables = { CFLAGS = "$(CFLAGS)", LUA = "$(LUA)" },
  install_variables = { ROCK_LUADIR = "$(LUADIR)", ROCK_LIBDIR = "$(LIBDIR)", ROCK_BINDIR = "$(BINDIR)",
    LUA = "$(LUA)" },
}
