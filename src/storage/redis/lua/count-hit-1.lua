--[[
  Counts one hit in a fixed rate-limit window (per app and minute).

  Input:
    KEYS[1] ratelimit:{app}:{window}
    ARGV[1] ttl, ms: the rest of the window (the key goes with it)

  Output:
    the number of hits in the window, this one included
]]
local n = redis.call("INCR", KEYS[1])
if n == 1 then
  redis.call("PEXPIRE", KEYS[1], tonumber(ARGV[1]))
end
return n
