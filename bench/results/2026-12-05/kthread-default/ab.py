# Per-round ratios of a bench run: python3 ab.py OUTDIR A,B,REF prints, per
# cell, A/B, A/REF and B/REF (median (min-max) over rounds) and the TCP
# retransmits of each round; last, the median of A/B throughput over cells.
import csv,collections,statistics as st,sys
path=sys.argv[1]; modes=sys.argv[2].split(',')  # a,b,ref
rows=list(csv.reader(open(path+'/results.tsv'),delimiter='\t'))[1:]
d=collections.defaultdict(dict); rounds=set()
for w,p,m,r,met,v,u in rows:
    try: d[(w,p,met)][(m,int(r))]=float(v); rounds.add(int(r))
    except: pass
def ratios(w,p,met,a,b):
    x=d[(w,p,met)]
    return [x[(a,r)]/x[(b,r)] for r in sorted(rounds) if (a,r) in x and (b,r) in x and x[(b,r)]]
f=lambda l: f"{st.median(l):.2f} ({min(l):.2f}-{max(l):.2f})" if l else '-'
a,b,ref=modes
print(f"cell                        metric  {a}/{b}          {a}/{ref}        {b}/{ref}      retrans {b} | {a} | {ref}")
meds=[]
for (w,p) in sorted(set((w,p) for (w,p,met) in d)):
    for met in ('tps','p99_us','throughput_gbps'):
        if (w,p,met) not in d: continue
        x=ratios(w,p,met,a,b)
        if met=='tps' and x: meds.append(st.median(x))
        rt=d.get((w,p,'retrans'),{})
        rts=lambda m: ','.join(str(int(rt[(m,r)])) if (m,r) in rt else '-' for r in sorted(rounds))
        print(f"{w:8} {p:18} {met:6} {f(x):18} {f(ratios(w,p,met,a,ref)):18} {f(ratios(w,p,met,b,ref)):18} {rts(b)} | {rts(a)} | {rts(ref)}")
if meds: print("median over cells of tps", a,'/',b, f"{st.median(meds):.3f}", "n", len(meds), "min", f"{min(meds):.2f}")
