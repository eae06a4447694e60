package resources

import (
	"fmt"

	"github.com/allot-go/allot/internal/fixed"
)

// Scalar is a scalar resource amount in fixed point: thousandths of a unit.
// Mesos keeps three decimals, so every amount the library handles is an exact
// integer here and arithmetic never drifts. Use ScalarOf and Float64 at the
// edges.
type Scalar int64

// ScalarOf rounds v to three decimals, half away from zero (1.5015 becomes
// 1.502). NaN, infinities and negative values give an error.
func ScalarOf(v float64) (Scalar, error) {
	m, err := fixed.FromFloat(v)
	if err != nil {
		return 0, fmt.Errorf("%w %v: %w", ErrInvalidScalar, v, err)
	}
	return Scalar(m), nil
}

// MustScalar is ScalarOf for constants; it panics on invalid input.
func MustScalar(v float64) Scalar {
	s, err := ScalarOf(v)
	if err != nil {
		panic(err)
	}
	return s
}

// Units returns the scalar for a whole number of units.
func Units(n int64) Scalar { return Scalar(n * fixed.Scale) }

// Float64 returns the amount as a float64.
func (s Scalar) Float64() float64 { return fixed.ToFloat(int64(s)) }

// String prints the amount with at most three decimals and no trailing
// zeros, as Mesos does.
func (s Scalar) String() string { return fixed.Format(int64(s)) }
