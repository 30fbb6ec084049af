package blackbox

import (
	"net/http"
	"os"
	"path/filepath"
)

// stripeMock is the payment processor's API every server of these tests
// talks to (STRIPE_API_BASE): stripe-mock, stateless, answering from
// Stripe's OpenAPI spec. The Makefile installs the pinned binary
// (STRIPE_MOCK_BIN). The processor's events are not stripe-mock's: the
// tests sign them with stripeWebhookSecret and post them to the webhook.
var stripeMock struct {
	base  string // http://127.0.0.1:PORT
	child *child
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

// startStripeMock starts stripe-mock on a free port (startChild).
func startStripeMock() error {
	bin := os.Getenv("STRIPE_MOCK_BIN")
	if bin == "" {
		bin = filepath.Join("..", "..", "bin", "stripe-mock")
	}
	// its HTTPS listener too gets a port of the system's choice: its default
	// (12112) collides with another run's stripe-mock on the machine
	c, addrs, err := startChild("stripe-mock", bin, 1, func(a []string) []string {
		return []string{"-http-addr", a[0], "-https-addr", "127.0.0.1:"}
	}, func(a []string) bool {
		req, _ := http.NewRequest(http.MethodGet, "http://"+a[0]+"/v1/customers", nil)
		req.Header.Set("Authorization", "Bearer "+stripeSecretKey)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			return false
		}
		res.Body.Close()
		return res.StatusCode == http.StatusOK
	})
	if err != nil {
		return err
	}
	stripeMock.child, stripeMock.base = c, "http://"+addrs[0]
	return nil
}

func stopStripeMock() { stripeMock.child.stop() }

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
