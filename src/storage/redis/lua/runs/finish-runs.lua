--[[
  Records the outcome of several runs of one day, so re-fanned copies are not called
  again and can tell MySQL what happened if its write was lost, and marks them in the
  day's bloom filter. The first 48 bits of the filter hold when it was created: a run
  due before that cannot be ruled out by the filter.

  Fenced: only the holder of the current attempt records (or anyone, when Redis lost the
  record). A late owner whose claim was taken over cannot overwrite what the current
  owner recorded.

  Input (variable number of keys):
    KEYS[1]      bloom:{day}
    KEYS[2..n+1] claim:{day}:<taskKey>, one per run
    ARGV[1] keep, ms: how long a finished record stays
    ARGV[2] bloom filter time to live, ms (0: runs too old for a filter; none is made)
    ARGV[3] k: bloom bit offsets given per run (0 with ARGV[2] 0)
    ARGV[4] now, ms (0: Redis TIME)
    then per run: owner, attempt, outcome (succeeded | failed | skipped | missed), k offsets

  Output, per run: 1 recorded; 0 not this owner's attempt (the record is left as it is)
]]
--- @include "claim-record"

local now = clockNow(ARGV[4])
if ARGV[2] ~= "0" and redis.call("EXISTS", KEYS[1]) == 0 then
  redis.call("BITFIELD", KEYS[1], "SET", "u48", 0, now)
  redis.call("PEXPIRE", KEYS[1], ARGV[2])
end
local keep = tonumber(ARGV[1])
local k = tonumber(ARGV[3])
local out = {}
-- The filter's bits are set a few hundred at a time, one BITFIELD each rather than one
-- SETBIT per bit: the calls, not the bits, are what cost Redis.
local bits = {}
local nb = 0
local function setBits()
  if nb > 0 then
    redis.call("BITFIELD", KEYS[1], unpack(bits, 1, nb))
    nb = 0
  end
end
local a = 5
for i = 2, #KEYS do
  local owner, attempt, outcome = ARGV[a], ARGV[a + 1], ARGV[a + 2]
  local raw = redis.call("GET", KEYS[i])
  -- Its holder's (read in place: every call ends here), or a record Redis lost or cannot read.
  if not raw or rawHeldBy(raw, owner, attempt) or not parseClaim(raw) then
    writeClaim(KEYS[i], outcome, attempt, 0, owner, keep)
    for j = 0, k - 1 do
      bits[nb + 1] = "SET"; bits[nb + 2] = "u1"; bits[nb + 3] = ARGV[a + 3 + j]; bits[nb + 4] = 1
      nb = nb + 4
    end
    if nb >= 1000 then
      setBits()
    end
    out[i - 1] = 1
  else
    out[i - 1] = 0
  end
  a = a + 3 + k
end
setBits()
return out
