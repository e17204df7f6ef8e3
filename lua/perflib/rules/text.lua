--- Text for machines and people, shared by the notifier, the monitor and
-- replay: durations and rates, RFC 3339 times, and the one escaping
-- function every human-facing output goes through (JSON is perflib.json's).
-- @module perflib.rules.text
-- the real string functions: this code also runs inside sandboxed calls, where
-- string methods reach the sandbox's bounded ones (perflib.rules.sandbox)
local sfind, sgsub = string.find, string.gsub
local T = {}
local compat = require "perflib.compat"

-- Durations and rates ----------------------------------------------------------

local UNIT = { ms = 0.001, s = 1, m = 60, h = 3600, d = 86400, w = 604800 }

--- Seconds from a number or a string such as "90s", "5m", "1h30m", "250ms".
-- @return seconds or nil, message
function T.duration(v)
  if type(v) == "number" then
    if v >= 0 then return v end
    return nil, "negative duration"
  end
  if type(v) ~= "string" then return nil, "duration must be a number or a string" end
  local total, rest = 0, sgsub(v, "%s", "")
  if rest == "" then return nil, "empty duration" end
  while rest ~= "" do
    local num, unit, tail = rest:match "^(%d+%.?%d*)(%a*)(.*)$"
    if not num or (unit == "" and tail ~= "") or (unit ~= "" and not UNIT[unit]) then
      return nil, ("bad duration %q"):format(v)
    end
    total = total + tonumber(num) * (unit == "" and 1 or UNIT[unit])
    rest = tail
  end
  return total
end

--- Events per second from a number or "10/h", "3/5m", "1/s".
function T.rate(v)
  if type(v) == "number" then
    if v > 0 then return v end
    return nil, "rate must be positive"
  end
  if type(v) ~= "string" then return nil, "rate must be a number or \"n/duration\"" end
  local n, per = v:match "^%s*(%d+%.?%d*)%s*/%s*(.-)%s*$"
  if not n then return nil, ("bad rate %q"):format(v) end
  local d = T.duration(per:match "^%a" and "1" .. per or per)
  if not d or d <= 0 or tonumber(n) <= 0 then return nil, ("bad rate %q"):format(v) end
  return tonumber(n) / d
end

-- Text for people ---------------------------------------------------------------

local UNSAFE = "[%z\1-\31\127-\255]"
local SHORT = { [9] = "\\t", [10] = "\\n", [13] = "\\r" }

-- Code points that are valid UTF-8 but act on a terminal or a log viewer:
-- C1 controls, the line and paragraph separators, bidirectional overrides.
local function hidden(cp)
  return cp <= 0x9F or cp == 0x2028 or cp == 0x2029 or (cp >= 0x202A and cp <= 0x202E)
    or (cp >= 0x2066 and cp <= 0x2069)
end

--- Text safe for a terminal or a line-based log: C0 controls and DEL become
-- `\n`, `\r`, `\t` or `\xHH`; bytes that are not UTF-8 become `\xHH`; C1
-- controls (U+0080..U+009F), U+2028/U+2029 and the bidirectional controls
-- (U+202A..U+202E, U+2066..U+2069) become `\u{HHHH}`.  Other text, backslashes
-- included, is kept, so the result is one line of printable UTF-8 and
-- escaping it again changes nothing.  Every human-facing output of the
-- notifier and the monitor goes through it (JSON and exec argv do not need it).
-- @param s a string (other values go through tostring)
-- @treturn string
function T.escape(s)
  s = tostring(s)
  if not sfind(s, UNSAFE) then return s end
  local out, i, n = {}, 1, #s
  while i <= n do
    local j = sfind(s, UNSAFE, i)
    if not j then
      out[#out + 1] = s:sub(i)
      break
    end
    out[#out + 1] = s:sub(i, j - 1)
    local c = s:byte(j)
    local len = c < 0x80 and 0 or c >= 0xF0 and 4 or c >= 0xE0 and 3 or c >= 0xC2 and 2 or 0
    local piece = len > 0 and s:sub(j, j + len - 1)
    local cp = piece and #piece == len and compat.utf8.len(piece) == 1 and compat.utf8.codepoint(piece)
    if cp and not hidden(cp) then
      out[#out + 1] = piece
    elseif cp then
      out[#out + 1] = ("\\u{%04X}"):format(cp)
    else
      out[#out + 1] = SHORT[c] or ("\\x%02x"):format(c)
      len = 1
    end
    i = j + len
  end
  return table.concat(out)
end

--- RFC 3339 UTC text of a Unix time, to the millisecond ("2024-05-01T12:00:00.250Z"), or nil.
function T.rfc3339(unix)
  if type(unix) ~= "number" or unix ~= unix or math.abs(unix) > 1e12 then return nil end
  local ms = compat.tointeger(math.floor(unix * 1000 + 0.5))
  return os.date("!%Y-%m-%dT%H:%M:%S", compat.idiv(ms, 1000)) .. (".%03dZ"):format(ms % 1000)
end

return T
