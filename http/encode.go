package httpapi

import (
	"encoding/json"
	"reflect"
	"sync"
	"unsafe"
)

// An empty list is [] in every body the API writes, never null (spec A
// and B show arrays; a nil Go slice would encode as null). Rather than
// trusting every handler to initialise every slice, the encoder does it:
// withEmptyLists returns a copy of a response in which each nil slice
// (other than []byte, such as json.RawMessage, whose nil is JSON null on
// purpose) is an empty one. Optional fields keep `omitempty`: an empty
// slice is omitted just as a nil one was.

// marshal encodes v as the API does: lists never null.
func marshal(v any) ([]byte, error) { return json.Marshal(withEmptyLists(v)) }

// withEmptyLists returns v with every nil slice it holds replaced by an
// empty one; values holding no slice come back as they are, uncopied.
func withEmptyLists(v any) any {
	if v == nil {
		return nil
	}
	rv := reflect.ValueOf(v)
	if !mayHoldSlice(rv.Type()) {
		return v
	}
	return fill(rv).Interface()
}

// fill returns a copy of v with its nil slices made empty.
func fill(v reflect.Value) reflect.Value {
	t := v.Type()
	if !mayHoldSlice(t) {
		return v
	}
	switch t.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return v
		}
		p := reflect.New(t.Elem())
		p.Elem().Set(fill(v.Elem()))
		return p
	case reflect.Interface:
		if v.IsNil() {
			return v
		}
		out := reflect.New(t).Elem()
		out.Set(fill(v.Elem()))
		return out
	case reflect.Struct:
		out := reflect.New(t).Elem()
		out.Set(v)
		for i := range t.NumField() {
			f := out.Field(i)
			if !mayHoldSlice(f.Type()) {
				continue
			}
			switch {
			case f.CanSet():
				f.Set(fill(f))
			case t.Field(i).Anonymous:
				// an embedded struct of an unexported type: encoding/json
				// promotes its fields, so they are filled too (out is a
				// private copy, addressable)
				f = reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem()
				f.Set(fill(f))
			}
		}
		return out
	case reflect.Slice:
		if v.IsNil() {
			return reflect.MakeSlice(t, 0, 0)
		}
		if !mayHoldSlice(t.Elem()) {
			return v
		}
		out := reflect.MakeSlice(t, v.Len(), v.Len())
		for i := range v.Len() {
			out.Index(i).Set(fill(v.Index(i)))
		}
		return out
	case reflect.Array:
		out := reflect.New(t).Elem()
		for i := range v.Len() {
			out.Index(i).Set(fill(v.Index(i)))
		}
		return out
	case reflect.Map:
		if v.IsNil() {
			return v
		}
		out := reflect.MakeMapWithSize(t, v.Len())
		iter := v.MapRange()
		for iter.Next() {
			out.SetMapIndex(iter.Key(), fill(iter.Value()))
		}
		return out
	}
	return v
}

// holds caches, per type, whether a value of it may hold a nil slice to
// fill (interfaces may hold anything).
var holds sync.Map // reflect.Type -> bool

// mayHoldSlice reports whether a value of t can hold a slice that fill
// would change.
func mayHoldSlice(t reflect.Type) bool {
	if h, ok := holds.Load(t); ok {
		return h.(bool)
	}
	holds.Store(t, true) // a recursive type may hold one: assume so while looking
	h := lookForSlice(t)
	holds.Store(t, h)
	return h
}

func lookForSlice(t reflect.Type) bool {
	if _, custom := reflect.New(t).Interface().(json.Marshaler); custom {
		return false // encodes itself (json.RawMessage, time.Time, ...)
	}
	switch t.Kind() {
	case reflect.Slice:
		return t.Elem().Kind() != reflect.Uint8
	case reflect.Interface:
		return true
	case reflect.Pointer, reflect.Array:
		return mayHoldSlice(t.Elem())
	case reflect.Map:
		return mayHoldSlice(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if f := t.Field(i); (f.IsExported() || f.Anonymous) && mayHoldSlice(f.Type) {
				return true
			}
		}
	}
	return false
}
