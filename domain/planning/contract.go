package planning

import (
	"encoding/json"
	"errors"

	"svc/domain/contract"
)

const contractPath = "preferences.output_contract"

// ValidateContract checks an output_contract with contract.Parse; the error
// is a *FieldError naming the offending path, such as
// preferences.output_contract.fields[1].type.
func ValidateContract(raw json.RawMessage) error {
	_, err := contract.Parse(raw)
	var ce *contract.Error
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ce) && ce.Path != "":
		return fieldErr(contractPath+"."+ce.Path, "%s", ce.Reason)
	case errors.As(err, &ce):
		return fieldErr(contractPath, "%s", ce.Reason)
	}
	return fieldErr(contractPath, "%v", err)
}
