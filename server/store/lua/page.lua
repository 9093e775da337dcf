-- page: the lines of a ranking from one rank on.
--
-- KEYS: 1 rank (zset), 2 lines (hash)
-- ARGV: 1 from (1..), 2 how many
-- Returns {how many are ranked, lines (false where a line is missing)}
local first = tonumber(ARGV[1]) - 1
local members = redis.call('ZRANGE', KEYS[1], first, first + tonumber(ARGV[2]) - 1)
local lines = {}
if #members > 0 then
  local seats = {}
  for i, m in ipairs(members) do seats[i] = tostring(tonumber(m)) end
  lines = redis.call('HMGET', KEYS[2], unpack(seats))
end
return {redis.call('ZCARD', KEYS[1]), lines}
