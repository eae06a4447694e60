// Package placement decides, for one framework, which of its pending tasks
// to launch on which of its offers: the loop every framework runs after the
// allocator has made its offers. Hard constraints (filters) say where a
// task may go; soft preferences (rankers) say where it had better go; Place
// puts each task on the best offer that admits it and returns the LAUNCH
// operations to accept the offers with, the offers left unused, and why
// each task left over fits nowhere.
//
// A Task asks for scalar resources (resources.Quantities), host ports
// (a number of them, or given ones) and persistent volumes, belongs to a
// group (the replicas of a service, the tasks of a job) and may carry its
// own constraints and preferences. Offers are the framework's current
// offers (offer.Offer), and Agents the attributes of their agents (zone,
// rack, ...), which a host keeps from what it told the allocator:
//
//	agents[id] = placement.Agent{Attributes: placement.Attributes(info.Attributes)} // allocator.AgentInfo
//
// Filters, AND-ed, always after the task's resources, ports, volumes and
// role:
//
//   - AttributeEquals, AttributeIn, AttributeNotIn: on an agent attribute.
//   - UniqueHost: at most one task of the group per agent.
//   - MaxPerValue: at most n tasks of the group per value of an attribute,
//     for instance per zone.
//   - Predicate: any function of the task and the Candidate offer.
//
// Rankers, each scoring an offer in [0, 1] and weighed (Ranker.Weighted):
//
//   - BinPack: the offer the task leaves fullest, on cpus, mem, or both;
//   - Spread: the attribute value (zone) with the fewest tasks of the group;
//   - Locality: the agents where the group already runs;
//   - Score: any function of the task and the Candidate offer.
//
// Groups count the tasks placed by the call and the tasks the caller
// reports running (Input.Running).
//
// # Usage
//
// After each allocation run, for each framework:
//
//	res, err := placement.Place(placement.Input{
//		Tasks:   pending,               // in priority order
//		Offers:  offers,                // the framework's offers
//		Agents:  agents,                // attributes by agent id
//		Running: running,               // group and agent of its running tasks
//		Filters: []placement.Filter{placement.AttributeNotIn("maintenance", "true")},
//		Rankers: []placement.Ranker{placement.BinPack("cpus", "mem")},
//	})
//	if err != nil {
//		return err // errors.Is(err, placement.ErrDuplicateTask), ...
//	}
//	for _, acc := range res.Launches { // one LAUNCH per offer
//		err := a.Accept(acc.Offer.FrameworkID, acc.Offer.AgentID, acc.Offer.Resources, acc.Operations(), filter)
//	}
//	for _, o := range res.Unused { // decline
//		err := a.RecoverResources(o.FrameworkID, o.AgentID, o.Resources, filter)
//	}
//	for _, u := range res.Unassigned {
//		log.Println(u.TaskID, u.Reasons) // "o3 on a3: does not fit: mem: wants 4096, 2048 left"
//	}
//
// A service's replicas spread over zones, at most two per zone and one per
// agent:
//
//	placement.Task{
//		ID: "api-3", Group: "api", Resources: need, Ports: placement.Ports{Count: 1},
//		Constraints: []placement.Filter{placement.UniqueHost(), placement.MaxPerValue("zone", 2)},
//		Preferences: []placement.Ranker{placement.Spread("zone")},
//	}
//
// # Placement rules
//
// Tasks are placed one at a time, in the order of Input.Tasks; each sees
// what the tasks before it took from the offers and where they went. A task
// goes on the offer with the highest score among those that admit it; the
// score is the weighted mean of the rankers, Input.Rankers and the task's
// Preferences together (0 without rankers), and ties go to the lowest agent
// id, then the lowest offer id. With Input.GoodEnough set, offers are
// visited in that order and the search stops at the first one that scores
// at least GoodEnough; the best offer visited is taken, and later tasks
// alike resume where the search stopped. A task no offer admits gets a
// reason per offer, as the offers stand at the end of the call.
//
// The resources of a task are taken as offer.Pick takes them: reserved for
// the offer's role first, then for its ancestors, then unreserved, and
// revocable last; MOUNT and BLOCK disks whole or not at all. Ports are
// taken in the same order, the given numbers first, then the lowest free
// ones. A persistent volume is used by one task, unless it is shared.
// Resources reserved for another role are never taken.
//
// Place reads no clock, draws no random number and iterates no map in an
// order that shows: the same input gives the same result, whatever the
// order of the offers. Bad input is an error that names the task, offer,
// filter or ranker and the rule it breaks, wrapping one of the Err*
// sentinels; Place then calls no custom function and returns nothing. Place
// never panics on its input; a panic in a custom function is that
// function's own.
//
// Custom predicates and scores must answer from the task and the
// Candidate alone, the same way every time, and alike for tasks alike but
// for their ids: Place asks them once for a set of such tasks and an
// offer, and asks again only when a task is placed on the offer's agent.
// They are called on the caller's goroutine, during the call only.
//
// # Implementation notes
//
// Tasks alike but for their ids (same group, role, request, ports,
// volumes, constraints and preferences) form a class, found with a key
// built from their fields (a task alike one of the last four classes met
// is recognised without it). A class visits the offers once, and keeps those that admit it in
// binary heaps ordered by score, then by agent id. Each heap entry records
// the step (the number of placements so far) at which it was scored.
//
// A placement changes three things. The agent's offers: every class that
// has visited them scores them again before its next pick (a log of the
// agents that got tasks, read from where the class last stopped), and
// older entries for that agent are dropped when they reach the top of a
// heap. The group's counts per value of the attributes its classes read:
// a higher count only lowers scores (Spread) or refuses offers
// (MaxPerValue), so an entry older than the count of its value is an upper
// bound of its true score; when it reaches the top it is scored again and
// sifted down, and the first entry found current is the best. And the
// group's count on the agent, which only that agent's offers read.
//
// When a class spreads over an attribute with few values (under 64, such
// as zones), one placement changes the spread score of every offer of a
// zone at once, and rescoring them one by one would cost as many offers as
// the zone holds. Such a class keeps one heap per value instead, ordered by
// the rest of the score: the spread part, the same for the whole heap, is
// added to its top's sum when heaps are compared, and a MaxPerValue limit
// on that attribute closes the whole heap. A pick costs O(log offers +
// values).
//
// Scores are rounded to 1e-9 once, from the whole weighted sum, before they
// are compared, so offers equal on paper tie, and the tie goes to the agent
// id. (Within one heap of a spread class, two offers whose other rankers
// differ by less than 1e-9 keep that order even where adding the spread
// part rounds them to one score.)
//
// The cost of a call is O(classes × offers) for the first visits, plus
// O(tasks × (log offers + values + agents changed since the class last
// picked)) for the picks, plus one Resources value per task. Tasks given
// the same scalar resources share that value's storage, as copies of a
// Resources do (Clone before changing one in place); tasks with ports or
// volumes get values of their own. A class's heaps are reused by later
// classes once its last task is placed. Reasons are made once per class
// that left tasks over, at the end of the call, and shared by its tasks.
// On the machine of BENCHMARKS.md, 10000 tasks of 90 classes over 1000
// offers take about 13 ms; ten times the tasks and offers take ten times
// as long with as many classes, and about twice that again with ten times
// the classes. GoodEnough saves work where a class's first visit is what
// costs, for instance with expensive custom functions: the visit stops
// early.
package placement
