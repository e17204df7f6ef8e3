--- perflib.rules.sandbox: where rules-file code and function conditions run.
-- An environment without io, os, load, debug or require, whose library
-- tables are its own copies; a call with an instruction limit that pcall
-- cannot beat, a memory budget, that environment's string table behind
-- string methods, pattern functions charged their worst-case backtracking,
-- and a trapped TERM or INT ending it (perflib.core.sandbox).
-- @module perflib.rules.sandbox
local core = require "perflib.core"
local compat = require "perflib.compat"
local jit, setfenv = rawget(_G, "jit"), rawget(_G, "setfenv")     -- LuaJIT; 5.1 and LuaJIT

local S = {}

S.LIMIT = 100000              -- instructions per call of a condition, hook or call action
S.MEMORY = 8 * 1024 * 1024    -- bytes allocated net per such call
S.LOAD_LIMIT = 10000000       -- instructions to run a rules file
S.LOAD_MEMORY = 64 * 1024 * 1024

local BOUNDED = core.sandbox_lib()
local STRING_META = getmetatable("")

local function copy_lib(lib, bounded, leave)
  local out = {}
  for k, v in pairs(lib) do
    if k ~= leave then out[k] = bounded and bounded[k] or v end
  end
  return out
end

--- A fresh safe environment: its own math, string, table and utf8 tables (a
-- change there stays in this environment), plus the keys of `extra`.
function S.env(extra)
  local env = {
    assert = assert, error = error, ipairs = ipairs, next = next, pairs = pairs, pcall = pcall,
    select = select, tonumber = tonumber, tostring = tostring, type = type, rawequal = rawequal,
    math = copy_lib(math), string = copy_lib(string, BOUNDED.string, "dump"),
    table = copy_lib(table, BOUNDED.table), utf8 = copy_lib(compat.utf8),
  }
  for k, v in pairs(extra or {}) do env[k] = v end
  return env
end

--- A box: an environment and what a limited call in it needs.
-- @tparam[opt] table env (default: a fresh S.env())
-- @tparam[opt] integer limit instructions (default S.LIMIT)
-- @tparam[opt] integer memory bytes (default S.MEMORY)
function S.box(env, limit, memory)
  env = env or S.env()
  -- strings' metamethods while the box runs: arithmetic as usual, methods from env.string
  local meta = copy_lib(STRING_META)
  meta.__index = env.string
  return { env = env, strmt = meta, limit = limit or S.LIMIT, memory = memory or S.MEMORY }
end

--- Make fn look its globals up in env (its _ENV upvalue, when it has one;
-- on 5.1 and LuaJIT, its environment).
function S.bind(fn, env)
  if setfenv then
    if type(fn) == "function" and pcall(setfenv, fn, env) then S.interpreted(fn) end
    return fn
  end
  local i = 1
  while true do
    local name = debug.getupvalue(fn, i)
    if not name then break end
    if name == "_ENV" then
      local holder = function() return env end
      debug.upvaluejoin(fn, i, holder, 1)
    end
    i = i + 1
  end
  return fn
end

--- fn, run by LuaJIT's interpreter (and its sub-functions): compiled code runs no
-- count hook, and the instruction limit needs one. Elsewhere fn as it is.
function S.interpreted(fn)
  if jit and type(fn) == "function" then jit.off(fn, true) end
  return fn
end

--- fn(...) in the box: true and its results, or false, message, kind
-- ("error", "instructions", "memory" or "signal").
function S.call(box, fn, ...)
  return core.sandbox(box.limit, box.memory, box.strmt, fn, ...)
end

return S
