package wire

import (
	"errors"
	"math"
	"testing"
)

func TestRoundTripAndBadInput(t *testing.T) {
	var w Writer
	w.Uvarint(300)
	w.Varint(-5)
	w.String("héllo")
	w.Float64(2.5)
	w.Bool(true)
	w.Int(2)
	r := NewReader(w.B)
	if r.Uvarint() != 300 || r.Varint() != -5 || r.String() != "héllo" || r.Float64() != 2.5 || !r.Bool() || r.Int(10, "n") != 2 || r.Err() != nil {
		t.Fatalf("round trip: %v", r.Err())
	}
	for i := range len(w.B) - 2 {
		r := NewReader(w.B[:i])
		_, _, _, _, _ = r.Uvarint(), r.Varint(), r.String(), r.Float64(), r.Bool()
		if !errors.Is(r.Err(), ErrTruncated) {
			t.Fatalf("cut at %d: %v", i, r.Err())
		}
	}
	if r := NewReader([]byte{200, 1}); r.Count("items") != 0 || !errors.Is(r.Err(), ErrInvalid) {
		t.Errorf("a count beyond the input: %v", r.Err())
	}
	if r := NewReader([]byte{2, 0xff, 0xfe}); r.String() != "" || !errors.Is(r.Err(), ErrInvalid) {
		t.Errorf("a string that is not UTF-8: %v", r.Err())
	}
	if r := NewReader([]byte{2}); r.Bool() || !errors.Is(r.Err(), ErrInvalid) {
		t.Errorf("a boolean byte 2: %v", r.Err())
	}
}

// Varint reads what binary.PutVarint writes, at the extremes too.
func TestVarintExtremes(t *testing.T) {
	for _, v := range []int64{0, 1, -1, 63, -64, 64, -65, math.MaxInt64, math.MinInt64} {
		var w Writer
		w.Varint(v)
		r := NewReader(w.B)
		if got := r.Varint(); got != v || r.Err() != nil {
			t.Errorf("Varint(%d) read back as %d (%v)", v, got, r.Err())
		}
	}
}
