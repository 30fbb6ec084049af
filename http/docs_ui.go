package httpapi

import (
	"bytes"
	"compress/gzip"
	"embed"
	"html/template"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/gorilla/mux"
)

// GET /docs renders the OpenAPI document in the browser with a vendored
// Scalar API Reference (http/docsui/README.md says how to update it),
// embedded in the binary: nothing is loaded from a CDN, and the page's
// Content-Security-Policy lets it load nothing from elsewhere.

// scalarVersion is the vendored @scalar/api-reference's version.
const scalarVersion = "1.72.1"

//go:embed docsui/index.html docsui/init.js docsui/scalar-api-reference.js
var docsUI embed.FS

var docsPage = template.Must(template.ParseFS(docsUI, "docsui/index.html"))

// docsCSP keeps the reference on this origin: scripts, styles, images,
// fonts and requests ("Test Request" included).
const docsCSP = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; " +
	"font-src 'self' data:; connect-src 'self'; worker-src 'self' blob:; frame-ancestors 'self'; base-uri 'none'; form-action 'none'"

// wantsHTML reports whether the Accept header prefers a page (text/html)
// to JSON; no Accept header is JSON, as GET /docs answered before.
func wantsHTML(accept string) bool {
	html, json := -1.0, -1.0
	for _, part := range strings.Split(accept, ",") {
		mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		q := 1.0
		if v, ok := params["q"]; ok {
			if f, err := strconv.ParseFloat(v, 64); err == nil {
				q = f
			}
		}
		switch mt {
		case "text/html":
			html = q
		case "application/json":
			json = q
		}
	}
	return html > 0 && html >= json
}

// docsHTML answers the rendered reference.
func (s *Server) docsHTML(w http.ResponseWriter) error {
	var b bytes.Buffer
	if err := docsPage.Execute(&b, map[string]string{"Version": scalarVersion}); err != nil {
		return err
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", docsCSP)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b.Bytes())
	return nil
}

// docsAssets are the files GET /docs/{asset} serves, gzipped once.
var docsAssets = struct {
	once sync.Once
	gz   map[string][]byte
}{}

// docsAssetNames are the files of the page.
var docsAssetNames = []string{"scalar-api-reference.js", "init.js"}

// docsAsset is GET /docs/{asset}: the renderer's script and its setup.
func (s *Server) docsAsset(w http.ResponseWriter, r *http.Request) error {
	name := mux.Vars(r)["asset"]
	raw, err := docsUI.ReadFile("docsui/" + name)
	if err != nil || !strings.HasSuffix(name, ".js") {
		s.notFound(w, r)
		return nil
	}
	h := w.Header()
	h.Set("Content-Type", "text/javascript; charset=utf-8")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "public, max-age=86400")
	h.Set("Vary", "Accept-Encoding")
	if strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
		h.Set("Content-Encoding", "gzip")
		raw = gzipped(name, raw)
	}
	h.Set("Content-Length", strconv.Itoa(len(raw)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(raw)
	return nil
}

// gzipped is the gzip of the asset name (raw), compressed once.
func gzipped(name string, raw []byte) []byte {
	docsAssets.once.Do(func() {
		docsAssets.gz = map[string][]byte{}
		for _, n := range docsAssetNames {
			src, err := docsUI.ReadFile("docsui/" + n)
			if err != nil {
				continue
			}
			var b bytes.Buffer
			zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
			_, _ = zw.Write(src)
			_ = zw.Close()
			docsAssets.gz[n] = b.Bytes()
		}
	})
	if gz, ok := docsAssets.gz[name]; ok {
		return gz
	}
	return raw
}
