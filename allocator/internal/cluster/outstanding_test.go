package cluster

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
)

// outOffer makes an outstanding offer as package allocator records one.
func outOffer(id, fw, role, text string) OutstandingOffer {
	return OutstandingOffer{ID: id, Framework: fw, Role: role, Res: alloc(text, role).Frozen()}
}

// wantOffer is what an outstanding offer should hold.
type wantOffer struct{ id, fw, role, res string }

func requireOutstanding(t *testing.T, ag *Agent, want []wantOffer, msg string) {
	t.Helper()
	require.Len(t, ag.Outstanding, len(want), "%s: %v", msg, ag.Outstanding)
	for i, w := range want {
		o := ag.Outstanding[i]
		require.Equal(t, w.id, o.ID, "%s: offer %d", msg, i)
		require.Equal(t, w.fw, o.Framework, "%s: offer %d", msg, i)
		require.Equal(t, w.role, o.Role, "%s: offer %d", msg, i)
		requireRes(t, alloc(w.res, w.role), o.Res, msg, ": offer ", w.id)
	}
}

func TestOffersTakenWhole(t *testing.T) {
	ag := &Agent{ID: "a1", Outstanding: []OutstandingOffer{
		outOffer("o1", "f1", "web", "cpus:1;mem:64"),
		outOffer("o2", "f1", "web", "cpus:2;mem:128"),
		outOffer("o3", "f2", "web", "cpus:1;mem:64"),
		outOffer("o4", "f1", "db", "cpus:1;mem:64"),
	}}
	// Equal resources made apart end the offer they equal, not the newest.
	ag.OffersTaken("f1", "web", alloc("cpus:1;mem:64", "web"), resources.Resources{})
	requireOutstanding(t, ag, []wantOffer{
		{"o2", "f1", "web", "cpus:2;mem:128"},
		{"o3", "f2", "web", "cpus:1;mem:64"},
		{"o4", "f1", "db", "cpus:1;mem:64"},
	}, "equal")

	// The identical value ends its offer.
	ag.OffersTaken("f1", "db", ag.Outstanding[2].Res, resources.Resources{})
	requireOutstanding(t, ag, []wantOffer{
		{"o2", "f1", "web", "cpus:2;mem:128"},
		{"o3", "f2", "web", "cpus:1;mem:64"},
	}, "identical")

	ag.OffersTaken("f2", "web", alloc("cpus:1;mem:64", "web"), resources.Resources{})
	ag.OffersTaken("f1", "web", alloc("cpus:2;mem:128", "web"), resources.Resources{})
	require.Empty(t, ag.Outstanding)
}

func TestOffersTakenWholeNewestFirst(t *testing.T) {
	// Two equal offers: the newer one ends.
	ag := &Agent{ID: "a1", Outstanding: []OutstandingOffer{
		outOffer("o1", "f1", "web", "cpus:1"),
		outOffer("o2", "f1", "web", "cpus:1"),
		outOffer("o3", "f1", "web", "mem:5"),
	}}
	ag.OffersTaken("f1", "web", alloc("cpus:1", "web"), resources.Resources{})
	requireOutstanding(t, ag, []wantOffer{
		{"o1", "f1", "web", "cpus:1"},
		{"o3", "f1", "web", "mem:5"},
	}, "newest equal")
}

func TestOffersTakenWholeWithLeft(t *testing.T) {
	ag := &Agent{ID: "a1", Outstanding: []OutstandingOffer{
		outOffer("o1", "f1", "web", "cpus:2;mem:128"),
		outOffer("o2", "f1", "web", "cpus:4;mem:256"),
		outOffer("o3", "f1", "web", "cpus:8"),
	}}
	left := alloc("cpus:1;disk:10", "web")
	ag.OffersTaken("f1", "web", alloc("cpus:4;mem:256", "web"), left)
	requireOutstanding(t, ag, []wantOffer{
		{"o1", "f1", "web", "cpus:2;mem:128"},
		{"o2", "f1", "web", "cpus:1;disk:10"},
		{"o3", "f1", "web", "cpus:8"},
	}, "left")
	// Left is kept frozen, not copied (as a hold's resources are): the
	// offer shares the caller's value.
	require.True(t, ag.Outstanding[1].Res.Identical(left))
}

func TestOffersTakenPartial(t *testing.T) {
	ag := &Agent{ID: "a1", Outstanding: []OutstandingOffer{
		outOffer("o1", "f1", "web", "cpus:2;mem:100"),
		outOffer("o2", "f2", "web", "cpus:5;mem:500"),
		outOffer("o3", "f1", "web", "cpus:1;mem:10"),
		outOffer("o4", "f1", "db", "cpus:9;mem:900"),
		outOffer("o5", "f1", "web", "mem:20"),
	}}
	// Taken from f1's newest web offers first: o5 gives mem:20 and ends,
	// o3 gives cpus:1 and mem:10 and ends, o1 gives cpus:1;mem:5.
	ag.OffersTaken("f1", "web", alloc("cpus:2;mem:35", "web"), alloc("cpus:7", "web"))
	requireOutstanding(t, ag, []wantOffer{
		{"o1", "f1", "web", "cpus:1;mem:95"},
		{"o2", "f2", "web", "cpus:5;mem:500"},
		{"o4", "f1", "db", "cpus:9;mem:900"},
	}, "partial")

	// Taking what no offer holds changes nothing; so does a take in a role
	// or of a framework without offers.
	ag.OffersTaken("f1", "web", alloc("disk:10", "web"), resources.Resources{})
	ag.OffersTaken("f3", "web", alloc("cpus:1", "web"), resources.Resources{})
	ag.OffersTaken("f1", "batch", alloc("cpus:1", "batch"), resources.Resources{})
	ag.OffersTaken("f1", "web", resources.Resources{}, resources.Resources{})
	requireOutstanding(t, ag, []wantOffer{
		{"o1", "f1", "web", "cpus:1;mem:95"},
		{"o2", "f2", "web", "cpus:5;mem:500"},
		{"o4", "f1", "db", "cpus:9;mem:900"},
	}, "nothing")

	// More than is offered empties the offers and stops.
	ag.OffersTaken("f1", "web", alloc("cpus:10;mem:1000", "web"), resources.Resources{})
	requireOutstanding(t, ag, []wantOffer{
		{"o2", "f2", "web", "cpus:5;mem:500"},
		{"o4", "f1", "db", "cpus:9;mem:900"},
	}, "more")
}

func TestOffersTakenPartialStopsWhenDone(t *testing.T) {
	// Once taken is used up, older offers are left alone.
	ag := &Agent{ID: "a1", Outstanding: []OutstandingOffer{
		outOffer("o1", "f1", "r", "cpus:3"),
		outOffer("o2", "f1", "r", "cpus:3"),
		outOffer("o3", "f1", "r", "cpus:3"),
	}}
	ag.OffersTaken("f1", "r", alloc("cpus:4", "r"), resources.Resources{})
	requireOutstanding(t, ag, []wantOffer{
		{"o1", "f1", "r", "cpus:3"},
		{"o2", "f1", "r", "cpus:2"},
	}, "stop")
	// A single offer, taken in part then in full.
	ag = &Agent{ID: "a1", Outstanding: []OutstandingOffer{outOffer("o1", "f1", "r", "cpus:3;mem:3")}}
	ag.OffersTaken("f1", "r", alloc("cpus:1", "r"), resources.Resources{})
	requireOutstanding(t, ag, []wantOffer{{"o1", "f1", "r", "cpus:2;mem:3"}}, "single part")
	ag.OffersTaken("f1", "r", alloc("cpus:2;mem:3", "r"), resources.Resources{})
	require.Empty(t, ag.Outstanding)
}

func TestDropOffers(t *testing.T) {
	ag := &Agent{ID: "a1", Outstanding: []OutstandingOffer{
		outOffer("o1", "f1", "web", "cpus:1"),
		outOffer("o2", "f2", "web", "cpus:2"),
		outOffer("o3", "f1", "db", "cpus:3"),
		outOffer("o4", "f3", "db", "cpus:4"),
	}}
	ag.DropOffers("f9")
	require.Len(t, ag.Outstanding, 4)
	ag.DropOffers("f1")
	requireOutstanding(t, ag, []wantOffer{
		{"o2", "f2", "web", "cpus:2"},
		{"o4", "f3", "db", "cpus:4"},
	}, "drop f1")
	ag.DropOffers("f3")
	ag.DropOffers("f2")
	require.Empty(t, ag.Outstanding)
}

func TestOfferView(t *testing.T) {
	ag := &Agent{ID: "a7", Outstanding: []OutstandingOffer{outOffer("o1", "f1", "web", "cpus:1;mem:64")}}
	o := &ag.Outstanding[0]
	v := ag.OfferView(o)
	require.Equal(t, "o1", v.ID)
	require.Equal(t, "f1", v.FrameworkID)
	require.Equal(t, "a7", v.AgentID)
	require.Equal(t, "web", v.Role)
	require.True(t, v.Resources.Identical(o.Res))
	requireRes(t, alloc("cpus:1;mem:64", "web"), v.Resources)
	require.Equal(t, offer.Offer{ID: "o1", FrameworkID: "f1", AgentID: "a7", Role: "web", Resources: o.Res}, v)
}

// A model test: outstanding offers of scalar cpus and mem against a plain
// list. A take that equals an offer of the framework and role ends the
// newest such offer (or leaves it with left); any other take is shared
// among the framework's offers in the role, newest first, each giving
// what it holds of what is still to take.
func TestOffersTakenModel(t *testing.T) {
	type moffer struct {
		id, fw, role string
		cpus, mem    int
	}
	toRes := func(cpus, mem int, role string) resources.Resources {
		a := amounts{}
		a.add(role, "cpus", cpus)
		a.add(role, "mem", mem)
		return a.resources()
	}
	fws := []string{"f1", "f2"}
	roles := []string{"web", "db"}
	for seed := uint64(1); seed <= 60; seed++ {
		seeded(t, seed, func(t *testing.T, rng *rand.Rand) {
			ag := &Agent{ID: "a1"}
			var model []moffer
			next := 0
			for step := 0; step < 80; step++ {
				fw, role := fws[rng.IntN(len(fws))], roles[rng.IntN(len(roles))]
				switch k := rng.IntN(10); {
				case k < 4: // a new offer
					next++
					o := moffer{id: fmt.Sprintf("o%d", next), fw: fw, role: role, cpus: rng.IntN(4), mem: rng.IntN(4)}
					if o.cpus == 0 && o.mem == 0 {
						o.cpus = 1
					}
					model = append(model, o)
					ag.Outstanding = append(ag.Outstanding, OutstandingOffer{ID: o.id, Framework: fw, Role: role, Res: toRes(o.cpus, o.mem, role).Frozen()})
				case k < 9: // a take
					tc, tm := rng.IntN(5), rng.IntN(5)
					var taken resources.Resources
					if len(model) > 0 && rng.IntN(3) == 0 {
						// Exactly an offer's, perhaps the very value.
						i := rng.IntN(len(model))
						fw, role, tc, tm = model[i].fw, model[i].role, model[i].cpus, model[i].mem
						if rng.IntN(2) == 0 {
							taken = ag.Outstanding[i].Res
						}
					}
					if taken.IsEmpty() {
						taken = toRes(tc, tm, role)
					}
					lc, lm := 0, 0
					if rng.IntN(2) == 0 {
						lc, lm = rng.IntN(3), rng.IntN(3)
					}
					ag.OffersTaken(fw, role, taken, toRes(lc, lm, role))

					whole := -1
					for i := len(model) - 1; i >= 0; i-- {
						if model[i].fw == fw && model[i].role == role && model[i].cpus == tc && model[i].mem == tm {
							whole = i
							break
						}
					}
					if whole >= 0 {
						if lc == 0 && lm == 0 {
							model = append(model[:whole:whole], model[whole+1:]...)
						} else {
							model[whole].cpus, model[whole].mem = lc, lm
						}
						break
					}
					var kept []moffer
					for i := len(model) - 1; i >= 0; i-- {
						o := model[i]
						if o.fw == fw && o.role == role {
							pc, pm := min(o.cpus, tc), min(o.mem, tm)
							tc, tm = tc-pc, tm-pm
							o.cpus, o.mem = o.cpus-pc, o.mem-pm
							if o.cpus == 0 && o.mem == 0 {
								continue
							}
						}
						kept = append([]moffer{o}, kept...)
					}
					model = kept
				default:
					ag.DropOffers(fw)
					var kept []moffer
					for _, o := range model {
						if o.fw != fw {
							kept = append(kept, o)
						}
					}
					model = kept
				}
				require.Len(t, ag.Outstanding, len(model), "step %d: %v", step, ag.Outstanding)
				for i, m := range model {
					o := ag.Outstanding[i]
					require.Equal(t, m.id, o.ID, "step %d offer %d", step, i)
					require.Equal(t, m.fw, o.Framework, "step %d offer %d", step, i)
					require.Equal(t, m.role, o.Role, "step %d offer %d", step, i)
					requireRes(t, toRes(m.cpus, m.mem, m.role), o.Res, "step ", step, " offer ", m.id)
					v := ag.OfferView(&ag.Outstanding[i])
					require.Equal(t, offer.Offer{ID: m.id, FrameworkID: m.fw, AgentID: "a1", Role: m.role, Resources: o.Res}, v)
				}
			}
		})
	}
}
