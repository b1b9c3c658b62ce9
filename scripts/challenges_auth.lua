-- wrk script: the authenticated challenge list, each request with the API
-- key of another player (rotating over every key in the file).
--   wrk -t2 -c64 -d10s -s scripts/challenges_auth.lua http://127.0.0.1:PORT -- KEYS_FILE [gzip]
-- KEYS_FILE: one API key per line (`flagship synth --keys-out`); with
-- "gzip" the requests also send Accept-Encoding: gzip, as browsers do.
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
  gzip = args[2] == "gzip"
  -- Threads start at different places in the rotation.
  i = (id * 7919) % #keys
end

function request()
  i = i % #keys + 1
  local headers = { ["Authorization"] = keys[i] }
  if gzip then headers["Accept-Encoding"] = "gzip" end
  return wrk.format("GET", "/api/public/challenges", headers)
end
