// Package textutil holds the small text helpers the prompt builder, the
// OpenAI-compatible client and the offline writer share: clipping and
// collapsing text, estimating tokens, reading a language tag and splitting
// sections into the parts of a chunked call.
package textutil

import (
	"strings"
	"unicode/utf8"
)

// Clip shortens s (trimmed) to at most n runes, cutting at a word
// boundary where it can and marking the cut with "…".
func Clip(s string, n int) string {
	s = strings.TrimSpace(s)
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	cut := string([]rune(s)[:n])
	if i := strings.LastIndexAny(cut, " \n\t"); i > len(cut)/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " \n\t,;:.") + "…"
}

// OneLine collapses the whitespace of s to single spaces.
func OneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// EstimateTokens estimates the tokens of n characters (chars/4, rounded up).
func EstimateTokens(chars int) int { return (chars + 3) / 4 }

// EnglishLanguage reports whether the BCP 47 tag lang is English or unset.
func EnglishLanguage(lang string) bool {
	l := strings.ToLower(strings.TrimSpace(lang))
	return l == "" || l == "en" || strings.HasPrefix(l, "en-") || strings.HasPrefix(l, "en_")
}

// ChunkBounds returns the half-open range of part chunk of chunks over n
// items (the split of llm.Request.Chunk and Chunks); ok is false when the
// part is out of range or empty.
func ChunkBounds(n, chunk, chunks int) (lo, hi int, ok bool) {
	if chunks <= 1 {
		return 0, n, n > 0
	}
	if chunk < 0 || chunk >= chunks {
		return 0, 0, false
	}
	lo, hi = chunk*n/chunks, (chunk+1)*n/chunks
	return lo, hi, hi > lo
}
