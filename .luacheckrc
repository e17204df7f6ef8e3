std = "lua54"
max_line_length = 120
include_files = { "lua/**/*.lua", "spec/**/*.lua", "examples/**/*.lua", "bench/**/*.lua",
                  "src/host/*.lua", "*.rockspec", ".busted", ".luacheckrc" }
exclude_files = { "build/**", "lua_modules/**" }
files["spec/**/*.lua"] = { std = "+busted" }
files["*.rockspec"] = { std = "+rockspec" }
