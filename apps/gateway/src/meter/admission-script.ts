import { RELEASE_RESERVATION_LUA } from '@waggle/contracts';

/**
 * The admission of one metered request, in one script (one EVALSHA): the daily meter, the
 * requests and tokens per minute of the API key and of the end user, the budgets of the
 * workspace, the key and the user, and the hosted credit balance (the spec's decisions on usage
 * governance). Checks run first and nothing is written unless all pass, so with a cap of N
 * exactly N requests of any burst are admitted and a refused request is not counted.
 *
 * KEYS[1] the workspace's projection hash (GovernanceKeys.projection), KEYS[2] the daily meter
 * counter; both carry the workspace's hash tag, like every key the script builds from ARGV[1].
 *
 * ARGV: 1 key base (governanceKeyBase), 2 API key id ('' none), 3 end user ('' none), 4 the route
 * starts a run (1/0), 5 count on the daily meter (1/0), 6 the plan's daily limit (-1: none), 7 the
 * meter counter's TTL (ms), 8 the plan has hosted credits (1/0), 9 now (epoch ms), 10 the token
 * estimate, 11 the default run reservation (micro-USD), 12 the reservation TTL (ms), 13 the
 * request id, 14 the day's period key, 15 the month's.
 *
 * Answers `{status, daily count, credits exhausted (1/0), requests limit, remaining, reset ms,
 * tokens limit, remaining, reset ms, projection loaded (1/0), refused scope kind, scope id,
 * period, limit, spent, retry ms}` (-1 where a limit is not set); status is `ok`, `unloaded` (a
 * run-starting request whose projection, or credits balance on a plan with hosted credits, is
 * not in Redis: nothing was changed), `daily`, `rpm`, `tpm` or `budget`. A request that starts
 * no run is metered without the projection (`projection loaded` 0: the caller loads it for the
 * next one).
 */
export const ADMISSION_SCRIPT = `
local base = ARGV[1]
local keyId = ARGV[2]
local user = ARGV[3]
local run = ARGV[4] ~= '0'
-- 2: a run admitted while the projection's owner cannot load it: on the daily meter alone.
local unprojected = ARGV[4] == '2'
local meterOn = ARGV[5] == '1'
local dailyLimit = tonumber(ARGV[6])
local hosted = ARGV[8] == '1'
local now = tonumber(ARGV[9])
local estimate = tonumber(ARGV[10])
local requestId = ARGV[13]

local limitScopes = {}
if keyId ~= '' then limitScopes[#limitScopes + 1] = {'key', 'key:' .. keyId, 'api_key', keyId} end
if run and user ~= '' then limitScopes[#limitScopes + 1] = {'user', 'user:' .. user, 'user', user} end
local budgetScopes = {}
if run then
  budgetScopes[1] = {'ws', 'ws', 'workspace', false}
  for _, s in ipairs(limitScopes) do budgetScopes[#budgetScopes + 1] = s end
end

local fields = {'version'}
for _, s in ipairs(limitScopes) do fields[#fields + 1] = 'limit:' .. s[2] end
for _, s in ipairs(budgetScopes) do
  fields[#fields + 1] = 'budget:' .. s[2] .. ':day'
  fields[#fields + 1] = 'budget:' .. s[2] .. ':month'
end
local cfg = redis.call('HMGET', KEYS[1], unpack(fields))
-- A request that starts no run is metered without the projection (none of its limits then apply).
local loaded = cfg[1] and 1 or 0
if loaded == 0 and run and not unprojected then return {'unloaded'} end
local credits = false
if hosted and run then
  credits = redis.call('GET', base .. 'credits')
  if not credits and not unprojected then return {'unloaded'} end
end

local current = 0
if meterOn then
  current = tonumber(redis.call('GET', KEYS[2]) or '0')
  if dailyLimit >= 0 and current >= dailyLimit then return {'daily', current, 0, -1, -1, -1, -1, -1, -1, loaded} end
end

local minute = math.floor(now / 60000)
local elapsed = now - minute * 60000
local weight = (60000 - elapsed) / 60000
local function windowKey(kind, token, m) return base .. kind .. ':' .. m .. ':' .. token end
-- How long (ms) until prev * (remaining part of the minute) + cur <= room: when what is counted
-- leaves room for the request again.
local function waitMs(cur, prev, room)
  if room < 0 then return 60000 end
  if cur <= room then
    if prev == 0 or prev * weight + cur <= room then return 0 end
    return math.max(0, math.ceil(60000 * (1 - (room - cur) / prev) - elapsed))
  end
  if room == 0 then return (60000 - elapsed) + 60000 end
  return (60000 - elapsed) + math.ceil(60000 * (1 - room / cur))
end

-- Per limited scope: {scope, limit, cur, prev} for requests and for tokens.
local rpms, tpms = {}, {}
for i, s in ipairs(limitScopes) do
  local value = cfg[1 + i]
  if value then
    local sep = string.find(value, '|', 1, true)
    local rpm = tonumber(string.sub(value, 1, sep - 1))
    local tpm = tonumber(string.sub(value, sep + 1))
    if rpm then
      local cur = tonumber(redis.call('GET', windowKey('requests', s[2], minute)) or '0')
      local prev = tonumber(redis.call('GET', windowKey('requests', s[2], minute - 1)) or '0')
      rpms[#rpms + 1] = {s, rpm, cur, prev}
    end
    if tpm then
      local cur = tonumber(redis.call('GET', windowKey('tokens', s[2], minute)) or '0')
      local prev = tonumber(redis.call('GET', windowKey('tokens', s[2], minute - 1)) or '0')
      tpms[#tpms + 1] = {s, tpm, cur, prev}
    end
  end
end

-- The headers' numbers: the tighter scope's (least remaining), with what this request adds.
local function headers(list, add)
  local best = nil
  for _, l in ipairs(list) do
    local remaining = math.max(0, math.floor(l[2] - (l[4] * weight + l[3] + add)))
    if best == nil or remaining < best[2] then
      best = {l[2], remaining, waitMs(l[3] + add, l[4], 0)}
    end
  end
  return best or {-1, -1, -1}
end
local function answer(status, admitted, exhausted, refusal)
  local r = headers(rpms, admitted and 1 or 0)
  local t = headers(tpms, (admitted and run) and estimate or 0)
  local out = {status, current, exhausted, r[1], r[2], r[3], t[1], t[2], t[3], loaded}
  for _, v in ipairs(refusal or {}) do out[#out + 1] = v end
  return out
end

for _, l in ipairs(rpms) do
  if l[4] * weight + l[3] + 1 > l[2] then
    return answer('rpm', false, 0, {l[1][3], l[1][4], '', l[2], 0, waitMs(l[3], l[4], l[2] - 1)})
  end
end
if run then
  for _, l in ipairs(tpms) do
    if l[4] * weight + l[3] + estimate > l[2] then
      return answer('tpm', false, 0, {l[1][3], l[1][4], '', l[2], 0, waitMs(l[3], l[4], l[2] - estimate)})
    end
  end
end

local offset = 1 + #limitScopes
local periods = {{'day', ARGV[14]}, {'month', ARGV[15]}}
local reserve = {}
for i, s in ipairs(budgetScopes) do
  local day, month = cfg[offset + 2 * i - 1], cfg[offset + 2 * i]
  if day or month then
    local pending = base .. 'pending:' .. s[2]
    local amounts = base .. 'pending-amounts:' .. s[2]
    -- Reservations past their expiry (a run never reconciled) stop counting, a bounded number per admission.
    local expired = redis.call('ZRANGEBYSCORE', pending, '-inf', now, 'LIMIT', 0, 500)
    if #expired > 0 then
      local held = redis.call('HMGET', amounts, unpack(expired))
      local sum = 0
      for _, v in ipairs(held) do sum = sum + (tonumber(v) or 0) end
      redis.call('ZREM', pending, unpack(expired))
      redis.call('HDEL', amounts, unpack(expired))
      redis.call('HINCRBY', amounts, 'total', -sum)
    end
    local pendingTotal = tonumber(redis.call('HGET', amounts, 'total') or '0')
    for p, value in ipairs({day, month}) do
      if value then
        local limit = tonumber(string.sub(value, 1, string.find(value, '|', 1, true) - 1))
        local spent = tonumber(redis.call('GET', base .. 'spend:' .. periods[p][2] .. ':' .. s[2]) or '0')
        if spent + pendingTotal >= limit then
          return answer('budget', false, 0, {s[3], s[4] or '', periods[p][1], limit, spent, 0})
        end
      end
    end
    reserve[#reserve + 1] = s
  end
end

local exhausted = 0
if run and hosted and credits and tonumber(credits) <= 0 then exhausted = 1 end

if meterOn then
  current = redis.call('INCR', KEYS[2])
  if current == 1 then redis.call('PEXPIRE', KEYS[2], ARGV[7]) end
end
for _, l in ipairs(rpms) do
  local key = windowKey('requests', l[1][2], minute)
  if redis.call('INCR', key) == 1 then redis.call('PEXPIRE', key, 180000) end
end
local res = {}
if run then
  for _, l in ipairs(tpms) do
    local key = windowKey('tokens', l[1][2], minute)
    if redis.call('INCRBY', key, estimate) == estimate then redis.call('PEXPIRE', key, 180000) end
    res[#res + 1] = 'tokens:' .. l[1][1]
    res[#res + 1] = '1'
  end
  if #reserve > 0 then
    local amount = tonumber(redis.call('GET', base .. 'run-cost-estimate') or ARGV[11])
    local expiry = now + tonumber(ARGV[12])
    for _, s in ipairs(reserve) do
      local amounts = base .. 'pending-amounts:' .. s[2]
      local before = tonumber(redis.call('HGET', amounts, requestId) or '0')
      redis.call('ZADD', base .. 'pending:' .. s[2], expiry, requestId)
      redis.call('HSET', amounts, requestId, amount)
      redis.call('HINCRBY', amounts, 'total', amount - before)
      res[#res + 1] = 'cost:' .. s[1]
      res[#res + 1] = '1'
    end
    res[#res + 1] = 'cost'
    res[#res + 1] = amount
  end
  if #res > 0 then
    local resKey = base .. 'reservation:' .. requestId
    redis.call('HSET', resKey, 'tokens', estimate, 'minute', minute, 'key', keyId, 'user', user, unpack(res))
    redis.call('PEXPIRE', resKey, ARGV[12])
  end
end
return answer('ok', true, exhausted)
`;

/** KEYS[1] the reservation; ARGV 1 key base, 2 request id: a request refused before its run began gives back what it reserved. */
export const RELEASE_SCRIPT = `${RELEASE_RESERVATION_LUA}
releaseReservation(ARGV[1], KEYS[1], ARGV[2], 0)
return 1
`;
