-- wrk script: the authenticated challenge list, each request with the API
-- key of another player (rotating over every key in the file).
--   wrk -t2 -c64 -d10s -s scripts/challenges_auth.lua http://127.0.0.1:PORT -- KEYS_FILE [gzip] [part=K/N]
-- KEYS_FILE: one API key per line (`flagship synth --keys-out`); with
-- "gzip" the requests also send Accept-Encoding: gzip, as browsers do.
-- part=K/N (K in 0..N-1): this wrk is one of N run at once (one per
-- replica, scripts/loadtest-replicas.sh); it starts its rotation elsewhere.
-- It defines no response() on purpose: that would make wrk hand every
-- ~100 kB body to Lua. Every answer must be a 200: wrk reports any other
-- as "Non-2xx or 3xx responses".

local threads = {}

function setup(thread)
  thread:set("id", #threads)
  table.insert(threads, thread)
end

function init(args)
  keys = {}
  for line in io.lines(args[1]) do
    if line ~= "" then keys[#keys + 1] = "Bearer " .. line end
  end
  if #keys == 0 then error("no keys in " .. args[1]) end
  gzip, part, parts = false, 0, 1
  for k = 2, #args do
    local a = args[k]
    local pk, pn = a:match("^part=(%d+)/(%d+)$")
    if a == "gzip" then
      gzip = true
    elseif pk then
      part, parts = tonumber(pk), tonumber(pn)
    else
      error("unknown argument " .. a .. ": want gzip or part=K/N")
    end
  end
  -- Threads (and the wrk processes of a multi-replica run) start at
  -- different places in the rotation.
  i = ((id * parts + part) * 7919) % #keys
end

function request()
  i = i % #keys + 1
  local headers = { ["Authorization"] = keys[i] }
  if gzip then headers["Accept-Encoding"] = "gzip" end
  return wrk.format("GET", "/api/public/challenges", headers)
end
