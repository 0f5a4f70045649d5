# sasssum.py SASS: one line per kernel with the instructions between load and store
import re, sys
skip = re.compile(r'^(LDC|S2R|IMAD\.WIDE|LDG|STG|EXIT|BRA|NOP|ULDC|MOV |CS2R|IADD3|SHF|LEA|ISETP|IMAD |IMAD\.SHL|UMOV|LOP3)')
cur = None; out = []
for line in open(sys.argv[1]):
    m = re.search(r'Function : (\S+)', line)
    if m:
        if cur: print('%-24s %s' % (cur, ' | '.join(out)))
        cur, out = m.group(1), []; continue
    m = re.search(r'/\*[0-9a-f]{4}\*/\s+(.*?)\s*;', line)
    if m and cur:
        ins = m.group(1)
        if not skip.match(ins.lstrip('@!P0123456789 ').strip()) or 'MUFU' in ins: out.append(ins)
if cur: print('%-24s %s' % (cur, ' | '.join(out)))
