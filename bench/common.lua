-- What the Lua benches share: the median of rounds and a query built from
-- counter paths.  Loaded with dofile beside the bench script, so a bench
-- stays one file to run: lua5.4 bench/<name>.lua.
local common = {}

--- Median of a list of numbers (the list is not changed).
function common.median(t)
  local s = {}
  for i, v in ipairs(t) do s[i] = v end
  table.sort(s)
  local n = #s
  if n % 2 == 1 then return s[(n + 1) // 2] end
  return (s[n // 2] + s[n // 2 + 1]) / 2
end

--- A query with every path added; a path that does not add is an error,
-- since a bench that silently measures less would report a wrong ratio.
function common.new_query(perflib, paths)
  local q = perflib.query()
  for _, path in ipairs(paths) do
    local index, message, status = q:add(path)
    if not index then
      error(("add %s: %s (%s)"):format(path, tostring(status), tostring(message)))
    end
  end
  return q
end

return common
