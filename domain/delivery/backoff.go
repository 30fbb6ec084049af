package delivery

import (
	"math"
	"math/rand/v2"
	"time"
)

// MaxAttempts is the most attempts made for one delivery, the first
// included.
const MaxAttempts = 8

// pauses[n-1] is the pause after failed attempt n, before attempt n+1:
// MaxAttempts-1 pauses, about 4 h 43 min from the first attempt to the
// last.
var pauses = [MaxAttempts - 1]time.Duration{
	10 * time.Second,
	30 * time.Second,
	2 * time.Minute,
	10 * time.Minute,
	30 * time.Minute,
	time.Hour,
	3 * time.Hour,
}

// Jitter is the relative spread of a pause: Backoff returns the scheduled
// pause times a random factor in [1-Jitter, 1+Jitter).
const Jitter = 0.2

// Backoff returns the pause after failed attempt number attempt (1 for the
// first) before the next one: 10 s, 30 s, 2 min, 10 min, 30 min, 1 h,
// 3 h, each with ±20 % random jitter so that receivers coming back are not
// hit by every delivery at once. attempt below 1 counts as 1, and from
// MaxAttempts on the last pause is returned, although the caller should
// stop after attempt MaxAttempts.
func Backoff(attempt int) time.Duration {
	return ScaledBackoff(attempt, 1)
}

// ScaledBackoff is Backoff multiplied by scale, for tests and local runs
// that need retries within about a second (scale 0.01 gives 100 ms,
// 300 ms, 1.2 s, ...). A scale that is not a positive finite number counts
// as 1.
func ScaledBackoff(attempt int, scale float64) time.Duration {
	if !(scale > 0) || math.IsInf(scale, 0) {
		scale = 1
	}
	i := min(max(attempt, 1), len(pauses)) - 1
	f := scale * (1 - Jitter + 2*Jitter*rand.Float64())
	return time.Duration(float64(pauses[i]) * f)
}
