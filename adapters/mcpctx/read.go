package mcpctx

import (
	"context"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"svc/domain/connection"
	"svc/domain/planning"
)

// ReadTimeout bounds the plan-time reading of one server's resources,
// the session included.
const ReadTimeout = 3 * time.Second

// ReadResources reads the content of the resources a plan's context
// names (commands.ResourceReader): one session per connection, servers in
// parallel, resources/read of each resource in turn, each bounded by
// ReadTimeout and MaxResponseBytes. Text contents are kept (a resource
// with several is joined), binary ones left out; each text is clipped to
// planning.MaxExternalChars characters. A resource that cannot be read is
// logged (debug) and left out. The answer keeps the order of reads.
func (c *Checker) ReadResources(ctx context.Context, reads []planning.ResourceRead, access []connection.Access) []planning.External {
	byConn := map[int][]int{}
	for i, r := range reads {
		if i < len(access) {
			byConn[r.Conn] = append(byConn[r.Conn], i)
		}
	}
	got := make([]*planning.External, len(reads))
	var wg sync.WaitGroup
	for _, idx := range byConn {
		wg.Go(func() { c.readServer(ctx, reads, access[idx[0]], idx, got) })
	}
	wg.Wait()
	var out []planning.External
	for _, e := range got {
		if e != nil {
			out = append(out, *e)
		}
	}
	return out
}

// readServer reads reads[i] for each i of idx from the server a reaches,
// into got[i].
func (c *Checker) readServer(ctx context.Context, reads []planning.ResourceRead, a connection.Access, idx []int, got []*planning.External) {
	ctx, cancel := context.WithTimeout(ctx, ReadTimeout)
	defer cancel()
	session, err := connectWith(ctx, withHeaders(c.client, a.Header), a.ServerURL, a.Transport, ReadTimeout)
	if err != nil {
		c.log.DebugContext(ctx, "context server not read", "server", reads[idx[0]].Server, "error", err)
		return
	}
	defer closeSoon(session)
	for _, i := range idx {
		r := reads[i]
		res, err := session.ReadResource(ctx, &mcp.ReadResourceParams{URI: r.URI})
		if err != nil {
			c.log.DebugContext(ctx, "resource not read", "server", r.Server, "uri", r.URI, "error", err)
			continue
		}
		if text, ok := textOf(res); ok {
			text, clipped := clip(text, planning.MaxExternalChars)
			got[i] = &planning.External{Server: r.Server, URI: r.URI, Text: text, Truncated: clipped}
		}
	}
}

// textOf joins the text contents of res; false when it has none.
func textOf(res *mcp.ReadResourceResult) (string, bool) {
	var parts []string
	for _, c := range res.Contents {
		if c != nil && c.Text != "" && textual(c.MIMEType) {
			parts = append(parts, c.Text)
		}
	}
	return strings.Join(parts, "\n\n"), len(parts) > 0
}

// textual reports whether a resource of MIME type m is text a prompt can
// take ("" counts: many servers do not say).
func textual(m string) bool {
	m = strings.ToLower(m)
	if m == "" || strings.HasPrefix(m, "text/") {
		return true
	}
	for _, s := range []string{"json", "xml", "yaml", "toml", "markdown", "javascript", "csv", "x-sh", "sql", "graphql"} {
		if strings.Contains(m, s) {
			return true
		}
	}
	return false
}

// clip keeps the first limit characters of s.
func clip(s string, limit int) (string, bool) {
	if utf8.RuneCountInString(s) <= limit {
		return s, false
	}
	n := 0
	for i := range s {
		if n == limit {
			return s[:i], true
		}
		n++
	}
	return s, false
}
