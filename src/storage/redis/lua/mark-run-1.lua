--[[
  Says whether the holder of a run's attempt has called yet: "parked" while it waits
  (for its app's slot or its overlap turn) before calling, "running" once it goes on to
  call. A holder that dies parked made no call: the run is taken over as the same
  attempt, a fresh pick-up whose misfire and overlap policies apply.

  Input:
    KEYS[1] claim:{day}:<taskKey>
    ARGV[1] owner token
    ARGV[2] attempt held
    ARGV[3] "parked" or "running"

  Output:
    1 marked, 0 not this owner's attempt
]]
--- @include "claim-record"

local record = readClaim(KEYS[1])
if not record or not holds(record, ARGV[1], tonumber(ARGV[2])) then
  return 0
end
redis.call("SET", KEYS[1], ARGV[3] .. "|" .. record.attempt .. "|" .. record.untilMs .. "|" .. record.holder, "KEEPTTL")
return 1
