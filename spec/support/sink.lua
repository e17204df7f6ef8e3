-- A writer that keeps what is written, for the `out` and `err` of the
-- commands' Lua entry points (perflib.cli, typeperf, plot, replay, ...):
-- local sink = dofile "spec/support/sink.lua"; local out = sink(); ...; out:text()
return function()
  local t = { parts = {} }
  function t.write(self, ...)
    for _, s in ipairs { ... } do self.parts[#self.parts + 1] = tostring(s) end
    return self
  end
  function t.flush(self) return self end
  function t.text() return table.concat(t.parts) end      -- out:text() and out.text() alike
  return t
end
