package commands_test

import (
	"reflect"
	"testing"

	"svc/adapters/llm/offline"
	"svc/adapters/secrets"
	"svc/commands"
	"svc/domain/catalog"
	"svc/domain/planning"
)

// TestEveryHandlerIsWired: NewHandlers sets every command of Handlers; a
// field added without its constructor would be a nil handler that panics
// on its first request.
func TestEveryHandlerIsWired(t *testing.T) {
	box, err := secrets.NewBox(make([]byte, secrets.KeySize))
	if err != nil {
		t.Fatal(err)
	}
	h := commands.NewHandlers(commands.NewRepositories(store), commands.Ports{
		Planner: planning.NewPlanner(catalog.Default()), Sealer: box, NewSecret: func() string { return "s" }, LLM: offline.New(),
	})
	v := reflect.ValueOf(h).Elem()
	for i := range v.NumField() {
		f := v.Type().Field(i)
		if f.IsExported() && v.Field(i).Kind() == reflect.Interface && v.Field(i).IsNil() {
			t.Errorf("Handlers.%s is not wired in NewHandlers", f.Name)
		}
	}
}
