package placement

import (
	"fmt"
	"maps"
	"math/rand"
	"slices"
	"strings"

	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
)

// genInput draws a small placement problem: up to 8 agents in 3 zones
// (some without a zone), one or two offers each to "web" or "web/api" with
// reservations, ports, a MOUNT disk and persistent volumes; up to 30 tasks,
// often alike, with every kind of filter and ranker; running tasks; and a
// GoodEnough now and then. Everything it draws is valid input.
func genInput(rng *rand.Rand) Input {
	pick := func(list ...string) string { return list[rng.Intn(len(list))] }
	chance := func(n int) bool { return rng.Intn(n) == 0 }
	in := Input{Agents: map[string]Agent{}}
	nAgents := rng.Intn(9)
	var volumes []resources.Resources
	for a := range nAgents {
		agent := fmt.Sprintf("a%d", a+1)
		attrs := Attributes{"rack": pick("r1", "r2")}
		if !chance(6) {
			attrs["zone"] = pick("a", "b", "c")
		}
		info := Agent{Attributes: attrs}
		if chance(4) {
			info.Total = resources.MustParseQuantities("cpus:16;mem:16384")
		}
		in.Agents[agent] = info
		roles := []string{pick("web", "web/api")}
		if chance(5) {
			roles = []string{"web", "web/api"}
		}
		for i, role := range roles {
			parts := []string{
				fmt.Sprintf("cpus:%d.%d", 1+rng.Intn(6), 5*rng.Intn(2)),
				fmt.Sprintf("mem:%d", 512*(1+rng.Intn(8))),
			}
			if !chance(3) {
				parts = append(parts, fmt.Sprintf("ports:[31000-%d]", 31000+rng.Intn(6)))
			}
			if chance(3) {
				parts = append(parts, fmt.Sprintf("cpus(web):%d", 1+rng.Intn(2)))
			}
			if chance(4) {
				parts = append(parts, "cpus(reservations: [(DYNAMIC,web,ops)]):0.5", "ports(reservations: [(DYNAMIC,web,ops)]):[32000-32001]")
			}
			if chance(5) {
				parts = append(parts, "cpus(other):2")
			}
			if chance(3) {
				parts = append(parts, fmt.Sprintf("disk:%d", 100*(1+rng.Intn(5))))
			}
			if chance(4) {
				parts = append(parts, "disk(reservations: [(DYNAMIC,web,ops)])[MOUNT:/mnt/"+agent+"]:300")
			}
			if chance(4) {
				v := fmt.Sprintf("disk(reservations: [(DYNAMIC,web,ops)])[id:%s-v%d,principal:ops,path:data]", agent, i)
				if chance(2) {
					v += "<SHARED>"
				}
				v += ":100"
				parts = append(parts, v)
				volumes = append(volumes, resources.MustParse(v, "*"))
			}
			if chance(8) {
				parts = append(parts, "cpus{REV}:1")
			}
			in.Offers = append(in.Offers, offer.Offer{
				ID:          fmt.Sprintf("o%d", len(in.Offers)+1),
				FrameworkID: "fw",
				AgentID:     agent,
				Role:        role,
				Resources:   resources.MustParse(strings.Join(parts, ";"), "*").Allocate(role),
			})
		}
	}
	rng.Shuffle(len(in.Offers), func(i, j int) { in.Offers[i], in.Offers[j] = in.Offers[j], in.Offers[i] })

	groups := []string{"", "g1", "g2", "g3"}
	genFilter := func() Filter {
		switch rng.Intn(7) {
		case 0:
			return AttributeEquals("zone", pick("a", "b", "x"))
		case 1:
			return AttributeIn("zone", pick("a", "b"), pick("c", "x"))
		case 2:
			return AttributeNotIn(pick("zone", "rack"), pick("a", "r1"))
		case 3:
			return UniqueHost()
		case 4:
			return MaxPerValue(pick("zone", "rack"), 1+rng.Intn(3))
		case 5:
			return evenLeft
		}
		return MaxPerValue("zone", 2)
	}
	genRanker := func() Ranker {
		var r Ranker
		switch rng.Intn(6) {
		case 0:
			r = BinPack("cpus")
		case 1:
			r = BinPack("cpus", "mem")
		case 2:
			r = Spread(pick("zone", "rack"))
		case 3:
			r = Locality()
		case 4:
			r = freeMem
		default:
			r = BinPack("mem")
		}
		if chance(3) {
			r = r.Weighted(float64(rng.Intn(4)))
		}
		return r
	}
	for range rng.Intn(3) {
		in.Filters = append(in.Filters, genFilter())
	}
	for range rng.Intn(3) {
		in.Rankers = append(in.Rankers, genRanker())
	}
	if chance(3) {
		in.GoodEnough = []float64{0.3, 0.6, 0.9, 1}[rng.Intn(4)]
	}

	nTasks := rng.Intn(31)
	for i := range nTasks {
		id := fmt.Sprintf("t%d", i+1)
		if i > 0 && !chance(3) {
			t := in.Tasks[rng.Intn(len(in.Tasks))]
			t.ID = id
			in.Tasks = append(in.Tasks, t)
			continue
		}
		t := Task{ID: id, Group: pick(groups...)}
		q := fmt.Sprintf("cpus:%d.%d;mem:%d", rng.Intn(3), 5*rng.Intn(2), 256*(1+rng.Intn(8)))
		if chance(4) {
			q += fmt.Sprintf(";disk:%d", 50*(1+rng.Intn(6)))
		}
		t.Resources = resources.MustParseQuantities(q)
		if chance(3) {
			t.Ports.Count = rng.Intn(3)
		}
		if chance(5) {
			t.Ports.Numbers = []uint64{31000 + uint64(rng.Intn(4))}
		}
		if len(volumes) > 0 && chance(5) {
			t.Volumes = volumes[rng.Intn(len(volumes))]
		}
		if chance(5) {
			t.Role = pick("web", "web/api")
		}
		for range rng.Intn(3) {
			t.Constraints = append(t.Constraints, genFilter())
		}
		for range rng.Intn(3) {
			t.Preferences = append(t.Preferences, genRanker())
		}
		in.Tasks = append(in.Tasks, t)
	}
	for range rng.Intn(5) {
		agent := fmt.Sprintf("a%d", 1+rng.Intn(nAgents+2)) // some without offers
		in.Running = append(in.Running, Running{Group: pick(groups...), AgentID: agent})
		if _, ok := in.Agents[agent]; !ok {
			in.Agents[agent] = Agent{Attributes: Attributes{"zone": pick("a", "b", "c")}}
		}
	}
	return in
}

// evenLeft and freeMem are a custom filter and ranker: they read the
// candidate only, as custom ones must.
var (
	evenLeft = Predicate("even cpus left", func(t Task, c Candidate) bool {
		return int(c.Left("cpus"))%2 == 0 || t.Group == ""
	})
	freeMem = Score("free mem", func(_ Task, c Candidate) float64 {
		return c.Left("mem") / (c.Offered("mem") + 1)
	})
)

// describeInput prints a problem, for failures.
func describeInput(in Input) string {
	var b strings.Builder
	for _, id := range slices.Sorted(maps.Keys(in.Agents)) {
		fmt.Fprintf(&b, "agent %s: %v total %s\n", id, in.Agents[id].Attributes, in.Agents[id].Total)
	}
	for _, o := range in.Offers {
		fmt.Fprintf(&b, "offer %s on %s to %s: %s\n", o.ID, o.AgentID, o.Role, o.Resources)
	}
	for _, t := range in.Tasks {
		fmt.Fprintf(&b, "task %s group %q role %q: %s ports %+v volumes %s constraints %v preferences %v\n",
			t.ID, t.Group, t.Role, t.Resources, t.Ports, t.Volumes, t.Constraints, t.Preferences)
	}
	for _, r := range in.Running {
		fmt.Fprintf(&b, "running %q on %s\n", r.Group, r.AgentID)
	}
	fmt.Fprintf(&b, "filters %v rankers %v good enough %v\n", in.Filters, in.Rankers, in.GoodEnough)
	return b.String()
}

// checkResult checks what every result must satisfy, independently of how
// Place searched: every task accounted for in order, every launch accepted
// by package offer (so no offer is over-committed), every task given
// exactly what it asked for, every hard constraint held when the task was
// placed, and a reason per offer for every task left over. It returns a
// description of the first violation, or "".
func checkResult(in Input, res Result) string {
	byOffer := map[string]offer.Offer{}
	for _, o := range in.Offers {
		byOffer[o.ID] = o
	}
	sorted := slices.Clone(in.Offers)
	slices.SortFunc(sorted, func(a, b offer.Offer) int {
		if a.AgentID != b.AgentID {
			return strings.Compare(a.AgentID, b.AgentID)
		}
		return strings.Compare(a.ID, b.ID)
	})
	// Every task once, in order.
	ai, ui := 0, 0
	for _, t := range in.Tasks {
		switch {
		case ai < len(res.Assignments) && res.Assignments[ai].TaskID == t.ID:
			ai++
		case ui < len(res.Unassigned) && res.Unassigned[ui].TaskID == t.ID:
			ui++
		default:
			return fmt.Sprintf("task %s is neither assigned nor unassigned in order", t.ID)
		}
	}
	if ai != len(res.Assignments) || ui != len(res.Unassigned) {
		return "more assignments or unassigned tasks than tasks"
	}
	// Launches and Unused cover the offers, in order.
	var seen []string
	ia, iu := 0, 0
	for _, o := range sorted {
		switch {
		case ia < len(res.Launches) && res.Launches[ia].Offer.ID == o.ID:
			ia++
		case iu < len(res.Unused) && res.Unused[iu].ID == o.ID:
			iu++
		default:
			return fmt.Sprintf("offer %s is neither accepted nor unused in order", o.ID)
		}
		seen = append(seen, o.ID)
	}
	// Each launch is accepted by package offer and matches the assignments.
	tasksOn := map[string][]offer.Task{}
	for _, a := range res.Assignments {
		tasksOn[a.OfferID] = append(tasksOn[a.OfferID], offer.Task{ID: a.TaskID, Resources: a.Resources})
	}
	for _, acc := range res.Launches {
		if _, err := offer.ApplyAll(acc.Offer.Resources, acc.Operations()...); err != nil {
			return fmt.Sprintf("offer %s: %v: %v", acc.Offer.ID, acc.Launch, err)
		}
		want := tasksOn[acc.Offer.ID]
		if len(want) != len(acc.Launch.Tasks) {
			return fmt.Sprintf("offer %s launches %d tasks, %d assigned", acc.Offer.ID, len(acc.Launch.Tasks), len(want))
		}
		for i, t := range acc.Launch.Tasks {
			if t.ID != want[i].ID || !t.Resources.Equal(want[i].Resources) {
				return fmt.Sprintf("offer %s: launch %v differs from the assignments", acc.Offer.ID, acc.Launch)
			}
		}
	}
	// Each task gets what it asked for, and its hard constraints held.
	tasks := map[string]Task{}
	for _, t := range in.Tasks {
		tasks[t.ID] = t
	}
	onAgent := map[[2]string]int{} // group, agent
	onValue := map[[3]string]int{} // group, attribute, value
	attrsOf := func(agent string) Attributes { return in.Agents[agent].Attributes }
	count := func(group, agent string) {
		onAgent[[2]string{group, agent}]++
		for k, v := range attrsOf(agent) {
			onValue[[3]string{group, k, v}]++
		}
	}
	for _, r := range in.Running {
		count(r.Group, r.AgentID)
	}
	for _, a := range res.Assignments {
		t := tasks[a.TaskID]
		o := byOffer[a.OfferID]
		if o.AgentID != a.AgentID {
			return fmt.Sprintf("%s: agent %s, offer on %s", t.ID, a.AgentID, o.AgentID)
		}
		if t.Role != "" && t.Role != o.Role {
			return fmt.Sprintf("%s wants role %s, got offer %s to %s", t.ID, t.Role, o.ID, o.Role)
		}
		if msg := checkTaskResources(t, o, a.Resources); msg != "" {
			return t.ID + ": " + msg
		}
		attrs := attrsOf(o.AgentID)
		for _, f := range slices.Concat(in.Filters, t.Constraints) {
			ok := true
			v, has := attrs[f.attr]
			switch f.kind {
			case filterEquals, filterIn:
				ok = has && slices.Contains(f.values, v)
			case filterNotIn:
				ok = !has || !slices.Contains(f.values, v)
			case filterUniqueHost:
				ok = onAgent[[2]string{t.Group, o.AgentID}] == 0
			case filterMaxPerValue:
				ok = has && onValue[[3]string{t.Group, f.attr, v}] < f.max
			}
			if !ok {
				return fmt.Sprintf("%s on %s breaks %s", t.ID, o.AgentID, f)
			}
		}
		count(t.Group, o.AgentID)
	}
	// A reason per offer, in order, for every task left over.
	for _, u := range res.Unassigned {
		if len(u.Reasons) != len(seen) {
			return fmt.Sprintf("%s: %d reasons for %d offers", u.TaskID, len(u.Reasons), len(seen))
		}
		custom := slices.ContainsFunc(slices.Concat(in.Filters, tasks[u.TaskID].Constraints), func(f Filter) bool { return f.custom != nil })
		for i, r := range u.Reasons {
			if r.OfferID != seen[i] || (r.Resource == "" && r.Filter == "" && !custom) {
				return fmt.Sprintf("%s: reason %d: %s", u.TaskID, i, r)
			}
		}
	}
	return ""
}

// checkTaskResources checks that got is what task t asked for from offer
// o: its scalars exactly, its ports, its volumes, all allocated to the
// offer's role and none reserved for another role.
func checkTaskResources(t Task, o offer.Offer, got resources.Resources) string {
	var volumes, rest resources.Resources
	for r := range got.All() {
		if r.AllocationRole != o.Role && r.AllocationRole != "" {
			return fmt.Sprintf("%s allocated to another role than %s", r, o.Role)
		}
		if r.IsReserved() && r.Role() != o.Role && !strings.HasPrefix(o.Role, r.Role()+"/") {
			return fmt.Sprintf("%s reserved for another role than %s", r, o.Role)
		}
		one, _ := resources.New(r)
		if r.IsPersistentVolume() {
			volumes.Add(one)
		} else {
			rest.Add(one)
		}
	}
	if !rest.Quantities().Equal(t.Resources) {
		return fmt.Sprintf("scalars %s, asked for %s", rest.Quantities(), t.Resources)
	}
	name := portsName(t.Ports)
	var ports resources.Ranges
	for r := range rest.Get(name).All() {
		ports = ports.Union(r.Ranges)
	}
	if ports.Count() != uint64(t.Ports.Count+len(t.Ports.Numbers)) {
		return fmt.Sprintf("ports %s, asked for %+v", ports, t.Ports)
	}
	for _, n := range t.Ports.Numbers {
		if !inRanges(ports, n) {
			return fmt.Sprintf("ports %s lack %d", ports, n)
		}
	}
	if !volumes.Unallocate().Equal(t.Volumes.Unallocate()) {
		return fmt.Sprintf("volumes %s, asked for %s", volumes, t.Volumes)
	}
	return ""
}
