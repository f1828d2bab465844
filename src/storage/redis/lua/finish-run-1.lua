--[[
  Marks a run finished (whatever its outcome), so a re-fanned copy is not called again.

  Input:
    KEYS[1] claim:{taskKey}
    ARGV[1] owner token
    ARGV[2] attempt number that finished
    ARGV[3] keep, ms: how long the finished record stays

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
redis.call("SET", KEYS[1], "done|" .. ARGV[2] .. "|0|" .. ARGV[1], "PX", tonumber(ARGV[3]))
return 1
