package projections_test

import (
	"errors"
	"testing"
	"time"

	"svc/projections"
)

// TestDeliveryCursor: a cursor decodes to what it encoded (to the
// microsecond the read model keeps); anything else is ErrBadCursor.
func TestDeliveryCursor(t *testing.T) {
	c := projections.DeliveryCursor{CreatedAt: time.Date(2026, 11, 25, 7, 35, 6, 685123000, time.UTC), DeliveryID: "dlv_0123456789abcdef0123456789abcdef"}
	got, err := projections.DecodeDeliveryCursor(c.Encode())
	if err != nil || !got.CreatedAt.Equal(c.CreatedAt) || got.DeliveryID != c.DeliveryID {
		t.Fatalf("round trip: %v %v", got, err)
	}
	for _, bad := range []string{"", "nope!", "MTIz", "MTIzLng", "LTEuZGx2X3g", "MTIzLmRsdl8" + "x"} {
		if _, err := projections.DecodeDeliveryCursor(bad); !errors.Is(err, projections.ErrBadCursor) {
			t.Errorf("%q: %v", bad, err)
		}
	}
}
