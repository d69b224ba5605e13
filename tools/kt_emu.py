#!/usr/bin/env python3
# kt_emu.py - emulates kb_gemm_kt_kernel's index mapping (kernels/cuda/gemm.cu) for one
# tile in pure Python: every shared element written once, every output once,
# the products right, and the 16-byte bank groups a warp's stores and reads
# touch.  A development aid written in session 35 for the kernel's first
# form (k-chunks of 32, 8 x 8 outputs a thread); not run by make check.
import random
def emu(P, Q, TS, W84):
    TKC=32; NKC=P//TKC; RS=TS+4; NT=(TS//8)*(Q//8); NBLK=TS//4*(TKC//4)//NT
    assert NBLK*NT == TS//4*(TKC//4)
    X=[[random.uniform(-1,1) for k in range(P)] for s in range(TS)]
    F=[[random.uniform(-1,1) for l in range(Q)] for k in range(P)]   # Bs[k][l]
    def tsq(tid):
        if W84: return tid%8 + 8*(tid//32 % (TS//64)), tid//8%4 + 4*(tid//32//(TS//64))
        return tid % (TS//8), tid // (TS//8)
    assert sorted(tsq(t) for t in range(NT)) == sorted((a,b) for a in range(TS//8) for b in range(Q//8))
    acc={t:[[0.0]*8 for i in range(8)] for t in range(NT)}
    worst_st=worst_rd=worst_b=0
    for kc in range(NKC):
        As=[None]*(TKC*RS)
        for tid in range(NT):
            for b in range(NBLK):
                blk=tid+b*NT; kg=blk%8; G=blk//8
                stg=[[X[4*G+j][kc*TKC+4*kg+u] for u in range(4)] for j in range(4)]
                for u in range(4):
                    for jj in range(4):
                        a=(4*kg+u)*RS+4*G+jj
                        assert As[a] is None; As[a]=stg[jj][u]
        for k in range(TKC):
            for s in range(TS): assert As[k*RS+s]==X[s][kc*TKC+k]
        # bank check of stores: warp lanes, same b, same u
        for w in range(NT//32):
            for b in range(NBLK):
                for u in range(4):
                    grp={}
                    for lane in range(32):
                        blk=w*32+lane+b*NT; kg=blk%8; G=blk//8
                        a=(4*kg+u)*RS+4*G; grp.setdefault((a//4)%8,set()).add(a)
                    worst_st=max(worst_st,max(len(v) for v in grp.values()))
        for tid in range(NT):
            ts,tq=tsq(tid)
            for k in range(TKC):
                av=[As[k*RS+4*ts+i] for i in range(4)]+[As[k*RS+TS//2+4*ts+i] for i in range(4)]
                kk=kc*TKC+k
                bv=[F[kk][4*tq+j] for j in range(4)]+[F[kk][Q//2+4*tq+j] for j in range(4)]
                for i in range(8):
                    for j in range(8): acc[tid][i][j]+=av[i]*bv[j]
        for w in range(NT//32):
            for h in range(2):
                grp={}; bg={}
                for lane in range(32):
                    ts,tq=tsq(w*32+lane); a=h*(TS//2)+4*ts
                    grp.setdefault((a//4)%8,set()).add(a)
                    bb=h*(Q//2)+4*tq; bg.setdefault((bb//4)%8,set()).add(bb)
                worst_rd=max(worst_rd,max(len(v) for v in grp.values())); worst_b=max(worst_b,max(len(v) for v in bg.values()))
    Y={}
    for tid in range(NT):
        ts,tq=tsq(tid)
        for j in range(8):
            l=4*tq+j if j<4 else Q//2+4*tq+j-4
            for h in range(2):
                for i in range(4):
                    s=4*ts+i+h*(TS//2); assert (l,s) not in Y; Y[(l,s)]=acc[tid][4*h+i][j]
    assert len(Y)==Q*TS
    err=max(abs(Y[(l,s)]-sum(X[s][k]*F[k][l] for k in range(P))) for l in range(Q) for s in range(TS))
    print(P,Q,TS,W84,"NT",NT,"NBLK",NBLK,"max err %.2e"%err,"store wavefronts/instr",worst_st,"A read",worst_rd,"B read",worst_b)
for args in [(64,64,128,0),(64,64,128,1),(64,64,64,0),(128,128,128,0),(128,128,64,0)]:
    emu(*args)
