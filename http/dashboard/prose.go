package dashboard

import (
	"html/template"
	"regexp"
	"strings"
)

// prose renders a deliverable's text, which writers mark up lightly
// (paragraphs, "- " or "* " bullets, "1. " numbered items, **bold**), as
// HTML: the text is escaped first, so nothing it holds becomes markup
// but those marks.
func prose(s string) template.HTML {
	var b strings.Builder
	list := "" // "ul" or "ol" while a list is open
	closeList := func() {
		if list != "" {
			b.WriteString("</" + list + ">")
			list = ""
		}
	}
	var para []string
	flush := func() {
		if len(para) > 0 {
			b.WriteString("<p>" + strings.Join(para, "<br>") + "</p>")
			para = nil
		}
	}
	for _, line := range strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n") {
		t := strings.TrimSpace(line)
		kind, item := listItem(t)
		switch {
		case t == "":
			flush()
			closeList()
		case kind != "":
			flush()
			if list != kind {
				closeList()
				b.WriteString("<" + kind + ">")
				list = kind
			}
			b.WriteString("<li>" + inline(item) + "</li>")
		default:
			closeList()
			para = append(para, inline(t))
		}
	}
	flush()
	closeList()
	return template.HTML(b.String()) // built from escaped text only
}

var numbered = regexp.MustCompile(`^\d{1,3}[.)]\s+`)

// listItem is a line's list kind ("ul", "ol" or "") and its text.
func listItem(t string) (string, string) {
	if rest, ok := strings.CutPrefix(t, "- "); ok {
		return "ul", rest
	}
	if rest, ok := strings.CutPrefix(t, "* "); ok {
		return "ul", rest
	}
	if m := numbered.FindString(t); m != "" {
		return "ol", t[len(m):]
	}
	return "", t
}

var bold = regexp.MustCompile(`\*\*([^*]+)\*\*`)

// inline escapes t and turns its **bold** into <strong>.
func inline(t string) string {
	return bold.ReplaceAllString(template.HTMLEscapeString(t), "<strong>$1</strong>")
}
