-- Starting and stopping `perflua serve` daemons for the specs:
-- local serve = dofile "spec/support/serve.lua".
local files = dofile "spec/support/files.lua"
local M = {}

M.PERFLUA = os.getenv("PWD") .. "/build/perflua"

--- Starts perflua serve with args in dir (its exit status goes to rc.txt), behind an optional
-- command prefix (e.g. unshare); returns the pid of the shell's child and the port (waits for
-- the announcement).  Without the suite's preloaded sanitizers: a perflua that served has loaded
-- GnuTLS, whose p11-kit destructor deadlocks at exit under a preloaded ASan.
function M.start(dir, args, prefix)
  os.remove(dir .. "/rc.txt")
  os.execute(("cd %s && sh -c 'env -u LD_PRELOAD %s %s serve %s > out.txt 2> err.txt & echo $! > pid.txt; wait $!; "
    .. "echo $? > rc.txt' &"):format(dir, prefix or "", M.PERFLUA, args))
  local pid
  for _ = 1, 300 do
    pid = files.read(dir .. "/pid.txt"):match "%d+"
    if pid then break end
    os.execute "sleep 0.01"
  end
  for _ = 1, 300 do
    local port = files.read(dir .. "/out.txt"):match "listening on [^:]+:(%d+)"
    if port then return pid, tonumber(port) end
    if not os.execute("kill -0 " .. pid .. " 2>/dev/null") then break end
    os.execute "sleep 0.02"
  end
  error("perflua serve did not start: " .. files.read(dir .. "/err.txt"))
end

--- Sends SIGTERM to pid and waits for the exit status in dir/rc.txt.
function M.stop(dir, pid)
  os.execute(("kill -TERM %s 2>/dev/null"):format(pid))
  for _ = 1, 200 do
    local rc = files.read(dir .. "/rc.txt"):match "%d+"
    if rc then return tonumber(rc) end
    os.execute "sleep 0.02"
  end
end

return M
