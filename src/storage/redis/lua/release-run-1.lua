--[[
  Gives a claimed run back on shutdown: the lease ends at once so another executor
  can take the run. If the attempt was never made it is undone, so the next owner
  claims the same attempt number; otherwise the next owner claims attempt + 1.

  Input:
    KEYS[1] claim:{taskKey}
    ARGV[1] owner token
    ARGV[2] 1 if the claimed attempt was not made, 0 if it was

  Output:
    1 released, 0 not this owner's claim
]]
local record = redis.call("GET", KEYS[1])
if not record then
  return 0
end
local state, attempt, _, owner = string.match(record, "^(%a+)|(%d+)|(%d+)|(.*)$")
if state ~= "running" or owner ~= ARGV[1] then
  return 0
end
attempt = tonumber(attempt) - tonumber(ARGV[2])
if attempt <= 0 then
  redis.call("DEL", KEYS[1])
else
  redis.call("SET", KEYS[1], "running|" .. attempt .. "|0|" .. ARGV[1], "KEEPTTL")
end
return 1
