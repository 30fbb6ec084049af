package dedupq

import (
	"encoding/binary"
	"math"
	"math/bits"
	"math/rand/v2"
	"sync"
)

// Vectors are kept int8-quantised (one byte a dimension and a float32
// scale: a 512-dimension vector in 516 bytes), and each carries a 256-bit
// sign sketch (random hyperplanes) that finds the candidates of a search
// by Hamming distance before their cosines are computed.

// SketchWords is the length of a sketch in 64-bit words (256 bits).
const SketchWords = 4

const sketchBits = SketchWords * 64

// Sketch is a vector's sign sketch.
type Sketch [SketchWords]uint64

// Quantize is v as int8 bytes and the scale that gives v back (v[i] ≈
// int8(q[i]) * scale); the zero vector is all zeros with scale 0.
func Quantize(v []float32) ([]byte, float32) {
	var maxAbs float32
	for _, x := range v {
		if a := float32(math.Abs(float64(x))); a > maxAbs {
			maxAbs = a
		}
	}
	out := make([]byte, len(v))
	if maxAbs == 0 {
		return out, 0
	}
	scale := maxAbs / 127
	for i, x := range v {
		out[i] = byte(int8(math.Round(float64(x / scale))))
	}
	return out, scale
}

// Dequantize is the float vector of q and scale.
func Dequantize(q []byte, scale float32) []float32 {
	out := make([]float32, len(q))
	for i, b := range q {
		out[i] = float32(int8(b)) * scale
	}
	return out
}

// Dot is the dot product of float vector v and quantised vector q.
func Dot(v []float32, q []byte, scale float32) float64 {
	if len(q) != len(v) {
		return 0
	}
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(q); i += 4 {
		s0 += v[i] * float32(int8(q[i]))
		s1 += v[i+1] * float32(int8(q[i+1]))
		s2 += v[i+2] * float32(int8(q[i+2]))
		s3 += v[i+3] * float32(int8(q[i+3]))
	}
	for ; i < len(q); i++ {
		s0 += v[i] * float32(int8(q[i]))
	}
	return float64((s0 + s1 + s2 + s3) * scale)
}

// Unit is v scaled to length 1 (the zero vector as is).
func Unit(v []float32) []float32 {
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	out := make([]float32, len(v))
	if n == 0 {
		return out
	}
	n = math.Sqrt(n)
	for i, x := range v {
		out[i] = float32(float64(x) / n)
	}
	return out
}

// SketchOf is v's sign sketch: bit b says on which side of hyperplane b
// (fixed, random, per dimension count) v lies. Zero coordinates cost
// nothing, so the local embedder's sparse vectors sketch quickly.
func SketchOf(v []float32) Sketch {
	planes := planesFor(len(v))
	var acc [sketchBits]float32
	for i, x := range v {
		if x == 0 {
			continue
		}
		row := planes[i*sketchBits : (i+1)*sketchBits]
		for b := range acc {
			acc[b] += row[b] * x
		}
	}
	var s Sketch
	for b, a := range acc {
		if a > 0 {
			s[b/64] |= 1 << (b % 64)
		}
	}
	return s
}

// Bytes is s as stored (32 bytes, little-endian words).
func (s Sketch) Bytes() []byte {
	out := make([]byte, 0, SketchWords*8)
	for _, w := range s {
		out = binary.LittleEndian.AppendUint64(out, w)
	}
	return out
}

// SketchFromBytes reads a stored sketch; ok is false for another length.
func SketchFromBytes(b []byte) (Sketch, bool) {
	var s Sketch
	if len(b) != SketchWords*8 {
		return s, false
	}
	for i := range s {
		s[i] = binary.LittleEndian.Uint64(b[i*8:])
	}
	return s, true
}

// Hamming is the number of bits in which a and b differ.
func Hamming(a, b *Sketch) int {
	return bits.OnesCount64(a[0]^b[0]) + bits.OnesCount64(a[1]^b[1]) + bits.OnesCount64(a[2]^b[2]) + bits.OnesCount64(a[3]^b[3])
}

// hammingBound is the largest Hamming distance of a sketch whose vector
// may still have a cosine of threshold or more: the expected distance at
// that angle plus four standard deviations (and a little for the
// quantisation).
func hammingBound(threshold float64) int {
	if threshold <= 0 {
		return sketchBits
	}
	c := math.Max(-1, math.Min(1, threshold-0.02))
	p := math.Acos(c) / math.Pi
	bound := float64(sketchBits)*p + 4*math.Sqrt(float64(sketchBits)*p*(1-p)) + 2
	return min(sketchBits, int(math.Ceil(bound)))
}

var planes sync.Map // dimension count -> []float32 (dim × sketchBits)

// planesFor are the hyperplanes for vectors of dim dimensions, the same
// in every process (a fixed seed).
func planesFor(dim int) []float32 {
	if p, ok := planes.Load(dim); ok {
		return p.([]float32)
	}
	r := rand.New(rand.NewPCG(0x64656475, uint64(dim)))
	p := make([]float32, dim*sketchBits)
	for i := range p {
		p[i] = float32(r.NormFloat64())
	}
	actual, _ := planes.LoadOrStore(dim, p)
	return actual.([]float32)
}
