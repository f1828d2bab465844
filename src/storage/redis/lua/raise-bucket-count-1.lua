--[[
  Raises a minute's bucket count to at least the wanted value; never lowers it, so
  every bucket a run was ever placed in stays scanned (adaptive bucketing).

  Input:
    KEYS[1] bucket_cnt:{minute}
    ARGV[1] wanted bucket count
    ARGV[2] expiry, unix ms

  Output:
    the minute's bucket count after the call
]]
local current = tonumber(redis.call("GET", KEYS[1]) or "0")
local wanted = tonumber(ARGV[1])
if wanted > current then
  redis.call("SET", KEYS[1], wanted)
  current = wanted
end
redis.call("PEXPIREAT", KEYS[1], ARGV[2])
return current
