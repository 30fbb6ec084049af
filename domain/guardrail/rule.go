package guardrail

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// The operators of a rule: five compare a field of the proposed action
// with the rule's value, three combine nested rules.
const (
	OpEq         = "eq"
	OpStartsWith = "starts_with"
	OpContains   = "contains"
	OpGt         = "gt"
	OpLt         = "lt"
	OpAnd        = "and"
	OpOr         = "or"
	OpNot        = "not"
)

// Operators lists the operators, leaves first.
var Operators = []string{OpEq, OpStartsWith, OpContains, OpGt, OpLt, OpAnd, OpOr, OpNot}

// Bounds of a policy's rule tree.
const (
	MaxDepth     = 8
	MaxRuleNodes = 200
	MaxFieldPath = 200
)

// Rule is a rule as a policy stores it: a leaf compares Field of the
// proposed action with Value; and, or and not combine Rules.
type Rule struct {
	Operator string          `json:"operator"`
	Field    string          `json:"field,omitempty"`
	Value    json.RawMessage `json:"value,omitempty"`
	Rules    []Rule          `json:"rules,omitempty"`
}

func compound(op string) bool { return op == OpAnd || op == OpOr || op == OpNot }

// node is a compiled rule.
type node struct {
	op    string
	field string   // as written
	path  []string // the field's segments
	value any      // decoded
	num   float64  // gt, lt
	raw   string   // the value as JSON, for reasons
	kids  []*node
}

// ParseRules reads a policy's rules (a JSON array) and checks every rule:
// a refusal is an *InvalidError naming the rule's path
// (rules[1].rules[0].operator).
func ParseRules(raw json.RawMessage) ([]Rule, []*node, error) {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return nil, nil, missing("rules")
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, nil, invalid("rules", "Field rules must be an array of rule objects.")
	}
	if len(items) == 0 {
		return nil, nil, invalid("rules", "Field rules must hold at least one rule.")
	}
	count := 0
	rules, nodes, err := parseList(items, "rules", 1, &count)
	return rules, nodes, err
}

func parseList(items []json.RawMessage, at string, depth int, count *int) ([]Rule, []*node, error) {
	rules := make([]Rule, len(items))
	nodes := make([]*node, len(items))
	for i, item := range items {
		r, n, err := parseRule(item, fmt.Sprintf("%s[%d]", at, i), depth, count)
		if err != nil {
			return nil, nil, err
		}
		rules[i], nodes[i] = r, n
	}
	return rules, nodes, nil
}

// ruleInput is a rule as sent: raw members, so each is checked by name.
type ruleInput struct {
	Operator json.RawMessage `json:"operator"`
	Field    json.RawMessage `json:"field"`
	Value    json.RawMessage `json:"value"`
	Rules    json.RawMessage `json:"rules"`
}

func present(raw json.RawMessage) bool { return len(raw) > 0 }

func parseRule(raw json.RawMessage, at string, depth int, count *int) (Rule, *node, error) {
	*count++
	switch {
	case *count > MaxRuleNodes:
		return Rule{}, nil, invalid(at, fmt.Sprintf("A policy holds at most %d rules, nested ones included.", MaxRuleNodes))
	case depth > MaxDepth:
		return Rule{}, nil, invalid(at, fmt.Sprintf("Rules nest at most %d levels deep.", MaxDepth))
	}
	var in ruleInput
	if err := json.Unmarshal(raw, &in); err != nil || bytes.TrimSpace(raw)[0] != '{' {
		return Rule{}, nil, invalid(at, "Each rule must be an object {operator, field, value, rules}.")
	}
	var op string
	if !present(in.Operator) || string(in.Operator) == "null" {
		return Rule{}, nil, missing(at + ".operator")
	}
	if err := json.Unmarshal(in.Operator, &op); err != nil || !slices.Contains(Operators, op) {
		return Rule{}, nil, invalid(at+".operator", "Field "+at+".operator must be one of "+strings.Join(Operators, ", ")+".")
	}
	if compound(op) {
		return parseCompound(in, op, at, depth, count)
	}
	return parseLeaf(in, op, at)
}

func parseCompound(in ruleInput, op, at string, depth int, count *int) (Rule, *node, error) {
	if present(in.Field) && string(in.Field) != "null" {
		return Rule{}, nil, invalid(at+".field", "Operator "+op+" combines nested rules and takes no field.")
	}
	if present(in.Value) {
		return Rule{}, nil, invalid(at+".value", "Operator "+op+" combines nested rules and takes no value.")
	}
	if !present(in.Rules) || string(in.Rules) == "null" {
		return Rule{}, nil, missing(at + ".rules")
	}
	var items []json.RawMessage
	if err := json.Unmarshal(in.Rules, &items); err != nil {
		return Rule{}, nil, invalid(at+".rules", "Field "+at+".rules must be an array of rule objects.")
	}
	if len(items) == 0 {
		return Rule{}, nil, invalid(at+".rules", "Operator "+op+" needs at least one nested rule in "+at+".rules.")
	}
	rules, kids, err := parseList(items, at+".rules", depth+1, count)
	if err != nil {
		return Rule{}, nil, err
	}
	return Rule{Operator: op, Rules: rules}, &node{op: op, kids: kids}, nil
}

func parseLeaf(in ruleInput, op, at string) (Rule, *node, error) {
	if present(in.Rules) && string(in.Rules) != "null" {
		return Rule{}, nil, invalid(at+".rules", "Operator "+op+" compares a field and takes no nested rules.")
	}
	var field string
	if !present(in.Field) || string(in.Field) == "null" {
		return Rule{}, nil, missing(at + ".field")
	}
	if err := json.Unmarshal(in.Field, &field); err != nil {
		return Rule{}, nil, invalid(at+".field", "Field "+at+".field must be a string: a dot path into the proposed action.")
	}
	path, ok := splitPath(field)
	if !ok {
		return Rule{}, nil, invalid(at+".field", fmt.Sprintf("Field %s.field must be a dot path such as target.url (no empty segment, at most %d characters).", at, MaxFieldPath))
	}
	if !present(in.Value) {
		return Rule{}, nil, missing(at + ".value")
	}
	var value any
	if err := json.Unmarshal(in.Value, &value); err != nil {
		return Rule{}, nil, invalid(at+".value", "Field "+at+".value is not valid JSON.")
	}
	n := &node{op: op, field: field, path: path, value: value, raw: compact(in.Value)}
	switch op {
	case OpStartsWith:
		if _, ok := value.(string); !ok {
			return Rule{}, nil, invalid(at+".value", "Operator starts_with needs a string value.")
		}
	case OpContains:
		switch value.(type) {
		case string, float64, bool:
		default:
			return Rule{}, nil, invalid(at+".value", "Operator contains needs a string, number or boolean value.")
		}
	case OpGt, OpLt:
		f, ok := value.(float64)
		if !ok {
			return Rule{}, nil, invalid(at+".value", "Operator "+op+" needs a number value.")
		}
		n.num = f
	}
	return Rule{Operator: op, Field: field, Value: json.RawMessage(n.raw)}, n, nil
}

// compile compiles rules a policy stored (they were checked when it was
// created).
func compile(rules []Rule) ([]*node, error) {
	raw, err := json.Marshal(rules)
	if err != nil {
		return nil, fmt.Errorf("guardrail: encode rules: %w", err)
	}
	_, nodes, err := ParseRules(raw)
	return nodes, err
}

func compact(raw json.RawMessage) string {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	return b.String()
}

// splitPath splits a field path into its segments; a leading
// "proposed_action." is the same path.
func splitPath(field string) ([]string, bool) {
	if field == "" || len(field) > MaxFieldPath {
		return nil, false
	}
	if rest, ok := strings.CutPrefix(field, "proposed_action."); ok {
		field = rest
	}
	segs := strings.Split(field, ".")
	for _, s := range segs {
		if s == "" {
			return nil, false
		}
	}
	return segs, true
}

// lookup is the value at path in doc: object members by name, array
// elements by index.
func lookup(doc any, path []string) (any, bool) {
	cur := doc
	for _, seg := range path {
		switch c := cur.(type) {
		case map[string]any:
			v, ok := c[seg]
			if !ok {
				return nil, false
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(seg)
			if err != nil || i < 0 || i >= len(c) {
				return nil, false
			}
			cur = c[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// number is v as a number: a JSON number, or a string that spells a
// finite one ("150", "1e3").
func number(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return 0, false
		}
		return f, true
	}
	return 0, false
}

// match reports whether n matches action; why describes what matched.
func (n *node) match(action map[string]any) (ok bool, why string) {
	switch n.op {
	case OpAnd:
		parts := make([]string, 0, len(n.kids))
		for _, k := range n.kids {
			m, w := k.match(action)
			if !m {
				return false, ""
			}
			parts = append(parts, w)
		}
		return true, "(" + strings.Join(parts, " and ") + ")"
	case OpOr:
		for _, k := range n.kids {
			if m, w := k.match(action); m {
				return true, w
			}
		}
		return false, ""
	case OpNot:
		for _, k := range n.kids {
			if m, _ := k.match(action); !m {
				return true, "not (" + k.String() + ")"
			}
		}
		return false, ""
	}
	v, found := lookup(action, n.path)
	if !found || !n.leaf(v) {
		return false, ""
	}
	return true, n.String()
}

// leaf compares v, the field's value, with the rule's value.
func (n *node) leaf(v any) bool {
	switch n.op {
	case OpEq:
		if a, ok := v.(float64); ok {
			b, ok := n.value.(float64)
			return ok && a == b
		}
		return reflect.DeepEqual(v, n.value)
	case OpStartsWith:
		s, ok := v.(string)
		return ok && strings.HasPrefix(s, n.value.(string))
	case OpContains:
		switch x := v.(type) {
		case string:
			sub, ok := n.value.(string)
			return ok && strings.Contains(x, sub)
		case []any:
			return slices.ContainsFunc(x, func(e any) bool { return reflect.DeepEqual(e, n.value) })
		}
		return false
	case OpGt, OpLt:
		f, ok := number(v)
		if !ok {
			return false
		}
		if n.op == OpGt {
			return f > n.num
		}
		return f < n.num
	}
	return false
}

// String is the rule as a reason names it: "cost_estimate gt 100".
func (n *node) String() string {
	if !compound(n.op) {
		return n.field + " " + n.op + " " + n.raw
	}
	parts := make([]string, len(n.kids))
	for i, k := range n.kids {
		parts[i] = k.String()
	}
	return n.op + "(" + strings.Join(parts, ", ") + ")"
}
