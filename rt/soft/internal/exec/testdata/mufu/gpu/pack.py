# pack.py SRC OUT: xz every file of SRC, bundle into at most 4 tars of <= 15.5 MiB.
import lzma, os, sys, tarfile, io
from concurrent.futures import ProcessPoolExecutor
src, out = sys.argv[1], sys.argv[2]
def prio(n):
    if n.endswith(('.txt', '.log')): return 0
    for i, p in enumerate(['dom_', 'resid_', 'raw_', 'samples_', 'hash_', 'tab_', 'tanh_']):
        if n.startswith(p): return 1 + i
    return 9
def comp(n):
    d = open(os.path.join(src, n), 'rb').read()
    return n, len(d), lzma.compress(d, preset=6)
files = sorted(os.listdir(src), key=lambda n: (prio(n), n))
with ProcessPoolExecutor(16) as ex:
    res = list(ex.map(comp, files))
LIM, MAXT = int(15.5 * 2**20), 4
tars, cur, size, dropped = [], [], 0, []
for n, raw, c in res:
    if size + len(c) + 4096 > LIM:
        if cur: tars.append(cur)
        cur, size = [], 0
    if len(tars) >= MAXT or len(c) + 4096 > LIM:
        dropped.append((n, len(c))); continue
    cur.append((n, raw, c)); size += len(c) + 1024
if cur and len(tars) < MAXT: tars.append(cur)
for i, t in enumerate(tars):
    with tarfile.open(os.path.join(out, 'mufu%d.tar' % i), 'w') as tf:
        for n, raw, c in t:
            ti = tarfile.TarInfo(n + '.xz'); ti.size = len(c); tf.addfile(ti, io.BytesIO(c))
tot = sum(len(c) for t in tars for _, _, c in t)
print('packed %d files into %d tars, %.1f MiB; dropped %s' % (sum(len(t) for t in tars), len(tars), tot / 2**20, dropped))
for n, raw, c in res:
    if prio(n) in (1, 7): print('  %-28s %10d -> %9d' % (n, raw, len(c)))
