package projections

import (
	"sync"

	"svc/domain/workflow"
)

// workflowFolds keeps the workflows projection's last fold of each
// workflow it applied, so that the next batch with that workflow's events
// folds only them instead of reading its stream's earlier events again. A
// fold is a pure function of the log, so an entry stays true whatever
// happens to the transaction that made it or to the generation it was
// applied to; one is used only when it ends right before the batch's first
// event of its workflow. Bounded: past max entries, arbitrary ones go.
type workflowFolds struct {
	mu  sync.Mutex
	max int
	m   map[string]*workflow.Workflow // by workflow id; never mutated once stored
}

func newWorkflowFolds(max int) *workflowFolds {
	return &workflowFolds{max: max, m: map[string]*workflow.Workflow{}}
}

// before returns a copy of the fold of workflow id up to version first-1,
// if it is kept.
func (f *workflowFolds) before(id string, first int64) (*workflow.Workflow, bool) {
	if f == nil {
		return nil, false
	}
	f.mu.Lock()
	wf, ok := f.m[id]
	f.mu.Unlock()
	if !ok || wf.Version() != first-1 {
		return nil, false
	}
	return wf.Clone(), true
}

// keep stores a copy of wf; a terminal workflow is dropped instead (its
// stream rarely grows again: a resumed run reads its head once).
func (f *workflowFolds) keep(wf *workflow.Workflow) {
	if f == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if workflow.Terminal(wf.Status()) {
		delete(f.m, wf.ID())
		return
	}
	if len(f.m) >= f.max {
		for k := range f.m {
			delete(f.m, k)
			if len(f.m) < f.max*3/4 {
				break
			}
		}
	}
	f.m[wf.ID()] = wf.Clone()
}
