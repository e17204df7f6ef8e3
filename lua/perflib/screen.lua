--- What the live views (`perflua monitor --view`, `perflua top`) share:
-- text fitted to a width in columns, values with units for people, the
-- notes that explain empty countersets, and the live screen on the
-- terminal layer (`perflib.term`): draw rows, wait for keys, scroll, help.
-- Layouts are pure: state in, rows of `{ text =, style = }` out.
-- @module perflib.screen

local S = {}

-- Columns of a string: UTF-8 characters (escaped text has no control or
-- zero-width ones), its bytes when it is not UTF-8 (or Lua has no utf8).
local ulen = utf8 and utf8.len or function() return nil end
local function cols(s)
  return ulen(s) or #s
end
S.cols = cols

--- The text cut to at most `w` columns.
-- @tparam string s
-- @tparam integer w
-- @treturn string
function S.fit(s, w)
  if w <= 0 then return "" end
  if cols(s) <= w then return s end
  if not ulen(s) then return s:sub(1, w) end
  return s:sub(1, utf8.offset(s, w + 1) - 1)
end

--- The text fitted and padded with spaces to exactly `w` columns (left-aligned,
-- or right-aligned when `right`).
function S.pad(s, w, right)
  s = S.fit(s, w)
  local fill = (" "):rep(w - cols(s))
  return right and fill .. s or s .. fill
end

local BINARY = { "KiB", "MiB", "GiB", "TiB", "PiB" }

-- A number in at most 6 characters or so: 0.25, 12.5, 1234, 12.3k, 4.56M.
local function short(v)
  local a = math.abs(v)
  if math.type and math.type(v) == "integer" and a < 100000 then return tostring(v) end
  if a >= 1e12 then return ("%.2fT"):format(v / 1e12) end
  if a >= 1e9 then return ("%.2fG"):format(v / 1e9) end
  if a >= 1e6 then return ("%.2fM"):format(v / 1e6) end
  if a >= 1e5 then return ("%.1fk"):format(v / 1e3) end
  if a >= 100 or a == math.floor(a) then return ("%.0f"):format(v) end
  return ("%.2f"):format(v)
end

--- A value with its unit, short enough for a column: "12.5%", "1.50 GiB",
-- "3.2 KiB/s", "120/s", "0.004 s/op".  A unit is a counter's
-- `formatted_unit` ("" for counts); nil value: "-".
-- @param v number or nil
-- @tparam[opt] string unit
-- @treturn string
function S.human(v, unit)
  if v == nil then return "-" end
  if type(v) ~= "number" then return tostring(v) end
  unit = unit or ""
  local scale = ({ KiB = 1024, MiB = 1048576, GiB = 1073741824 })[unit]
  if scale then v, unit = v * scale, "bytes" end
  local base, per = unit:match "^(bytes)(/.*)$"
  if unit == "bytes" or base then
    local a, i = math.abs(v), 0
    while a >= 1024 and i < #BINARY do a, i = a / 1024, i + 1 end
    local sign = v < 0 and "-" or ""
    local text = i == 0 and ("%s%.0f B"):format(sign, a) or ("%s%.2f %s"):format(sign, a, BINARY[i])
    return text .. (per or "")
  end
  if unit == "percent" then return ("%.1f%%"):format(v) end
  if unit == "seconds" and math.abs(v) >= 60 then
    local s = math.floor(v)
    local floor = math.floor
    if s >= 86400 then return ("%dd%02dh"):format(floor(s / 86400), floor(s % 86400 / 3600)) end
    return ("%d:%02d:%02d"):format(floor(s / 3600), floor(s % 3600 / 60), s % 60)
  end
  if unit == "" then return short(v) end
  if unit:sub(1, 1) == "/" then return short(v) .. unit end
  return short(v) .. " " .. unit:gsub("^seconds", "s")
end

-- Is this process root?  (The notes below are for everybody else.)
local function is_root()
  local f = io.open "/proc/self/status"
  if not f then return false end
  local s = f:read "a"
  f:close()
  return s:match "\nUid:%s+(%d+)" == "0"
end

local function paranoid()
  local f = io.open "/proc/sys/kernel/perf_event_paranoid"
  local n = f and tonumber(f:read "l")
  if f then f:close() end
  return n
end

--- Why a counterset is empty or partial for this user, or nil: the IO
-- counters of Process read /proc/PID/io (only the owner's and root's), Hardware Events needs
-- perf events system-wide (root, or kernel.perf_event_paranoid <= 0).
-- @tparam string set counterset name
-- @tparam[opt] boolean root whether the user is root (default: looked up)
-- @tparam[opt] integer level perf_event_paranoid (default: read from /proc)
-- @treturn string|nil
function S.note(set, root, level)
  if root == nil then root = is_root() end
  if root then return nil end
  local s = type(set) == "string" and set:lower() or ""
  if s == "process" then
    return "Process IO counters: only your own processes have them (/proc/PID/io is readable by "
      .. "its owner and root); run as root for all"
  end
  if s == "hardware events" then
    level = level or paranoid()
    if level == nil or level > 0 then
      return ("Hardware Events: empty as a non-root user while kernel.perf_event_paranoid is %s "
        .. "(needs 0 or less, or root)"):format(level and tostring(level) or "unknown")
    end
  end
  return nil
end

--- The counterset names in counter paths (`\Set(inst)\Counter`), each once, in order.
function S.sets_of(paths)
  local out, seen = {}, {}
  for _, p in ipairs(paths) do
    local set = type(p) == "string" and (p:match "^\\([^\\(]+)%(" or p:match "^\\([^\\(]+)\\")
    if set and not seen[set] then
      seen[set] = true
      out[#out + 1] = set
    end
  end
  return out
end

--- Rows of the keys screen: a title, one row per `{ keys, what }`, then the
-- legend rows `{ text, style }` as given.
function S.help_rows(title, keys, legend, w, h)
  local rows = { { text = S.fit(title, w), style = "status" } }
  for _, k in ipairs(keys) do
    rows[#rows + 1] = { text = S.fit(("  %-16s %s"):format(k[1], k[2]), w), style = "normal" }
  end
  if legend and #legend > 0 then
    rows[#rows + 1] = { text = "", style = "normal" }
    for _, l in ipairs(legend) do rows[#rows + 1] = { text = S.fit("  " .. l[1], w), style = l[2] } end
  end
  while #rows > h do rows[#rows] = nil end
  return rows
end

--- The new first line of a scrolled list after a key, or nil when the key
-- does not scroll.  `page`: lines on the screen, `n`: lines in the list.
function S.scroll(key, top, page, n)
  local last = math.max(1, n - page + 1)
  local to
  if key == "down" or key == "j" then to = top + 1
  elseif key == "up" or key == "k" then to = top - 1
  elseif key == "pgdn" or key == " " then to = top + math.max(1, page - 1)
  elseif key == "pgup" or key == "b" then to = top - math.max(1, page - 1)
  elseif key == "home" or key == "g" then to = 1
  elseif key == "end" or key == "G" then to = last
  else return nil end
  return math.max(1, math.min(last, to))
end

-- ---- the live screen -----------------------------------------------------------

local Live = {}
Live.__index = Live

--- The live screen on this terminal, or nil, message when standard output
-- is not one (the views print plain blocks then).  `layout(live, h, w)`
-- returns the rows; `on_key(live, key)` handles the view's own keys
-- (true: redraw).  `live.help` is set while the keys screen shows.
-- @tparam function layout
-- @tparam[opt] function on_key
-- @return the live screen or nil, message
function S.live(layout, on_key)
  local t, msg = require("perflib.core").term.open()
  if not t then return nil, msg end
  return setmetatable({ t = t, layout = layout, on_key = on_key, top = 1, help = false, page = 1, shown = {} },
    Live)
end

--- Draws the rows the layout gives for the terminal's size now.
function Live:draw()
  local t, shown = self.t, self.shown
  local h, w = t:size()
  local rows = self.layout(self, h, w)
  for i = 1, h do
    local r = rows[i]
    local text, style = r and r.text or "", r and r.style or "normal"
    if shown[i] ~= text or shown[-i] ~= style then       -- a row as it was is left alone
      t:draw(i, text, style)
      shown[i], shown[-i] = text, style
    end
  end
  t:refresh()
end

-- One key: true to redraw, "quit" to stop.
function Live:key(key)
  if key == "resize" then
    self.t:clear()
    self.shown = {}            -- every row again on the cleared screen
    return true
  end
  if self.help then            -- any other key closes the keys screen
    self.help = false
    return key ~= "q" or "quit"
  end
  if key == "q" or key == "Q" then return "quit" end
  if key == "?" or key == "h" then self.help = true return true end
  local to = S.scroll(key, self.top, self.page, self.n or 0)
  if to then
    local moved = to ~= self.top
    self.top = to
    return moved
  end
  return self.on_key and self.on_key(self, key) or false
end

--- Waits until the clock reaches `due` (perflib.clock seconds), handling
-- keys meanwhile.  Returns "quit" (q), "gone" (the terminal hung up or
-- closed), "signal" (a trapped signal arrived) or nil (time is up).
function Live:wait(due)
  local perflib = require "perflib"
  while true do
    if perflib.signalled() then return "signal" end
    local left = due - perflib.clock()
    if left <= 0 then return nil end
    local key, msg = self.t:getkey(left)
    if key == nil and msg then
      self.gone = msg
      return "gone"
    end
    if key then
      local r = self:key(key)
      if r == "quit" then return "quit" end
      if r then self:draw() end
    end
  end
end

--- Gives the terminal back (idempotent).
function Live:close()
  self.t:close()
end

return S
