package projections

// SetSearchScanLimit sets the org size up to which q scans the org's rows
// instead of using the trigram index, until the returned func restores it.
func SetSearchScanLimit(n int64) (restore func()) {
	old := searchScanLimit
	searchScanLimit = n
	return func() { searchScanLimit = old }
}
