package delivery

import (
	"math"
	"testing"
	"time"
)

func TestBackoff(t *testing.T) {
	want := []time.Duration{
		10 * time.Second, 30 * time.Second, 2 * time.Minute, 10 * time.Minute,
		30 * time.Minute, time.Hour, 3 * time.Hour,
	}
	if len(want) != MaxAttempts-1 {
		t.Fatalf("schedule has %d pauses, want %d", len(want), MaxAttempts-1)
	}
	check := func(attempt int, base time.Duration) {
		t.Helper()
		lo := time.Duration(float64(base) * (1 - Jitter))
		hi := time.Duration(float64(base) * (1 + Jitter))
		seen := map[time.Duration]bool{}
		for range 50 {
			d := Backoff(attempt)
			if d < lo || d > hi {
				t.Fatalf("Backoff(%d) = %v, want within [%v, %v]", attempt, d, lo, hi)
			}
			seen[d] = true
		}
		if len(seen) < 2 {
			t.Errorf("Backoff(%d) has no jitter", attempt)
		}
	}
	for i, base := range want {
		check(i+1, base)
	}
	check(0, want[0])
	check(-5, want[0])
	check(MaxAttempts, want[len(want)-1])
	check(100, want[len(want)-1])
}

func TestScaledBackoff(t *testing.T) {
	var total time.Duration
	for attempt := 1; attempt <= 3; attempt++ {
		d := ScaledBackoff(attempt, 0.01)
		if d <= 0 {
			t.Fatalf("ScaledBackoff(%d, 0.01) = %v", attempt, d)
		}
		total += d
	}
	if total > 2*time.Second {
		t.Errorf("three scaled pauses take %v, want about 1.6 s at most", total)
	}
	for _, scale := range []float64{0, -1, math.NaN(), math.Inf(1)} {
		if d := ScaledBackoff(1, scale); d < 8*time.Second || d > 12*time.Second {
			t.Errorf("ScaledBackoff(1, %v) = %v, want unscaled", scale, d)
		}
	}
}
