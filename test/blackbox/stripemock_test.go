package blackbox

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// stripeMock is the payment processor's API every server of these tests
// talks to (STRIPE_API_BASE): stripe-mock, stateless, answering from
// Stripe's OpenAPI spec. The Makefile installs the pinned binary
// (STRIPE_MOCK_BIN). The processor's events are not stripe-mock's: the
// tests sign them with stripeWebhookSecret and post them to the webhook.
var stripeMock struct {
	base   string // http://127.0.0.1:PORT
	cmd    *exec.Cmd
	exited chan struct{} // closed when cmd has exited
}

// The payment processor's configuration of every server (stripeEnv).
const (
	stripeSecretKey     = "sk_test_blackbox"
	stripeWebhookSecret = "whsec_blackbox"
)

// stripePrices are the plans' prices every server is given: every plan
// but Enterprise billed annually (which answers billing_unavailable).
var stripePrices = map[string]string{
	"STRIPE_PRICE_PRO_MONTHLY": "price_pro_monthly", "STRIPE_PRICE_PRO_ANNUAL": "price_pro_annual",
	"STRIPE_PRICE_TEAM_MONTHLY": "price_team_monthly", "STRIPE_PRICE_TEAM_ANNUAL": "price_team_annual",
	"STRIPE_PRICE_ENTERPRISE_MONTHLY": "price_enterprise_monthly",
}

// startStripeMock starts stripe-mock on a free port. The port is free
// when chosen, not when stripe-mock binds it: another package's tests may
// take it first, and stripe-mock then exits at once; it is started again
// on another port, up to five times.
func startStripeMock() error {
	bin := os.Getenv("STRIPE_MOCK_BIN")
	if bin == "" {
		bin = filepath.Join("..", "..", "bin", "stripe-mock")
	}
	if _, err := os.Stat(bin); err != nil {
		return fmt.Errorf("stripe-mock not found at %s (run make tools): %w", bin, err)
	}
	var err error
	for range 5 {
		if err = startStripeMockOnce(bin); !errors.Is(err, errStripeMockExited) {
			return err
		}
	}
	return err
}

// errStripeMockExited: stripe-mock stopped before it answered (its port
// was taken).
var errStripeMockExited = errors.New("stripe-mock exited before it answered")

func startStripeMockOnce(bin string) error {
	addr, err := freeAddr()
	if err != nil {
		return err
	}
	// its HTTPS listener too gets a port of the system's choice: its default
	// (12112) collides with another run's stripe-mock on the machine
	cmd := exec.Command(bin, "-http-addr", addr, "-https-addr", "127.0.0.1:")
	cmd.Stdout, cmd.Stderr = nil, os.Stderr
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start stripe-mock: %w", err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	stripeMock.cmd, stripeMock.exited, stripeMock.base = cmd, exited, "http://"+addr
	deadline := time.Now().Add(30 * time.Second)
	for {
		req, _ := http.NewRequest(http.MethodGet, stripeMock.base+"/v1/customers", nil)
		req.Header.Set("Authorization", "Bearer "+stripeSecretKey)
		if res, err := http.DefaultClient.Do(req); err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-exited:
			stripeMock.cmd, stripeMock.base = nil, ""
			return fmt.Errorf("%w on %s", errStripeMockExited, addr)
		default:
		}
		if time.Now().After(deadline) {
			stopStripeMock()
			return fmt.Errorf("stripe-mock did not answer on %s within 30 s", stripeMock.base)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func stopStripeMock() {
	if stripeMock.cmd != nil && stripeMock.cmd.Process != nil {
		_ = stripeMock.cmd.Process.Kill()
		<-stripeMock.exited
	}
}

// stripeEnv is the STRIPE_* environment of every server and CLI run, each
// variable unless vars names it (an empty value there unsets it: a server
// without STRIPE_SECRET_KEY has no payment processor).
func stripeEnv(vars map[string]string) []string {
	if stripeMock.base == "" {
		return nil
	}
	all := map[string]string{"STRIPE_SECRET_KEY": stripeSecretKey, "STRIPE_WEBHOOK_SECRET": stripeWebhookSecret, "STRIPE_API_BASE": stripeMock.base}
	for k, v := range stripePrices {
		all[k] = v
	}
	var out []string
	for k, v := range all {
		if _, set := vars[k]; !set {
			out = append(out, k+"="+v)
		}
	}
	return out
}
