import sys, re, collections
INC = "W M + clause 0.5 + split 0.3/0.5"
res = collections.OrderedDict()  # policy -> fold -> tallies
folds = []
for line in open(sys.argv[1]):
    if 'CVDUMP' not in line: continue
    parts = line.rstrip('\n').split('CVDUMP\t',1)[1].split('\t')
    fold, pol, nums = parts[0], parts[1], list(map(int, parts[2:]))
    res.setdefault(pol, {})[fold] = nums
    if fold not in folds: folds.append(fold)
pols = list(res)
def pool(p, fs):
    t = [0]*12
    for f in fs:
        for i,v in enumerate(res[p][f]): t[i]+=v
    return t
def rate(r,n): return r/n if n else 1.0
def J(t):
    return (rate(t[0],t[1])+rate(t[2],t[3])+rate(t[6],t[7])+rate(t[8],t[9])+rate(t[10],t[11])+(1-t[4]/t[5] if t[5] else 1))/6
def guard(t, inc):
    return t[6] >= inc[6]-1 and t[10] >= inc[10]-1 and t[4] <= inc[4]+1
def row(name, t):
    f = lambda r,n: "–" if n==0 else "%.1f (%d/%d)"%(100*r/n, r, n)
    return "| %s | %s | %s | %s | %s | %s | %s |" % (name, f(t[0],t[1]), f(t[2],t[3]), f(t[4],t[5]), f(t[6],t[7]), f(t[8],t[9]), f(t[10],t[11]))
hdr = "| set | English top-1 % | de+fr+es top-1 % | spurious splits % | vague recall % | vague precision % | multi-intent % |\n| --- | --- | --- | --- | --- | --- | --- |"
mode = sys.argv[2] if len(sys.argv)>2 else 'all'
print("folds:", folds, "policies:", len(pols))
# all policies pooled, sorted by J
allt = {p: pool(p, folds) for p in pols}
inc_all = allt[INC]
print("\n## every policy pooled, top 25 by J (guard vs incumbent on all folds)")
print(hdr.replace("multi-intent % |","multi-intent % | J | guard |",1).replace("--- |\n","--- |\n",1)+" --- | --- |")
for p in sorted(pols, key=lambda p: -J(allt[p]))[:25]:
    print(row(p, allt[p]) + " %.4f | %s |" % (J(allt[p]), guard(allt[p], inc_all)))
for p in ["off", INC]:
    print(row(p, allt[p]) + " %.4f | %s |" % (J(allt[p]), guard(allt[p], inc_all)))
# nested
print("\n## nested: each fold's policy chosen by J (guarded) on the other folds")
print(hdr)
nested=[0]*12; incp=[0]*12
for k in folds:
    others=[f for f in folds if f!=k]
    inc = pool(INC, others)
    best = INC; bj = J(inc)
    for p in pols:
        t = pool(p, others)
        if guard(t, inc) and J(t) > bj + 1e-12:
            best, bj = p, J(t)
    t = res[best][k]
    for i,v in enumerate(t): nested[i]+=v
    for i,v in enumerate(res[INC][k]): incp[i]+=v
    print(row("%s (%s)" % (k, best), t))
print(row("**nested pooled**", nested))
print(row("incumbent W pooled", incp))
print("\n## incumbent W per fold")
print(hdr)
for k in folds: print(row(k, res[INC][k]))
print(row("**pooled**", incp))
