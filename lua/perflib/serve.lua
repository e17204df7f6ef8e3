--- `perflua serve`: this machine's counters over HTTP (perflib.serve) until
-- SIGINT or SIGTERM; SIGHUP reads the configuration again and restarts the
-- server on it (the old one keeps serving if the new configuration fails).
-- @module perflib.serve
local perflib = require "perflib"

local M = {}

local CONFIG_KEYS = { listen = "string", collect = "table", paths = "table", token_file = "string",
  tls_cert = "string", tls_key = "string", max_clients = "number", max_body = "number", timeout = "number" }

local function read_file(path, what)
  local f, e = io.open(path, "rb")
  if not f then return nil, ("%s: %s"):format(what, e) end
  local s = f:read("*a")
  f:close()
  return s
end

--- The configuration: the file's table under the flags; nil, message on error.
-- The file (`flags.config`, Lua returning a table) is read in an empty environment; token
-- and TLS files named in either are read here.
-- @tparam table flags the options perflib.cli parsed (`listen`, `config`, `token_file`, ...)
-- @treturn[1] table the options for the C `perflib.serve(opts)` (`listen`, `token`, `tls_cert`, ...)
-- @return[2] nil
-- @treturn[2] string message naming the option ("--config: unknown key 'x'", ...)
function M.load(flags)
  local c = {}
  if flags.config then
    local chunk, e = loadfile(flags.config, "t", {})
    if not chunk then return nil, "--config: " .. e end
    local ok, t = pcall(chunk)
    if not ok then return nil, "--config: " .. tostring(t) end
    if type(t) ~= "table" then return nil, "--config: " .. flags.config .. " must return a table" end
    for k, v in pairs(t) do
      if not CONFIG_KEYS[k] then return nil, ("--config: unknown key '%s'"):format(tostring(k)) end
      if type(v) ~= CONFIG_KEYS[k] then
        return nil, ("--config: %s must be a %s"):format(k, CONFIG_KEYS[k])
      end
      c[k] = v
    end
  end
  for k, v in pairs(flags) do c[k] = v end
  c.config = nil
  local opts = { listen = c.listen, collect = c.collect, paths = c.paths, max_clients = c.max_clients,
    max_body = c.max_body, timeout = c.timeout }
  if c.token_file then
    local t, e = read_file(c.token_file, "--token-file")
    if not t then return nil, e end
    opts.token = t:match "^%s*(%S+)"
    if not opts.token then return nil, "--token-file: " .. c.token_file .. " holds no token" end
  end
  if (c.tls_cert == nil) ~= (c.tls_key == nil) then return nil, "--tls-cert and --tls-key go together" end
  if c.tls_cert then
    local e
    opts.tls_cert, e = read_file(c.tls_cert, "--tls-cert")
    if not opts.tls_cert then return nil, e end
    opts.tls_key, e = read_file(c.tls_key, "--tls-key")
    if not opts.tls_key then return nil, e end
  end
  return opts
end

--- Starts a server on opts: the server, or nil, message.
local function start(opts)
  local ok, srv, e = pcall(perflib.serve, opts)
  if not ok then return nil, (tostring(srv):gsub("^bad argument #1 to '[^']*' %((.*)%)$", "%1")) end
  if not srv then return nil, e end
  return srv
end

local function announce(out, opts, srv)
  local host = (opts.listen or "127.0.0.1:9464"):match "^(.*):%d+$"
  out:write(("perflua serve: listening on %s:%d (%s)\n"):format(host == "" and "127.0.0.1" or host, srv:port(),
    opts.tls_cert and "https" or "http"))
  out:flush()
end

--- Entry point kept for callers of the old interface (perflua serve ARGS, parsed by
-- perflib.cli): returns the exit status.
-- @tparam {string,...} args the arguments after `serve`
-- @tparam[opt] file out default `io.stdout`
-- @tparam[opt] file err default `io.stderr`
-- @treturn integer the exit status
function M.main(args, out, err)
  local argv = { "serve" }
  for k = 1, #args do argv[k + 1] = args[k] end
  return require("perflib.cli").main(argv, out, err)
end

--- Serves on the flags perflib.cli parsed (listen, config, collect, paths, token_file,
-- tls_cert, tls_key, max_clients, max_body, timeout) until INT or TERM; returns the exit
-- status: 0 after INT or TERM, 1 when it cannot serve, 2 for a configuration that is unusable.
-- @tparam table flags the options perflib.cli parsed
-- @tparam[opt=io.stdout] file out where the address it serves on is announced
-- @tparam[opt=io.stderr] file err where problems go
-- @treturn integer the exit status
function M.run(flags, out, err)
  out, err = out or io.stdout, err or io.stderr
  local e
  local opts
  opts, e = M.load(flags)
  if not opts then
    err:write("perflua serve: " .. e .. "\n")
    return 2
  end
  local srv
  srv, e = start(opts)
  if not srv then
    err:write("perflua serve: " .. e .. "\n")
    return 1
  end
  announce(out, opts, srv)
  perflib.trap("INT", "TERM", "HUP")
  while true do
    if not perflib.signalled() then perflib.sleep(3600) end
    local got = {}
    for _, sig in ipairs(perflib.trapped()) do got[sig] = true end
    if got.INT or got.TERM then break end
    if got.HUP then
      local nopts, ne = M.load(flags)
      if nopts then
        srv:close()              -- the port is free for the new one
        local nsrv, se = start(nopts)
        if nsrv then
          srv, opts = nsrv, nopts
          announce(out, opts, srv)
        else
          err:write("perflua serve: reload: " .. se .. "; serving the old configuration\n")
          srv = assert(start(opts))
        end
      else
        err:write("perflua serve: reload: " .. ne .. "; serving the old configuration\n")
      end
    end
  end
  srv:close()
  return 0
end

return M
