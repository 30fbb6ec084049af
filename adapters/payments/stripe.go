// Package payments is the payment processor adapter: Stripe, through
// stripe-go's client (Checkout Sessions, the billing portal) and its
// webhook package (signature checks). It implements
// commands.PaymentProcessor; tests point it at stripe-mock with
// STRIPE_API_BASE.
package payments

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/stripe/stripe-go/v86"
	"github.com/stripe/stripe-go/v86/webhook"

	"svc/commands"
	"svc/domain/payment"
)

// Config configures the Stripe adapter.
type Config struct {
	// SecretKey is the API key (STRIPE_SECRET_KEY; required).
	SecretKey string
	// WebhookSecret verifies the webhook's Stripe-Signature
	// (STRIPE_WEBHOOK_SECRET); without it every delivery is refused as
	// billing_unavailable.
	WebhookSecret string
	// APIBase is the API's base URL (STRIPE_API_BASE; "" is Stripe's own).
	APIBase string
	// BaseURL is the service's public base URL: the pages send the
	// customer's browser back under it.
	BaseURL string
	// Prices maps a plan (payment.Plan.Key: "pro/monthly") to its price id.
	Prices map[string]string
	// Timeout bounds one API call (default 20 s).
	Timeout time.Duration
	// Log receives stripe-go's own messages (default slog's default).
	Log *slog.Logger
}

// PriceVariable is the environment variable holding plan p's price id:
// STRIPE_PRICE_<TIER>_<INTERVAL> (STRIPE_PRICE_PRO_MONTHLY, ...).
func PriceVariable(p payment.Plan) string {
	return "STRIPE_PRICE_" + strings.ToUpper(string(p.Tier)) + "_" + strings.ToUpper(string(p.Interval))
}

// FromEnv reads the STRIPE_* variables: nil (no processor) without
// STRIPE_SECRET_KEY; an error for a STRIPE_API_BASE that is not an http(s)
// URL.
func FromEnv(getenv func(string) string, baseURL string, log *slog.Logger) (*Stripe, error) {
	cfg := Config{SecretKey: strings.TrimSpace(getenv("STRIPE_SECRET_KEY")), WebhookSecret: strings.TrimSpace(getenv("STRIPE_WEBHOOK_SECRET")),
		APIBase: strings.TrimSpace(getenv("STRIPE_API_BASE")), BaseURL: baseURL, Prices: map[string]string{}, Log: log}
	if cfg.SecretKey == "" {
		return nil, nil
	}
	for _, t := range payment.SubscribableTiers {
		for _, i := range payment.Intervals {
			p := payment.Plan{Tier: t, Interval: i}
			if v := strings.TrimSpace(getenv(PriceVariable(p))); v != "" {
				cfg.Prices[p.Key()] = v
			}
		}
	}
	return New(cfg)
}

// Stripe is the processor.
type Stripe struct {
	cfg    Config
	client *stripe.Client
}

// New returns the adapter of cfg.
func New(cfg Config) (*Stripe, error) {
	if cfg.SecretKey == "" {
		return nil, errors.New("payments: STRIPE_SECRET_KEY is required")
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 20 * time.Second
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	backend := &stripe.BackendConfig{
		HTTPClient:    &http.Client{Timeout: cfg.Timeout},
		LeveledLogger: leveled{cfg.Log},
	}
	if cfg.APIBase != "" {
		u, err := url.Parse(cfg.APIBase)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("STRIPE_API_BASE: %q is not an http(s) URL", cfg.APIBase)
		}
		backend.URL = stripe.String(strings.TrimRight(cfg.APIBase, "/"))
	}
	client := stripe.NewClient(cfg.SecretKey, stripe.WithBackends(stripe.NewBackendsWithConfig(backend)))
	return &Stripe{cfg: cfg, client: client}, nil
}

// Webhooks reports whether deliveries can be verified (a webhook secret
// is set).
func (s *Stripe) Webhooks() bool { return s.cfg.WebhookSecret != "" }

// Plans lists the plans that have a price.
func (s *Stripe) Plans() []string {
	var out []string
	for _, t := range payment.SubscribableTiers {
		for _, i := range payment.Intervals {
			if p := (payment.Plan{Tier: t, Interval: i}); s.cfg.Prices[p.Key()] != "" {
				out = append(out, p.Key())
			}
		}
	}
	return out
}

var _ commands.PaymentProcessor = (*Stripe)(nil)

// billingPage is where the processor's pages send the browser back.
func (s *Stripe) billingPage(query string) string {
	return strings.TrimRight(s.cfg.BaseURL, "/") + "/dashboard/billing" + query
}

// CreditCheckout implements commands.PaymentProcessor: a Checkout Session
// in payment mode, card only (a completed session is paid), for one line
// of the purchase's USD; metadata org_id and credits on the session and
// its payment.
func (s *Stripe) CreditCheckout(ctx context.Context, c commands.CreditCheckout) (string, error) {
	meta := map[string]string{payment.MetaOrgID: c.OrgID, payment.MetaCredits: strconv.FormatInt(c.Purchase.Credits, 10)}
	params := &stripe.CheckoutSessionCreateParams{
		Mode:               stripe.String(string(stripe.CheckoutSessionModePayment)),
		ClientReferenceID:  stripe.String(c.OrgID),
		PaymentMethodTypes: []*string{stripe.String("card")},
		LineItems: []*stripe.CheckoutSessionCreateLineItemParams{{
			Quantity: stripe.Int64(1),
			PriceData: &stripe.CheckoutSessionCreateLineItemPriceDataParams{
				Currency:   stripe.String(string(stripe.CurrencyUSD)),
				UnitAmount: stripe.Int64(c.Purchase.USD * 100),
				ProductData: &stripe.CheckoutSessionCreateLineItemPriceDataProductDataParams{
					Name: stripe.String(fmt.Sprintf("%s credits", group(c.Purchase.Credits))),
				},
			},
		}},
		Metadata:          meta,
		PaymentIntentData: &stripe.CheckoutSessionCreatePaymentIntentDataParams{Metadata: meta},
		SuccessURL:        stripe.String(s.billingPage("?checkout=success&session_id={CHECKOUT_SESSION_ID}")),
		CancelURL:         stripe.String(s.billingPage("?checkout=cancelled")),
	}
	s.customer(params, c.CustomerID, c.Email, true)
	return s.checkout(ctx, params)
}

// SubscriptionCheckout implements commands.PaymentProcessor: a Checkout
// Session in subscription mode for the plan's configured price; metadata
// org_id and tier on the session and on the subscription it creates
// (which the subscription's events, and its invoices' subscription
// details, carry back). A plan without a price is payment.ErrUnavailable.
func (s *Stripe) SubscriptionCheckout(ctx context.Context, c commands.SubscriptionCheckout) (string, error) {
	price := s.cfg.Prices[c.Plan.Key()]
	if price == "" {
		return "", fmt.Errorf("%w: no price for the %s plan billed %s (set %s)", payment.ErrUnavailable, c.Plan.Tier, c.Plan.Interval, PriceVariable(c.Plan))
	}
	meta := map[string]string{payment.MetaOrgID: c.OrgID, payment.MetaTier: string(c.Plan.Tier)}
	params := &stripe.CheckoutSessionCreateParams{
		Mode:              stripe.String(string(stripe.CheckoutSessionModeSubscription)),
		ClientReferenceID: stripe.String(c.OrgID),
		LineItems:         []*stripe.CheckoutSessionCreateLineItemParams{{Price: stripe.String(price), Quantity: stripe.Int64(1)}},
		Metadata:          meta,
		SubscriptionData:  &stripe.CheckoutSessionCreateSubscriptionDataParams{Metadata: meta},
		SuccessURL:        stripe.String(s.billingPage("?subscription=success&session_id={CHECKOUT_SESSION_ID}")),
		CancelURL:         stripe.String(s.billingPage("?subscription=cancelled")),
	}
	s.customer(params, c.CustomerID, c.Email, false)
	return s.checkout(ctx, params)
}

// customer makes the session's customer the organization's when it has
// one, else prefills the email and, for a payment, has Stripe create a
// customer (a subscription always creates one).
func (s *Stripe) customer(p *stripe.CheckoutSessionCreateParams, customerID, email string, payment bool) {
	switch {
	case customerID != "":
		p.Customer = stripe.String(customerID)
		return
	case email != "":
		p.CustomerEmail = stripe.String(email)
	}
	if payment {
		p.CustomerCreation = stripe.String(string(stripe.CheckoutSessionCustomerCreationAlways))
	}
}

func (s *Stripe) checkout(ctx context.Context, params *stripe.CheckoutSessionCreateParams) (string, error) {
	session, err := s.client.V1CheckoutSessions.Create(ctx, params)
	if err != nil {
		return "", fmt.Errorf("%w: stripe: create checkout session: %v", payment.ErrUnavailable, err)
	}
	if session.URL == "" {
		return "", fmt.Errorf("%w: stripe: checkout session %s has no url", payment.ErrUnavailable, session.ID)
	}
	return session.URL, nil
}

// Portal implements commands.PaymentProcessor: a billing portal session
// of the customer, back to the billing page.
func (s *Stripe) Portal(ctx context.Context, customerID string) (string, error) {
	session, err := s.client.V1BillingPortalSessions.Create(ctx, &stripe.BillingPortalSessionCreateParams{
		Customer:  stripe.String(customerID),
		ReturnURL: stripe.String(s.billingPage("")),
	})
	if err != nil {
		return "", fmt.Errorf("%w: stripe: create billing portal session: %v", payment.ErrUnavailable, err)
	}
	if session.URL == "" {
		return "", fmt.Errorf("%w: stripe: billing portal session %s has no url", payment.ErrUnavailable, session.ID)
	}
	return session.URL, nil
}

// Event implements commands.PaymentProcessor: the Stripe-Signature header
// checked with stripe-go's webhook package against the webhook secret,
// with its standard tolerance (webhook.DefaultTolerance, 5 minutes).
// The event's API version is not required to be stripe-go's: only the
// few fields the service reads are taken from the object, in the shapes
// of old and new API versions (an invoice's subscription at the top or
// under parent.subscription_details).
func (s *Stripe) Event(payload []byte, signature string) (payment.Event, error) {
	if s.cfg.WebhookSecret == "" {
		return payment.Event{}, fmt.Errorf("%w: STRIPE_WEBHOOK_SECRET is not set", payment.ErrUnavailable)
	}
	ev, err := webhook.ConstructEventWithOptions(payload, signature, s.cfg.WebhookSecret,
		webhook.ConstructEventOptions{IgnoreAPIVersionMismatch: true})
	if err != nil {
		return payment.Event{}, fmt.Errorf("%w: %v", payment.ErrInvalidSignature, err)
	}
	if ev.ID == "" || ev.Type == "" || ev.Data == nil {
		return payment.Event{}, fmt.Errorf("%w: the signed body is not an event (no id, type or data)", payment.ErrInvalidSignature)
	}
	out := payment.Event{ID: ev.ID, Type: string(ev.Type), Created: ev.Created}
	if payment.KindOf(out) == payment.Unhandled {
		return out, nil // nothing of its object is read
	}
	obj, err := parseObject(ev.Data.Raw)
	if err != nil {
		return payment.Event{}, fmt.Errorf("%w: event %s: %v", payment.ErrInvalidSignature, ev.ID, err)
	}
	out.Object = obj
	return out, nil
}

// rawObject is what the service reads of an event's object.
type rawObject struct {
	ID               string            `json:"id"`
	Object           string            `json:"object"`
	Metadata         map[string]string `json:"metadata"`
	Customer         json.RawMessage   `json:"customer"`
	Subscription     json.RawMessage   `json:"subscription"`
	Status           string            `json:"status"`
	Mode             string            `json:"mode"`
	PaymentStatus    string            `json:"payment_status"`
	LastPaymentError *struct {
		Code        string `json:"code"`
		DeclineCode string `json:"decline_code"`
		Message     string `json:"message"`
	} `json:"last_payment_error"`
	SubscriptionDetails *struct {
		Metadata map[string]string `json:"metadata"`
	} `json:"subscription_details"`
	Parent *struct {
		SubscriptionDetails *struct {
			Subscription json.RawMessage   `json:"subscription"`
			Metadata     map[string]string `json:"metadata"`
		} `json:"subscription_details"`
	} `json:"parent"`
}

func parseObject(raw json.RawMessage) (payment.Object, error) {
	var r rawObject
	if err := json.Unmarshal(raw, &r); err != nil {
		return payment.Object{}, fmt.Errorf("object: %v", err)
	}
	o := payment.Object{ID: r.ID, Metadata: map[string]string{}, CustomerID: idOf(r.Customer), Status: r.Status, Mode: r.Mode,
		PaymentStatus: r.PaymentStatus}
	if e := r.LastPaymentError; e != nil {
		o.FailureCode, o.FailureMessage = cmp.Or(e.DeclineCode, e.Code), e.Message
	}
	// an invoice names its subscription's metadata: under it, its own
	var inherited map[string]string
	switch {
	case r.Parent != nil && r.Parent.SubscriptionDetails != nil:
		o.SubscriptionID = idOf(r.Parent.SubscriptionDetails.Subscription)
		inherited = r.Parent.SubscriptionDetails.Metadata
	case r.SubscriptionDetails != nil:
		inherited = r.SubscriptionDetails.Metadata
	}
	for k, v := range inherited {
		o.Metadata[k] = v
	}
	for k, v := range r.Metadata {
		if v != "" {
			o.Metadata[k] = v
		}
	}
	if o.SubscriptionID == "" {
		o.SubscriptionID = idOf(r.Subscription)
	}
	if r.Object == "subscription" {
		o.SubscriptionID = r.ID
	}
	return o, nil
}

// idOf reads an expandable field: an id, or an object with one.
func idOf(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var id string
	if json.Unmarshal(raw, &id) == nil {
		return id
	}
	var obj struct {
		ID string `json:"id"`
	}
	if json.Unmarshal(raw, &obj) == nil {
		return obj.ID
	}
	return ""
}

// group writes n with thousands separators (25,000).
func group(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// leveled gives stripe-go's log messages to slog.
type leveled struct{ log *slog.Logger }

func (l leveled) Debugf(format string, v ...any) { l.log.Debug("stripe: " + fmt.Sprintf(format, v...)) }
func (l leveled) Infof(format string, v ...any)  { l.log.Debug("stripe: " + fmt.Sprintf(format, v...)) }
func (l leveled) Warnf(format string, v ...any)  { l.log.Warn("stripe: " + fmt.Sprintf(format, v...)) }
func (l leveled) Errorf(format string, v ...any) { l.log.Warn("stripe: " + fmt.Sprintf(format, v...)) }

var _ commands.ReloadPayer = (*Stripe)(nil)

// PayReload implements commands.ReloadPayer: an off-session PaymentIntent
// of the reload's USD, confirmed at once, for the customer's default
// payment method (its invoice settings', else its first saved card), with
// the reload id as idempotency key and metadata org_id, reload_id and
// credits. Stripe answers an off-session decline or a payment that needs
// the customer with a card error: a failure. succeeded is paid; any other
// status (processing) waits for the payment's event. An error is a call
// that did not get an answer (asked again later, with the same key).
func (s *Stripe) PayReload(ctx context.Context, p commands.ReloadPayment) (commands.ReloadPaid, error) {
	pm, err := s.defaultPaymentMethod(ctx, p.CustomerID)
	if err != nil {
		return commands.ReloadPaid{}, err
	}
	if pm == "" {
		return commands.ReloadPaid{Status: commands.ReloadPaidFailed, Reason: "no_payment_method",
			Message: "The billing account has no saved payment method."}, nil
	}
	params := &stripe.PaymentIntentCreateParams{
		Amount:        stripe.Int64(p.USD * 100),
		Currency:      stripe.String(string(stripe.CurrencyUSD)),
		Customer:      stripe.String(p.CustomerID),
		PaymentMethod: stripe.String(pm),
		Confirm:       stripe.Bool(true),
		OffSession:    stripe.Bool(true),
		Description:   stripe.String(fmt.Sprintf("Auto-reload: %s credits", group(p.Credits))),
		Metadata: map[string]string{payment.MetaOrgID: p.OrgID, payment.MetaReload: p.ReloadID,
			payment.MetaCredits: strconv.FormatInt(p.Credits, 10)},
	}
	params.SetIdempotencyKey(p.ReloadID)
	pi, err := s.client.V1PaymentIntents.Create(ctx, params)
	var se *stripe.Error
	if errors.As(err, &se) && se.Type == stripe.ErrorTypeCard {
		out := commands.ReloadPaid{Status: commands.ReloadPaidFailed, Reason: cmp.Or(string(se.DeclineCode), string(se.Code), "card_declined"),
			Message: se.Msg}
		if se.PaymentIntent != nil {
			out.PaymentID = se.PaymentIntent.ID
		}
		return out, nil
	}
	if err != nil {
		return commands.ReloadPaid{}, fmt.Errorf("%w: stripe: create payment intent: %v", payment.ErrUnavailable, err)
	}
	out := commands.ReloadPaid{Status: commands.ReloadPaidPending, PaymentID: pi.ID}
	switch pi.Status {
	case stripe.PaymentIntentStatusSucceeded:
		out.Status = commands.ReloadPaidSucceeded
	case stripe.PaymentIntentStatusCanceled:
		out.Status, out.Reason = commands.ReloadPaidFailed, "canceled"
	}
	return out, nil
}

// ReloadStatus implements commands.ReloadPayer: the current state of a
// started reload's PaymentIntent (retrieved by its id). succeeded is paid;
// canceled, and requires_payment_method (its attempt failed; off-session
// nobody gives another), are failures, with the last payment error's code
// and message; processing, requires_action, requires_confirmation and
// requires_capture are pending.
func (s *Stripe) ReloadStatus(ctx context.Context, paymentID string) (commands.ReloadPaid, error) {
	pi, err := s.client.V1PaymentIntents.Retrieve(ctx, paymentID, &stripe.PaymentIntentRetrieveParams{})
	var se *stripe.Error
	if errors.As(err, &se) && se.Code == stripe.ErrorCodeResourceMissing {
		return commands.ReloadPaid{}, fmt.Errorf("%w: stripe: payment intent %s: %v", payment.ErrUnknownPayment, paymentID, err)
	}
	if err != nil {
		return commands.ReloadPaid{}, fmt.Errorf("%w: stripe: retrieve payment intent: %v", payment.ErrUnavailable, err)
	}
	return reloadState(pi), nil
}

// CancelReload implements commands.ReloadPayer: it cancels a started
// reload's PaymentIntent (reason abandoned) and answers its state after.
// A PaymentIntent Stripe will not cancel (it succeeded, failed or is
// processing meanwhile) answers its current state.
func (s *Stripe) CancelReload(ctx context.Context, paymentID string) (commands.ReloadPaid, error) {
	pi, err := s.client.V1PaymentIntents.Cancel(ctx, paymentID, &stripe.PaymentIntentCancelParams{
		CancellationReason: stripe.String(string(stripe.PaymentIntentCancellationReasonAbandoned))})
	var se *stripe.Error
	if errors.As(err, &se) && se.Code == stripe.ErrorCodePaymentIntentUnexpectedState {
		return s.ReloadStatus(ctx, paymentID)
	}
	if err != nil {
		return commands.ReloadPaid{}, fmt.Errorf("%w: stripe: cancel payment intent: %v", payment.ErrUnavailable, err)
	}
	return reloadState(pi), nil
}

// reloadState is what a reload's PaymentIntent says of its payment.
func reloadState(pi *stripe.PaymentIntent) commands.ReloadPaid {
	out := commands.ReloadPaid{Status: commands.ReloadPaidPending, PaymentID: pi.ID}
	switch pi.Status {
	case stripe.PaymentIntentStatusSucceeded:
		out.Status = commands.ReloadPaidSucceeded
	case stripe.PaymentIntentStatusCanceled:
		out.Status, out.Reason = commands.ReloadPaidFailed, "canceled"
	case stripe.PaymentIntentStatusRequiresPaymentMethod:
		out.Status, out.Reason = commands.ReloadPaidFailed, "payment_failed"
	}
	if e := pi.LastPaymentError; e != nil && out.Status == commands.ReloadPaidFailed {
		out.Reason, out.Message = cmp.Or(string(e.DeclineCode), string(e.Code), out.Reason), e.Msg
	}
	return out
}

// defaultPaymentMethod is the customer's payment method for off-session
// payments: its invoice settings' default, else its first saved card ("" for none).
func (s *Stripe) defaultPaymentMethod(ctx context.Context, customerID string) (string, error) {
	c, err := s.client.V1Customers.Retrieve(ctx, customerID, &stripe.CustomerRetrieveParams{})
	if err != nil {
		return "", fmt.Errorf("%w: stripe: retrieve customer: %v", payment.ErrUnavailable, err)
	}
	if c.InvoiceSettings != nil && c.InvoiceSettings.DefaultPaymentMethod != nil && c.InvoiceSettings.DefaultPaymentMethod.ID != "" {
		return c.InvoiceSettings.DefaultPaymentMethod.ID, nil
	}
	params := &stripe.PaymentMethodListParams{Customer: stripe.String(customerID), Type: stripe.String("card")}
	params.Limit = stripe.Int64(1)
	for pm, err := range s.client.V1PaymentMethods.List(ctx, params).All(ctx) {
		if err != nil {
			return "", fmt.Errorf("%w: stripe: list payment methods: %v", payment.ErrUnavailable, err)
		}
		return pm.ID, nil
	}
	return "", nil
}
