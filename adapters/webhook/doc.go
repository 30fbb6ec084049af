// Package webhook holds the rules for webhook URLs and secrets, the
// signature scheme, one-attempt delivery (Sender) and the retry schedule
// (Backoff) of webhook delivery of execute (spec A) and of workspace
// webhook endpoints (spec B).
//
// # Request
//
// Each attempt is a POST of a JSON body to the registered HTTPS URL with
// these headers:
//
//	Content-Type:      application/json
//	User-Agent:        svc-webhooks/1
//	X-Svc-Event:       the event type, e.g. workflow_completed
//	X-Svc-Delivery:    the delivery id; the same on every attempt of one
//	                   delivery, so receivers can drop duplicates
//	X-Svc-Attempt:     the attempt number, 1 for the first
//	X-Svc-Workflow-Id: the workflow the event belongs to (absent on a
//	                   workspace endpoint's test delivery)
//	X-Svc-Signature:   t=<unix seconds>,v1=<hex HMAC-SHA256>; during a
//	                   workspace endpoint's secret rotation, a second v1
//	                   by the secret it replaces (Delivery.Previous)
//
// A 2xx answer means delivered. 408, 425, 429, 5xx and network errors are
// retried on the Backoff schedule, up to MaxAttempts attempts in all. Any
// other answer (3xx that is not followed, 4xx) ends the delivery; 410 Gone
// in particular means the receiver retired the URL.
//
// # Signature
//
// The HMAC key is the webhook_secret exactly as returned by execute: the
// 64-character lowercase hex string, used as its 64 ASCII bytes. It is not
// hex-decoded. The signed message is the decimal timestamp t, a full stop,
// and the raw request body, byte for byte as received:
//
//	v1 = lowercase_hex(HMAC_SHA256(key = webhook_secret, msg = t + "." + body))
//
// To verify, a receiver splits the header on commas into key=value pairs,
// recomputes v1 from t and the unparsed body, compares it in constant time
// with each v1 pair (there may be more than one; unknown keys are
// ignored), and rejects the request when t is more than five minutes from
// its own clock. Every attempt is signed afresh with its own t, so a
// retry hours later still passes. Verify does all of this.
package webhook
