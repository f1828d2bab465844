--[[
  Gives a claimed run back (shutdown, or a copy that found the run in other hands): the
  lease ends at once so another executor can take it. If the attempt was never made it
  is undone, so the next owner claims the same attempt number; otherwise the next owner
  claims attempt + 1.

  Input:
    KEYS[1] claim:{day}:<taskKey>
    ARGV[1] owner token
    ARGV[2] attempt held
    ARGV[3] 1 if the attempt was not made, 0 if it was

  Output:
    1 released, 0 not this owner's attempt
]]
--- @include "claim-record"

local attempt = tonumber(ARGV[2])
local record = readClaim(KEYS[1])
if not record or not holds(record, ARGV[1], attempt) then
  return 0
end
local remaining = attempt - tonumber(ARGV[3])
if remaining <= 0 then
  redis.call("DEL", KEYS[1])
else
  redis.call("SET", KEYS[1], "running|" .. remaining .. "|0|" .. ARGV[1], "KEEPTTL")
end
return 1
