package offline

import "svc/adapters/llm"

// writeComposed is the offline answer of a composed call: each framework
// written as its own step would be.
func writeComposed(r llm.Request) (string, error) {
	var out llm.ComposedOutput
	for _, fw := range r.Frameworks {
		one := r
		one.Frameworks, one.Framework, one.Headings, one.FrameworkDomain = nil, fw, nil, ""
		s, err := writeStep(one)
		if err != nil {
			return "", err
		}
		out.Steps = append(out.Steps, llm.ComposedStep{Framework: fw, StepOutput: s})
	}
	return marshal(out)
}

// writeContract is the offline answer of a contract synthesis: a sample
// that conforms to the contract, its strings taken from the task's key
// phrases.
func writeContract(r llm.Request) string {
	return string(r.Contract.Sample(newBrief(r).phrases...))
}
