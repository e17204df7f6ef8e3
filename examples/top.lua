-- perflib's live view of this machine: `perflua top`'s machine summary (CPU,
-- memory, disk, network, load) once per second, until q or Ctrl-C.
--   perflua examples/top.lua [seconds]      (0 or none: until q or Ctrl-C)
-- `perflua top SET` shows any counterset (perflib.top).
local limit = math.tointeger(tonumber(arg and arg[1] or "0") or 0) or 0
-- one frame more than the seconds asked for: rates need a pair
os.exit(require("perflib.top").run { count = limit > 0 and limit + 1 or nil })
