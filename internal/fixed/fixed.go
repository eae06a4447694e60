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
)

// Scale is the number of milli-units in one unit.
const Scale = 1000

// Max is the largest scalar accepted, in units: 10^12, the bound Mesos puts
// on quota values (a memory amount of 1 EB in MB). An int64 holds about
// 9.2e15 units in milli-units, so sums of several thousand maximal amounts
// still cannot overflow.
const Max = 1e12

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
	case v > Max:
		return 0, ErrTooLarge
	}
	return int64(math.Round(v * Scale)), nil
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
