package refusals

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// filtersModel is a framework's filters as plain maps: role → agent →
// filters in the order added.
type filtersModel map[string]map[string][]Refusal

func (m filtersModel) add(role, agent string, f Refusal) {
	if m[role] == nil {
		m[role] = map[string][]Refusal{}
	}
	m[role][agent] = append(m[role][agent], f)
}

func (m filtersModel) set(role, agent string, list []Refusal) {
	if len(list) == 0 {
		delete(m[role], agent)
		if len(m[role]) == 0 {
			delete(m, role)
		}
		return
	}
	m[role][agent] = list
}

func sameRefusal(a, b Refusal) bool {
	return a.Refused.Equal(b.Refused) && a.Expires.Equal(b.Expires) && a.Batch == b.Batch && a.Covered == b.Covered
}

var (
	filterRoles  = []string{"r1", "r2", "r3/x"}
	filterAgents = []string{"a1", "a2", "a3", "a4"}
)

// checkFilters compares fs with the model: the filters on every role and
// agent, AnyOn, Each, and that no role or agent is left without a filter.
func checkFilters(t *testing.T, seed uint64, step int, fs Filters, m filtersModel) {
	t.Helper()
	for role, byAgent := range fs {
		require.NotEmpty(t, byAgent, "seed %d step %d: role %q left without agents", seed, step, role)
		for agent, list := range byAgent {
			require.NotEmpty(t, list, "seed %d step %d: %q on %q left without filters", seed, step, role, agent)
		}
	}
	require.Len(t, fs, len(m), "seed %d step %d", seed, step)
	for _, role := range append(filterRoles, "none") {
		for _, agent := range append(filterAgents, "none") {
			want := m[role][agent]
			got := fs.On(role, agent)
			if slices.EqualFunc(want, got, sameRefusal) {
				continue
			}
			if len(want) == 0 {
				require.Empty(t, got, "seed %d step %d: %q on %q", seed, step, role, agent)
			} else {
				require.Equal(t, want, got, "seed %d step %d: %q on %q", seed, step, role, agent)
			}
		}
	}
	for _, agent := range append(filterAgents, "none") {
		want := false
		for _, byAgent := range m {
			if len(byAgent[agent]) > 0 {
				want = true
			}
		}
		if fs.AnyOn(agent) != want {
			require.Equal(t, want, fs.AnyOn(agent), "seed %d step %d: any on %q", seed, step, agent)
		}
	}
	each := filtersModel{}
	fs.Each(func(role, agent string, f *Refusal) { each.add(role, agent, *f) })
	require.Equal(t, m, each, "seed %d step %d: each", seed, step)
}

func randomRefusal(rng *rand.Rand, step int) Refusal {
	return Refusal{
		Expires: time.Unix(1_800_000_000+rng.Int64N(100), 0).UTC(),
		Batch:   uint64(step),
		Covered: rng.Uint64N(4),
	}
}

// TestFiltersAgainstModel adds, keeps some of, drops and changes filters at
// random, in Filters and in plain maps.
func TestFiltersAgainstModel(t *testing.T) {
	for seed := uint64(1); seed <= 6; seed++ {
		rng := rand.New(rand.NewPCG(seed, 42))
		var fs Filters // nil: the first Add makes it
		m := filtersModel{}
		for step := range 400 {
			role := filterRoles[rng.IntN(len(filterRoles))]
			agent := filterAgents[rng.IntN(len(filterAgents))]
			switch op := rng.IntN(10); {
			case op < 4:
				f := randomRefusal(rng, step)
				fs.Add(role, agent, f)
				m.add(role, agent, f)
			case op < 7:
				list := fs.On(role, agent)
				whole := slices.Clone(list)
				kept := list[:0]
				keepAll := rng.IntN(4) == 0
				var want []Refusal
				for _, f := range list {
					if keepAll || rng.IntN(2) == 0 {
						kept = append(kept, f)
						want = append(want, f)
					}
				}
				fs.Keep(role, agent, list, kept)
				if len(list) > 0 {
					m.set(role, agent, want)
				}
				// What is past the kept filters in list's storage is
				// cleared, what is kept is untouched.
				for i := range list {
					if i < len(want) {
						require.Equal(t, want[i], list[i], "seed %d step %d", seed, step)
					} else {
						require.Zero(t, list[i], "seed %d step %d: storage %d not cleared", seed, step, i)
					}
				}
				if keepAll && len(whole) > 0 {
					require.Equal(t, whole, fs.On(role, agent))
				}
			case op < 8:
				type gone struct {
					role string
					f    Refusal
				}
				var got []gone
				fs.DropAgent(agent, func(role string, f Refusal) { got = append(got, gone{role, f}) })
				var want []gone
				for _, r := range filterRoles {
					for _, f := range m[r][agent] {
						want = append(want, gone{r, f})
					}
					if m[r] != nil {
						m.set(r, agent, nil)
					}
				}
				// Roles come in any order, each role's filters in theirs.
				byRole := func(gs []gone) map[string][]Refusal {
					out := map[string][]Refusal{}
					for _, g := range gs {
						out[g.role] = append(out[g.role], g.f)
					}
					return out
				}
				require.Equal(t, byRole(want), byRole(got), "seed %d step %d: gone on %q", seed, step, agent)
			default:
				// Each hands out the filters themselves: a change made
				// through it stays.
				covered := rng.Uint64N(100)
				fs.Each(func(r, a string, f *Refusal) {
					if r == role && a == agent {
						f.Covered = covered
					}
				})
				for i := range m[role][agent] {
					m[role][agent][i].Covered = covered
				}
			}
			checkFilters(t, seed, step, fs, m)
		}
	}
}

// A Filters value that is nil reads as empty and takes a first filter.
func TestFiltersNil(t *testing.T) {
	var fs Filters
	require.Empty(t, fs.On("r", "a"))
	require.False(t, fs.AnyOn("a"))
	fs.DropAgent("a", func(string, Refusal) { t.Fatal("nothing to drop") })
	fs.Each(func(string, string, *Refusal) { t.Fatal("nothing to visit") })
	fs.Keep("r", "a", nil, nil)
	require.Nil(t, fs)
	f := Refusal{Batch: 1}
	fs.Add("r", "a", f)
	require.Equal(t, []Refusal{f}, fs.On("r", "a"))
	g := Refusal{Batch: 2}
	fs.Add("s", "a", g)
	require.Equal(t, []Refusal{f}, fs.On("r", "a"), "a second role keeps the first")
	require.Equal(t, []Refusal{g}, fs.On("s", "a"))
	fs.Add("r", "b", g)
	require.Equal(t, []Refusal{f}, fs.On("r", "a"), "a second agent keeps the first")

	// Dropping the last filter of a role takes the role; dropping an
	// agent leaves the others.
	list := fs.On("s", "a")
	fs.Keep("s", "a", list, list[:0])
	require.NotContains(t, fs, "s")
	fs.DropAgent("a", func(string, Refusal) {})
	require.Equal(t, Filters{"r": {"b": {g}}}, fs)
	require.True(t, fs.AnyOn("b"))
	require.False(t, fs.AnyOn("a"))
}
