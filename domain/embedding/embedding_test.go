package embedding_test

import (
	"context"
	"math"
	"testing"

	"svc/domain/embedding"
)

func TestLocalIsDeterministicUnitLength(t *testing.T) {
	var l embedding.Local
	a := l.Vector("Write a press release about our Series B")
	b := l.Vector("Write a press release about our Series B")
	if len(a) != embedding.LocalDim {
		t.Fatalf("length %d", len(a))
	}
	var norm float64
	for i := range a {
		if a[i] != b[i] {
			t.Fatal("the same text gave two vectors")
		}
		norm += float64(a[i]) * float64(a[i])
	}
	if math.Abs(norm-1) > 1e-5 {
		t.Fatalf("norm %f", norm)
	}
	for _, x := range l.Vector(" ,;  the and of ") {
		if x != 0 {
			t.Fatal("a text without words is not the zero vector")
		}
	}
	if embedding.Cosine(l.Vector(""), a) != 0 {
		t.Fatal("cosine with the zero vector")
	}
}

func TestLocalRanksNearTextsFirst(t *testing.T) {
	var l embedding.Local
	q := l.Vector("analyse our churn data for last quarter")
	near := l.Vector("analysis of the churn dataset from the last quarter")
	typo := l.Vector("anaylse our churn data for last quater")
	far := l.Vector("draft a job description for a senior backend engineer")
	if embedding.Cosine(q, near) <= embedding.Cosine(q, far) {
		t.Errorf("related %f <= unrelated %f", embedding.Cosine(q, near), embedding.Cosine(q, far))
	}
	if embedding.Cosine(q, typo) <= embedding.Cosine(q, far) || embedding.Cosine(q, typo) < 0.5 {
		t.Errorf("a typo moved the text away: %f", embedding.Cosine(q, typo))
	}
}

func TestEmbedOneVectorPerText(t *testing.T) {
	var l embedding.Local
	vs, err := l.Embed(context.Background(), []string{"a b c", "d e f", ""})
	if err != nil || len(vs) != 3 || l.Name() == "" {
		t.Fatalf("%d vectors, %v", len(vs), err)
	}
}
