--[[
  Records the outcome of several runs of one day, so re-fanned copies are not called
  again and can tell MySQL what happened if its write was lost, and marks them in the
  day's bloom filter. The first 48 bits of the filter hold when it was created: a run
  due before that cannot be ruled out by the filter.

  Input (variable number of keys):
    KEYS[1]      bloom:{day}
    KEYS[2..n+1] claim:{day}:<taskKey>, one per run
    ARGV[1] keep, ms: how long a finished record stays
    ARGV[2] bloom filter time to live, ms
    ARGV[3] k: bloom bit offsets given per run
    then per run: owner, attempt, outcome (succeeded | failed | skipped | missed), k offsets

  Output, per run: 1 recorded; 0 another owner had taken the run over (its record is kept)
]]
if redis.call("EXISTS", KEYS[1]) == 0 then
  local t = redis.call("TIME")
  redis.call("BITFIELD", KEYS[1], "SET", "u48", 0, tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000))
  redis.call("PEXPIRE", KEYS[1], ARGV[2])
end
local keep = tonumber(ARGV[1])
local k = tonumber(ARGV[3])
local out = {}
local a = 4
for i = 2, #KEYS do
  local owner, attempt, outcome = ARGV[a], ARGV[a + 1], ARGV[a + 2]
  local taken = false
  local record = redis.call("GET", KEYS[i])
  if record then
    local state, _, _, holder = string.match(record, "^(%a+)|(%d+)|(%d+)|(.*)$")
    taken = state == "running" and holder ~= owner
  end
  if taken then
    out[#out + 1] = 0
  else
    redis.call("SET", KEYS[i], outcome .. "|" .. attempt .. "|0|" .. owner, "PX", keep)
    out[#out + 1] = 1
  end
  for j = 0, k - 1 do
    redis.call("SETBIT", KEYS[1], ARGV[a + 3 + j], 1)
  end
  a = a + 3 + k
end
return out
