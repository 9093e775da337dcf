-- near: each member's place in a ranking, as JSON members ready to send
-- ("rank":R,"of":N,"above":LINE,"line":LINE,"below":LINE, null where there is
-- no line); false for a member not ranked. The lines wanted are read in one
-- HMGET, not three per member. Serves a room's ranking and a tournament's standings.
--
-- KEYS: 1 rank (zset of five-digit members), 2 lines (hash: number -> JSON line)
-- ARGV: the numbers (seats or players)
-- Returns one string or false per number
-- uses: member
local found, want, ids = {}, {}, {}
local of = ',"of":' .. redis.call('ZCARD', KEYS[1])
for i, seat in ipairs(ARGV) do
  local r = redis.call('ZRANK', KEYS[1], member(seat))
  if r then
    local near = redis.call('ZRANGE', KEYS[1], math.max(r - 1, 0), r + 1)
    if r == 0 then table.insert(near, 1, false) end
    found[i] = {r, near}
    for j = 1, 3 do
      local m = near[j]
      if m and not want[m] then want[m] = true; ids[#ids + 1] = m end
    end
  end
end
local line = {}
if #ids > 0 then
  local seats = {}
  for j, m in ipairs(ids) do seats[j] = tostring(tonumber(m)) end
  local got = redis.call('HMGET', KEYS[2], unpack(seats))
  for j, m in ipairs(ids) do line[m] = got[j] end
end
local out = {}
for i = 1, #ARGV do
  local f = found[i]
  if f then
    local near = f[2]
    out[i] = '"rank":' .. (f[1] + 1) .. of ..
      ',"above":' .. (near[1] and line[near[1]] or 'null') ..
      ',"line":' .. (line[near[2]] or 'null') ..
      ',"below":' .. (near[3] and line[near[3]] or 'null')
  else
    out[i] = false
  end
end
return out
