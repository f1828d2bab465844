--[[
  Claims one attempt of a run, so no two executors call it at once (SPEC §5.5).
  The record is "state|attempt|leaseUntilMs|owner"; state is running, or the outcome
  of a finished run (succeeded, failed, skipped, missed).

  Input:
    KEYS[1] claim:{taskKey}
    ARGV[1] owner token (the same owner may claim its next attempt)
    ARGV[2] lease, ms: how long the claim holds; a lapsed lease may be taken over
    ARGV[3] keep, ms: how long the record outlives the lease

  Output:
    { "claimed", attempt, leaseUntilMs }  this caller holds attempt number `attempt`
    { "done", attempt, 0, outcome }      the run has finished already
    { "busy", attempt, leaseUntilMs }    another owner holds an unexpired lease
]]
local t = redis.call("TIME")
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local state, attempt, lease, owner = nil, 0, 0, nil
local record = redis.call("GET", KEYS[1])
if record then
  state, attempt, lease, owner = string.match(record, "^(%a+)|(%d+)|(%d+)|(.*)$")
  attempt = tonumber(attempt)
  lease = tonumber(lease)
end
if state and state ~= "running" then
  return { "done", attempt, 0, state }
end
if state == "running" and owner ~= ARGV[1] and lease > now then
  return { "busy", attempt, lease }
end
attempt = attempt + 1
local leaseUntil = now + tonumber(ARGV[2])
redis.call("SET", KEYS[1], "running|" .. attempt .. "|" .. leaseUntil .. "|" .. ARGV[1],
  "PX", tonumber(ARGV[2]) + tonumber(ARGV[3]))
return { "claimed", attempt, leaseUntil }
