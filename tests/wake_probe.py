"""wake_probe.py STOPFILE: how late this machine wakes a sleeping thread, measured beside a run.

Sleeps to instants 5 ms apart (each from a fixed start, so one late wake-up is not carried
into the next) until STOPFILE exists, then prints "SHARE N": the share of its N wake-ups that
came more than 1 ms after their instant. It is the outside reference for a paced run's pacer
(tests/integration/test_pacing.sh): a process of its own, sleeping as the pacer's threads
do, under the same load while the run goes on. A pacer no later than this is as precise as
the machine lets it be.
"""
import os
import sys
import time

STEP, LATE, MAX = 0.005, 0.001, 600.0  # seconds
stop = sys.argv[1]
t0 = time.monotonic()
n = late = 0
k = 1
while not os.path.exists(stop) and k * STEP < MAX:
    target = t0 + k * STEP
    d = target - time.monotonic()
    if d > 0:
        time.sleep(d)
    n += 1
    late += time.monotonic() - target > LATE
    k += 1
print("%.6f %d" % (late / n if n else 0.0, n))
