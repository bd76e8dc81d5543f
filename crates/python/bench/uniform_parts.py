"""Python-layer and native costs of ferrocm.random.Generator.uniform(out=) on the GPU: the call,
the native fill alone, the _target checks, a native no-op, and cProfile of 3000 calls."""
import cProfile, pstats, time, statistics, sys
import ferrocm, ferrocm.random as R
from ferrocm._array import _dtype
gpu = next(d for d in ferrocm.devices() if d.is_gpu)
g = R.Generator("philox", seed=1, device=gpu)
out = ferrocm.empty(1024, device=gpu)
s = ferrocm.current_stream(gpu)
dt = _dtype("float32")
def med(f, n=3000):
    for _ in range(300): f()
    xs = []
    for _ in range(n):
        t = time.perf_counter(); f(); xs.append(time.perf_counter() - t)
    s.synchronize()
    return statistics.median(xs) * 1e6
buf = out._buf
print(f"python {sys.version.split()[0]}")
print(f"g.uniform(out=out)                      {med(lambda: g.uniform(out=out)):8.2f} us")
print(f"native fill_uniform only                {med(lambda: g._g.fill_uniform(buf, 0, 1024, 'float32')):8.2f} us")
print(f"native fill_uniform, 4 values           {med(lambda: g._g.fill_uniform(buf, 0, 4, 'float32')):8.2f} us")
print(f"_target(out)                            {med(lambda: R._target(out, None, dt, g.device)):8.2f} us")
print(f"stream.query (native no-op)             {med(s.query):8.2f} us")
pr = cProfile.Profile(); pr.enable()
for _ in range(3000): g.uniform(out=out)
pr.disable(); s.synchronize()
pstats.Stats(pr).sort_stats("tottime").print_stats(8)
