-- Hand-made engine events for the notifier specs:
-- local tr = dofile "spec/support/alert_events.lua"
-- tr(t, rule, labels, to, extra) is a transition of rule's alert with labels to state `to`
-- at sample time t (value 95.5, message "RULE INSTANCE"); extra fields override.
return function(t, rule, labels, to, extra)
  local l = { alertname = rule }
  for k, v in pairs(labels or {}) do l[k] = v end
  local ev = { kind = "transition", rule = rule, labels = l, from = "pending", to = to, t = t,
               value = 95.5, message = rule .. " " .. (l.instance or "") }
  for k, v in pairs(extra or {}) do ev[k] = v end
  return ev
end
