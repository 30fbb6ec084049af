package workflow

import (
	"encoding/json"

	"svc/domain/contract"
)

// StepOutput is an entry of step_outputs: the extras of a step whose
// output was validated against the output_contract (direct execution).
type StepOutput struct {
	Step                       int                  `json:"step"`
	Framework                  string               `json:"framework"`
	OutputValidationStatus     string               `json:"output_validation_status"`
	OutputValidationViolations []contract.Violation `json:"output_validation_violations"`
	// OutputFindings are the normalised records; absent when the output
	// violated the contract.
	OutputFindings json.RawMessage `json:"output_findings,omitempty"`
}

// stepOutputs lists the steps with output extras, in plan order; nil when
// none has any.
func (w *Workflow) stepOutputs() []StepOutput {
	var out []StepOutput
	for i, s := range w.steps {
		o := StepOutput{Step: i + 1, Framework: w.planned.Steps[i].Name}
		switch {
		case s.completed != nil && s.completed.OutputValidationStatus != "":
			o.OutputValidationStatus, o.OutputValidationViolations = s.completed.OutputValidationStatus, s.completed.OutputValidationViolations
			o.OutputFindings = s.completed.OutputFindings
		case s.incomplete != nil && s.incomplete.OutputValidationStatus != "":
			o.OutputValidationStatus, o.OutputValidationViolations = s.incomplete.OutputValidationStatus, s.incomplete.OutputValidationViolations
		default:
			continue
		}
		if o.OutputValidationViolations == nil {
			o.OutputValidationViolations = []contract.Violation{}
		}
		out = append(out, o)
	}
	return out
}
