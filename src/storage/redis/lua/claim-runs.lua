--[[
  Claims one attempt of each of several runs of one day, so no two executors call a
  run at once (SPEC §5.5), and asks the day's bloom filter about each run claimed at its
  first attempt. The keys share the day's hash tag, so one script serves a whole batch.

  A claim record is "state|attempt|leaseUntilMs|owner"; state is running, or the outcome
  of a finished run (succeeded, failed, skipped, missed).

  Input (variable number of keys):
    KEYS[1]      bloom:{day}
    KEYS[2..n+1] claim:{day}:<taskKey>, one per run
    ARGV[1] keep, ms: how long a record outlives its lease
    ARGV[2] k: bloom bit offsets given per run
    then per run: owner, lease ms, run time ms, k bloom bit offsets

  Output, per run, five values:
    "claimed", attempt, leaseUntilMs, "", bloom   this caller holds attempt `attempt`
    "done", attempt, 0, outcome, ""               the run has finished already
    "busy", attempt, leaseUntilMs, "", ""         another owner holds an unexpired lease
  where bloom (only at attempt 1) is "no" (certainly never ran), "maybe" (its bits are
  set) or "unknown" (the filter is missing or younger than the run: ask MySQL).
]]
local t = redis.call("TIME")
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local keep = tonumber(ARGV[1])
local k = tonumber(ARGV[2])
local createdAt = redis.call("BITFIELD", KEYS[1], "GET", "u48", 0)[1]
local out = {}
local a = 3
for i = 2, #KEYS do
  local owner, leaseMs, runAt = ARGV[a], tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2])
  local state, attempt, lease, holder = nil, 0, 0, nil
  local record = redis.call("GET", KEYS[i])
  if record then
    state, attempt, lease, holder = string.match(record, "^(%a+)|(%d+)|(%d+)|(.*)$")
    attempt = tonumber(attempt)
    lease = tonumber(lease)
  end
  if state and state ~= "running" then
    out[#out + 1] = "done"; out[#out + 1] = attempt; out[#out + 1] = 0; out[#out + 1] = state; out[#out + 1] = ""
  elseif state == "running" and holder ~= owner and lease > now then
    out[#out + 1] = "busy"; out[#out + 1] = attempt; out[#out + 1] = lease; out[#out + 1] = ""; out[#out + 1] = ""
  else
    attempt = attempt + 1
    local leaseUntil = now + leaseMs
    redis.call("SET", KEYS[i], "running|" .. attempt .. "|" .. leaseUntil .. "|" .. owner, "PX", leaseMs + keep)
    local bloom = ""
    if attempt == 1 then
      if createdAt == 0 or runAt < createdAt then
        bloom = "unknown"
      else
        bloom = "maybe"
        for j = 0, k - 1 do
          if redis.call("GETBIT", KEYS[1], ARGV[a + 3 + j]) == 0 then
            bloom = "no"
            break
          end
        end
      end
    end
    out[#out + 1] = "claimed"; out[#out + 1] = attempt; out[#out + 1] = leaseUntil; out[#out + 1] = ""; out[#out + 1] = bloom
  end
  a = a + 3 + k
end
return out
