package sorter

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/allot-go/allot/resources"
)

// This file drives progressive filling through a Sorter: the discrete DRF
// known as "DRF-Skip", which is what an offer-based allocator does
// when every framework launches one task per offer and declines the rest.
// One agent is the whole pool. At each step the users are taken in Sort
// order and the first one whose next task fits the free resources (and who
// is below its task cap) gets one task, charged to the sorter with
// Allocated; a user whose task does not fit is skipped, as a framework that
// declines. The run ends when no user's next task fits.

// user is a client of a filling experiment.
type user struct {
	name   string
	demand resources.Quantities // per task
	weight float64              // 0 means 1
	cap    int                  // most tasks wanted; 0 means no limit
}

func (u user) w() float64 {
	if u.weight == 0 {
		return 1
	}
	return u.weight
}

// step records one task handed out.
type step struct {
	picked   string
	free     resources.Quantities // before the task
	eligible []string             // users whose next task fitted, below their cap
	sigma    map[string]*big.Rat  // every user's exact weighted share before the task
	tasks    map[string]int       // every user's tasks before the task
}

// filling is the outcome of a run.
type filling struct {
	tasks map[string]int
	free  resources.Quantities
	trace []step
}

// taskOf turns per-task quantities into unreserved scalar resources.
func taskOf(q resources.Quantities) resources.Resources {
	var list []resources.Resource
	for name, v := range q.All() {
		list = append(list, resources.ScalarResource(name, v))
	}
	r, err := resources.New(list...)
	if err != nil {
		panic(err)
	}
	return r
}

// run runs progressive filling of e's users through s on one agent "pool"
// holding e's capacity. The users are added and activated under their
// names, which may be paths.
func (e experiment) run(tb testing.TB, s Sorter) filling {
	tb.Helper()
	s.AddAgent("pool", e.capacity)
	for _, u := range e.users {
		if err := s.Add(u.name); err != nil {
			tb.Fatal(err)
		}
		if err := s.Activate(u.name); err != nil {
			tb.Fatal(err)
		}
		if u.weight != 0 {
			if err := s.UpdateWeight(u.name, u.weight); err != nil {
				tb.Fatal(err)
			}
		}
	}
	f := filling{tasks: map[string]int{}, free: e.capacity.Clone()}
	for e.serve(tb, s, &f) {
	}
	return f
}

// serve hands out one task, if any fits; it reports whether it did.
func (e experiment) serve(tb testing.TB, s Sorter, f *filling) bool {
	tb.Helper()
	byName := map[string]user{}
	st := step{free: f.free.Clone(), sigma: map[string]*big.Rat{}, tasks: map[string]int{}}
	for _, u := range e.users {
		byName[u.name] = u
		if e.fits(u, f) {
			st.eligible = append(st.eligible, u.name)
		}
		st.sigma[u.name] = e.share(u, f.tasks[u.name])
		st.tasks[u.name] = f.tasks[u.name]
	}
	for _, name := range s.Sort() {
		u, ok := byName[name]
		if !ok || !e.fits(u, f) {
			continue // declines
		}
		if err := s.Allocated(name, "pool", taskOf(u.demand)); err != nil {
			tb.Fatal(err)
		}
		f.tasks[name]++
		f.free.Subtract(u.demand)
		st.picked = name
		f.trace = append(f.trace, st)
		return true
	}
	return false
}

func (e experiment) fits(u user, f *filling) bool {
	return (u.cap == 0 || f.tasks[u.name] < u.cap) && f.free.Contains(u.demand)
}

// experiment is a one-pool instance with exact arithmetic for checks.
type experiment struct {
	capacity resources.Quantities
	users    []user
}

// share returns user u's weighted dominant share with tasks tasks, exactly.
func (e experiment) share(u user, tasks int) *big.Rat {
	best := new(big.Rat)
	for name, d := range u.demand.All() {
		total := e.capacity.Scalar(name)
		if total <= 0 {
			continue
		}
		s := big.NewRat(int64(d)*int64(tasks), int64(total))
		if s.Cmp(best) > 0 {
			best = s
		}
	}
	w := new(big.Rat).SetFloat64(u.w())
	return best.Quo(best, w)
}

// delta returns u's per-task dominant share δ (unweighted), exactly.
func (e experiment) delta(u user) *big.Rat {
	return new(big.Rat).Mul(e.share(u, 1), new(big.Rat).SetFloat64(u.w()))
}

func (e experiment) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "capacity %s;", e.capacity)
	for _, u := range e.users {
		fmt.Fprintf(&b, " %s<%s>", u.name, u.demand)
		if u.weight != 0 {
			fmt.Fprintf(&b, " w=%v", u.weight)
		}
		if u.cap != 0 {
			fmt.Fprintf(&b, " cap=%d", u.cap)
		}
		b.WriteByte(';')
	}
	return b.String()
}

// tasksOf lists the task counts in user order.
func (e experiment) tasksOf(f filling) []int {
	out := make([]int, len(e.users))
	for i, u := range e.users {
		out[i] = f.tasks[u.name]
	}
	return out
}

// churn makes one running task end, chosen at random among all running
// tasks, and lets the filling hand out what fits again.
func (e experiment) churn(tb testing.TB, s Sorter, f *filling, rng *rand.Rand) {
	tb.Helper()
	total := 0
	for _, u := range e.users {
		total += f.tasks[u.name]
	}
	if total == 0 {
		return
	}
	k := rng.IntN(total)
	for _, u := range e.users {
		if k >= f.tasks[u.name] {
			k -= f.tasks[u.name]
			continue
		}
		if err := s.Unallocated(u.name, "pool", taskOf(u.demand)); err != nil {
			tb.Fatal(err)
		}
		f.tasks[u.name]--
		f.free.Add(u.demand)
		break
	}
	for e.serve(tb, s, f) {
	}
}

func users(demands ...string) []user {
	out := make([]user, len(demands))
	for i, d := range demands {
		out[i] = user{name: string(rune('A' + i)), demand: resources.MustParseQuantities(d)}
	}
	return out
}
