--[[
  Writes a timer's copy unless the key holds a newer version of it or its tombstone: a
  planner that read the timer before a change committed must not put back the copy the
  change replaced (executors would call its old runs by its old definition).

  Input:
    KEYS[1] the timer's copy
    ARGV[1] the copy (compact JSON, its version under "v")
    ARGV[2] its version
    ARGV[3] time to live, ms

  Output:
    1 written, 0 left as it was
]]
local current = redis.call("GET", KEYS[1])
if current then
  if current == "deleted" then return 0 end
  local ok, held = pcall(cjson.decode, current)
  if ok and type(held) == "table" and tonumber(held.v) and tonumber(held.v) > tonumber(ARGV[2]) then
    return 0
  end
end
redis.call("SET", KEYS[1], ARGV[1], "PX", ARGV[3])
return 1
