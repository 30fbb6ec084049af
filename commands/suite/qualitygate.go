package suite

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/google/uuid"

	"svc/adapters/llm"
	"svc/commands"
	"svc/domain/qualitygate"
	domain "svc/domain/suite"
	"svc/eventstore"
	"svc/projections"
)

// LLMCheckTimeout bounds one LLM check; past it the check is skipped.
const LLMCheckTimeout = 45 * time.Second

// FallbackLLMSkipped is fallback_behavior when the LLM checks could not
// run: the pattern checks answered alone, at their price.
const FallbackLLMSkipped = "llm_checks_skipped"

// QualityGate is the QualityGate product's operations (spec C):
// validations of agent outputs, and their trends.
type QualityGate struct {
	s           *Suite
	validations *eventstore.Repository[*qualitygate.Validation]

	validate commands.Handler[QualityGateValidate, QualityGateValidation]
}

func newQualityGate(s *Suite) *QualityGate {
	q := &QualityGate{s: s,
		validations: eventstore.NewRepository(s.repos.Store, eventstore.Kind[*qualitygate.Validation]{
			Stream: qualitygate.Stream, New: func(string) *qualitygate.Validation { return qualitygate.NewValidation() },
			Owner: (*qualitygate.Validation).OrgID}),
	}
	q.validate = handle(s, q.doValidate)
	return q
}

// QualityGateValidate validates Output against Request for the caller.
type QualityGateValidate struct {
	Caller         Caller
	Output         string
	Request        qualitygate.Request
	Override       bool
	OverrideReason string
}

// QualityGateValidation is the outcome of QualityGateValidate.
type QualityGateValidation struct {
	ValidationID string
	Result       *qualitygate.Result
	Receipt      Receipt
	// Fallback is FallbackLLMSkipped when the LLM checks were skipped,
	// "" otherwise.
	Fallback string
}

// Validate runs the pattern checks and, when asked, the LLM checks
// through the LLM port, and records the validation with its charge (1
// credit, 8 with an LLM check; the pattern price when the LLM checks were
// skipped). A request the checks cannot run is a *qualitygate.InputError;
// an override without a reason qualitygate.ErrOverrideReason.
func (q *QualityGate) Validate(ctx context.Context, cmd QualityGateValidate) (QualityGateValidation, error) {
	return q.validate.Handle(ctx, cmd)
}

func (q *QualityGate) doValidate(ctx context.Context, cmd QualityGateValidate) (QualityGateValidation, error) {
	if cmd.Override && cmd.OverrideReason == "" {
		return QualityGateValidation{}, qualitygate.ErrOverrideReason
	}
	plan, err := qualitygate.NewPlan(cmd.Request)
	if err != nil {
		return QualityGateValidation{}, err
	}
	op := domain.QualityGateValidate
	llmChecks := plan.LLMChecks()
	if len(llmChecks) > 0 {
		op = domain.QualityGateValidateLLM
	}
	if err := q.s.Meter.Afford(ctx, cmd.Caller, op); err != nil {
		return QualityGateValidation{}, err
	}
	result := plan.Check(cmd.Output)
	fallback := ""
	if len(llmChecks) > 0 {
		judgements, err := q.judge(ctx, llmChecks, cmd.Output)
		if err != nil {
			q.s.log.WarnContext(ctx, "qualitygate: LLM checks skipped", "error", err.Error(), "org_id", cmd.Caller.OrgID)
			result.SkipLLM(llmChecks)
			op, fallback = domain.QualityGateValidate, FallbackLLMSkipped
		} else {
			for i, c := range llmChecks {
				result.AddJudgement(c, judgements[i])
			}
		}
	}
	result.Finish(cmd.Override, cmd.OverrideReason)
	id := uuid.NewString()
	receipt, err := q.s.Meter.Run(ctx, cmd.Caller, op, func(tx *eventstore.Tx) error {
		v := qualitygate.NewValidation()
		rec := qualitygate.Record{ValidationID: id, OrgID: cmd.Caller.OrgID, KeyID: cmd.Caller.KeyID, AgentID: cmd.Caller.AgentID,
			Credits: op.Credits, At: time.Now().UTC()}
		validated, err := v.Record(rec, *result)
		if err != nil {
			return err
		}
		_, err = q.validations.Save(tx, id, v, validated)
		return err
	})
	if err != nil {
		return QualityGateValidation{}, fmt.Errorf("qualitygate validate: %w", err)
	}
	return QualityGateValidation{ValidationID: id, Result: result, Receipt: receipt, Fallback: fallback}, nil
}

// judge runs the LLM checks at once through the LLM port (KindCheck); the
// first failure fails them all (they are then skipped together).
func (q *QualityGate) judge(ctx context.Context, checks []qualitygate.CheckType, output string) ([]qualitygate.Judgement, error) {
	out := make([]qualitygate.Judgement, len(checks))
	errs := make([]error, len(checks))
	var wg sync.WaitGroup
	for i, c := range checks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cctx, cancel := context.WithTimeout(ctx, LLMCheckTimeout)
			defer cancel()
			resp, err := q.s.ports.LLM.Complete(cctx, llm.Request{Kind: llm.KindCheck, Tier: 1, Criterion: string(c), Context: output,
				Description: "Quality gate: judge an AI agent's output on " + string(c) + "."})
			if err != nil {
				errs[i] = fmt.Errorf("%s check: %w", c, err)
				return
			}
			rv, err := llm.ParseReview(resp.Text)
			if err != nil {
				errs[i] = fmt.Errorf("%s check: %w", c, err)
				return
			}
			out[i] = qualitygate.Judgement{Score: rv.Score, Summary: rv.Summary, Findings: rv.PathTo100}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}

// QualityGateTrends asks for the caller's validation trends.
type QualityGateTrends struct {
	Caller    Caller
	Days      int
	CheckType string
}

// QualityGateTrendsResult is the trends with the receipt (free).
type QualityGateTrendsResult struct {
	Trends  projections.QualityGateTrends
	Receipt Receipt
}

// Trends reads the organization's validations of the last Days days
// (free).
func (q *QualityGate) Trends(ctx context.Context, cmd QualityGateTrends) (QualityGateTrendsResult, error) {
	t, err := q.s.ports.Queries.QualityGateTrends(ctx, cmd.Caller.OrgID, cmd.Days, cmd.CheckType, time.Now())
	if err != nil {
		return QualityGateTrendsResult{}, fmt.Errorf("qualitygate trends: %w", err)
	}
	rc, err := q.s.Meter.Balance(ctx, cmd.Caller)
	if err != nil {
		return QualityGateTrendsResult{}, fmt.Errorf("qualitygate trends: %w", err)
	}
	return QualityGateTrendsResult{Trends: t, Receipt: rc}, nil
}
