--[[
  Marks claims as called: their holders are sending the attempt they hold. Until then a
  claim is "claimed" (its holder waits for the due time, an app slot or its overlap turn)
  and a holder that dies leaves the same attempt to the next, a fresh pick-up; once
  "running" its call may have gone out, and a takeover is the next attempt. For several
  runs of one day (their keys share its hash tag).

  A record Redis lost (its data flushed, a failover to an empty replica) is written again
  as running, under the holder's lease: were the holder to die in its call, the takeover
  must know that a call went out.

  Input (variable number of keys):
    KEYS[1..n] claim:{day}:<taskKey>, one per run
    ARGV[1] how long a record written again lives, ms
    then per run in ARGV: owner, attempt, the lease's end (ms)

  Output, per run: 1 marked, 0 another holder's (taken over), 2 written again
]]
--- @include "claim-record"

local out = {}
local a = 2
for i = 1, #KEYS do
  local raw = redis.call("GET", KEYS[i])
  if not raw then
    writeClaim(KEYS[i], "running", tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2]), ARGV[a], tonumber(ARGV[1]))
    out[i] = 2
  else
    -- Held by this holder at this attempt, and the state rewritten in place (the lease
    -- and expiry stay): thousands are marked at each instant.
    if rawHeldBy(raw, ARGV[a], ARGV[a + 1]) then
      if string.sub(raw, 1, 7) == "claimed" then
        redis.call("SETRANGE", KEYS[i], 0, "running")
      end
      out[i] = 1
    else
      out[i] = 0
    end
  end
  a = a + 3
end
return out
