package sorter

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/allot-go/allot/resources"
)

// ErrInvalidUsageOptions: UsageOptions with a negative half-life or no
// clock.
var ErrInvalidUsageOptions = errors.New("sorter: invalid usage options")

// UsageOptions configure a Usage sorter.
type UsageOptions struct {
	// HalfLife is how long it takes for what a client held to count half
	// as much in its record. Zero keeps no history: the record is what the
	// client holds now, and the order is DRF's on the clients' own
	// holdings.
	HalfLife time.Duration
	// Clock reads the time the record decays by: the host's clock (a
	// simulation passes its allocator.ManualClock's Now). It is required;
	// the sorter never reads the system clock.
	Clock func() time.Time
}

func (o UsageOptions) validate() error {
	switch {
	case o.HalfLife < 0:
		return fmt.Errorf("%w: half-life %s is negative", ErrInvalidUsageOptions, o.HalfLife)
	case o.Clock == nil:
		return fmt.Errorf("%w: no clock", ErrInvalidUsageOptions)
	}
	return nil
}

// Usage is the usage-history fairness sorter, in the manner of Kueue's
// admission fair sharing: it serves first the client that has held the
// least lately, by a time-decayed record of its dominant share, so that a
// tenant that was idle while others worked catches up when it comes back,
// and one that held much keeps paying for it for a while after.
//
// # The record and the order
//
// A client's record H is an exponentially weighted average over time of
// its own dominant share x (what it holds, over the pool, of the resource
// it holds most of, names in Config.FairnessExcluded left out): over a
// stretch of time Δ in which the client holds x,
//
//	H ← H·d + x·(1−d),  d = 2^(−Δ / HalfLife)
//
// so a client that has held x for a long time has H = x, and what it held
// a half-life ago counts half. The record is brought up to date, with the
// share held until then, whenever the client's holdings or the pool
// change, and read at the clock's time when the sorter orders.
//
// Clients are ordered by (H + x) / weight, ascending. The record alone
// moves only with time, so within one allocation run (one instant) every
// agent would go to the same client; adding what the client holds now
// makes each offer count at once, as Kueue's entry penalty does. A client
// that has held x steadily sorts at 2x / weight: in the long run the
// sorter shares as DRF does, and with a zero half-life it orders exactly as
// DRF does on the clients' own holdings (2x / weight, the same order).
// Ties go by allocation count (ascending: the one served less often
// first), then by path, so the order is always fully determined.
//
// The order is flat: every active client competes with every other by its
// own holdings, whatever the tree of paths (a client "eng" with a child
// "eng/web" is charged only for what it holds itself). A new client, and a
// client removed and added again, starts with an empty record. Weights
// are read when ordering, so a change of weight applies to the whole
// record at once. A clock that goes back is taken to stand still.
//
// Usage implements Walker, Sharer (ShareOf is the ordering key) and
// Charger; not Snapshotter (an allocator using it cannot take snapshots)
// nor Allowances. Its bookkeeping is an Accounting's. It is not safe for
// concurrent use.
type Usage struct {
	Accounting
	halfLife time.Duration
	clock    func() time.Time

	records map[string]*usageRecord

	// entries are the active clients in order under their keys at
	// orderAt, while valid; dirty lists the clients whose figures changed
	// since, to be moved at the next Walk or Sort.
	entries []usageEntry
	orderAt time.Time
	valid   bool
	dirty   []string
	// order is Sort's result, made from entries while orderOK.
	order   []string
	orderOK bool
}

// usageRecord is one client's history: its record as of at, and the
// unweighted dominant share it has held since.
type usageRecord struct {
	history float64
	at      time.Time
	share   float64
}

// usageEntry is a client in the order, with its sort keys.
type usageEntry struct {
	client string
	key    float64
	count  uint64
}

var (
	_ Sorter  = (*Usage)(nil)
	_ Walker  = (*Usage)(nil)
	_ Sharer  = (*Usage)(nil)
	_ Charger = (*Usage)(nil)
)

// NewUsage returns an empty Usage sorter. cfg.FairnessExcluded names the
// resources shares leave out; cfg.Seed is not used.
func NewUsage(cfg Config, opts UsageOptions) (*Usage, error) {
	if err := opts.validate(); err != nil {
		return nil, err
	}
	return &Usage{
		Accounting: NewAccounting(cfg),
		halfLife:   opts.HalfLife,
		clock:      opts.Clock,
		records:    make(map[string]*usageRecord),
	}, nil
}

// UsageFactory returns a Factory of Usage sorters with opts, for
// allocator.Options.RoleSorter or FrameworkSorter, after checking opts.
func UsageFactory(opts UsageOptions) (Factory, error) {
	if err := opts.validate(); err != nil {
		return nil, err
	}
	return func(cfg Config) Sorter {
		u, _ := NewUsage(cfg, opts) // opts were checked above
		return u
	}, nil
}

// now reads the clock.
func (u *Usage) now() time.Time { return u.clock() }

// decay returns d, the weight the record at `at` keeps at now.
func (u *Usage) decay(at, now time.Time) float64 {
	if u.halfLife == 0 {
		return 0
	}
	elapsed := max(now.Sub(at), 0) // a record from the future keeps all
	return math.Exp2(-elapsed.Seconds() / u.halfLife.Seconds())
}

// historyAt returns r's record at now.
func (u *Usage) historyAt(r *usageRecord, now time.Time) float64 {
	d := u.decay(r.at, now)
	return r.history*d + r.share*(1-d)
}

// ownShare returns client's unweighted dominant share of what it holds
// itself.
func (u *Usage) ownShare(client string) float64 {
	t := u.tree()
	l, ok := t.leafOf(client)
	if !ok {
		return 0
	}
	s, _ := l.total.DominantShare(t.total, t.excluded)
	return s
}

// settle brings client's record up to now with the share it held until
// now, then takes its current share: called after every change of its
// holdings.
func (u *Usage) settle(client string, now time.Time) {
	r, ok := u.records[client]
	if !ok {
		return
	}
	r.history = u.historyAt(r, now)
	if now.After(r.at) {
		r.at = now
	}
	r.share = u.ownShare(client)
	u.dirty = append(u.dirty, client)
}

// held records a change of client's holdings, when err says it happened.
func (u *Usage) held(client string, err error) error {
	if err == nil {
		u.settle(client, u.now())
	}
	return err
}

// reshaped drops the order, when err says a change happened.
func (u *Usage) reshaped(err error) error {
	if err == nil {
		u.valid = false
	}
	return err
}

// Add adds an inactive client with no allocation and an empty record.
func (u *Usage) Add(client string) error {
	if err := u.Accounting.Add(client); err != nil {
		return err
	}
	u.records[client] = &usageRecord{at: u.now()}
	u.valid = false
	return nil
}

// Remove removes a client with its allocation and its record.
func (u *Usage) Remove(client string) error {
	if err := u.Accounting.Remove(client); err != nil {
		return err
	}
	delete(u.records, client)
	u.valid = false
	return nil
}

// Activate makes client eligible for Sort.
func (u *Usage) Activate(client string) error { return u.reshaped(u.Accounting.Activate(client)) }

// Deactivate hides client from Sort, keeping its allocation and record.
func (u *Usage) Deactivate(client string) error {
	return u.reshaped(u.Accounting.Deactivate(client))
}

// UpdateWeight sets the weight of path; the keys read it when ordering.
func (u *Usage) UpdateWeight(path string, weight float64) error {
	return u.reshaped(u.Accounting.UpdateWeight(path, weight))
}

// Allocated records that r on agent was given to client.
func (u *Usage) Allocated(client, agent string, r resources.Resources) error {
	return u.held(client, u.Accounting.Allocated(client, agent, r))
}

// Unallocated records that client gave back r on agent.
func (u *Usage) Unallocated(client, agent string, r resources.Resources) error {
	return u.held(client, u.Accounting.Unallocated(client, agent, r))
}

// Update replaces old with new in client's allocation on agent.
func (u *Usage) Update(client, agent string, old, new resources.Resources) error {
	return u.held(client, u.Accounting.Update(client, agent, old, new))
}

// Charge adds q to client's allocation (see Charger).
func (u *Usage) Charge(client string, q resources.Quantities, count bool) error {
	return u.held(client, u.changed(u.tree().chargeQuantities(client, q, count)))
}

// Discharge takes q back from client's charged allocation (see Charger).
func (u *Usage) Discharge(client string, q resources.Quantities) error {
	return u.held(client, u.changed(u.tree().dischargeQuantities(client, q)))
}

// AddAgent sets the agent's total: every share changes, so every record
// is settled with the shares held until now.
func (u *Usage) AddAgent(agent string, total resources.Quantities) {
	u.Accounting.AddAgent(agent, total)
	u.poolChanged()
}

// RemoveAgent removes the agent's total from the pool.
func (u *Usage) RemoveAgent(agent string) error {
	if err := u.Accounting.RemoveAgent(agent); err != nil {
		return err
	}
	u.poolChanged()
	return nil
}

func (u *Usage) poolChanged() {
	now := u.now()
	for client := range u.records {
		u.settle(client, now)
	}
	u.dirty = u.dirty[:0]
	u.valid = false
}
