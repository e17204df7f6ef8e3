-- A syslog daemon stand-in for the specs (the machine's /dev/log may have no
-- listener): local syslogd = dofile "spec/support/syslogd.lua"
local M = {}

--- Starts a listener on dir/log.sock that quits after 1 s without a record;
-- its socket path, or nil when it did not start.
function M.start(dir)
  local sock, got = dir .. "/log.sock", dir .. "/got"
  os.execute(("python3 spec/support/syslog_listener.py %s %s 1 & "
    .. "i=0; while [ ! -S %s ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i+1)); done"):format(sock, got, sock))
  local f = io.open(got)
  if not f then return nil end
  f:close()
  M.got = got
  return sock
end

--- The records received so far, waiting up to 2 s for n of them.
function M.records(n)
  local recs = {}
  for _ = 1, 20 do
    local f = assert(io.open(M.got))
    recs = {}
    for line in f:read("*a"):gmatch "[^\n]+" do recs[#recs + 1] = line end
    f:close()
    if #recs >= n then break end
    os.execute "sleep 0.1"
  end
  return recs
end

return M
