// Command stateful runs a database on reserved disk, the way DC/OS users run
// stateful services on Mesos.
//
// The postgres framework dynamically reserves cpus, mem and disk for its
// role, makes a persistent volume of the disk and runs a task on it. When
// the task dies, and again when the agent restarts (it is removed and added
// back with its checkpointed resources), the volume and its reservation are
// offered to postgres again, and never to the web framework beside it. Then
// the rules: a reservation holding a volume cannot be unreserved, a volume in
// use cannot be destroyed, destroy then unreserve works; two dynamic
// reservations for the same role merge, and with different labels they do
// not.
//
//	go run ./examples/stateful
package main

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/examples/internal/ordered"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/reservation"
	"github.com/allot-go/allot/resources"
	"github.com/allot-go/allot/volume"
)

const (
	agentID   = "agent-1"
	dbRole    = "db"
	principal = "db-ops"
	volumeID  = "pg-data"
)

var (
	agentTotal = resources.MustParse("cpus:4;mem:8192;disk:20000", "*")
	// dbReserve is what postgres reserves; dbTask what each of its tasks
	// needs besides the volume; webTask what each web task needs.
	dbReserve = resources.MustParse("cpus:2;mem:4096;disk:10000", "*")
	dbTask    = resources.MustParseQuantities("cpus:1;mem:2048")
	webTask   = resources.MustParseQuantities("cpus:1;mem:1024")
	refuse    = &allocator.Filter{Refuse: allocator.DefaultRefuse}
)

func main() {
	if _, err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "stateful:", err)
		os.Exit(1)
	}
}

// outcome is what the walk-through observed, for tests.
type outcome struct {
	// WebOffers are all the offers made to web.
	WebOffers []offer.Offer
	// AfterDeath and AfterRestart are postgres's offers once its task died
	// and once the agent came back.
	AfterDeath, AfterRestart offer.Offer
	// UnreserveErr, DestroyInUseErr: the refused operations.
	UnreserveErr, DestroyInUseErr error
	// Unreserved is the agent's total after destroy and unreserve; Merged
	// after the operator's reservations with and without labels.
	Unreserved, Merged resources.Resources
}

// host drives the allocator for the walk-through.
type host struct {
	w   io.Writer
	a   *allocator.Allocator
	now time.Time
	out *outcome
	// tasks counts the tasks launched by each framework.
	tasks map[string]int
}

func run(w io.Writer) (outcome, error) {
	var out outcome
	h := &host{w: w, now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), out: &out, tasks: map[string]int{}}
	a, err := allocator.New(allocator.Options{Clock: func() time.Time { return h.now }, Seed: 1})
	if err != nil {
		return out, err
	}
	h.a = a
	if err := h.walk(); err != nil {
		return out, err
	}
	return out, nil
}

func (h *host) walk() error {
	a, w := h.a, h.w
	step(w, "1. An agent of "+ordered.Resources(agentTotal).String()+"; postgres (role db) and web (role web) subscribe")
	if err := a.AddAgent(agentID, allocator.AgentInfo{Hostname: agentID}, agentTotal, nil); err != nil {
		return err
	}
	if err := a.AddFramework("postgres", allocator.FrameworkInfo{Roles: []string{dbRole}, Principal: principal}, nil, allocator.Active); err != nil {
		return err
	}
	if err := a.AddFramework("web", allocator.FrameworkInfo{Roles: []string{"web"}}, nil, allocator.Active); err != nil {
		return err
	}
	offers := h.allocate(false)
	o, err := offerTo(offers, "postgres")
	if err != nil {
		return err
	}

	step(w, "2. postgres reserves, creates a persistent volume and launches a task on it")
	dyn := reservation.Reservation{Type: reservation.Dynamic, Role: dbRole, Principal: principal}
	reserved, err := dbReserve.Allocate(o.Role).PushReservation(dyn)
	if err != nil {
		return err
	}
	vol, err := persistentVolume(reserved.Get("disk"))
	if err != nil {
		return err
	}
	reserve := offer.Reserve{Resources: reserved}
	create := offer.Create{Volumes: vol}
	after, err := offer.Apply(o.Resources, reserve, create)
	if err != nil {
		return err
	}
	launch, err := h.dbLaunch(after, vol)
	if err != nil {
		return err
	}
	if err := h.accept(o, reserve, create, launch); err != nil {
		return err
	}
	pg1 := launch.Tasks[0].Resources
	h.printAgent()

	step(w, "3. web is offered the unreserved rest, never the reservation; it launches a task")
	offers = h.allocate(true)
	if err := h.webAnswers(offers); err != nil {
		return err
	}

	step(w, "4. The postgres task dies: the volume and its reservation are offered to postgres again")
	if err := a.RecoverAllocated("postgres", agentID, pg1, nil); err != nil {
		return err
	}
	h.now = h.now.Add(allocator.DefaultRefuse)
	offers = h.allocate(true)
	if h.out.AfterDeath, err = offerTo(offers, "postgres"); err != nil {
		return err
	}
	if err := h.webAnswers(offers); err != nil {
		return err
	}
	launch, err = h.dbLaunch(h.out.AfterDeath.Resources, h.out.AfterDeath.Resources.PersistentVolumes())
	if err != nil {
		return err
	}
	if err := h.accept(h.out.AfterDeath, launch); err != nil {
		return err
	}
	h.printAgent()
	fmt.Fprintln(w, "   Once the refusals expire, web is offered the unreserved rest and postgres the reserved rest:")
	h.now = h.now.Add(allocator.DefaultRefuse)
	offers = h.allocate(true)
	if err := h.declineAll(offers); err != nil {
		return err
	}

	step(w, "5. A volume in use cannot be destroyed")
	h.out.DestroyInUseErr = a.UpdateAllocation("postgres", agentID, vol, []offer.Operation{offer.Destroy{Volumes: vol}})
	if err := refused(w, "DESTROY "+volumeID, h.out.DestroyInUseErr, offer.ErrVolumeInUse); err != nil {
		return err
	}

	step(w, "6. The agent restarts: it is removed, its tasks with it, and added back with its checkpointed resources")
	view, _ := a.Agent(agentID)
	checkpointed := view.Total
	if err := a.RemoveAgent(agentID); err != nil {
		return err
	}
	if err := a.AddAgent(agentID, allocator.AgentInfo{Hostname: agentID}, checkpointed, nil); err != nil {
		return err
	}
	h.printAgent()
	offers = h.allocate(false)
	if h.out.AfterRestart, err = offerTo(offers, "postgres"); err != nil {
		return err
	}
	web, err := offerTo(offers, "web")
	if err != nil {
		return err
	}
	if err := h.decline(web); err != nil {
		return err
	}

	step(w, "7. A reservation that holds a volume cannot be unreserved; destroy, then unreserve")
	o = h.out.AfterRestart
	held := o.Resources.Reserved(dbRole)
	h.out.UnreserveErr = a.Accept("postgres", agentID, o.Resources, []offer.Operation{offer.Unreserve{Resources: held}}, nil)
	if err := refused(w, "UNRESERVE with the volume", h.out.UnreserveErr, offer.ErrVolumeHeld); err != nil {
		return err
	}
	vols := held.PersistentVolumes()
	disk, err := offer.Apply(held, offer.Destroy{Volumes: vols})
	if err != nil {
		return err
	}
	if err := h.accept(o, offer.Destroy{Volumes: vols}, offer.Unreserve{Resources: disk}); err != nil {
		return err
	}
	view, _ = a.Agent(agentID)
	h.out.Unreserved = view.Total
	h.printAgent()

	step(w, "8. Two dynamic reservations for one role merge; with different labels they do not")
	for _, labels := range []reservation.Labels{nil, nil, {{Key: "purpose", Value: "cache"}}, {{Key: "purpose", Value: "logs"}}} {
		res := resources.MustParse("cpus:0.5;mem:512", "*")
		r, err := res.PushReservation(reservation.Reservation{Type: reservation.Dynamic, Role: dbRole, Principal: "ops", Labels: labels})
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "   operator: RESERVE %s\n", ordered.ByReservation(r))
		if err := a.UpdateAvailable(agentID, []offer.Operation{offer.Reserve{Resources: r}}); err != nil {
			return err
		}
	}
	view, _ = a.Agent(agentID)
	h.out.Merged = view.Total
	h.printAgent()
	return nil
}

// persistentVolume makes a persistent volume of reserved disk.
func persistentVolume(disk resources.Resources) (resources.Resources, error) {
	list := disk.Slice()
	if len(list) != 1 {
		return resources.Resources{}, fmt.Errorf("want one disk, have %s", disk)
	}
	v := list[0]
	v.Disk = &volume.Disk{
		Persistence: &volume.Persistence{ID: volumeID, Principal: principal},
		Volume:      &volume.Volume{ContainerPath: "data", Mode: volume.RW},
	}
	return resources.New(v)
}

// dbLaunch makes a postgres task of dbTask from offered, with the volume.
func (h *host) dbLaunch(offered, vol resources.Resources) (offer.Launch, error) {
	if vol.IsEmpty() {
		return offer.Launch{}, fmt.Errorf("no volume in %s", offered)
	}
	h.tasks["postgres"]++
	task, ok := offer.PickTask(offered, fmt.Sprintf("pg-%d", h.tasks["postgres"]), dbTask, dbRole)
	if !ok {
		return offer.Launch{}, fmt.Errorf("%s does not fit in %s", dbTask, offered)
	}
	task.Resources = task.Resources.Plus(vol)
	return offer.Launch{Tasks: []offer.Task{task}}, nil
}

// webAnswers lets web launch one task on its offer, if it has one, and
// decline the rest.
func (h *host) webAnswers(offers []offer.Offer) error {
	for _, o := range offers {
		if o.FrameworkID != "web" {
			continue
		}
		h.tasks["web"]++
		task, ok := offer.PickTask(o.Resources, fmt.Sprintf("web-%d", h.tasks["web"]), webTask, o.Role)
		if !ok {
			return h.decline(o)
		}
		return h.accept(o, offer.Launch{Tasks: []offer.Task{task}})
	}
	return nil
}

// allocate runs an allocation (after a second, over all agents, when
// periodic) and prints and records the offers.
func (h *host) allocate(periodic bool) []offer.Offer {
	var res allocator.Result
	if periodic {
		h.now = h.now.Add(time.Second)
		res = h.a.AllocateAll()
	} else {
		res = h.a.Allocate()
	}
	if len(res.Offers) == 0 {
		fmt.Fprintln(h.w, "   no offers")
	}
	for _, o := range res.Offers {
		fmt.Fprintf(h.w, "   offer to %s (role %s): %s\n", o.FrameworkID, o.Role, ordered.ByReservation(o.Resources))
		if o.FrameworkID == "web" {
			h.out.WebOffers = append(h.out.WebOffers, o)
		}
	}
	return res.Offers
}

// accept applies operations to an offer and declines the rest with the
// default refusal.
func (h *host) accept(o offer.Offer, ops ...offer.Operation) error {
	for _, op := range ops {
		fmt.Fprintf(h.w, "   %s: %s\n", o.FrameworkID, describeOp(op))
	}
	return h.a.Accept(o.FrameworkID, o.AgentID, o.Resources, ops, refuse)
}

func (h *host) decline(o offer.Offer) error {
	fmt.Fprintf(h.w, "   %s declines\n", o.FrameworkID)
	return h.a.RecoverResources(o.FrameworkID, o.AgentID, o.Resources, refuse)
}

func (h *host) declineAll(offers []offer.Offer) error {
	for _, o := range offers {
		if err := h.decline(o); err != nil {
			return err
		}
	}
	return nil
}

func (h *host) printAgent() {
	v, _ := h.a.Agent(agentID)
	fmt.Fprintf(h.w, "   %s total: %s\n", agentID, ordered.ByReservation(v.Total))
	for _, fw := range slices.Sorted(maps.Keys(v.Allocated)) {
		fmt.Fprintf(h.w, "   %s used by %s: %s\n", strings.Repeat(" ", len(agentID)), fw, ordered.ByReservation(v.Allocated[fw]))
	}
}

// offerTo returns the offer to a framework.
func offerTo(offers []offer.Offer, framework string) (offer.Offer, error) {
	for _, o := range offers {
		if o.FrameworkID == framework {
			return o, nil
		}
	}
	return offer.Offer{}, fmt.Errorf("no offer to %s", framework)
}

// refused prints a refused operation, or fails if it was not refused for
// the expected reason.
func refused(w io.Writer, what string, err, want error) error {
	if !errors.Is(err, want) {
		return fmt.Errorf("%s: got %v, want %v", what, err, want)
	}
	fmt.Fprintf(w, "   %s: refused: %v\n", what, want)
	return nil
}

func step(w io.Writer, title string) { fmt.Fprintf(w, "\n%s\n", title) }

func describeOp(op offer.Operation) string {
	switch o := op.(type) {
	case offer.Reserve:
		return "RESERVE " + ordered.ByReservation(o.Resources)
	case offer.Unreserve:
		return "UNRESERVE " + ordered.ByReservation(o.Resources)
	case offer.Create:
		return "CREATE " + ordered.ByReservation(o.Volumes)
	case offer.Destroy:
		return "DESTROY " + ordered.ByReservation(o.Volumes)
	case offer.Launch:
		var parts []string
		for _, t := range o.Tasks {
			parts = append(parts, t.ID+" with "+ordered.ByReservation(t.Resources))
		}
		return "LAUNCH " + strings.Join(parts, ", ")
	}
	return op.String()
}
