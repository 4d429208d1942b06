import { RELEASE_RESERVATION_LUA } from '@waggle/contracts';

/**
 * The reconciliation of one ended run (the spec's decisions on usage governance), atomic and
 * idempotent: charged once whatever the number of times its ledger record is delivered.
 *
 * KEYS[1] the run's reconciled mark (GovernanceKeys.reconciled), KEYS[2] its reservation,
 * KEYS[3] the workspace's projection. ARGV: 1 key base (governanceKeyBase), 2 request id, 3 API
 * key id ('' none), 4 end user ('' none), 5 cost in micro-USD ('' unknown), 6 the run used the
 * operator's keys (1/0), 7 the day's period key and 8 the month's (of the record's generated_at),
 * 9 the run's real tokens (-1 unknown: the estimate stands), 10 a day spend key's TTL and 11 a
 * month's (s), 12 the reconciled mark's TTL (s).
 *
 * Steps: mark (SET NX; already marked → `{0}`); release the reservation (its pending cost, and
 * real − estimated tokens into the token window it reserved in); add the cost to the spend of
 * the workspace, key and user × day and month; take it from the credits balance (hosted runs,
 * when the balance exists); learn the run cost estimate (max(cost, old × 15/16)); and for every
 * budget of the projection whose threshold the spend crossed (old < limit × t/100 ≤ new), once
 * per budget, period and threshold (GovernanceKeys.alerted, SET NX), a crossing.
 *
 * Answers `{1, then per crossing: budget id, scope, scope id, period, period key, threshold,
 * spent, limit}`.
 */
export const RECONCILE_SCRIPT = `${RELEASE_RESERVATION_LUA}
if not redis.call('SET', KEYS[1], '1', 'NX', 'EX', ARGV[12]) then return {0} end
local base, requestId = ARGV[1], ARGV[2]
local actual = tonumber(ARGV[9])
if actual < 0 then actual = tonumber(redis.call('HGET', KEYS[2], 'tokens') or '0') end
releaseReservation(base, KEYS[2], requestId, actual)
local out = {1}
local cost = tonumber(ARGV[5])
if not cost then return out end

if cost > 0 then
  local scopes = {{'ws', 'workspace', ''}}
  if ARGV[3] ~= '' then scopes[#scopes + 1] = {'key:' .. ARGV[3], 'api_key', ARGV[3]} end
  if ARGV[4] ~= '' then scopes[#scopes + 1] = {'user:' .. ARGV[4], 'user', ARGV[4]} end
  local periods = {{'day', ARGV[7], ARGV[10]}, {'month', ARGV[8], ARGV[11]}}
  for _, s in ipairs(scopes) do
    for _, p in ipairs(periods) do
      local key = base .. 'spend:' .. p[2] .. ':' .. s[1]
      local spent = redis.call('INCRBY', key, cost)
      redis.call('EXPIRE', key, p[3])
      local before = spent - cost
      local budget = redis.call('HGET', KEYS[3], 'budget:' .. s[1] .. ':' .. p[1])
      if budget then
        local first = string.find(budget, '|', 1, true)
        local second = string.find(budget, '|', first + 1, true)
        local limit = tonumber(string.sub(budget, 1, first - 1))
        local id = string.sub(budget, first + 1, second - 1)
        for t in string.gmatch(string.sub(budget, second + 1), '[^,]+') do
          local threshold = tonumber(t)
          local mark = threshold and limit * threshold / 100
          if mark and before < mark and spent >= mark then
            if redis.call('SET', base .. 'alerted:' .. id .. ':' .. p[2] .. ':' .. t, '1', 'NX', 'EX', p[3]) then
              out[#out + 1] = id
              out[#out + 1] = s[2]
              out[#out + 1] = s[3]
              out[#out + 1] = p[1]
              out[#out + 1] = p[2]
              out[#out + 1] = t
              out[#out + 1] = spent
              out[#out + 1] = limit
            end
          end
        end
      end
    end
  end
  if ARGV[6] == '1' and redis.call('EXISTS', base .. 'credits') == 1 then redis.call('DECRBY', base .. 'credits', cost) end
end

local estimateKey = base .. 'run-cost-estimate'
local old = tonumber(redis.call('GET', estimateKey) or '-1')
if old < 0 then
  redis.call('SET', estimateKey, cost)
else
  redis.call('SET', estimateKey, math.max(cost, math.floor(old * 15 / 16)))
end
return out
`;
