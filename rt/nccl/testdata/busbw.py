# busbw.py is PyTorch's side of two-gpu.sh's bandwidth comparison: the same
# AllReduce sizes, iterations and timing as rt/nccl's busbw role, through
# torch.distributed.all_reduce on the NCCL backend. Launch it with torchrun;
# rank 0 prints "BUSBW-TORCH <bytes> <us per call> <GB/s>". Our own code.
import os

import torch
import torch.distributed as dist


def main():
    local = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local)
    dist.init_process_group("nccl")
    n = dist.get_world_size()
    s = torch.cuda.Stream()
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    nbytes = 8 << 10
    while nbytes <= 1 << 30:
        buf = torch.zeros(nbytes // 4, dtype=torch.float32, device="cuda")
        iters = max(5, min(200, (256 << 20) // nbytes))
        with torch.cuda.stream(s):
            for _ in range(5):
                dist.all_reduce(buf)
            start.record(s)
            for _ in range(iters):
                dist.all_reduce(buf)
            end.record(s)
        end.synchronize()
        sec = start.elapsed_time(end) / 1e3 / iters
        bus = nbytes / sec * 2 * (n - 1) / n / 1e9
        if dist.get_rank() == 0:
            print(f"BUSBW-TORCH {nbytes} {sec * 1e6:.2f} {bus:.2f}", flush=True)
        del buf
        nbytes *= 4
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
