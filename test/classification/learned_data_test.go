package classification

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"

	"svc/domain/planning"
)

// TestLearnedDataUpToDate checks that the training lines embedded in
// domain/planning/data/learned are exact copies of this directory's
// development files (refresh them with `go generate ./domain/planning`),
// and that none of them is the held-out set: the copies are compared with
// the frozen hash of blind/heldout2.jsonl, which is never opened.
func TestLearnedDataUpToDate(t *testing.T) {
	dir := "../../domain/planning/data/learned"
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != len(planning.LearnedSources) {
		t.Errorf("%s holds %d files, planning.LearnedSources names %d", dir, len(entries), len(planning.LearnedSources))
	}
	for copyName, src := range planning.LearnedSources {
		if filepath.Base(src) == "heldout2.jsonl" {
			t.Fatalf("%s copies the held-out set", copyName)
		}
		got, err := os.ReadFile(filepath.Join(dir, copyName))
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(got)
		if hex.EncodeToString(sum[:]) == heldout2SHA256 {
			t.Fatalf("%s is the held-out set", copyName)
		}
		want, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is out of date with test/classification/%s: run go generate ./domain/planning", copyName, src)
		}
	}
}
