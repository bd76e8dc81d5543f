#!/usr/bin/env python3
"""Extract MTGP32's parameter sets (exponent 11213) from a cuRAND header into the packed text
of data/mtgp32dc_params_11213.txt:

    python3 extract_mtgp32_params.py PATH/curand_mtgp32dc_p_11213.h > ../data/mtgp32dc_params_11213.txt

One line per set: pos sh1 sh2 (decimal), then mask, tbl[16], tmp_tbl[16], flt_tmp_tbl[16] (hex).
"""
import re
import sys

src=open(sys.argv[1]).read()
body=src[src.index('mtgp32dc_params_fast_11213[]'):]
body=re.sub(r'/\*.*?\*/','',body,flags=re.S)
nums=[int(x,0) for x in re.findall(r'0x[0-9a-fA-F]+|\b\d+\b', body)]
# each entry: mexp,pos,sh1,sh2, 16,16,16, mask, 21 sha bytes = 4+48+1+21 = 74
# strip leading '11213' string from name mtgp32dc_params_fast_11213


sets=[]
i=0
while i+74<=len(nums) and nums[i]==11213:
    e=nums[i:i+74]; sets.append(e); i+=74
f = sys.stdout
if True:
    for e in sets:
        mexp,pos,sh1,sh2=e[:4]; tbl=e[4:20]; tmp=e[20:36]; flt=e[36:52]; mask=e[52]
        f.write(' '.join([str(pos),str(sh1),str(sh2),'%08x'%mask]+['%08x'%x for x in tbl+tmp+flt])+'\n')
