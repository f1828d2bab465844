--[[
  Records executed task keys in a day's bloom filter. The first 64 bits hold the
  time the filter was created: a run due before that cannot be ruled out by the
  filter (it was lost, or did not exist yet) and is checked in MySQL instead.

  Input:
    KEYS[1] bloom:{YYYY-MM-DD}
    ARGV[1] time to live, ms
    ARGV[2..] bit offsets to set (each already past the 64-bit header)

  Output:
    the filter's creation time, ms
]]
if redis.call("EXISTS", KEYS[1]) == 0 then
  local t = redis.call("TIME")
  local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  redis.call("BITFIELD", KEYS[1], "SET", "u48", 0, now)
  redis.call("PEXPIRE", KEYS[1], ARGV[1])
end
for i = 2, #ARGV do
  redis.call("SETBIT", KEYS[1], ARGV[i], 1)
end
return redis.call("BITFIELD", KEYS[1], "GET", "u48", 0)[1]
