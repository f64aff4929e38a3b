#!/usr/bin/python3
"""test/mpi/mpi4py_check.py: Debian's mpi4py with numpy arrays, a client of
MPI that knows nothing of lincoll.  Runs the collectives liblincoll_mpi.so
takes on several types, sizes and roots, and saves every result to
OUTDIR/<tag>.<rank>.npz; test/mpi/mpi4py_check.sh runs it with and without
the library preloaded and compares.
  mpi4py_check.py OUTDIR TAG
"""
import sys

import numpy as np
from mpi4py import MPI

outdir, tag = sys.argv[1], sys.argv[2]
comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
res = {}
for dt in (np.int32, np.int64, np.uint8, np.float32, np.float64):
    for n in (3, 1000, 200003):
        x = ((np.arange(n * size) * 7 + rank * 13) % 11).astype(dt)
        key = f"{np.dtype(dt).name}_{n}"
        for name, op in (("sum", MPI.SUM), ("max", MPI.MAX), ("prod", MPI.PROD)):
            y = np.empty(n, dt)
            comm.Allreduce(x[:n], y, op=op)
            res[f"allreduce_{name}_{key}"] = y
        y = x[:n].copy()
        comm.Allreduce(MPI.IN_PLACE, y, op=MPI.MIN)
        res[f"allreduce_inplace_min_{key}"] = y
        root = size - 1
        y = np.zeros(n, dt)
        comm.Reduce(x[:n], y, op=MPI.SUM, root=root)
        res[f"reduce_{key}"] = y
        b = x[:n].copy() if rank == root else np.zeros(n, dt)
        comm.Bcast(b, root=root)
        res[f"bcast_{key}"] = b
        g = np.empty(n * size, dt)
        comm.Allgather(x[:n], g)
        res[f"allgather_{key}"] = g
        r = np.empty(n, dt)
        comm.Reduce_scatter_block(x, r, op=MPI.SUM)
        res[f"reduce_scatter_block_{key}"] = r
        counts = [n + i - size // 2 if n > size else 1 for i in range(size)]
        r = np.empty(counts[rank], dt)
        comm.Reduce_scatter(x[: sum(counts)], r, recvcounts=counts, op=MPI.MAX)
        res[f"reduce_scatter_{key}"] = r
        y = np.empty(n, dt)
        comm.Iallreduce(x[:n], y, op=MPI.SUM).Wait()
        res[f"iallreduce_{key}"] = y
        comm.Barrier()
np.savez(f"{outdir}/{tag}.{rank}.npz", **res)
print(f"mpi4py_check {tag}: rank {rank} of {size}: {len(res)} results", flush=True)
