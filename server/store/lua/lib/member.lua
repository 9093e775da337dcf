-- member: a seat's (or player's) member in a ranking sorted set, five digits,
-- so that Redis's tie-break (members in byte order) is the lower number first.
local function member(seat) return string.format('%05d', tonumber(seat)) end
