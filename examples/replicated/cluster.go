package main

import (
	"encoding/json"
	"fmt"
	"slices"

	"go.etcd.io/raft/v3"
	pb "go.etcd.io/raft/v3/raftpb"

	"github.com/allot-go/allot/allocator"
)

// A Cluster is a group of replicas in one process, joined by a network
// that delivers messages in the order they were sent, through their wire
// form, and can lose a replica (down: it neither sends nor receives again)
// or cut it off for a while.
//
// It is driven by hand, which keeps every run the same: settle delivers
// messages and has every replica handle raft's requests until nothing is
// left to do; only the leader is ticked (its heartbeats get a replica that
// was cut off going again), and an election happens when a replica is told
// to campaign. A service would tick every replica on a timer and let their
// election timers choose who campaigns.
type Cluster struct {
	ids      []uint64
	replicas map[uint64]*Replica
	down     map[uint64]bool
	cut      map[uint64]bool
	queue    []pb.Message
	clock    *allocator.ManualClock

	// committed holds, by index, every entry a replica applied and what
	// applying it gave; replicas that apply the same index must agree.
	committed map[uint64]applied
	err       error
}

// applied is one applied entry, as JSON, and what it gave.
type applied struct {
	entry  []byte
	result string
}

func newCluster(n int, opts allocator.Options, clock *allocator.ManualClock, snapshotEvery uint64) (*Cluster, error) {
	c := &Cluster{replicas: map[uint64]*Replica{}, down: map[uint64]bool{}, cut: map[uint64]bool{}, clock: clock, committed: map[uint64]applied{}}
	for i := range n {
		c.ids = append(c.ids, uint64(i+1))
	}
	opts.Clock = clock.Now
	for _, id := range c.ids {
		r, err := newReplica(id, c.ids, opts, snapshotEvery)
		if err != nil {
			return nil, err
		}
		r.send = func(ms []pb.Message) { c.queue = append(c.queue, ms...) }
		r.onApply = c.noteApplied
		c.replicas[id] = r
	}
	return c, nil
}

// noteApplied records what a replica applied at an index, and finds out a
// replica that disagrees with another.
func (c *Cluster) noteApplied(r *Replica, index uint64, e allocator.Entry, res allocator.Result, err error) {
	data, _ := json.Marshal(e)
	got := applied{entry: data, result: render(res, err)}
	if prev, ok := c.committed[index]; ok {
		if string(prev.entry) != string(got.entry) || prev.result != got.result {
			c.fail(fmt.Errorf("replica %d applied at %d:\n%s -> %s\nanother replica:\n%s -> %s", r.id, index, got.entry, got.result, prev.entry, prev.result))
		}
		return
	}
	c.committed[index] = got
}

func (c *Cluster) fail(err error) {
	if c.err == nil {
		c.err = err
	}
}

// render prints what applying an entry gave: a run's offers and inverse
// offers, or the event's error.
func render(res allocator.Result, err error) string {
	if err != nil {
		return "error: " + err.Error()
	}
	return fmt.Sprintf("%v %v", res.Offers, res.InverseOffers)
}

// settle runs the group until no replica has anything to do and no message
// is in flight.
func (c *Cluster) settle() error {
	for {
		progress := false
		for _, id := range c.ids {
			if c.down[id] {
				continue
			}
			did, err := c.replicas[id].handleReady()
			if err != nil {
				return err
			}
			progress = progress || did
		}
		msgs := c.queue
		c.queue = nil
		for _, m := range msgs {
			progress = true
			c.deliver(m)
		}
		if c.err != nil {
			return c.err
		}
		if !progress {
			return nil
		}
	}
}

// deliver hands a message to its replica through its wire form, or drops
// it if either end is down or cut off.
func (c *Cluster) deliver(m pb.Message) {
	from, to := m.From, m.To
	if c.down[from] {
		return
	}
	sender := c.replicas[from]
	if c.down[to] || c.cut[to] || c.cut[from] {
		sender.node.ReportUnreachable(to)
		if m.Type == pb.MsgSnap {
			sender.node.ReportSnapshot(to, raft.SnapshotFailure)
		}
		return
	}
	data, err := m.Marshal()
	if err != nil {
		c.fail(err)
		return
	}
	var in pb.Message
	if err := in.Unmarshal(data); err != nil {
		c.fail(err)
		return
	}
	_ = c.replicas[to].node.Step(in)
	if m.Type == pb.MsgSnap {
		sender.node.ReportSnapshot(to, raft.SnapshotFinish)
	}
}

// leader returns the replica that leads the group: up, not cut off, and
// leader in the highest term.
func (c *Cluster) leader() *Replica {
	var best *Replica
	for _, id := range c.ids {
		r := c.replicas[id]
		if c.down[id] || c.cut[id] || !r.isLeader() {
			continue
		}
		if best == nil || r.node.BasicStatus().Term > best.node.BasicStatus().Term {
			best = r
		}
	}
	return best
}

// live returns the replicas that are up.
func (c *Cluster) live() []*Replica {
	var out []*Replica
	for _, id := range c.ids {
		if !c.down[id] {
			out = append(out, c.replicas[id])
		}
	}
	return out
}

// campaign has replica id stand for election, as when its election timer
// fires, and returns the leader that comes out of it.
func (c *Cluster) campaign(id uint64) (*Replica, error) {
	if err := c.settle(); err != nil {
		return nil, err
	}
	if err := c.replicas[id].node.Campaign(); err != nil {
		return nil, err
	}
	if err := c.settle(); err != nil {
		return nil, err
	}
	l := c.leader()
	if l == nil {
		return nil, fmt.Errorf("no leader after replica %d campaigned", id)
	}
	return l, nil
}

// tick ticks the leader: it sends heartbeats, which bring back a replica
// that missed messages.
func (c *Cluster) tick() error {
	if l := c.leader(); l != nil {
		l.node.Tick()
	}
	return c.settle()
}

// propose stamps an event with the clock, has the leader propose it, and
// settles: when it returns, every replica that is up and connected has
// applied the event.
func (c *Cluster) propose(e allocator.Entry) error {
	l := c.leader()
	if l == nil {
		return fmt.Errorf("no leader")
	}
	e.At = c.clock.Now()
	if err := l.propose(e); err != nil {
		return err
	}
	return c.settle()
}

// kill takes a replica down for good: it sends and receives nothing again.
func (c *Cluster) kill(id uint64) { c.down[id] = true }

// disconnect cuts a replica off the network; reconnect joins it again.
func (c *Cluster) disconnect(id uint64) { c.cut[id] = true }
func (c *Cluster) reconnect(id uint64)  { delete(c.cut, id) }

// indexes returns the committed indexes that carry events, in order.
func (c *Cluster) indexes() []uint64 {
	var out []uint64
	for i := range c.committed {
		out = append(out, i)
	}
	slices.Sort(out)
	return out
}
