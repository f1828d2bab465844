--[[
  After Redis lost its data: writes the outcome of runs that finished in this process
  but whose outcome MySQL does not have yet, so that copies of them fanned out again (the
  slices are rebuilt from MySQL, which still shows them pending) find them done. A copy
  already claimed but not yet calling loses its claim (its holder is fenced before it
  calls); one being called, or finished, is left alone. For several runs of one day.

  Input (variable number of keys):
    KEYS[1..n] claim:{day}:<taskKey>, one per run
    ARGV[1] keep, ms: how long the record stays
    then per run: attempt, outcome (succeeded | failed | skipped | missed)

  Output: how many records were written
]]
--- @include "claim-record"

local keep = tonumber(ARGV[1])
local written = 0
local a = 2
for i = 1, #KEYS do
  local record = readClaim(KEYS[i])
  if not record or record.state == "claimed" then
    writeClaim(KEYS[i], ARGV[a + 1], tonumber(ARGV[a]), 0, "reasserted", keep)
    written = written + 1
  end
  a = a + 2
end
return written
