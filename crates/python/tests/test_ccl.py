"""ferrocm.ccl with real processes: two and three ranks spawned with torchrun's variables (RANK,
WORLD_SIZE, LOCAL_RANK, MASTER_ADDR, MASTER_PORT) on CPU devices (FERROCM_BACKEND=cpu), each
checking every collective against NumPy's reduction of all ranks' inputs (every rank can
recompute every other rank's input from its seed). Then the errors, in one process and when a
rank dies."""

import os
import socket
import subprocess
import sys

import numpy as np
import pytest

import ferrocm
import ferrocm.ccl as ccl

WORKER = r"""
import sys
import numpy as np
import ferrocm
import ferrocm.ccl as ccl

def inputs(rank, shape, dtype):
    rng = np.random.default_rng(1000 + rank)
    x = rng.integers(-4, 5, size=shape) if np.dtype(dtype).kind in "iu" else rng.standard_normal(shape)
    if np.dtype(dtype).kind == "u":
        x = np.abs(x)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)

REDUCE = {"sum": np.sum, "prod": np.prod, "min": np.min, "max": np.max}

def expect(op, stack):
    if op == "avg":
        s = np.sum(stack, axis=0)
        # NCCL's integer average truncates towards zero (C division).
        return np.sign(s) * (np.abs(s) // len(stack)) if stack.dtype.kind in "iu" else s / len(stack)
    return REDUCE[op](stack, axis=0)

def check(got, want, what):
    got = got.numpy() if isinstance(got, ferrocm.Array) else got
    tol = 1e-5 if got.dtype in (np.float32, np.complex64) else 1e-12
    if got.dtype.kind in "iu":
        ok = np.array_equal(got, want.astype(got.dtype))
    else:
        ok = got.shape == want.shape and np.allclose(got, want, rtol=tol, atol=tol)
    if not ok:
        raise AssertionError(f"{what}: got {got} want {want}")

with ccl.Communicator.from_env() as comm:
    r, n, dev = comm.rank, comm.size, comm.device
    assert comm.size == int(sys.argv[1]), (comm.size, sys.argv)
    shape = (3 * n, 5)
    for dtype in [np.float32, np.float64, np.int32, np.int64, np.uint8, np.complex64]:
        everyone = np.stack([inputs(k, shape, dtype) for k in range(n)])
        mine = everyone[r]
        ops = ["sum", "avg"] if np.dtype(dtype).kind == "c" else ["sum", "prod", "min", "max", "avg"]
        for op in ops:
            want = expect(op, everyone)
            x = ferrocm.asarray(mine.copy(), device=dev)
            check(comm.all_reduce(x, op=op), want, f"all_reduce {op} {dtype}")
            out = comm.all_reduce(x, out=x, op=op)  # in place
            assert out is x
            check(x, want, f"all_reduce in place {op} {dtype}")
            y = ferrocm.asarray(mine.copy(), device=dev)
            root = n - 1
            res = ferrocm.zeros(shape, dtype, device=dev)
            comm.reduce(y, out=res, op=op, root=root)
            check(res, want if r == root else np.zeros(shape, dtype), f"reduce {op} {dtype}")
            z = ferrocm.asarray(mine.copy(), device=dev)
            rows = shape[0] // n
            check(comm.reduce_scatter(z, op=op), want[r * rows:(r + 1) * rows], f"reduce_scatter {op} {dtype}")
            comm.reduce_scatter(z, out=z[r * rows:(r + 1) * rows], op=op)  # in place
            check(z[r * rows:(r + 1) * rows], want[r * rows:(r + 1) * rows], f"reduce_scatter in place {op}")
        x = ferrocm.asarray(mine.copy(), device=dev)
        check(comm.broadcast(x, root=1), everyone[1], f"broadcast {dtype}")
        comm.broadcast(x, out=x, root=n - 1)
        check(x, everyone[n - 1], f"broadcast in place {dtype}")
        x = ferrocm.asarray(mine.copy(), device=dev)
        check(comm.all_gather(x), everyone, f"all_gather {dtype}")
        g = ferrocm.zeros((n, *shape), dtype, device=dev)
        g[r] = mine
        comm.all_gather(g[r], out=g)  # in place: x is out[rank]
        check(g, everyone, f"all_gather in place {dtype}")
        rows = shape[0] // n
        want = np.concatenate([everyone[k][r * rows:(r + 1) * rows] for k in range(n)])
        check(comm.all_to_all(ferrocm.asarray(mine.copy(), device=dev)), want, f"all_to_all {dtype}")
    # A ring of send/recv: rank 0 sends first, the others receive first.
    token = np.full(7, 10.0 * r + 1)
    nxt, prv = (r + 1) % n, (r - 1) % n
    got = ferrocm.zeros(7, np.float64, device=dev)
    if r == 0:
        comm.send(ferrocm.asarray(token, device=dev), nxt)
        comm.recv(got, prv)
    else:
        comm.recv(got, prv)
        comm.send(ferrocm.asarray(token, device=dev), nxt)
    check(got, np.full(7, 10.0 * prv + 1), "send/recv ring")
    # NumPy arrays take part directly on the CPU device (DLPack).
    host = np.full(4, float(r + 1))
    comm.all_reduce(host, out=host)
    ferrocm.current_stream(dev).synchronize()
    check(host, np.full(4, n * (n + 1) / 2), "all_reduce of a NumPy array in place")
    # A group: every rank sends a block of one buffer to every other rank and receives every
    # other rank's block into another part of the same buffer (completes only as a group), and
    # an all-reduce joins the same launch.
    buf = ferrocm.asarray(np.concatenate([np.full(3, 10.0 * r + k) for k in range(n)] + [np.zeros(3 * n)]), device=dev)
    red = ferrocm.asarray(inputs(r, (6,), np.float64), device=dev)
    with ccl.group():
        for k in range(n):
            if k != r:
                comm.send(buf[3 * k:3 * k + 3], k)
                comm.recv(buf[3 * n + 3 * k:3 * n + 3 * k + 3], k)
        comm.all_reduce(red, out=red)
    ferrocm.current_stream(dev).synchronize()
    got = buf.numpy()
    for k in range(n):
        want = np.zeros(3) if k == r else np.full(3, 10.0 * k + r)
        check(got[3 * n + 3 * k:3 * n + 3 * k + 3], want, f"group send/recv from rank {k}")
    check(red, np.sum([inputs(k, (6,), np.float64) for k in range(n)], axis=0), "all_reduce in a group")
    # Split by parity, numbered in reverse (key -rank); the last rank takes no part (None).
    color = None if r == n - 1 and n > 2 else r % 2
    sub = comm.split(color, key=-r)
    members = [k for k in range(n) if k % 2 == r % 2 and not (k == n - 1 and n > 2)]
    if color is None:
        assert sub is None
    else:
        with sub:
            assert (sub.size, sub.rank) == (len(members), sorted(members, reverse=True).index(r)), (sub, members)
            y = ferrocm.asarray(np.full(5, r + 1.0), device=dev)
            sub.all_reduce(y, out=y)
            ferrocm.current_stream(dev).synchronize()
            check(y, np.full(5, float(sum(k + 1 for k in members))), "all_reduce in a split communicator")
        assert sub.destroyed
print("rank", r, "ok")
"""


def free_port() -> int:
    # The bootstrap root listens on MASTER_PORT + 1: find a free port and use the one below.
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def launch(nranks, code, extra_env=None, timeout=120):
    port = free_port() - 1
    procs = []
    for rank in range(nranks):
        env = dict(os.environ)
        env.update(
            RANK=str(rank), WORLD_SIZE=str(nranks), LOCAL_RANK=str(rank), MASTER_ADDR="127.0.0.1",
            MASTER_PORT=str(port), FERROCM_BACKEND="cpu", FERROCM_CCL_TIMEOUT="30",
        )  # fmt: skip
        env.update(extra_env or {})
        procs.append(
            subprocess.Popen(
                [sys.executable, "-c", code, str(nranks)], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
            )
        )
    results = []
    for p in procs:
        try:
            out, err = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            for q in procs:
                q.kill()
            raise
        results.append((p.returncode, out, err))
    return results


@pytest.mark.parametrize("nranks", [2, 3])
def test_collectives_across_processes_match_numpy(nranks):
    results = launch(nranks, WORKER)
    for rank, (code, out, err) in enumerate(results):
        assert code == 0, f"rank {rank} failed:\n{out}\n{err}"
        assert f"rank {rank} ok" in out


DIES = r"""
import os, sys
import numpy as np
import ferrocm, ferrocm.ccl as ccl
comm = ccl.Communicator.from_env()
if comm.rank == 1:
    os._exit(0)  # dies without leaving
x = ferrocm.asarray(np.ones(16), device=comm.device)
try:
    comm.all_reduce(x, out=x)
    ferrocm.current_stream(comm.device).synchronize()
    comm.all_reduce(x, out=x)
    ferrocm.current_stream(comm.device).synchronize()
except ferrocm.Error as e:
    print("failed:", type(e).__name__, e)
    sys.exit(0)
print("no error")
sys.exit(1)
"""


def test_a_dead_rank_fails_the_others_with_a_ferrocm_error():
    (code0, out0, err0), _ = launch(2, DIES, {"FERROCM_CCL_TIMEOUT": "10"})
    assert code0 == 0, out0 + err0
    assert "failed:" in out0 and "rank(s) 1" in out0, out0


def test_from_env_without_a_launcher_names_the_variables():
    code = "import ferrocm.ccl as c\ntry:\n    c.Communicator.from_env()\nexcept Exception as e:\n    print(type(e).__name__, e)"
    env = {k: v for k, v in os.environ.items() if k not in ("RANK", "WORLD_SIZE", "OMPI_COMM_WORLD_RANK", "SLURM_PROCID")}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60).stdout
    assert out.startswith("CommError") and "RANK/WORLD_SIZE (torchrun)" in out, out


def test_unique_id_round_trips_through_bytes():
    uid = ccl.UniqueId()
    data = bytes(uid)
    again = ccl.UniqueId(data)
    assert again == uid and ccl.UniqueId.from_bytes(data) == uid and ":" in uid.root
    with pytest.raises(ValueError, match="invalid unique id"):
        ccl.UniqueId(b"\x00" * len(data))
    with pytest.raises(ValueError, match="a unique id has"):
        ccl.UniqueId(b"short")


@pytest.fixture(scope="module")
def solo():
    cpu = [d for d in ferrocm.devices() if not d.is_gpu][0]
    comm = ccl.init_rank(ccl.UniqueId(), 1, 0, device=cpu)
    yield comm
    comm.destroy()


def test_one_rank_communicator(solo):
    assert (solo.rank, solo.size) == (0, 1)
    x = ferrocm.asarray(np.arange(6.0), device=solo.device)
    np.testing.assert_array_equal(solo.all_reduce(x, op="max").numpy(), np.arange(6.0))
    np.testing.assert_array_equal(solo.all_gather(x).numpy(), np.arange(6.0)[None])


def _cases(comm):
    dev = comm.device
    f = ferrocm.asarray(np.arange(6.0), device=dev)
    g = ferrocm.asarray(np.arange(8.0), device=dev)
    watched = f
    return [
        (lambda: comm.all_reduce(f, op="mean"), ValueError, "op 'mean' is not one of"),
        (lambda: comm.all_reduce(ferrocm.asarray(np.ones(4, bool), device=dev)), ValueError, "dtype bool is not supported"),
        (lambda: comm.all_reduce(ferrocm.asarray(np.ones(4, np.int16), device=dev)), ValueError, "dtype int16"),
        (lambda: comm.all_reduce(ferrocm.asarray(np.ones(4, np.complex64), device=dev), op="max"), ValueError,
         "not defined for complex"),
        (lambda: comm.all_reduce(f, out=ferrocm.zeros(5, np.float64, device=dev)), ValueError, "out has shape (5,)"),
        (lambda: comm.all_reduce(f, out=ferrocm.zeros(6, np.float32, device=dev)), ValueError, "out has dtype float32"),
        (lambda: comm.broadcast(f, root=1), ValueError, "root 1 is not a rank of this communicator (0..0)"),
        (lambda: comm.send(f, peer=3), ValueError, "peer 3 is not a rank"),
        (lambda: comm.all_reduce(ferrocm.asarray(np.ones((4, 4)), device=dev)[:, ::2]), ValueError, "C-contiguous"),
        (lambda: comm.all_reduce([1.0, 2.0]), ValueError, "must be a ferrocm Array or a DLPack array"),
        (lambda: comm.all_to_all(f, out=f), ValueError, "cannot run in place"),
        (lambda: comm.all_reduce(g[:6], out=g[2:]), ValueError, "out overlaps the input without being it"),
    ], watched


@pytest.mark.parametrize("case", range(12))
def test_errors_name_what_was_wrong(solo, case):
    cases, watched = _cases(solo)
    fn, kind, text = cases[case]
    before = watched.numpy()
    with pytest.raises(kind) as info:
        fn()
    assert text in str(info.value)
    np.testing.assert_array_equal(watched.numpy(), before)


def test_a_destroyed_communicator_refuses_work():
    cpu = [d for d in ferrocm.devices() if not d.is_gpu][0]
    with ccl.init_rank(ccl.UniqueId(), 1, 0, device=cpu) as comm:
        pass
    assert comm.destroyed
    with pytest.raises(ValueError, match="destroyed"):
        comm.all_reduce(ferrocm.zeros(3, device=cpu))
    comm.destroy()  # a second destroy does nothing


def test_two_ranks_in_one_process_need_the_gil_released():
    # Each rank's init and collectives block until the other rank arrives: with the ranks on two
    # Python threads of one process, this only completes if every call releases the GIL. (Each
    # rank works on a stream of its own: two ranks' collectives queued on one stream would wait
    # for each other forever, as in NCCL.)
    import threading

    cpu = [d for d in ferrocm.devices() if not d.is_gpu][0]
    uid = ccl.UniqueId()
    results, errors = {}, []

    def rank(r):
        try:
            with ccl.init_rank(uid, 2, r, device=cpu) as comm, cpu.create_stream() as s:
                x = ferrocm.asarray(np.full(1000, r + 1.0), device=cpu)
                comm.all_reduce(x, out=x)
                s.synchronize()
                results[r] = x.numpy()
        except Exception as e:  # reported below
            errors.append(e)

    threads = [threading.Thread(target=rank, args=(r,)) for r in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not errors, errors
    for r in range(2):
        np.testing.assert_array_equal(results[r], np.full(1000, 3.0))


# ---- one process driving several ranks -------------------------------------------------------


def _cpu():
    return [d for d in ferrocm.devices() if not d.is_gpu][0]


def _inputs(r, n, dtype=np.float64):
    return np.random.default_rng(50 + r).standard_normal(n).astype(dtype)


def test_init_all_ranks_on_threads_and_split():
    # Ranks of init_all driven by a thread each (each on its own stream): collectives and a
    # split, checked against NumPy.
    import threading

    cpu, n = _cpu(), 3
    comms = ccl.init_all([cpu] * n)
    assert [(c.rank, c.size, c.device) for c in comms] == [(r, n, cpu) for r in range(n)]
    results, errors = {}, []

    def rank(c):
        r = c.rank
        try:
            with c, cpu.create_stream() as s:
                x = ferrocm.asarray(_inputs(r, 1000), device=cpu)
                total = c.all_reduce(x)
                gathered = c.all_gather(x[:7])
                sub = c.split(r % 2, key=r)
                y = ferrocm.asarray(np.full(4, r + 1.0), device=cpu)
                sub.all_reduce(y, out=y)
                s.synchronize()
                results[r] = (total.numpy(), gathered.numpy(), (sub.rank, sub.size), y.numpy())
                sub.destroy()
        except Exception as e:  # reported below
            errors.append(e)

    threads = [threading.Thread(target=rank, args=(c,)) for c in comms]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not errors, errors
    everyone = np.stack([_inputs(r, 1000) for r in range(n)])
    for r in range(n):
        total, gathered, (sr, ss), y = results[r]
        np.testing.assert_allclose(total, everyone.sum(axis=0), rtol=1e-12, atol=1e-12)
        np.testing.assert_array_equal(gathered, everyone[:, :7])
        members = [k for k in range(n) if k % 2 == r % 2]
        assert (sr, ss) == (members.index(r), len(members))
        np.testing.assert_array_equal(y, np.full(4, float(sum(k + 1 for k in members))))
    assert all(c.destroyed for c in comms)


def test_one_thread_drives_every_rank_with_a_group():
    cpu, n = _cpu(), 4
    comms = ccl.init_all([cpu] * n)
    streams = [cpu.create_stream() for _ in comms]
    everyone = np.stack([_inputs(r, 1001, np.float32) for r in range(n)])
    xs = [ferrocm.asarray(everyone[r].copy(), device=cpu) for r in range(n)]
    sums, bcast, scattered = [], [], []
    # All-to-all by sends and receives into slices of one buffer per rank: every rank posts its
    # receives before peers' sends, so it completes only because the group launches them together.
    a2a = [ferrocm.asarray(np.concatenate([np.full(2, 10.0 * r + k) for k in range(n)]), device=cpu) for r in range(n)]
    got = [ferrocm.zeros(2 * n, np.float64, device=cpu) for _ in range(n)]
    with ccl.group():
        for c, s, x in zip(comms, streams, xs):
            sums.append(c.all_reduce(x, op="max", stream=s))
            bcast.append(c.broadcast(x, root=2, stream=s))
            scattered.append(c.reduce_scatter(x[:1000], stream=s))
            for k in range(n):
                c.recv(got[c.rank][2 * k:2 * k + 2], k, stream=s)
            for k in range(n):
                c.send(a2a[c.rank][2 * k:2 * k + 2], k, stream=s)
    for s in streams:
        s.synchronize()
    for r in range(n):
        np.testing.assert_array_equal(sums[r].numpy(), everyone.max(axis=0))
        np.testing.assert_array_equal(bcast[r].numpy(), everyone[2])
        np.testing.assert_allclose(scattered[r].numpy(), everyone[:, :1000].sum(axis=0)[250 * r:250 * (r + 1)], rtol=1e-5)
        np.testing.assert_array_equal(got[r].numpy(), np.concatenate([np.full(2, 10.0 * k + r) for k in range(n)]))
    # split_all: the ranks of one thread split at once; color None gets no communicator.
    subs = ccl.Communicator.split_all(comms, [1, None, 1, 0], keys=[0, 0, -1, 0])
    assert subs[1] is None
    assert [(s.rank, s.size) for s in (subs[0], subs[2], subs[3])] == [(1, 2), (0, 2), (0, 1)]
    for s in subs:
        if s is not None:
            s.destroy()
    for c in comms:
        c.destroy()


def test_group_errors_launch_nothing():
    cpu = _cpu()
    comms = ccl.init_all([cpu, cpu])
    streams = [cpu.create_stream() for _ in comms]
    bufs = [ferrocm.asarray(np.arange(8.0) + 10 * r, device=cpu) for r in range(2)]
    before = [b.numpy() for b in bufs]
    # Two calls writing overlapping parts of one buffer: refused at the end of the block.
    with pytest.raises(ValueError, match="overlaps"):
        with ccl.group():
            for c, s, b in zip(comms, streams, bufs):
                c.all_reduce(b[:6], out=b[:6], stream=s)
                c.all_reduce(b[4:], out=b[4:], stream=s)
    # A region read by one call and written by another.
    with pytest.raises(ValueError, match="a region written must not share memory with one read"):
        with ccl.group():
            for c, s, b in zip(comms, streams, bufs):
                c.all_reduce(b[:4], stream=s)
                c.all_reduce(b[2:6], out=b[2:6], stream=s)
    # An error inside the block: nothing recorded runs, the error propagates.
    with pytest.raises(ValueError, match="op 'mean'"):
        with ccl.group():
            comms[0].all_reduce(bufs[0], out=bufs[0], stream=streams[0])
            comms[1].all_reduce(bufs[1], out=bufs[1], op="mean", stream=streams[1])
    with pytest.raises(ValueError, match="stream is on device|stream must be"):
        comms[0].all_reduce(bufs[0], stream="s")
    for s in streams:
        s.synchronize()
    for b, w in zip(bufs, before):
        np.testing.assert_array_equal(b.numpy(), w)
    # Nested groups launch at the outer end; the communicators still work after the errors.
    with ccl.group():
        with ccl.group():
            comms[0].all_reduce(bufs[0], out=bufs[0], stream=streams[0])
        comms[1].all_reduce(bufs[1], out=bufs[1], stream=streams[1])
    for s in streams:
        s.synchronize()
    for b in bufs:
        np.testing.assert_array_equal(b.numpy(), before[0] + before[1])
    # Bad split arguments.
    with pytest.raises(ValueError, match="color -1 is not allowed"):
        comms[0].split(-1)
    with pytest.raises(ValueError, match="2 colors and 1 keys for 2 communicators"):
        ccl.Communicator.split_all(comms, [0, 0], [0])
    with pytest.raises(ValueError, match="init_all needs at least one device"):
        ccl.init_all([])
    for c in comms:
        c.destroy()
    with pytest.raises(ValueError, match="destroyed"):
        with ccl.group():
            comms[0].all_reduce(bufs[0], out=bufs[0])


def test_abort_fails_every_rank_with_a_comm_error():
    cpu = _cpu()
    comms = ccl.init_all([cpu, cpu])
    comms[1].abort()
    x = ferrocm.zeros(4, np.float64, device=cpu)
    with cpu.create_stream() as s:
        with pytest.raises(ferrocm.CommError, match="abort"):
            comms[0].all_reduce(x, out=x)
            s.synchronize()
    for c in comms:
        with c:
            pass
        assert c.destroyed
