-- busted output handler: the usual terminal output, then a closing line
-- "N passed, N failed, N skipped" that CI reads.  With PERFLIB_COUNTS=file
-- it also appends "passed failed skipped" to that file for run-all.sh.
return function(options)
  local busted = require "busted"
  local handler = require "busted.outputHandlers.utfTerminal"(options)
  busted.subscribe({ "suite", "end" }, function()
    local failed = handler.failuresCount + handler.errorsCount
    io.write(("%d passed, %d failed, %d skipped\n"):format(
      handler.successesCount, failed, handler.pendingsCount))
    local f = os.getenv "PERFLIB_COUNTS"
    if f and f ~= "" then
      local fh = assert(io.open(f, "a"))
      fh:write(("%d %d %d\n"):format(handler.successesCount, failed, handler.pendingsCount))
      fh:close()
    end
    return nil, true
  end)
  return handler
end
