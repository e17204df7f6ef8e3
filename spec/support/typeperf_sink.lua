-- A writer that keeps what is written (stdout and stderr of perflib.typeperf
-- and perflib.cli in the 95-typeperf and 95-list specs):
-- local sink = dofile "spec/support/typeperf_sink.lua"; local out = sink(); ...; out:text()
return function()
  local t = { parts = {} }
  function t.write(self, ...)
    for _, s in ipairs { ... } do self.parts[#self.parts + 1] = s end
    return self
  end
  function t.flush() return true end
  function t.text(self) return table.concat(self.parts) end
  return t
end
