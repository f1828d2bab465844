--[[
  The holders' heartbeat: extends the leases of runs still held, for each run of one day.
  A record that is gone (Redis lost its data) is written again for its holder, so copies
  of the run fanned out after the loss find it taken (as running: its call may be out).

  Input (variable number of keys):
    KEYS[1..n] claim:{day}:<taskKey>, one per run
    ARGV[1] keep, ms: how long a record outlives its lease
    ARGV[2] now, ms (0: Redis TIME)
    then per run: owner, attempt, lease ms

  Output, per run: "held" (renewed), "reasserted" (written again), or "lost" (another
  owner or attempt holds the run, or it finished: the caller must neither send nor record it)
]]
--- @include "claim-record"

local keep = tonumber(ARGV[1])
local now = clockNow(ARGV[2])
local out = {}
local a = 3
for i = 1, #KEYS do
  local owner, attempt, leaseMs = ARGV[a], tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2])
  local record = readClaim(KEYS[i])
  if not record then
    writeClaim(KEYS[i], "running", attempt, now + leaseMs, owner, leaseMs + keep)
    out[#out + 1] = "reasserted"
  elseif holds(record, owner, attempt) then
    writeClaim(KEYS[i], record.state, attempt, now + leaseMs, owner, leaseMs + keep)
    out[#out + 1] = "held"
  else
    out[#out + 1] = "lost"
  end
  a = a + 3
end
return out
