# patch.py IN OUT: replace the FMUL.RZ constant 1/(2*pi) by 1.0 so that
# sin/cos.approx.ftz.f32 kernels compute MUFU.SIN/COS of their raw input.
import sys
b = bytearray(open(sys.argv[1], 'rb').read())
n = 0
for lo in range(0x80, 0x88):
    pat = bytes([lo, 0xf9, 0x22, 0x3e])
    i = b.find(pat)
    while i >= 0:
        b[i:i + 4] = b'\x00\x00\x80\x3f'
        n += 1
        print('patched 0x3e22f9%02x at offset %d' % (lo, i))
        i = b.find(pat, i + 4)
open(sys.argv[2], 'wb').write(b)
print('patch: %d replacements' % n)
