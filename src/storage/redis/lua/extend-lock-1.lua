--[[
  Extends a lock's expiry if, and only if, the caller still holds it.

  Input:
    KEYS[1] lock key
    ARGV[1] holder token
    ARGV[2] new time to live, ms

  Output:
    1 extended, 0 not the holder (expired or taken by someone else)
]]
if redis.call("GET", KEYS[1]) == ARGV[1] then
  return redis.call("PEXPIRE", KEYS[1], ARGV[2])
end
return 0
