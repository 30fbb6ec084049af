package payment

import "svc/eventstore/event"

// Event types of a processor event's record stream (payment-event-<id>)
// and of a checkout session's fulfilment stream (checkout-<id>).
const (
	// EventRecorded is the only event of a processor event's record
	// stream: appending it to a new stream, in the transaction of the
	// event's effects, makes each processor event count once.
	EventRecorded = "PaymentEventRecorded"
	// EventCheckoutFulfilled is the only event of a checkout session's
	// fulfilment stream: its credits are granted once, whatever event
	// delivered it.
	EventCheckoutFulfilled = "CheckoutFulfilled"
)

// Recorded is the data of PaymentEventRecorded: the processor event, the
// organization it named and what it did (an Outcome).
type Recorded struct {
	EventID string `json:"event_id"`
	Type    string `json:"type"`
	Created int64  `json:"created"` // the processor's timestamp, Unix seconds
	OrgID   string `json:"org_id,omitempty"`
	Outcome string `json:"outcome"`
}

// CheckoutFulfilled is the data of CheckoutFulfilled: a credit purchase's
// session and the credits it granted.
type CheckoutFulfilled struct {
	SessionID string `json:"session_id"`
	OrgID     string `json:"org_id"`
	Credits   int64  `json:"credits"`
	EventID   string `json:"event_id"`
}

// EventType implements event.Data.
func (Recorded) EventType() string { return EventRecorded }

// EventType implements event.Data.
func (CheckoutFulfilled) EventType() string { return EventCheckoutFulfilled }

// RegisterEvents registers the events of record and fulfilment streams.
func RegisterEvents(r *event.Registry) {
	event.Register[Recorded](r)
	event.Register[CheckoutFulfilled](r)
}

var registry = event.NewRegistry(RegisterEvents)
