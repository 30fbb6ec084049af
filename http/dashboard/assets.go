package dashboard

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"mime"
	"net/http"
	"path"
	"strconv"
)

// The dashboard's stylesheet and script, embedded: served from this
// binary (no CDN), each URL carrying a hash of its content so a browser
// may keep it while it is unchanged.

//go:embed assets/*.css assets/dashboard.js assets/favicon.svg
var assetFS embed.FS

// assetHashes are the first hex digits of each asset's SHA-256.
var assetHashes = func() map[string]string {
	out := map[string]string{}
	for _, name := range []string{"dashboard.css", "money.css", "team.css", "admin.css", "dashboard.js", "favicon.svg"} {
		raw, err := assetFS.ReadFile("assets/" + name)
		if err != nil {
			panic(err)
		}
		sum := sha256.Sum256(raw)
		out[name] = hex.EncodeToString(sum[:6])
	}
	return out
}()

// assetURL is the versioned URL of asset name.
func assetURL(name string) string {
	return "/dashboard/assets/" + name + "?v=" + assetHashes[name]
}

// serveAsset is GET /dashboard/assets/{name}.
func serveAsset(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	raw, err := assetFS.ReadFile("assets/" + name)
	if err != nil || assetHashes[name] == "" {
		http.NotFound(w, r)
		return
	}
	h := w.Header()
	h.Set("Content-Type", mime.TypeByExtension(path.Ext(name)))
	h.Set("Content-Length", strconv.Itoa(len(raw)))
	if r.URL.Query().Get("v") == assetHashes[name] {
		h.Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		h.Set("Cache-Control", "no-cache")
	}
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(raw)
}
