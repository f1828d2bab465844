--[[
  Releases a lock if, and only if, the caller still holds it.

  Input:
    KEYS[1] lock key
    ARGV[1] holder token

  Output:
    1 released, 0 not the holder
]]
if redis.call("GET", KEYS[1]) == ARGV[1] then
  return redis.call("DEL", KEYS[1])
end
return 0
