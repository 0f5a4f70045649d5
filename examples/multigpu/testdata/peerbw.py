# peerbw.py is PyTorch's side of two-gpu.sh's peer-copy comparison:
# dst.copy_(src, non_blocking=True) from cuda:1 to cuda:0 (with one GPU,
# between two tensors of cuda:0), timed as examples/multigpu's
# BenchmarkPeerCopy times its copies: three untimed copies, then n copies
# and a synchronize of both devices, by the wall clock. It prints
# "PEER-BW-TORCH: bytes N GB/s X (...)". Our own code.
#
#	python3 peerbw.py 268435456 50
import sys
import time

import torch


def main():
    nbytes = int(sys.argv[1]) if len(sys.argv) > 1 else 256 << 20
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 50
    two = torch.cuda.device_count() >= 2
    src = torch.full((nbytes,), 7, dtype=torch.uint8, device="cuda:1" if two else "cuda:0")
    dst = torch.empty(nbytes, dtype=torch.uint8, device="cuda:0")

    def sync():
        for d in range(2 if two else 1):
            torch.cuda.synchronize(d)

    for _ in range(3):
        dst.copy_(src, non_blocking=True)
    sync()
    t0 = time.perf_counter()
    for _ in range(n):
        dst.copy_(src, non_blocking=True)
    sync()
    d = time.perf_counter() - t0
    if int(dst[-1]) != 7:
        sys.exit(f"peerbw.py: the copy holds {int(dst[-1])}, want 7")
    access = two and torch.cuda.can_device_access_peer(0, 1)
    what = "one device" if not two else ("peer access on" if access else "peer access off")
    print(f"PEER-BW-TORCH: bytes {nbytes} GB/s {nbytes * n / d / 1e9:.2f} (torch {torch.__version__} Tensor.copy_, "
          f"{'cuda:1' if two else 'cuda:0'} to cuda:0, {what}, {n} copies in {d * 1e3:.3f} ms)", flush=True)


if __name__ == "__main__":
    main()
