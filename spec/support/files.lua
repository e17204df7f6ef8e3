-- Small file and process helpers shared by the specs that drive perflua or
-- write temporary trees: local files = dofile "spec/support/files.lua".
local M = {}

function M.write(path, text)
  local f = assert(io.open(path, "w"))
  f:write(text)
  f:close()
end

--- The file's contents, or nil when it does not exist.
function M.slurp(path)
  local f = io.open(path)
  if not f then return nil end
  local s = f:read("*a")
  f:close()
  return s
end

--- The file's contents, or "" when it does not exist.
function M.read(path)
  return M.slurp(path) or ""
end

--- Runs a shell command line; its output (stderr included) and exit code.
function M.run(cmd)
  local p = assert(io.popen(cmd .. " 2>&1"))
  local out = p:read("*a")
  local ok, _, code = p:close()
  return out, ok and 0 or code
end

--- The working directory (the repository's root when busted runs).
function M.cwd()
  local p = assert(io.popen "pwd")
  local d = p:read("*l")
  p:close()
  return d
end

--- A shell command's standard output (stderr goes where it goes), run without the suite's
-- preloaded sanitizers: curl, Prometheus and a perflua that serves load GnuTLS, whose
-- p11-kit destructor deadlocks at exit under a preloaded ASan.
function M.sh(cmd)
  local p = assert(io.popen("env -u LD_PRELOAD sh -c '" .. cmd:gsub("'", "'\\''") .. "'"))
  local out = p:read("*a")
  p:close()
  return out
end

--- A TCP port on 127.0.0.1 that was free a moment ago.
function M.free_port()
  return tonumber(M.sh [[python3 -c "import socket; s=socket.socket(); s.bind(('127.0.0.1',0));
print(s.getsockname()[1])"]])
end

--- A new empty directory, and the function that removes it.
function M.tempdir()
  local dir = os.tmpname()
  os.remove(dir)
  assert(os.execute("mkdir -p " .. dir))
  return dir, function() os.execute("rm -rf " .. dir) end
end

return M
