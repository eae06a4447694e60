// Package gen holds gopter generators for the module's property tests:
// roles, reservations and stacks, single resources, Resources, Quantities and
// Limits. Every generated value is valid and prints to text that
// resources.Parse reads back.
//
// Values are drawn from small pools (a handful of names, a family of roles,
// a few principals, labels and persistence ids, small port numbers) so that
// generated resources often share metadata and merge, which is where the
// interesting arithmetic happens. Options choose which metadata appears.
//
// Import it under another name next to gopter's own gen package:
//
//	import (
//		"github.com/leanovate/gopter/prop"
//		rgen "github.com/allot-go/allot/internal/gen"
//	)
//
//	props := gopter.NewProperties(rgen.Parameters(t))
//	props.Property("a+b contains a", prop.ForAll(
//		func(a, b resources.Resources) bool { return a.Plus(b).Contains(a) },
//		rgen.Resources(), rgen.Resources()))
//	props.TestingRun(t)
//
// Resources shrink by dropping entries, so a failing case is reported small.
package gen

import (
	"math/rand"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/leanovate/gopter"

	"github.com/allot-go/allot/reservation"
	"github.com/allot-go/allot/resources"
	"github.com/allot-go/allot/volume"
)

// envInt reads an integer from the environment: the package registers no
// flag, so importing it changes no process-wide state.
func envInt(name string, def int64) int64 {
	if v, err := strconv.ParseInt(os.Getenv(name), 10, 64); err == nil {
		return v
	}
	return def
}

// Parameters returns gopter test parameters: ALLOT_PROP_COUNT successful
// cases per property, 100 by default, and the seed ALLOT_PROP_SEED, else
// one from the clock. The seed is logged, and gopter prints it again when
// a property fails, so a failure can be replayed with ALLOT_PROP_SEED=N.
func Parameters(t testing.TB) *gopter.TestParameters {
	t.Helper()
	seed := envInt("ALLOT_PROP_SEED", 0)
	if seed == 0 {
		seed = time.Now().UnixNano()
	}
	t.Logf("gopter seed %d (replay with ALLOT_PROP_SEED=%d)", seed, seed)
	p := gopter.DefaultTestParametersWithSeed(seed)
	p.MinSuccessfulTests = int(max(envInt("ALLOT_PROP_COUNT", 100), 1))
	p.MaxSize = 12
	return p
}

// Options choose what generated resources may carry. The zero value gives
// plain unreserved scalars, ranges and sets.
type Options struct {
	// Reservations: static and dynamic reservations, refinements, principals
	// and labels (nil, empty and non-empty).
	Reservations bool
	// Disks: disk sources (PATH, MOUNT, BLOCK, RAW), persistent volumes and
	// shared persistent volumes with several copies. Volumes are always
	// reserved, as Mesos requires.
	Disks bool
	// Revocable marks some resources revocable.
	Revocable bool
	// Providers gives some resources a resource provider id.
	Providers bool
	// Allocations tags some resources with an allocation role.
	Allocations bool
	// Tricky draws roles, labels, principals, ids and set items with
	// characters that the text format must quote.
	Tricky bool
	// MaxEntries bounds the number of resources added to one Resources;
	// 0 means 8.
	MaxEntries int
}

// All enables every kind of metadata, tricky strings included.
func All() Options {
	return Options{Reservations: true, Disks: true, Revocable: true, Providers: true, Allocations: true, Tricky: true}
}

// Roles is the role family the generators draw from: a hierarchy three
// levels deep with siblings and a name that is a prefix of another
// ("a/b" and "a/bc").
var Roles = []string{"a", "a/b", "a/b/c", "a/bc", "a/d", "b", "b/x", "eng", "eng/backend", "eng/backend/db"}

var trickyRoles = []string{"a(b)", "a(b)/c:d", `q"u/o,te`, "x{y}", "r;s", "é/ü"}

var principals = []string{"ops", "alice", "bob"}

var trickyStrings = []string{"with space", "k:v", "a,b", "{x}", "(p)", `"q"`, `back\slash`, "ünï", "[r]", "<s>", "semi;colon", "tab\tx", "-dash"}

func pick[T any](rng *rand.Rand, list []T) T { return list[rng.Intn(len(list))] }

func str(rng *rand.Rand, o Options, plain []string) string {
	if o.Tricky && rng.Intn(4) == 0 {
		return pick(rng, trickyStrings)
	}
	return pick(rng, plain)
}

func role(rng *rand.Rand, o Options) string {
	if o.Tricky && rng.Intn(6) == 0 {
		return pick(rng, trickyRoles)
	}
	return pick(rng, Roles)
}

func labels(rng *rand.Rand, o Options) reservation.Labels {
	switch rng.Intn(4) {
	case 0, 1:
		return nil
	case 2:
		return reservation.Labels{}
	}
	n := 1 + rng.Intn(2)
	l := make(reservation.Labels, 0, n)
	for i := range n {
		key := str(rng, o, []string{"team", "env", "owner"}) + strconv.Itoa(i)
		value := ""
		if rng.Intn(3) > 0 {
			value = str(rng, o, []string{"a", "prod", "x1"})
		}
		l = append(l, reservation.Label{Key: key, Value: value})
	}
	return l
}

func reservationFor(rng *rand.Rand, o Options, typ reservation.Type, r string) reservation.Reservation {
	res := reservation.Reservation{Type: typ, Role: r}
	if typ == reservation.Dynamic {
		if rng.Intn(3) > 0 {
			res.Principal = str(rng, o, principals)
		}
		res.Labels = labels(rng, o)
	}
	return res
}

// stack draws an empty stack about a third of the time, else a valid stack
// of one to three entries down the role family.
func stack(rng *rand.Rand, o Options, allowEmpty bool) reservation.Stack {
	if allowEmpty && rng.Intn(3) == 0 {
		return nil
	}
	top := role(rng, o)
	typ := reservation.Dynamic
	if rng.Intn(3) == 0 {
		typ = reservation.Static
	}
	s, err := reservation.Stack(nil).Push(reservationFor(rng, o, typ, top))
	if err != nil {
		panic(err)
	}
	for rng.Intn(3) == 0 {
		var subs []string
		for _, r := range append(Roles, trickyRoles...) {
			if reservation.IsStrictSubrole(r, s.Role()) {
				subs = append(subs, r)
			}
		}
		if len(subs) == 0 {
			break
		}
		next, err := s.Push(reservationFor(rng, o, reservation.Dynamic, pick(rng, subs)))
		if err != nil {
			panic(err)
		}
		s = next
	}
	return s
}

// Role generates a role of the family Roles.
func Role() gopter.Gen {
	return func(p *gopter.GenParameters) *gopter.GenResult {
		return gopter.NewGenResult(role(p.Rng, Options{}), gopter.NoShrinker)
	}
}

// Reservation generates a valid single reservation (static or dynamic, with
// or without principal and labels).
func Reservation() gopter.Gen {
	return func(p *gopter.GenParameters) *gopter.GenResult {
		typ := reservation.Dynamic
		if p.Rng.Intn(3) == 0 {
			typ = reservation.Static
		}
		return gopter.NewGenResult(reservationFor(p.Rng, Options{}, typ, role(p.Rng, Options{})), gopter.NoShrinker)
	}
}

// Stack generates a valid reservation stack, empty about a third of the
// time, refined down the role family otherwise.
func Stack() gopter.Gen {
	return func(p *gopter.GenParameters) *gopter.GenResult {
		return gopter.NewGenResult(stack(p.Rng, Options{}, true), gopter.NoShrinker)
	}
}

var scalarNames = []string{"cpus", "mem", "disk", "gpus", "foo"}

func scalar(rng *rand.Rand) resources.Scalar {
	switch rng.Intn(4) {
	case 0:
		return resources.Scalar(1 + rng.Intn(999)) // below one unit
	case 1:
		return resources.Units(int64(1 + rng.Intn(64)))
	}
	return resources.Scalar(1 + rng.Intn(64000))
}

func ranges(rng *rand.Rand) resources.Ranges {
	var list []resources.Range
	for range 1 + rng.Intn(3) {
		b := uint64(rng.Intn(100))
		list = append(list, resources.Range{Begin: b, End: b + uint64(rng.Intn(10))})
	}
	if rng.Intn(20) == 0 {
		list = append(list, resources.Range{Begin: 1<<64 - 3, End: 1<<64 - 1})
	}
	r, err := resources.NewRanges(list...)
	if err != nil {
		panic(err)
	}
	return r
}

func set(rng *rand.Rand, o Options) resources.Set {
	seen := map[string]bool{}
	var items []string
	for range 1 + rng.Intn(3) {
		item := str(rng, o, []string{"sda1", "sdb1", "nvme0", "gpu0", "gpu1"})
		if !seen[item] {
			seen[item] = true
			items = append(items, item)
		}
	}
	s, err := resources.NewSet(items...)
	if err != nil {
		panic(err)
	}
	return s
}

func disk(rng *rand.Rand, o Options, reserved bool) *volume.Disk {
	d := &volume.Disk{}
	switch rng.Intn(6) {
	case 0:
		d.Source = &volume.Source{Type: volume.Path, Root: str(rng, o, []string{"/data", "/var/lib"})}
	case 1:
		d.Source = &volume.Source{Type: volume.Mount, Root: str(rng, o, []string{"/mnt/ssd", "/mnt/hdd"})}
	case 2:
		d.Source = &volume.Source{Type: volume.Block, ID: pick(rng, []string{"", "blk1"})}
	case 3:
		d.Source = &volume.Source{Type: volume.Raw, ID: pick(rng, []string{"", "raw1"})}
	}
	if reserved && rng.Intn(2) == 0 {
		id := str(rng, o, []string{"pg", "kafka", "vol1"})
		if volume.ValidatePersistenceID(id) != nil {
			id = "p:" + strconv.Itoa(rng.Intn(3)) // ids hold no whitespace or backslash
		}
		d.Persistence = &volume.Persistence{ID: id}
		if rng.Intn(2) == 0 {
			d.Persistence.Principal = str(rng, o, principals)
		}
		mode := volume.RW
		if rng.Intn(4) == 0 {
			mode = volume.RO
		}
		d.Volume = &volume.Volume{ContainerPath: str(rng, o, []string{"data", "/var/lib/pg"}), Mode: mode}
	}
	if d.IsEmpty() {
		return nil
	}
	return d
}

// resource draws one valid, non-empty resource and its number of copies
// (more than one only for shared volumes).
func resource(rng *rand.Rand, o Options) (resources.Resource, int) {
	var r resources.Resource
	switch k := rng.Intn(10); {
	case k < 6:
		r = resources.ScalarResource(pick(rng, scalarNames), scalar(rng))
	case k < 8:
		r = resources.RangesResource(pick(rng, []string{"ports", "ephemeral_ports"}), ranges(rng))
	default:
		r = resources.SetResource(pick(rng, []string{"disks", "devices"}), set(rng, o))
	}
	if o.Reservations {
		r.Reservations = stack(rng, o, true)
	}
	copies := 1
	if o.Disks && r.Name == "disk" && rng.Intn(2) == 0 {
		if !r.IsReserved() && rng.Intn(2) == 0 {
			r.Reservations = stack(rng, o, false)
		}
		r.Disk = disk(rng, o, r.IsReserved())
		if r.IsPersistentVolume() && rng.Intn(3) == 0 {
			r.Shared = true
			copies = 1 + rng.Intn(3)
		}
	}
	if o.Revocable && rng.Intn(6) == 0 && !r.IsPersistentVolume() {
		r.Revocable = true
	}
	if o.Providers && rng.Intn(8) == 0 {
		r.ProviderID = pick(rng, []string{"rp1", "rp2", "rp,3"})
	}
	if o.Allocations && rng.Intn(5) == 0 {
		r.AllocationRole = role(rng, o)
	}
	return r, copies
}

// ResourceWith generates one valid, non-empty resources.Resource.
func ResourceWith(o Options) gopter.Gen {
	return func(p *gopter.GenParameters) *gopter.GenResult {
		r, _ := resource(p.Rng, o)
		return gopter.NewGenResult(r, gopter.NoShrinker)
	}
}

// Resource generates one valid resource with every kind of metadata.
func Resource() gopter.Gen { return ResourceWith(All()) }

// ResourcesWith generates valid resources.Resources of up to o.MaxEntries
// added resources (the result may hold fewer entries after merging).
func ResourcesWith(o Options) gopter.Gen {
	limit := o.MaxEntries
	if limit <= 0 {
		limit = 8
	}
	return func(p *gopter.GenParameters) *gopter.GenResult {
		n := p.Rng.Intn(limit + 1)
		var rs resources.Resources
		for range n {
			r, copies := resource(p.Rng, o)
			for range copies {
				if err := rs.AddResource(r); err != nil {
					panic("gen: generated an invalid resource: " + err.Error())
				}
			}
		}
		return gopter.NewGenResult(rs, shrinkResources)
	}
}

// Resources generates valid Resources with every kind of metadata: merged
// and separate reservations, refinements, labels, disk sources, persistent
// and shared volumes, revocable, provider and allocation tags, and strings
// that need quoting.
func Resources() gopter.Gen { return ResourcesWith(All()) }

// PlainResources generates Resources with reservations but without disks,
// revocable, provider or allocation tags: what most allocator tests need.
func PlainResources() gopter.Gen { return ResourcesWith(Options{Reservations: true}) }

// shrinkResources shrinks a Resources by dropping one entry at a time.
func shrinkResources(v interface{}) gopter.Shrink {
	entries := v.(resources.Resources).Slice()
	i := 0
	return func() (interface{}, bool) {
		if i >= len(entries) {
			return nil, false
		}
		var rs resources.Resources
		for j, r := range entries {
			if j != i {
				_ = rs.AddResource(r)
			}
		}
		i++
		return rs, true
	}
}

var quantityNames = []string{"cpus", "mem", "disk", "gpus", "foo", "bar"}

func quantities(rng *rand.Rand) resources.Quantities {
	var q resources.Quantities
	for _, name := range quantityNames {
		if rng.Intn(2) == 0 {
			q.SetScalar(name, scalar(rng))
		}
	}
	return q
}

// Quantities generates resources.Quantities over a few common names.
func Quantities() gopter.Gen {
	return func(p *gopter.GenParameters) *gopter.GenResult {
		return gopter.NewGenResult(quantities(p.Rng), gopter.NoShrinker)
	}
}

// Limits generates resources.Limits over the names of Quantities, zero
// limits included.
func Limits() gopter.Gen {
	return func(p *gopter.GenParameters) *gopter.GenResult {
		var l resources.Limits
		for _, name := range quantityNames {
			switch p.Rng.Intn(3) {
			case 0:
				l.Set(name, scalar(p.Rng))
			case 1:
				if p.Rng.Intn(4) == 0 {
					l.Set(name, 0)
				}
			}
		}
		return gopter.NewGenResult(l, gopter.NoShrinker)
	}
}

// Agent generates what a typical agent offers: cpus, mem and disk, a port
// range, sometimes gpus, and sometimes part of it statically or dynamically
// reserved.
func Agent() gopter.Gen {
	return func(p *gopter.GenParameters) *gopter.GenResult {
		rng := p.Rng
		rs := resources.Resources{}
		add := func(r resources.Resource) {
			if err := rs.AddResource(r); err != nil {
				panic(err)
			}
		}
		add(resources.ScalarResource("cpus", resources.Units(int64(1+rng.Intn(64)))))
		add(resources.ScalarResource("mem", resources.Units(int64(1024*(1+rng.Intn(256))))))
		add(resources.ScalarResource("disk", resources.Units(int64(1000*(1+rng.Intn(100))))))
		add(resources.RangesResource("ports", resources.Ranges{{Begin: 31000, End: 32000}}))
		if rng.Intn(4) == 0 {
			add(resources.ScalarResource("gpus", resources.Units(int64(1+rng.Intn(8)))))
		}
		if rng.Intn(2) == 0 {
			r := resources.ScalarResource(pick(rng, []string{"cpus", "mem"}), resources.Units(int64(1+rng.Intn(4))))
			r.Reservations = stack(rng, Options{}, false)
			add(r)
		}
		return gopter.NewGenResult(rs, shrinkResources)
	}
}
