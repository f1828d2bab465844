--[[
  Counts hits in a fixed rate-limit window (per app and minute).

  Input:
    KEYS[1] ratelimit:{app}:{window}
    ARGV[1] ttl, ms: the rest of the window (the key goes with it)
    ARGV[2] how many hits (a bulk action's calls at once)

  Output:
    the number of hits in the window, these included
]]
local hits = tonumber(ARGV[2])
local n = redis.call("INCRBY", KEYS[1], hits)
if n == hits then
  redis.call("PEXPIRE", KEYS[1], tonumber(ARGV[1]))
end
return n
