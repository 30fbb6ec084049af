package outbound

import (
	"context"
	"io"
	"net/http"
	"time"
)

// Probe asks whether the server at rawURL answers: one GET through client
// (an SSRF-guarded client from NewClient), bounded by timeout. It returns
// the status code of the answer, or the error of a server that did not
// answer (refused, unreachable, blocked, timed out).
func Probe(ctx context.Context, client *http.Client, rawURL string, timeout time.Duration) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return 0, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	return resp.StatusCode, nil
}
