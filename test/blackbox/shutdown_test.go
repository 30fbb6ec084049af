package blackbox

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"
)

// SIGTERM while a request is in flight: the request finishes and the process
// exits 0. The request is sent over a raw connection in two halves so that it
// is certainly being read by the server when the signal arrives.
func TestShutdownWithRequestInFlight(t *testing.T) {
	t.Parallel()
	s := startServer(t, nil)

	body := `{"name":"in flight at shutdown"}`
	conn, err := net.Dial("tcp", s.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	head := fmt.Sprintf("POST /api/keys HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\nX-Forwarded-For: %s\r\n\r\n",
		s.addr, len(body), nextIP())
	half := len(body) / 2
	if _, err := conn.Write([]byte(head + body[:half])); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond) // the server is now reading the body

	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	select {
	case <-s.exited:
		t.Fatalf("svc serve exited (%v) with a request in flight:\n%s", s.waitErr, s.stderr.tail(4000))
	default:
	}
	// new connections are refused once shutdown has begun
	if c, err := net.DialTimeout("tcp", s.addr, time.Second); err == nil {
		c.Close()
		t.Log("note: a new connection was still accepted after SIGTERM")
	}

	if _, err := conn.Write([]byte(body[half:])); err != nil {
		t.Fatalf("finishing the request: %v", err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("in-flight request got no response: %v\n%s", err, s.stderr.tail(4000))
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Errorf("in-flight signup answered %d, want 201", resp.StatusCode)
	}
	if id := resp.Header.Get("X-Request-Id"); !reqIDPattern.MatchString(id) {
		t.Errorf("X-Request-Id %q", id)
	}

	select {
	case <-s.exited:
	case <-time.After(30 * time.Second):
		t.Fatal("svc serve did not exit within 30 s of SIGTERM")
	}
	if s.waitErr != nil {
		t.Fatalf("svc serve exit: %v\n%s", s.waitErr, s.stderr.tail(4000))
	}
	if log := s.stderr.String(); !strings.Contains(log, `"stopped"`) {
		t.Errorf("no \"stopped\" log line after SIGTERM:\n%s", s.stderr.tail(2000))
	}
	// startServer's cleanup must not treat the (expected) exit as a failure
	s.stopOnce.Do(func() { dropDB(s.dbURL) })
}

// SIGTERM right after a signup was sent, the way a deploy would: the process
// still exits 0, and the signup, if the server accepted it, succeeded.
func TestShutdownRightAfterRequest(t *testing.T) {
	t.Parallel()
	s := startServer(t, nil)
	done := make(chan *response, 1)
	errc := make(chan error, 1)
	go func() {
		res, err := s.try(req{Method: http.MethodPost, Path: "/api/keys", XFF: nextIP(), Body: map[string]any{"email": uniqueEmail("sigterm")}})
		if err != nil {
			errc <- err
			return
		}
		done <- res
	}()
	time.Sleep(5 * time.Millisecond)
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case res := <-done:
		if res.Status != http.StatusCreated {
			t.Errorf("signup during shutdown answered %d: %s", res.Status, res.Raw)
		}
	case err := <-errc:
		t.Logf("signup not accepted before shutdown (allowed): %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("signup during shutdown never finished")
	}
	select {
	case <-s.exited:
	case <-time.After(30 * time.Second):
		t.Fatal("svc serve did not exit within 30 s of SIGTERM")
	}
	if s.waitErr != nil {
		t.Fatalf("svc serve exit: %v\n%s", s.waitErr, s.stderr.tail(4000))
	}
	s.stopOnce.Do(func() { dropDB(s.dbURL) })
}
