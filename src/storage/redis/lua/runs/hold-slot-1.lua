--[[
  Takes a single-holder slot (a timer's in-flight run, or its one buffered run) for
  `holder`, or extends it if `holder` already has it: the slot belongs to one run across
  every executor, through its retries.

  Input:
    KEYS[1] overlap:{timerId}:running (or :buffered)
    ARGV[1] holder (the run's task key)
    ARGV[2] time to live, ms

  Output: 1 the holder has the slot, 0 another run holds it
]]
local current = redis.call("GET", KEYS[1])
if current == ARGV[1] then
  redis.call("PEXPIRE", KEYS[1], ARGV[2])
  return 1
end
if current then
  return 0
end
redis.call("SET", KEYS[1], ARGV[1], "PX", ARGV[2])
return 1
