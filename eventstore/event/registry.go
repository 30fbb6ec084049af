package event

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
)

// ErrUnknownType is a stored event whose type no registry entry names.
var ErrUnknownType = errors.New("unknown event type")

// ErrMalformed is a stored event whose data does not decode into its type.
var ErrMalformed = errors.New("malformed event data")

// Registry maps event type names to their data types, to decode stored
// events. Each domain package registers its events (its RegisterEvents);
// a Registry is safe for concurrent use once filled.
type Registry struct {
	decoders map[string]func(json.RawMessage) (Data, error)
}

// NewRegistry returns a registry filled by each of register.
func NewRegistry(register ...func(*Registry)) *Registry {
	r := &Registry{decoders: map[string]func(json.RawMessage) (Data, error){}}
	for _, f := range register {
		f(r)
	}
	return r
}

// Register adds the data type T under the name its EventType returns. A
// name registered twice panics: two types would claim one event.
func Register[T Data](r *Registry) {
	var zero T
	name := zero.EventType()
	if name == "" {
		panic(fmt.Sprintf("event: %T has an empty type name", zero))
	}
	if _, dup := r.decoders[name]; dup {
		panic("event: type " + name + " registered twice")
	}
	r.decoders[name] = func(raw json.RawMessage) (Data, error) {
		var v T
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, err
		}
		return v, nil
	}
}

// Known reports whether typ is registered.
func (r *Registry) Known(typ string) bool {
	_, ok := r.decoders[typ]
	return ok
}

// Types lists the registered type names, sorted.
func (r *Registry) Types() []string { return slices.Sorted(maps.Keys(r.decoders)) }

// Decode returns the typed data of e (its Payload when already set). An
// unregistered type is ErrUnknownType and data that does not fit its type
// ErrMalformed; both errors name the event's stream, version and position.
func (r *Registry) Decode(e Event) (Data, error) {
	if e.Payload != nil {
		return e.Payload, nil
	}
	dec, ok := r.decoders[e.Type]
	if !ok {
		return nil, fmt.Errorf("%w %q: %s", ErrUnknownType, e.Type, where(e))
	}
	d, err := dec(e.Data)
	if err != nil {
		return nil, fmt.Errorf("%w: %s event %s: %v", ErrMalformed, e.Type, where(e), err)
	}
	return d, nil
}

// DecodeAll sets the Payload of each event in place, stopping at the first
// that fails.
func (r *Registry) DecodeAll(events []Event) error {
	for i := range events {
		d, err := r.Decode(events[i])
		if err != nil {
			return err
		}
		events[i].Payload = d
	}
	return nil
}

func where(e Event) string {
	if e.Position.IsZero() {
		return fmt.Sprintf("stream %s version %d", e.StreamID, e.Version)
	}
	return fmt.Sprintf("stream %s version %d at position %s", e.StreamID, e.Version, e.Position)
}
