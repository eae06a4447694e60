package refusals

import (
	"maps"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

func randomWhole(rng *rand.Rand) WholeRefusal {
	var e int64
	switch rng.IntN(8) {
	case 0:
		e = math.MinInt64 + 1 // the earliest expiry there is
	case 1:
		e = math.MaxInt64
	case 2:
		e = 0
	default:
		e = rng.Int64N(2000) - 1000
	}
	return WholeRefusal{Expires: e, Batch: rng.Uint64N(5), Covered: rng.Uint64N(5)}
}

// checkWholeSet compares s with the model: Len, Get at every number up to
// past the end, All in full and stopped early.
func checkWholeSet(t *testing.T, s *WholeSet, m map[int]WholeRefusal, upTo int, full bool, msg string, args ...any) {
	t.Helper()
	if s.Len() != len(m) {
		require.Equal(t, len(m), s.Len(), append([]any{msg + ": len"}, args...)...)
	}
	for num := range upTo {
		w, ok := s.Get(num)
		mw, mok := m[num]
		if ok != mok || w != mw {
			require.Equal(t, mok, ok, append([]any{msg + ": get %d", num}, args...)...)
			require.Equal(t, mw, w, append([]any{msg + ": get %d", num}, args...)...)
		}
	}
	if full {
		got := maps.Collect(s.All())
		if !maps.Equal(m, got) {
			require.Equal(t, m, got, append([]any{msg + ": all"}, args...)...)
		}
		if len(m) > 1 {
			n := 0
			for num, w := range s.All() {
				require.Equal(t, m[num], w, append([]any{msg + ": all"}, args...)...)
				n++
				if n == 2 {
					break
				}
			}
			require.Equal(t, 2, n, append([]any{msg + ": all stopped"}, args...)...)
		}
	}
}

// TestWholeSetAgainstModel puts and drops filters at random, while agent
// numbers are handed out, in a WholeSet and a plain map: whether the set
// is sparse or dense, it reads back what was put.
func TestWholeSetAgainstModel(t *testing.T) {
	for _, tc := range []struct {
		seed                 uint64
		numbers, grow, steps int
		dense                bool // whether it turns dense
	}{
		{1, 8, 0, 300, false},
		{2, 70, 0, 1200, true},
		{3, 64, 1, 800, true},
		{4, 300, 2, 2500, true},
		{5, 1000, 0, 3000, true},
		{6, 20, 3, 1500, true},
		{7, 63, 0, 600, false},
	} {
		rng := rand.New(rand.NewPCG(tc.seed, 99))
		var s WholeSet
		m := map[int]WholeRefusal{}
		numbers := tc.numbers
		sawSparse, sawDense := false, false
		for step := range tc.steps {
			if tc.grow > 0 && rng.IntN(4) == 0 {
				numbers += rng.IntN(tc.grow + 1) // more agents numbered
			}
			// Filled first, mostly, then emptied as much as filled.
			dropOneIn := 20
			if step >= tc.steps/2 {
				dropOneIn = 2
			}
			if rng.IntN(dropOneIn) == 0 {
				num := rng.IntN(numbers + 3)
				_, had := m[num]
				got := s.drop(num)
				if got != had {
					require.Equal(t, had, got, "seed %d step %d: drop %d", tc.seed, step, num)
				}
				delete(m, num)
			} else {
				num := rng.IntN(numbers)
				if rng.IntN(6) == 0 {
					num = numbers - 1 // the highest number
				}
				w := randomWhole(rng)
				s.Put(num, w, numbers)
				m[num] = w
			}
			sawSparse = sawSparse || s.dense == nil
			sawDense = sawDense || s.dense != nil
			full := numbers < 100 || step%97 == 0 || len(m) < 3
			checkWholeSet(t, &s, m, numbers+3, full, "seed %d step %d", tc.seed, step)
		}
		require.True(t, sawSparse, "seed %d", tc.seed)
		require.Equal(t, tc.dense, sawDense, "seed %d: dense once it held enough", tc.seed)
	}
}

// A set turns dense at the denseFrom-th filter when an eighth of the
// numbers have one, not before; only a new number counts.
func TestWholeSetTurnsDense(t *testing.T) {
	for _, tc := range []struct {
		numbers int
		at      int // the filter it turns dense at
	}{
		{denseFrom + 1, denseFrom},
		{denseFrom, denseFrom},
		{8 * denseFrom, denseFrom},
		{8*denseFrom + 1, denseFrom + 1},
		{8*denseFrom + 8, denseFrom + 1},
		{8*denseFrom + 9, denseFrom + 2},
		{16 * denseFrom, 2 * denseFrom},
	} {
		var s WholeSet
		m := map[int]WholeRefusal{}
		for k := 1; k <= tc.at; k++ {
			num := tc.numbers - k // from the top down
			w := WholeRefusal{Expires: int64(k), Batch: uint64(k)}
			s.Put(num, w, tc.numbers)
			m[num] = w
			if k == tc.at-1 {
				// Putting again a number it has adds no filter.
				s.Put(num, WholeRefusal{Expires: -int64(k)}, tc.numbers)
				m[num] = WholeRefusal{Expires: -int64(k)}
				require.Nil(t, s.dense, "numbers %d: a filter put again is not a new one", tc.numbers)
			}
			require.Equal(t, k >= tc.at, s.dense != nil, "numbers %d after %d filters", tc.numbers, k)
			require.Equal(t, k < tc.at, s.sparse != nil, "numbers %d after %d filters", tc.numbers, k)
			checkWholeSet(t, &s, m, tc.numbers+2, true, "numbers %d after %d filters", tc.numbers, k)
		}
		require.Len(t, s.dense, tc.numbers, "numbers %d: a number a slot", tc.numbers)
		// Dense, it stays dense however few it holds.
		for num := range m {
			require.True(t, s.drop(num))
			delete(m, num)
			require.NotNil(t, s.dense)
			if len(m)%16 == 0 {
				checkWholeSet(t, &s, m, tc.numbers+2, true, "numbers %d dropping", tc.numbers)
			}
		}
		require.Zero(t, s.Len())
		require.False(t, s.drop(0))
	}
}

// A dense set takes and drops numbers at and past its end.
func TestWholeSetDenseEnds(t *testing.T) {
	var s WholeSet
	m := map[int]WholeRefusal{}
	for num := range denseFrom {
		s.Put(num, WholeRefusal{Expires: int64(num)}, denseFrom)
		m[num] = WholeRefusal{Expires: int64(num)}
	}
	require.Len(t, s.dense, denseFrom)
	// At the end, then past it.
	require.False(t, s.drop(denseFrom))
	require.False(t, s.drop(denseFrom+5))
	_, ok := s.Get(denseFrom)
	require.False(t, ok)
	s.Put(denseFrom, WholeRefusal{Expires: 1, Covered: 1}, denseFrom+1)
	m[denseFrom] = WholeRefusal{Expires: 1, Covered: 1}
	require.Len(t, s.dense, denseFrom+1)
	s.Put(denseFrom+3, WholeRefusal{Expires: 2}, denseFrom+1)
	m[denseFrom+3] = WholeRefusal{Expires: 2}
	require.Len(t, s.dense, denseFrom+4)
	checkWholeSet(t, &s, m, denseFrom+8, true, "grown")
	require.True(t, s.drop(denseFrom+3))
	delete(m, denseFrom+3)
	require.False(t, s.drop(denseFrom+3))
	require.False(t, s.drop(denseFrom+2), "a slot grown past holds nothing")
	require.False(t, s.drop(denseFrom+4), "at the end")
	checkWholeSet(t, &s, m, denseFrom+8, true, "dropped")
	// Putting again where there is one keeps the count.
	s.Put(3, WholeRefusal{Expires: -3}, denseFrom+4)
	m[3] = WholeRefusal{Expires: -3}
	checkWholeSet(t, &s, m, denseFrom+8, true, "put again")
}

// A set turning dense keeps filters on numbers at or past the count it is
// given (numbers handed out before a smaller count was passed).
func TestWholeSetDensifyKeepsHighNumbers(t *testing.T) {
	var s WholeSet
	m := map[int]WholeRefusal{}
	put := func(num, numbers int) {
		w := WholeRefusal{Expires: int64(1000 + num), Batch: uint64(num)}
		s.Put(num, w, numbers)
		m[num] = w
	}
	put(100, 101)
	put(102, 103)
	for num := 1; num < denseFrom-2; num++ {
		put(num, 103)
	}
	require.Nil(t, s.dense)
	put(0, 100) // the 64th: dense, with numbers 100 below 100 and 102
	require.NotNil(t, s.dense)
	require.Len(t, s.dense, 103)
	checkWholeSet(t, &s, m, 110, true, "high numbers")
}

// WholeRefusals keep a set a role, gone with its last filter.
func TestWholeRefusals(t *testing.T) {
	var ws WholeRefusals // nil: the first Put makes it
	_, ok := ws.On("r", 1)
	require.False(t, ok)
	require.False(t, ws.AnyOn(1))
	require.False(t, ws.Drop("r", 1))

	a, b := WholeRefusal{Expires: 5, Batch: 1}, WholeRefusal{Expires: -5, Covered: 2}
	ws.Put("r", 1, a, 10)
	ws.Put("s", 1, b, 10)
	ws.Put("s", 2, a, 10)
	require.Len(t, ws, 2, "a second role keeps the first")
	w, ok := ws.On("r", 1)
	require.True(t, ok)
	require.Equal(t, a, w)
	w, ok = ws.On("s", 1)
	require.True(t, ok)
	require.Equal(t, b, w)
	_, ok = ws.On("r", 2)
	require.False(t, ok)
	_, ok = ws.On("t", 1)
	require.False(t, ok)
	require.True(t, ws.AnyOn(1))
	require.True(t, ws.AnyOn(2))
	require.False(t, ws.AnyOn(3))

	require.False(t, ws.Drop("r", 2))
	require.False(t, ws.Drop("t", 1))
	require.True(t, ws.Drop("s", 1))
	require.Contains(t, ws, "s", "a role keeps its set while it has a filter")
	require.Equal(t, 1, ws["s"].Len())
	require.True(t, ws.Drop("s", 2))
	require.NotContains(t, ws, "s", "the last filter takes the set")
	require.False(t, ws.AnyOn(2))
	require.True(t, ws.Drop("r", 1))
	require.Empty(t, ws)
	require.False(t, ws.Drop("r", 1))
}

// TestWholeRefusalsAgainstModel: roles' sets at random against plain maps,
// with AnyOn and no empty set left.
func TestWholeRefusalsAgainstModel(t *testing.T) {
	roles := []string{"r1", "r2", "r3"}
	for seed := uint64(1); seed <= 4; seed++ {
		rng := rand.New(rand.NewPCG(seed, 5))
		numbers := []int{10, 80, 200, 600}[seed-1]
		var ws WholeRefusals
		m := map[string]map[int]WholeRefusal{}
		for step := range 1500 {
			role, num := roles[rng.IntN(len(roles))], rng.IntN(numbers)
			if rng.IntN(3) == 0 {
				_, had := m[role][num]
				if got := ws.Drop(role, num); got != had {
					require.Equal(t, had, got, "seed %d step %d: drop %q %d", seed, step, role, num)
				}
				delete(m[role], num)
				if len(m[role]) == 0 {
					delete(m, role)
				}
			} else {
				w := randomWhole(rng)
				ws.Put(role, num, w, numbers)
				if m[role] == nil {
					m[role] = map[int]WholeRefusal{}
				}
				m[role][num] = w
			}
			require.Len(t, ws, len(m), "seed %d step %d", seed, step)
			for r, s := range ws {
				require.NotZero(t, s.Len(), "seed %d step %d: %q empty", seed, step, r)
			}
			for range 6 {
				probe := rng.IntN(numbers + 2)
				any := false
				for _, r := range roles {
					mw, mok := m[r][probe]
					if w, ok := ws.On(r, probe); ok != mok || w != mw {
						require.Equal(t, mok, ok, "seed %d step %d: %q on %d", seed, step, r, probe)
						require.Equal(t, mw, w, "seed %d step %d", seed, step)
					}
					any = any || mok
				}
				if ws.AnyOn(probe) != any {
					require.Equal(t, any, ws.AnyOn(probe), "seed %d step %d: any on %d", seed, step, probe)
				}
			}
		}
	}
}
