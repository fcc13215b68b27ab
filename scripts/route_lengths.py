#!/usr/bin/env python3
"""The longest route handlers (`@Sendable func NAME(_ request: Request, ...)`), in lines from signature to closing brace.
Usage: scripts/route_lengths.py [FOLDER]   (default Sources/LatchkeyServer)"""
import re,glob,sys
rows=[]
folder = sys.argv[1] if len(sys.argv) > 1 else "Sources/LatchkeyServer"
for p in glob.glob(folder+'/**/*.swift',recursive=True):
    lines=open(p).read().split('\n')
    for i,l in enumerate(lines):
        if re.search(r'@Sendable func \w+\(_ request: Request', l):
            depth=0; start=i
            for j in range(i,len(lines)):
                code=re.sub(r'"[^"]*"','""',lines[j].split('//')[0])
                depth+=code.count('{')-code.count('}')
                if depth==0 and '{' in ''.join(lines[i:j+1]):
                    rows.append((j-i+1,p.split('/')[-1],re.search(r'func (\w+)',l).group(1))); break
rows.sort(reverse=True)
for r in rows[:8]: print(*r)
print(len(rows),'handlers')
