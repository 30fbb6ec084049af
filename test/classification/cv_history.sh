#!/bin/sh
# cv_history.sh: leave-one-set-out cross-validation against the pipeline
# as it stood before it was tuned on each blind set (decision 316).
#
# For each fold, the repository at the last commit whose classifier had not
# been tuned on that set is exported with `git archive` (read-only: no
# checkout, no worktree) into a temporary directory, the current learned
# tier (domain/planning/learned.go and its embedded lines) is hooked into
# that old Analyze, and TestCrossValidation runs on the fold alone
# (CV_FOLDS). The "rules alone" row is then the honest first look of that
# version; the other rows add the learned tier trained without the fold.
# blind/heldout2.jsonl is deleted from every export before anything runs.
#
# Run from the repository root: sh test/classification/cv_history.sh
set -e
root=$(pwd)
work=$(mktemp -d)
prep() {
c=$1
d=$work/$c
mkdir -p $d
git -C "$root" archive $c | tar -x -C $d
rm -f $d/test/classification/blind/heldout2.jsonl
cp "$root"/domain/planning/learned.go $d/domain/planning/
mkdir -p $d/domain/planning/data/learned && cp "$root"/domain/planning/data/learned/*.jsonl $d/domain/planning/data/learned/
rm -f $d/test/classification/*_test.go
cp "$root"/test/classification/blind_test.go "$root"/test/classification/cv_test.go $d/test/classification/
for s in dev dev2 dev3 dev4 dev5 dev6 dev7 heldout; do cp "$root"/test/classification/blind/$s.jsonl $d/test/classification/blind/; done
python3 - $d <<'PY'
import sys,re
d=sys.argv[1]+'/domain/planning/'
p=d+'analyze.go'; s=open(p).read()
m=re.search(r"(\ta\.Classification, a\.Tier, lexical = cl\.single\(ctx, toks, asks\)\n\ta\.Vague = [^\n]*\n)", s)
hook='''\tif cl.learned != nil {
\t\tbyPhrase := false
\t\tfor _, c := range asks {
\t\t\tif askedDeliverable(c.toks) != "" {
\t\t\t\tbyPhrase = true
\t\t\t}
\t\t}
\t\tcl.learnedReading(&a, cl.learned.predictTokens(toks), byPhrase)
\t}
'''
s=s[:m.end()]+hook+s[m.end():]
if 'TierLearned' not in s:
    s=s.replace('\tTierLLM ', '\tTierLearned = "learned"\n\tTierLLM ',1)
open(p,'w').write(s)
old='''\t\t\tconfident := cc.Confidence >= 0.7 || c.split && cc.Posterior >= 0.9 && cc.Confidence >= 0.5 // announced requests need less\n'''
new=old+'''\t\t\tif !confident && cl.learned != nil {
\t\t\t\tif g := cl.learned.predictTokens(c.toks); g.Probability >= cl.learned.Policy.Clause && g.Vague < 0.5 {
\t\t\t\t\tcc.TaskType, cc.Confidence = refineType(c.toks, g.TaskType), round3(g.Probability)
\t\t\t\t\tconfident = true
\t\t\t\t}
\t\t\t}
'''
print('clause hook', old in s)
old2='''\tif intents := cl.intentsOf(description, asks); len(intents) > 1 {\n\t\ta.Intents = intents'''
new2='''\tintents := cl.intentsOf(description, asks)
\tif len(intents) > 1 && cl.learned != nil && cl.learnedUnsplit(asks, cl.learned.predictTokens(toks)) {
\t\tintents = nil
\t}
\tif len(intents) < 2 && cl.learned != nil && cl.learned.Policy.Split <= 1 {
\t\tif split := cl.learnedSplit(description, asks, cl.learned.predictTokens(toks)); len(split) > 1 {
\t\t\tintents, a.Tier = split, TierLearned
\t\t}
\t}
\tif len(intents) > 1 {
\t\ta.Intents = intents'''
print('split hook', old2 in s)
s=s.replace(old2,new2)
s=s.replace(old,new)
open(p,'w').write(s)
p=d+'classify.go'; s=open(p).read()
s=s.replace("\tprovider  *providerIndex\n","\tprovider  *providerIndex\n\tlearned *Learned\n",1)
open(p,'w').write(s)
PY
if ! grep -q 'func scoringKind(tt string, ts \[\]token)' $d/domain/planning/*.go || ! grep -q 'func verbKind(verb, tt string, ts' $d/domain/planning/*.go; then
  python3 - $d <<'PY2'
import sys,re
p=sys.argv[1]+'/domain/planning/learned.go'; s=open(p).read()
s=s.replace('return verbKind(leadVerb(ts), scoringKind(tt, ts), ts)','return tt // this version has no verb rules')
if 'func siblings(' not in open(sys.argv[1]+'/domain/planning/analyze.go').read():
    s+='\nfunc siblings(a, b string) bool { return false }\n'
open(p,'w').write(s)
PY2
fi
if ! grep -q 'func addIntent' $d/domain/planning/*.go; then
cat >> $d/domain/planning/learned.go <<'GO'

func addIntent(out []Intent, in Intent) []Intent {
	for i := range out {
		if out[i].TaskType == in.TaskType {
			out[i].SourcePhrase += "; " + in.SourcePhrase
			return out
		}
	}
	return append(out, in)
}
GO
fi
if ! grep -q 'func askedDeliverable' $d/domain/planning/*.go; then
cat >> $d/domain/planning/learned.go <<'GO'

func askedDeliverable(ts []token) string {
	for _, d := range deliverables(ts) {
		if d.strong {
			return d.taskType
		}
	}
	return ""
}
GO
fi
(cd $d && gofmt -w domain/planning/analyze.go domain/planning/classify.go)
}
for pair in c5a0d01:heldout 2ed0a84:dev7 5fc6c7e:dev6 79b83bc:dev5 8b42682:dev4 9b06555:dev3 1963a8b:dev2; do
	c=${pair%%:*}
	f=${pair##*:}
	prep $c >/dev/null
	echo "== $f, pipeline of $c"
	if [ -n "${CV_POLICIES:-}" ]; then
		# the policy grid, one CVDUMP line per policy (cv_nested.py reads them)
		(cd $work/$c && CV_POLICIES=1 CV_DUMP=1 CV_FOLDS=$f go test -count=1 -timeout 60m -v -run 'TestCrossValidationPolicies$' ./test/classification | grep CVDUMP)
	else
		(cd $work/$c && CV_FOLDS=$f go test -count=1 -v -run 'TestCrossValidation$' ./test/classification | grep -E "cv_test.go:[0-9]+: |^ *\| $f ")
	fi
done
rm -rf "$work"
