-- wrk script: wrong flag submissions, rotating over (player, challenge)
-- pairs the player can submit to (unlocked, unsolved), so that with the
-- server's default rate limit (10 wrong per user and challenge per minute)
-- a short run never reaches it.
--   wrk -t2 -c64 -d10s -s scripts/submit_wrong.lua http://127.0.0.1:PORT -- TARGETS_FILE [part=K/N]
-- TARGETS_FILE: lines "API_KEY SLUG" (`flagship synth --targets-out`).
-- part=K/N (K in 0..N-1): this wrk is one of N run at once (one per
-- replica, scripts/loadtest-replicas.sh); its threads start at other places
-- of the rotation than the other wrk processes' threads. With the rate
-- limit counted in the database, across replicas, the rotation is shared:
-- over a 10 s run no pair gets near 10 wrong submissions.
-- At the end it prints how many responses had each status: all must be 400
-- (wrong flag); a 429 means the rotation was too short for the run.

local threads = {}

function setup(thread)
  thread:set("id", #threads)
  table.insert(threads, thread)
end

function init(args)
  targets = {}
  for line in io.lines(args[1]) do
    local key, slug = line:match("^(%S+)%s+(%S+)$")
    if key then
      targets[#targets + 1] = {
        path = "/api/public/challenges/" .. slug .. "/submit",
        headers = { ["Authorization"] = "Bearer " .. key, ["Content-Type"] = "application/json" },
      }
    end
  end
  if #targets == 0 then error("no targets in " .. args[1]) end
  local part, parts = 0, 1
  if args[2] then
    local pk, pn = args[2]:match("^part=(%d+)/(%d+)$")
    if not pk then error("unknown argument " .. args[2] .. ": want part=K/N") end
    part, parts = tonumber(pk), tonumber(pn)
  end
  -- Threads take different halves of the rotation (with part=K/N, the
  -- threads of N wrk processes take different 2N-ths).
  i = math.floor((id * parts + part) * #targets / (2 * parts))
  n = 0
  statuses = {}
end

function request()
  i = i % #targets + 1
  n = n + 1
  local t = targets[i]
  return wrk.format("POST", t.path, t.headers, '{"flag":"flag{load_test_' .. id .. '_' .. n .. '}"}')
end

function response(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
end

function done(summary, latency, requests)
  local total = {}
  for _, t in ipairs(threads) do
    for status, n in pairs(t:get("statuses")) do
      total[status] = (total[status] or 0) + n
    end
  end
  for status, n in pairs(total) do
    io.write(string.format("status %d: %d responses\n", status, n))
  end
end
