--[[
  Reopens a finished run for a user's retry: its record becomes a backoff that ends now,
  after the `attempts` already made, so the retry job claims attempt attempts + 1 and
  re-fanned copies still find the run taken meanwhile. A run someone holds is left alone.

  Input:
    KEYS[1] claim:{day}:<taskKey>
    ARGV[1] attempts made
    ARGV[2] keep, ms: how long the record stays
    ARGV[3] now, ms (0: Redis TIME)

  Output: 1 reopened, 0 the run is held or backing off (it is not finished)
]]
--- @include "claim-record"

local now = clockNow(ARGV[3])
local record = readClaim(KEYS[1])
if record and not isFinished(record) then
  return 0
end
writeClaim(KEYS[1], "backoff", tonumber(ARGV[1]), now, "retry", tonumber(ARGV[2]))
return 1
