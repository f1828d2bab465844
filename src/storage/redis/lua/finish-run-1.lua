--[[
  Marks a run finished with its outcome, so a re-fanned copy is not called again and
  can tell MySQL what happened if its own write was lost.

  Input:
    KEYS[1] claim:{taskKey}
    ARGV[1] owner token
    ARGV[2] attempt number that finished
    ARGV[3] outcome: succeeded | failed | skipped | missed
    ARGV[4] keep, ms: how long the finished record stays

  Output:
    1 recorded; 0 another owner took the run over meanwhile (its record is kept)
]]
local record = redis.call("GET", KEYS[1])
if record then
  local state, _, _, owner = string.match(record, "^(%a+)|(%d+)|(%d+)|(.*)$")
  if state == "running" and owner ~= ARGV[1] then
    return 0
  end
end
redis.call("SET", KEYS[1], ARGV[3] .. "|" .. ARGV[2] .. "|0|" .. ARGV[1], "PX", tonumber(ARGV[4]))
return 1
