-- r_apply: one rated race's outcome into one player's rating, once. The
-- rating is a field of the profile (r:FAMILY = "mu sigma races at"); each
-- race applied leaves an entry in the player's rating history (newest
-- first, capped), which begins with the race's ref: a ref found there was
-- applied already, and is not again (its mu before and after kept to four
-- decimals: enough for the rating shown, round(60 mu)). The outcome was computed from the
-- rating the caller read (ARGV 3): if the rating is still that one, the new
-- one is taken as computed; if another race moved it meanwhile (two rated
-- races at once), this race's change is added to it (mu's difference,
-- sigma's ratio).
--
-- KEYS: 1 the profile (kp:{P}:p), 2 its rating history (kp:{P}:rh)
-- ARGV: 1 family, 2 the entry's prefix ('["ref",'), 3 the rating read
--       ("mu sigma" or '' for none), 4 mu after, 5 sigma after, 6 at ms,
--       7 the rest of the entry (',place,of]' ), 8 history cap,
--       9 openskill's starting mu, 10 its starting sigma
-- Returns false (no such player: forgotten or expired) or
-- {applied 1/0, the rating field now, mu before this race}
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
local field = 'r:' .. ARGV[1]
local prefix = ARGV[2]
local now = redis.call('HGET', KEYS[1], field)
for _, entry in ipairs(redis.call('LRANGE', KEYS[2], 0, -1)) do
  if string.sub(entry, 1, #prefix) == prefix then
    local before = cjson.decode(entry)[4]
    return {0, now or '', tostring(before)}
  end
end
local mu, sigma, races = tonumber(ARGV[9]), tonumber(ARGV[10]), 0
local mu_s, sigma_s
if now then
  local parts = {}
  for w in string.gmatch(now, '%S+') do parts[#parts + 1] = w end
  mu, sigma, races = tonumber(parts[1]), tonumber(parts[2]), tonumber(parts[3])
  mu_s, sigma_s = parts[1], parts[2]
end
local read = ARGV[3]
local new_mu, new_sigma
if (now == nil and read == '') or (now and read == mu_s .. ' ' .. sigma_s) then
  new_mu, new_sigma = ARGV[4], ARGV[5]
else
  local r = {}
  for w in string.gmatch(read, '%S+') do r[#r + 1] = tonumber(w) end
  local mu0, sigma0 = r[1] or tonumber(ARGV[9]), r[2] or tonumber(ARGV[10])
  new_mu = string.format('%.17g', mu + tonumber(ARGV[4]) - mu0)
  new_sigma = string.format('%.17g', sigma * tonumber(ARGV[5]) / sigma0)
end
local value = new_mu .. ' ' .. new_sigma .. ' ' .. (races + 1) .. ' ' .. ARGV[6]
redis.call('HSET', KEYS[1], field, value)
local before = string.format('%.17g', mu)
redis.call('LPUSH', KEYS[2], prefix .. '"' .. ARGV[1] .. '",' .. ARGV[6] .. ','
  .. string.format('%.4f', mu) .. ',' .. string.format('%.4f', tonumber(new_mu)) .. ARGV[7])
redis.call('LTRIM', KEYS[2], 0, tonumber(ARGV[8]) - 1)
local ttl = redis.call('PTTL', KEYS[1])
if ttl > 0 then redis.call('PEXPIRE', KEYS[2], ttl) end
return {1, value, before}
