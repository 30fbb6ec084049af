package injection

import (
	"regexp/syntax"
	"strings"
)

// A rule runs only on a text holding one of the literals its pattern
// cannot match without (its gate): strings.Contains over a few words
// costs far less than the pattern, and most texts hold none of them.

// gateOf is the gate of pattern p: literals of which every match holds
// one, nil when none of at least minGate bytes can be told (the rule
// always runs).
func gateOf(p string) []string {
	re, err := syntax.Parse(p, syntax.Perl)
	if err != nil {
		return nil
	}
	lits := needed(re)
	for _, l := range lits {
		if len(l) < minGate {
			return nil
		}
	}
	return lits
}

// minGate is the shortest literal worth gating on.
const minGate = 3

// needed returns literals one of which every match of re holds (nil:
// unknown).
func needed(re *syntax.Regexp) []string {
	switch re.Op {
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			return nil
		}
		return []string{string(re.Rune)}
	case syntax.OpCapture, syntax.OpPlus:
		return needed(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return needed(re.Sub[0])
		}
	case syntax.OpAlternate:
		var out []string
		for _, sub := range re.Sub {
			l := needed(sub)
			if l == nil {
				return nil
			}
			out = append(out, l...)
		}
		return out
	case syntax.OpConcat:
		// the element whose shortest literal is longest
		var best []string
		for _, sub := range re.Sub {
			if l := needed(sub); l != nil && shortest(l) > shortest(best) {
				best = l
			}
		}
		return best
	}
	return nil
}

func shortest(lits []string) int {
	if lits == nil {
		return 0
	}
	m := len(lits[0])
	for _, l := range lits[1:] {
		m = min(m, len(l))
	}
	return m
}

// open reports whether text holds one of gate's literals (always for no
// gate).
func open(gate []string, text string) bool {
	if gate == nil {
		return true
	}
	for _, l := range gate {
		if strings.Contains(text, l) {
			return true
		}
	}
	return false
}
