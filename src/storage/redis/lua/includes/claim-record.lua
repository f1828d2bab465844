--[[
  Claim records, the one definition (src/storage/redis/runs/claim-record.ts is its TS twin).

  A record is "state|attempt|untilMs|holder":
    claimed   holder (owner token) holds attempt `attempt` and has not called yet (it
              waits for the due time, an app slot or its overlap turn); its lease ends at
              untilMs unless the holder renews it (a heartbeat)
    running   as claimed, but the holder is calling: the attempt may have been made
    backoff   attempt `attempt` failed and may be retried from untilMs on (retry job queued)
    succeeded | failed | skipped | missed   the run is finished; untilMs is 0
  The owner token and the attempt together are the fencing token: only the holder of
  the current attempt may renew, finish or release it.
]]
local function parseClaim(raw)
  local state, attempt, untilMs, holder = string.match(raw, "^(%a+)|(%d+)|(%d+)|(.*)$")
  if not state then
    return nil
  end
  return { state = state, attempt = tonumber(attempt), untilMs = tonumber(untilMs), holder = holder }
end

local function readClaim(key)
  local raw = redis.call("GET", key)
  if not raw then
    return nil
  end
  return parseClaim(raw)
end

local function writeClaim(key, state, attempt, untilMs, holder, ttlMs)
  redis.call("SET", key, state .. "|" .. attempt .. "|" .. untilMs .. "|" .. holder, "PX", math.max(1, ttlMs))
end

local function isHeld(record)
  return record.state == "running" or record.state == "claimed"
end

local function isFinished(record)
  return not isHeld(record) and record.state ~= "backoff"
end

local function holds(record, owner, attempt)
  return isHeld(record) and record.holder == owner and record.attempt == attempt
end

-- Whether a raw record is held by `owner` at `attempt` (given as its decimal text): read
-- in place rather than taken apart, as the scripts that run at every call do ("claimed"
-- and "running" are as long).
local function rawHeldBy(raw, owner, attempt)
  local state = string.sub(raw, 1, 8)
  if state ~= "claimed|" and state ~= "running|" then
    return false
  end
  local head = "|" .. attempt .. "|"
  if string.sub(raw, 8, 7 + #head) ~= head then
    return false
  end
  local _, untilEnd = string.find(raw, "^%d+|", 8 + #head)
  return untilEnd ~= nil and string.sub(raw, untilEnd + 1) == owner
end

-- Calls made for the run: a holder that has not called has not made the attempt it holds.
local function callsMade(record)
  if record.state == "claimed" then
    return record.attempt - 1
  end
  return record.attempt
end

-- The scripts' clock: Redis TIME, one clock for every process, unless a test passes its own.
local function clockNow(override)
  local given = tonumber(override)
  if given and given > 0 then
    return math.floor(given)
  end
  local t = redis.call("TIME")
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
