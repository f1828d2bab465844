--[[
  Keeps a lock for its holder: extends it if the caller holds it, and takes it again if
  it lapsed meanwhile and no one else took it (a holder slowed down past its lock's time
  to live is still the only one working under it).

  Input:
    KEYS[1] lock key
    ARGV[1] holder token
    ARGV[2] new time to live, ms

  Output:
    1 held (extended, or taken again), 0 another holder has it
]]
local current = redis.call("GET", KEYS[1])
if current == ARGV[1] or current == false then
  redis.call("SET", KEYS[1], ARGV[1], "PX", ARGV[2])
  return 1
end
return 0
