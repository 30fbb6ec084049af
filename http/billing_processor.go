package httpapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/gorilla/mux"

	"svc/commands"
	"svc/domain/apikey"
	"svc/domain/payment"
	"svc/eventstore/event"
)

// billingFloor is the role the payment processor's routes need: spending
// the organization's money is an admin's (decision 110).
const billingFloor = apikey.Admin

// billingProcessorRoutes registers spec B's payment processor routes
// (GET /api/billing/balance is billing.go's).
func (s *Server) billingProcessorRoutes(r *mux.Router) {
	r.Handle("/api/billing/checkout", s.keyOnly(billingFloor, s.billingCheckout)).Methods(http.MethodPost).Name("billing.checkout")
	r.Handle("/api/billing/subscribe", s.platform(billingFloor, s.billingSubscribe)).Methods(http.MethodPost).Name("billing.subscribe")
	r.Handle("/api/billing/portal", s.platform(billingFloor, s.billingPortal)).Methods(http.MethodPost).Name("billing.portal")
	r.Handle("/api/billing/webhook", s.handle(s.billingWebhook)).Methods(http.MethodPost).Name("billing.webhook")
}

// keyOnly guards a spec B route that takes an API key only: 401
// missing_api_key (invalid_api_key) without a valid one, 403 forbidden
// below floor.
func (s *Server) keyOnly(floor Role, h handlerFunc) http.Handler {
	return s.authenticated(authOptions{}, func(w http.ResponseWriter, r *http.Request) error {
		if p, _ := principalOf(r.Context()); !p.Role.AtLeast(floor) {
			return forbidden(floor, p.Role)
		}
		return h(w, r)
	})
}

// billingPageResponse is the answer of checkout, subscribe and portal:
// the processor's page to send the browser to.
type billingPageResponse struct {
	URL string `json:"url"`
}

// checkoutBody is POST /api/billing/checkout's: exactly one of pack and
// custom_amount, in USD.
type checkoutBody struct {
	Pack         *float64 `json:"pack"`
	CustomAmount *float64 `json:"custom_amount"`
}

// billingCheckout is POST /api/billing/checkout (key, admin).
func (s *Server) billingCheckout(w http.ResponseWriter, r *http.Request) error {
	var body checkoutBody
	if err := platformBody(w, r, &body, true); err != nil {
		return err
	}
	ctx := r.Context()
	p, _ := principalOf(ctx)
	res, err := s.commands.CheckoutCredits.Handle(ctx, commands.CheckoutCredits{OrgID: p.OrgID, Pack: body.Pack, CustomAmount: body.CustomAmount})
	if err != nil {
		return s.billingError(r, err)
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, billingPageResponse{URL: res.URL})
	return nil
}

// subscribeBody is POST /api/billing/subscribe's.
type subscribeBody struct {
	Tier     *string `json:"tier"`
	Interval *string `json:"interval"`
}

// billingSubscribe is POST /api/billing/subscribe (key or session, admin).
func (s *Server) billingSubscribe(w http.ResponseWriter, r *http.Request) error {
	var body subscribeBody
	if err := platformBody(w, r, &body, true); err != nil {
		return err
	}
	cmd := commands.StartSubscription{}
	if body.Tier != nil {
		cmd.Tier = *body.Tier
	}
	if body.Interval != nil {
		cmd.Interval = *body.Interval
	}
	ctx := r.Context()
	p, _ := principalOf(ctx)
	cmd.OrgID = p.OrgID
	res, err := s.commands.StartSubscription.Handle(ctx, cmd)
	if err != nil {
		return s.billingError(r, err)
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, billingPageResponse{URL: res.URL})
	return nil
}

// billingPortal is POST /api/billing/portal (key or session, admin).
func (s *Server) billingPortal(w http.ResponseWriter, r *http.Request) error {
	if err := noBody(w, r); err != nil {
		return err
	}
	ctx := r.Context()
	p, _ := principalOf(ctx)
	res, err := s.commands.OpenBillingPortal.Handle(ctx, commands.OpenBillingPortal{OrgID: p.OrgID})
	if err != nil {
		return s.billingError(r, err)
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, billingPageResponse{URL: res.URL})
	return nil
}

// webhookResponse is the answer of POST /api/billing/webhook.
type webhookResponse struct {
	Received bool `json:"received"`
}

// billingWebhook is POST /api/billing/webhook: a processor event signed
// in Stripe-Signature, no key. 200 {received:true} once it is applied
// (or was before, or is of a type the service does not read); 400
// invalid_signature otherwise.
func (s *Server) billingWebhook(w http.ResponseWriter, r *http.Request) error {
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return newError(http.StatusRequestEntityTooLarge, "body_too_large", fmt.Sprintf("The request body is over %d bytes.", maxBody))
		}
		return newError(http.StatusBadRequest, "invalid_body", "The request body could not be read.")
	}
	ctx := event.WithMetadata(r.Context(), event.Metadata{RequestID: requestID(r.Context())})
	res, err := s.commands.ReceivePaymentEvent.Handle(ctx, commands.ReceivePaymentEvent{Payload: raw, Signature: r.Header.Get("Stripe-Signature"),
		Check: storableText})
	if err != nil {
		return s.billingError(r, err)
	}
	s.log.InfoContext(ctx, "payment event", "event_id", res.EventID, "type", res.Type, "org_id", res.OrgID, "outcome", res.Outcome,
		"duplicate", res.Duplicate, "request_id", requestID(ctx))
	writeJSON(w, http.StatusOK, webhookResponse{Received: true})
	return nil
}

// storableText refuses, in a verified event, text PostgreSQL cannot store
// (U+0000, bytes that are not UTF-8, unpaired surrogates): 400
// invalid_field naming it, as on every route.
func storableText(payload []byte) error {
	if !json.Valid(payload) {
		return nil // the processor adapter read it: not for this check
	}
	if err := jsonTextError(payload, ""); err != nil {
		return err
	}
	return nil
}

// billingError answers the billing commands' refusals in spec B's codes;
// why billing is unavailable (not configured, a plan without a price, the
// processor's failure) is logged, not told.
func (s *Server) billingError(r *http.Request, err error) error {
	switch {
	case errors.Is(err, payment.ErrUnavailable):
		s.log.WarnContext(r.Context(), "billing unavailable", "error", err.Error(), "path", r.URL.Path, "request_id", requestID(r.Context()))
		return &apiError{Status: http.StatusServiceUnavailable, Code: "billing_unavailable",
			Message: "Payments are not available on this server.", Headers: map[string]string{"Retry-After": "60"},
			Fix: "Try again later, or ask the operator to configure the payment processor (STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET, the plans' prices)."}
	case errors.Is(err, payment.ErrInvalidSignature):
		return newError(http.StatusBadRequest, "invalid_signature", "The Stripe-Signature header does not verify this body: "+err.Error())
	case errors.Is(err, payment.ErrPackOrCustom):
		return newError(http.StatusBadRequest, "invalid_body", "Send exactly one of pack (10, 25, 100 or 250 USD) and custom_amount (5 to 10,000 USD).")
	case errors.Is(err, payment.ErrInvalidPack):
		e := newError(http.StatusBadRequest, "invalid_pack", "Field pack must be one of 10, 25, 100 or 250 (USD).").
			withDetail("field", "pack").withDetail("available", payment.Packs)
		e.Available = payment.Packs
		return e
	case errors.Is(err, payment.ErrInvalidCustomAmount):
		lo, hi := int64(payment.MinCustomUSD), int64(payment.MaxCustomUSD)
		e := newError(http.StatusBadRequest, "invalid_custom_amount", "Field custom_amount must be a whole number of USD from 5 to 10,000.").
			withDetail("field", "custom_amount").withDetail("min", lo).withDetail("max", hi)
		e.Min, e.Max = &lo, &hi
		return e
	case errors.Is(err, payment.ErrInvalidTier):
		return newError(http.StatusBadRequest, "invalid_tier", "Field tier must be pro, team or enterprise.").
			withDetail("field", "tier").withDetail("allowed", payment.SubscribableTiers)
	case errors.Is(err, payment.ErrInvalidInterval):
		return newError(http.StatusBadRequest, "invalid_interval", "Field interval must be monthly (the default) or annual.").
			withDetail("field", "interval").withDetail("allowed", payment.Intervals)
	case errors.Is(err, payment.ErrAlreadySubscribed):
		return newError(http.StatusConflict, "already_subscribed", "This organization already has a subscription; change it in the billing portal.").
			withFix("POST /api/billing/portal opens the subscription's management page.")
	case errors.Is(err, payment.ErrNoBillingAccount):
		return newError(http.StatusBadRequest, "no_billing_account", "This organization has bought nothing yet, so it has no billing account.").
			withFix("Buy credits with POST /api/billing/checkout or subscribe with POST /api/billing/subscribe first.")
	}
	return err
}
