-- push_event: record a versioned event and publish it.
-- The caller passes the event's JSON without its opening brace; this puts
-- {"v":N, in front, keeps the last `cap` events and publishes it.
local function push_event(ev_key, channel, body, v, cap)
  local e = '{"v":' .. v .. ',' .. body
  redis.call('RPUSH', ev_key, e)
  redis.call('LTRIM', ev_key, -cap, -1)
  publish(channel, e)
end
