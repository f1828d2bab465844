--[[
  Claims the next attempt of each of several runs of one day, so no two executors call
  a run at once, and asks the day's bloom filter about each run claimed at its first
  attempt that the caller asks about (one due already: of a run not yet due the answer
  is not needed). The keys share the day's hash tag: one script serves a batch.

  A run can be claimed when it has no record, when its holder's lease lapsed (the holder
  is gone: live holders renew), or when its backoff has (nearly) run out. The attempt
  claimed is one past the calls known: the record's (a holder that had not called made
  none for the attempt it held), or `minAttempt` (what MySQL knows after Redis lost the
  record). A claim starts "claimed": its holder marks it "running" as it calls.

  Input (variable number of keys):
    KEYS[1]      bloom:{day}
    KEYS[2..n+1] claim:{day}:<taskKey>, one per run
    ARGV[1] keep, ms: how long a record outlives its lease
    ARGV[2] k: the filter's bit offsets per run
    ARGV[3] now, ms (0: Redis TIME)
    ARGV[4] backoff slack, ms: how early a backoff may be claimed
    then per run: owner, lease ms, run time ms, minAttempt, n (k to ask the filter, else
    0), n bloom bit offsets

  Output, per run, five values:
    "claimed", attempt, leaseUntilMs, "", bloom   this caller holds attempt `attempt`
    "done", attempt, 0, outcome, ""               the run has finished already
    "busy", attempt, untilMs, state, ""           held by a live owner, or backing off until untilMs
  where bloom (only at attempt 1, when asked) is "no" (certainly never ran), "maybe" (its
  bits are set) or "unknown" (the filter is missing or younger than the run: ask MySQL).
]]
--- @include "claim-record"

local keep = tonumber(ARGV[1])
local k = tonumber(ARGV[2])
local now = clockNow(ARGV[3])
local slack = tonumber(ARGV[4])
local createdAt = redis.call("BITFIELD", KEYS[1], "GET", "u48", 0)[1]
local out = {}
local bits = {}
local asked = {}
local a = 5
for i = 2, #KEYS do
  local owner, leaseMs, runAt, minAttempt = ARGV[a], tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2]), tonumber(ARGV[a + 3])
  local n = tonumber(ARGV[a + 4])
  local record = readClaim(KEYS[i])
  if record and isFinished(record) then
    out[#out + 1] = "done"; out[#out + 1] = record.attempt; out[#out + 1] = 0; out[#out + 1] = record.state; out[#out + 1] = ""
  elseif record and isHeld(record) and record.holder ~= owner and record.untilMs > now then
    out[#out + 1] = "busy"; out[#out + 1] = record.attempt; out[#out + 1] = record.untilMs; out[#out + 1] = "running"; out[#out + 1] = ""
  elseif record and record.state == "backoff" and record.untilMs - slack > now then
    out[#out + 1] = "busy"; out[#out + 1] = record.attempt; out[#out + 1] = record.untilMs; out[#out + 1] = "backoff"; out[#out + 1] = ""
  else
    local attempt = math.max(record and callsMade(record) or 0, minAttempt) + 1
    local leaseUntil = now + leaseMs
    writeClaim(KEYS[i], "claimed", attempt, leaseUntil, owner, leaseMs + keep)
    local bloom = ""
    if attempt == 1 and n > 0 then
      if createdAt == 0 or runAt < createdAt then
        bloom = "unknown"
      elseif k > 0 then
        -- Answered below, from one BITFIELD over every run's bits.
        asked[#asked + 1] = #out + 5
        for j = 0, k - 1 do
          bits[#bits + 1] = "GET"; bits[#bits + 1] = "u1"; bits[#bits + 1] = ARGV[a + 5 + j]
        end
      else
        bloom = "maybe"
      end
    end
    out[#out + 1] = "claimed"; out[#out + 1] = attempt; out[#out + 1] = leaseUntil; out[#out + 1] = ""; out[#out + 1] = bloom
  end
  a = a + 5 + n
end
-- A run certainly never ran when any of its bits is clear.
local b = 1
for start = 1, #bits, 999 do
  local values = redis.call("BITFIELD", KEYS[1], unpack(bits, start, math.min(start + 998, #bits)))
  for _, v in ipairs(values) do
    local at = asked[math.floor((b - 1) / k) + 1]
    if v == 0 then
      out[at] = "no"
    elseif out[at] == "" then
      out[at] = "maybe"
    end
    b = b + 1
  end
end
return out
