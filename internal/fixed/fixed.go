// Package fixed converts between float64 and the fixed-point milli-units that
// resource scalars are kept in. Mesos rounds every scalar to three decimals
// (llround(v*1000), half away from zero); keeping the rounded value as an
// integer makes arithmetic exact: 1.001 added and removed any number of times
// never drifts.
package fixed

import (
	"errors"
	"math"
	"strconv"
	"strings"
)

// Scale is the number of milli-units in one unit.
const Scale = 1000

// Max is the bound Mesos puts on quota values, in units: 10^12 (a memory
// amount of 1 EB in MB).
const Max = 1e12

// MaxTotal is the largest amount accepted, in units: 10^15, a thousand
// times Max. Sums of resources (an agent's reservations merged back by an
// UNRESERVE, a cluster's totals) pass Max and must still read back; an
// int64 holds about 9.2e15 units in milli-units, so sums of a few such
// amounts cannot overflow.
const MaxTotal = 1e15

// Errors of FromFloat.
var (
	ErrNaN      = errors.New("not a number")
	ErrInf      = errors.New("infinite")
	ErrNegative = errors.New("negative")
	ErrTooLarge = errors.New("too large")
)

// FromFloat rounds v to milli-units, half away from zero, as Mesos does.
func FromFloat(v float64) (int64, error) {
	switch {
	case math.IsNaN(v):
		return 0, ErrNaN
	case math.IsInf(v, 0):
		return 0, ErrInf
	case v < 0:
		return 0, ErrNegative
	case v > MaxTotal:
		return 0, ErrTooLarge
	}
	return int64(math.Round(v * Scale)), nil
}

// ParseDecimal reads a plain decimal ("12", "0.5", "1.0005") into
// milli-units exactly, rounding at three decimals half away from zero as
// FromFloat does, but without going through a float64, which cannot hold
// every amount up to MaxTotal to the milli-unit. It reports false for text
// that is not a plain decimal (an exponent, a sign), which the caller reads
// as a float.
func ParseDecimal(s string) (int64, bool, error) {
	whole, frac, _ := strings.Cut(s, ".")
	if whole == "" && frac == "" {
		return 0, false, nil
	}
	for _, part := range []string{whole, frac} {
		for i := 0; i < len(part); i++ {
			if part[i] < '0' || part[i] > '9' {
				return 0, false, nil
			}
		}
	}
	whole = strings.TrimLeft(whole, "0")
	if len(whole) > 16 {
		return 0, true, ErrTooLarge
	}
	var m int64
	for i := 0; i < len(whole); i++ {
		m = m*10 + int64(whole[i]-'0')
	}
	m *= Scale
	for i, scale := 0, int64(Scale/10); i < 3 && i < len(frac); i, scale = i+1, scale/10 {
		m += int64(frac[i]-'0') * scale
	}
	if len(frac) > 3 && frac[3] >= '5' {
		m++ // half away from zero, on the fourth decimal
	}
	if m > MaxTotal*Scale {
		return 0, true, ErrTooLarge
	}
	return m, true, nil
}

// ToFloat converts milli-units to a float64 (exact up to 2^53 milli-units).
func ToFloat(m int64) float64 { return float64(m) / Scale }

// Format prints milli-units as a decimal with trailing zeros dropped:
// 1500 is "1.5", 2000 is "2", 1 is "0.001".
func Format(m int64) string {
	neg := m < 0
	u := uint64(m)
	if neg {
		u = uint64(-m)
	}
	whole, frac := u/Scale, u%Scale
	b := make([]byte, 0, 24)
	if neg {
		b = append(b, '-')
	}
	b = strconv.AppendUint(b, whole, 10)
	if frac != 0 {
		digits := []byte{byte('0' + frac/100), byte('0' + frac/10%10), byte('0' + frac%10)}
		for len(digits) > 0 && digits[len(digits)-1] == '0' {
			digits = digits[:len(digits)-1]
		}
		b = append(b, '.')
		b = append(b, digits...)
	}
	return string(b)
}
