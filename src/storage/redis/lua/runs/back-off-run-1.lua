--[[
  Turns the holder's claim into a backoff: the attempt failed and a retry job is queued
  for `delay` from now. Nobody holds the run meanwhile (no executor slot, no lease); the
  retry job claims the next attempt once the backoff has run out. The record lives
  through the whole backoff, however long a Retry-After asked for.

  Input:
    KEYS[1] claim:{day}:<taskKey>
    ARGV[1] owner
    ARGV[2] attempt
    ARGV[3] delay, ms
    ARGV[4] keep, ms: how long the record outlives the backoff
    ARGV[5] now, ms (0: Redis TIME)

  Output: the backoff's end (ms), or 0 if this owner does not hold the attempt
]]
--- @include "claim-record"

local now = clockNow(ARGV[5])
local attempt = tonumber(ARGV[2])
local record = readClaim(KEYS[1])
if record and not holds(record, ARGV[1], attempt) then
  return 0
end
local retryAt = now + tonumber(ARGV[3])
writeClaim(KEYS[1], "backoff", attempt, retryAt, ARGV[1], tonumber(ARGV[3]) + tonumber(ARGV[4]))
return retryAt
