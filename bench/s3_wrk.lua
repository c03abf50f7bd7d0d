-- bench/s3_wrk.lua -- wrk as bench/s3's peer: GETs over SigV4-presigned paths
-- (bench/s3_presign.py), a fixed number of them rather than for a duration.
--
--   wrk -t T -c C -d LIMIT -s bench/s3_wrk.lua URL PATHS GETS CONNS T DONE
--
-- Each of the T threads walks PATHS (one "/bucket/key?X-Amz-..." a line) from
-- its own offset and stops once GETS responses are in over its CONNS
-- connections; the last one to stop wakes wrk's main thread (SIGINT into its
-- sleep of LIMIT), so wrk's time is the real one. DONE is a scratch file the
-- threads count themselves off in. done() prints the exact figures.
local ffi = require "ffi"
ffi.cdef [[
int getpid(void);
int gettid(void);
int tgkill(int tgid, int tid, int sig);
]]

local count = 0
function setup(thread) -- in wrk's main Lua state, once per thread, before its init
    thread:set("id", count)
    count = count + 1
end

function init(args)
    paths = {}
    for line in io.lines(args[1]) do
        paths[#paths + 1] = line
    end
    gets, conns, threads, donefile = tonumber(args[2]), tonumber(args[3]), tonumber(args[4]), args[5]
    sent, nextpath = 0, math.floor(id * #paths / threads)
end

local function stopped()
    wrk.thread:stop()
    local f = assert(io.open(donefile, "a"))
    f:write(id, "\n")
    f:close()
    local n = 0
    for _ in io.lines(donefile) do
        n = n + 1
    end
    if n == threads then
        local pid = ffi.C.getpid()
        ffi.C.tgkill(pid, pid, 2)
    end
end

function request()
    -- wrk builds one request in its main thread to check that it parses: not a GET
    if ffi.C.gettid() == ffi.C.getpid() then
        return wrk.format("GET", paths[1])
    end
    sent = sent + 1
    -- a connection asks for its next request once its last response is in:
    -- at the (GETS + CONNS)th ask, GETS responses are in (this one is not read)
    if sent == gets + conns then
        stopped()
    end
    nextpath = nextpath + 1
    return wrk.format("GET", paths[nextpath % #paths + 1])
end

function done(summary)
    local e = summary.errors
    io.write(string.format("s3_wrk: requests=%d bytes=%d us=%d status=%d socket=%d\n",
        summary.requests, summary.bytes, summary.duration, e.status,
        e.connect + e.read + e.write + e.timeout))
end
