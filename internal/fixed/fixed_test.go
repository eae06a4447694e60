package fixed

import (
	"errors"
	"math"
	"testing"
)

func TestFromFloat(t *testing.T) {
	tests := []struct {
		in   float64
		want int64
		err  error
	}{
		{0, 0, nil},
		{1, 1000, nil},
		{1.5015, 1502, nil}, // half away from zero, as Mesos's llround
		{1.5011, 1501, nil},
		{1.0005, 1001, nil},
		{0.0004, 0, nil},
		{0.0005, 1, nil},
		{123456.789, 123456789, nil},
		{Max, Max * Scale, nil},
		{math.NaN(), 0, ErrNaN},
		{math.Inf(1), 0, ErrInf},
		{math.Inf(-1), 0, ErrInf},
		{-1, 0, ErrNegative},
		{-0.0001, 0, ErrNegative},
		{Max * 1.5, Max * 1.5 * Scale, nil},
		{MaxTotal, MaxTotal * Scale, nil},
		{MaxTotal * 1.5, 0, ErrTooLarge},
	}
	for _, tt := range tests {
		got, err := FromFloat(tt.in)
		if tt.err != nil {
			if !errors.Is(err, tt.err) {
				t.Errorf("FromFloat(%v) = %d, %v; want error %v", tt.in, got, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("FromFloat(%v) = %d, %v; want %d", tt.in, got, err, tt.want)
		}
	}
}

func TestFormat(t *testing.T) {
	tests := []struct {
		in   int64
		want string
	}{
		{0, "0"},
		{1, "0.001"},
		{10, "0.01"},
		{100, "0.1"},
		{1500, "1.5"},
		{1502, "1.502"},
		{2000, "2"},
		{1234567890, "1234567.89"},
		{-1500, "-1.5"},
		{math.MaxInt64, "9223372036854775.807"},
		{math.MinInt64 + 1, "-9223372036854775.807"},
	}
	for _, tt := range tests {
		if got := Format(tt.in); got != tt.want {
			t.Errorf("Format(%d) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestToFloatRoundTrip(t *testing.T) {
	for _, m := range []int64{0, 1, 999, 1001, 1502, 123456789, Max * Scale} {
		got, err := FromFloat(ToFloat(m))
		if err != nil || got != m {
			t.Errorf("FromFloat(ToFloat(%d)) = %d, %v", m, got, err)
		}
	}
}

// TestNoDrift is the design's example: 1.001 added and removed 100000 times
// stays exact.
func TestNoDrift(t *testing.T) {
	step, err := FromFloat(1.001)
	if err != nil {
		t.Fatal(err)
	}
	var sum int64
	for range 100000 {
		sum += step
	}
	if got := Format(sum); got != "100100" {
		t.Errorf("sum = %s, want 100100", got)
	}
	for range 100000 {
		sum -= step
	}
	if sum != 0 {
		t.Errorf("sum after removal = %d, want 0", sum)
	}
}

func TestParseDecimal(t *testing.T) {
	for _, tc := range []struct {
		in    string
		want  int64
		plain bool
		err   error
	}{
		{"0", 0, true, nil},
		{"12", 12000, true, nil},
		{"0.5", 500, true, nil},
		{".5", 500, true, nil},
		{"5.", 5000, true, nil},
		{"1.0005", 1001, true, nil},
		{"1.0004", 1000, true, nil},
		{"1.5015", 1502, true, nil},
		{"0001.25", 1250, true, nil},
		{"1000000000000001", 0, true, ErrTooLarge},
		{"999999999999999.999", 999999999999999999, true, nil},
		{"1000000000000000", 1000000000000000000, true, nil},
		{"1e3", 0, false, nil},
		{"-1", 0, false, nil},
		{"", 0, false, nil},
		{".", 0, false, nil},
		{"1.2.3", 0, false, nil},
	} {
		got, plain, err := ParseDecimal(tc.in)
		if plain != tc.plain || !errors.Is(err, tc.err) || (err == nil && got != tc.want) {
			t.Errorf("ParseDecimal(%q) = %d, %v, %v; want %d, %v, %v", tc.in, got, plain, err, tc.want, tc.plain, tc.err)
		}
	}
	// Exact where a float64 is not: every milli-unit near the top.
	got, _, err := ParseDecimal("999999999999999.001")
	if err != nil || got != 999999999999999001 {
		t.Fatalf("ParseDecimal near the top = %d, %v", got, err)
	}
}
