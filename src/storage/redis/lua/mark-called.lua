--[[
  Marks claims as called: their holders are sending the attempt they hold. Until then a
  claim is "claimed" (its holder waits for the due time, an app slot or its overlap turn)
  and a holder that dies leaves the same attempt to the next, a fresh pick-up; once
  "running" its call may have gone out, and a takeover is the next attempt. For several
  runs of one day (their keys share its hash tag).

  Input (variable number of keys):
    KEYS[1..n] claim:{day}:<taskKey>, one per run
    then per run in ARGV: owner, attempt

  Output, per run: 1 marked, 0 another holder's (taken over), 2 no record (Redis lost it:
  the holder goes by its lease, which its next renewal writes again)
]]
--- @include "claim-record"

local out = {}
local a = 1
for i = 1, #KEYS do
  local record = readClaim(KEYS[i])
  if not record then
    out[#out + 1] = 2
  elseif holds(record, ARGV[a], tonumber(ARGV[a + 1])) then
    redis.call("SET", KEYS[i], "running|" .. record.attempt .. "|" .. record.untilMs .. "|" .. record.holder, "KEEPTTL")
    out[#out + 1] = 1
  else
    out[#out + 1] = 0
  end
  a = a + 2
end
return out
